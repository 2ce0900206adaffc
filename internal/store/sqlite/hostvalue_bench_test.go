package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// BenchmarkValueHosts measures valuing hosts of 200 recorded pages
// (storetest.BenchValueHosts):
//
//	go test -run '^$' -bench BenchmarkValueHosts -benchtime 20x ./internal/store/sqlite
func BenchmarkValueHosts(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "value.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	storetest.BenchValueHosts(b, db, func([]crawl.ID) {
		if _, err := db.w.ExecContext(ctx, `UPDATE hosts SET value_fetched = 0`); err != nil {
			b.Fatal(err)
		}
	})
}
