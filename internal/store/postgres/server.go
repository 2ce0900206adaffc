package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
)

// Server settings that cost a large crawl (docs/postgres.md, "Server
// settings for a large crawl"). A store opened for writing that holds
// settingsFrom URLs or more logs, once, each setting of the server that
// makes the crawl write or keep more than it needs to. Below that size
// the tables are small and the defaults cost little. A failed read is
// logged at debug level: the settings are advice, not a condition of
// opening.
const settingsFrom = 1_000_000

// walSizeAdvised is the least max_wal_size advised for a large crawl
// (the default is 1 GB).
const walSizeAdvised = 4 << 30

// serverSettingsSQL reads the settings a large crawl's writes depend on,
// and about how many URLs the store holds (urls_seq draws a value for
// each URL inserted or packed).
var serverSettingsSQL = `SELECT current_setting('autovacuum') = 'on', pg_size_bytes(current_setting('max_wal_size')),
	current_setting('wal_compression'), ` + strings.TrimPrefix(storedSQL, "SELECT ")

// serverSettings are the server's settings that advice is given on.
type serverSettings struct {
	autovacuum     bool
	maxWALSize     int64  // bytes
	walCompression string // off, on, pglz, lz4, zstd (PostgreSQL 15)
}

// advice is one setting to change, and why.
type advice struct {
	setting, value, advised, why string
}

// advise returns the settings of s a large crawl should change.
func (s serverSettings) advise() []advice {
	var out []advice
	if !s.autovacuum {
		out = append(out, advice{"autovacuum", "off", "on",
			"the row versions that merges, claims and commits replace are never reclaimed, and the tables grow with each of them"})
	}
	if s.maxWALSize < walSizeAdvised {
		out = append(out, advice{"max_wal_size", fmt.Sprintf("%d MB", s.maxWALSize>>20), fmt.Sprintf("%d GB or more", walSizeAdvised>>30),
			"a checkpoint comes every max_wal_size of WAL, and after each the first change to a page writes the whole page to the WAL; " +
				"a crawl's changes fall on random pages: at 10M URLs a page crawled wrote 80 KB of WAL with 1 GB, 18–24 KB with 4 or 16 GB"})
	}
	if s.walCompression == "off" {
		out = append(out, advice{"wal_compression", "off", "lz4 (pglz on a server built without it)",
			"the whole pages written to the WAL after each checkpoint go uncompressed: at 10M URLs a page crawled wrote 80 KB of WAL, 28 KB with lz4"})
	}
	return out
}

// adviseSettings logs, for a store of settingsFrom URLs or more, the
// server settings that cost a large crawl.
func (db *DB) adviseSettings(ctx context.Context) {
	var s serverSettings
	var stored int64
	if err := db.pool.QueryRow(ctx, serverSettingsSQL).Scan(&s.autovacuum, &s.maxWALSize, &s.walCompression, &stored); err != nil {
		db.log.Debug("postgres: server settings not read", "db", db.where(), "err", err)
		return
	}
	if stored < db.tune.settingsFrom {
		return
	}
	for _, a := range s.advise() {
		db.log.Warn("postgres: a server setting costs a large crawl", "db", db.where(), "setting", a.setting, "value", a.value,
			"advised", a.advised, "why", a.why, slog.Int64("urls", stored))
	}
}
