package sqlite

import (
	"database/sql/driver"
	"fmt"

	sqlite "modernc.org/sqlite"

	"github.com/acrawler/acrawler/internal/crawl"
)

// acrawler_url_id(url) is crawl.URLID in SQL, for the migration that
// moved URL IDs to it (0009).
func init() {
	sqlite.MustRegisterDeterministicScalarFunction("acrawler_url_id", 1,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			switch u := args[0].(type) {
			case string:
				return int64(crawl.URLID(u)), nil
			case []byte:
				return int64(crawl.URLID(string(u))), nil
			default:
				return nil, fmt.Errorf("acrawler_url_id: want a URL, got %T", args[0])
			}
		})
}
