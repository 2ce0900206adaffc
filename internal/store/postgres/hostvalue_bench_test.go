package postgres_test

import (
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// BenchmarkValueHosts measures valuing hosts of 200 recorded pages
// (storetest.BenchValueHosts):
//
//	ACRAWLER_TEST_POSTGRES=... go test -run '^$' -bench BenchmarkValueHosts -benchtime 20x ./internal/store/postgres
func BenchmarkValueHosts(b *testing.B) {
	dsn, schema := freshSchema(b)
	db := open(b, dsn, schema)
	storetest.BenchValueHosts(b, db, func([]crawl.ID) {
		exec(b, dsn, schema, `UPDATE hosts SET value_fetched = 0`)
	})
}
