package sqlite

import (
	"fmt"
	"math/bits"

	"github.com/acrawler/acrawler/internal/crawl"
)

// The full-text indexes (pages_fts, pages_top) and the search tier key a
// page by its URL ID rotated so that the bits of the URL's own hash come
// first: crawl.URLID puts its host's first, which keeps the other tables
// grouped by host, but the search reads a query's matches in key order as
// a uniform sample of them (see exactLimit), and that needs keys spread
// evenly over the hosts.

// ftsKey is the full-text row key of a URL ID.
func ftsKey(id crawl.ID) crawl.ID {
	return crawl.ID(bits.RotateLeft64(uint64(id), crawl.URLHostBits))
}

// urlIDOfKey is the URL ID of a full-text row key.
func urlIDOfKey(k crawl.ID) crawl.ID {
	return crawl.ID(bits.RotateLeft64(uint64(k), -crawl.URLHostBits))
}

// sqlFTSKey is ftsKey of the SQL expression x, in SQL. SQLite shifts 64-bit
// integers, dropping the bits shifted out, and extends the sign on a right
// shift, which the mask clears.
func sqlFTSKey(x string) string {
	return fmt.Sprintf("((%[1]s << %[2]d) | ((%[1]s >> %[3]d) & %[4]d))",
		x, crawl.URLHostBits, 64-crawl.URLHostBits, 1<<crawl.URLHostBits-1)
}

// sqlURLID is urlIDOfKey of the SQL expression k, in SQL.
func sqlURLID(k string) string {
	return fmt.Sprintf("((((%[1]s) >> %[2]d) & %[3]d) | ((%[1]s) << %[4]d))",
		k, crawl.URLHostBits, uint64(1)<<(64-crawl.URLHostBits)-1, 64-crawl.URLHostBits)
}
