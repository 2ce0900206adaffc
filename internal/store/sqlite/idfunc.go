package sqlite

import (
	"database/sql/driver"
	"fmt"

	sqlite "modernc.org/sqlite"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
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

// acrawler_fold(text) is query.Fold in SQL: the text a full-text index
// takes, with the capitals its tokenizer does not fold lowercased.
func init() {
	sqlite.MustRegisterDeterministicScalarFunction("acrawler_fold", 1,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			switch s := args[0].(type) {
			case string:
				return query.Fold(s), nil
			case []byte:
				return query.Fold(string(s)), nil
			case nil:
				return nil, nil
			default:
				return nil, fmt.Errorf("acrawler_fold: want text, got %T", args[0])
			}
		})
}
