package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// TestHostValueReadsIndex: valuing a host reads the pages' columns from
// the covering index pages_search, not from the table rows, where they sit
// behind the page's text.
func TestHostValueReadsIndex(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "crawl.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.w.QueryContext(ctx, `EXPLAIN QUERY PLAN `+hostValueSQL, 1, crawl.HostValueWindow)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	pages := 0
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		// The host's pages are p, the targets of its links tp.
		if f := strings.Fields(detail); len(f) > 1 && (f[1] == "p" || f[1] == "tp") {
			pages++
			if !strings.Contains(detail, "COVERING INDEX pages_search") {
				t.Errorf("host value plan reads pages without the covering index: %s", detail)
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if pages != 2 {
		t.Errorf("host value plan reads pages %d times, want 2 (the host's pages, the targets')", pages)
	}
}
