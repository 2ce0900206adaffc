package sqlite

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acrawler/acrawler/internal/crawl"
)

// viaCodes are the numbers urls.via and offers.via hold for the ways a URL
// is found (crawl.ViaCodes; migration 0037 writes the same). The two ways
// of nearly every URL are 0 and 1, which SQLite keeps in a record's header
// alone. A way not listed is kept as its text.
var viaCodes = crawl.ViaCodes

// viaCode is the value urls.via holds for v.
func viaCode(v crawl.Via) any {
	if i := slices.Index(viaCodes, v); i >= 0 {
		return int64(i)
	}
	return string(v)
}

// viaOf is the way a urls.via value v (scanned into an any) stands for.
func viaOf(v any) (crawl.Via, error) {
	switch v := v.(type) {
	case int64:
		if v >= 0 && v < int64(len(viaCodes)) {
			return viaCodes[v], nil
		}
	case string:
		return crawl.Via(v), nil
	case []byte:
		return crawl.Via(v), nil
	}
	return "", fmt.Errorf("sqlite: via %v: not a way a URL is found", v)
}

// ViaNameSQL is an SQL expression of the name of the way that a urls.via
// value col stands for, for tests and tools that read the table with SQL.
func ViaNameSQL(col string) string {
	var b strings.Builder
	b.WriteString("CASE " + col)
	for i, v := range viaCodes {
		fmt.Fprintf(&b, " WHEN %d THEN '%s'", i, v)
	}
	b.WriteString(" ELSE " + col + " END")
	return b.String()
}
