package postgres

import (
	"context"
	"math"
)

// MergeInlinks merges the staged inbound links now (see mergeInlinks).
func (db *DB) MergeInlinks(ctx context.Context, all bool) (int64, error) {
	return db.mergeInlinks(ctx, all)
}

// Abandon closes the handle as a killed process leaves the database: with
// no last merge of the inbound links it staged.
func (db *DB) Abandon() {
	db.merger.mu.Lock()
	db.merger.any = false
	db.merger.mu.Unlock()
	db.merger.wg.Wait()
	db.pool.Close()
}

// Tune is a change of a store's sizes for a test, applied by Tuned.
type Tune func(*tuning)

// Tuned returns opts with its store's sizes (defaultTuning, or those opts
// has) changed by each of tunes.
func Tuned(opts Options, tunes ...Tune) Options {
	t := defaultTuning
	if opts.tune != nil {
		t = *opts.tune
	}
	for _, tune := range tunes {
		tune(&t)
	}
	opts.tune = &t
	return opts
}

// MergeRows sets how many staged rows start a handle's background merge.
func MergeRows(n int) Tune { return func(t *tuning) { t.mergeRows = n } }

// AnalyzeEvery sets how many rows a handle writes between two looks for
// grown tables.
func AnalyzeEvery(n int) Tune { return func(t *tuning) { t.analyzeEvery = n } }

// PageChunkBytes sets how much page text one statement of a commit writes.
func PageChunkBytes(n int) Tune { return func(t *tuning) { t.pageChunk = n } }

// StageThresholds sets when a stage is large enough to merge (see
// stageMin, stageShare).
func StageThresholds(min, share int64) Tune {
	return func(t *tuning) { t.stageMin, t.stageShare = min, share }
}

// MergeApart sets the smallest stage merged in ranges apart and the number
// of ranges (see mergeApartMin, mergeRanges).
func MergeApart(min int64, ranges int) Tune {
	return func(t *tuning) { t.mergeApartMin, t.mergeRanges = min, ranges }
}

// PackMin sets the fewest staged offers a merge packs into runs.
func PackMin(n int64) Tune { return func(t *tuning) { t.packMin = n } }

// SettingsFrom sets the fewest URLs stored from which a store opened for
// writing advises on the server's settings.
func SettingsFrom(n int64) Tune { return func(t *tuning) { t.settingsFrom = n } }

// Advice is the settings advice a store gives for the server settings
// autovacuum, max_wal_size (bytes) and wal_compression: the names of the
// settings to change.
func Advice(autovacuum bool, maxWALSize int64, walCompression string) []string {
	var names []string
	for _, a := range (serverSettings{autovacuum, maxWALSize, walCompression}).advise() {
		names = append(names, a.setting)
	}
	return names
}

// StagedFinds makes commits stage their discoveries once from URLs are
// stored (findsNever: never), and merge the stage once it holds least
// entries (finds.go).
func StagedFinds(from, least int64) Tune {
	return func(t *tuning) { t.findsFrom, t.findsMin, t.findsShare = from, least, 1<<62 }
}

// MergeSeen adds IDs (sorted, none in seen) with their runs to seen, as
// a packing merge does.
func (db *DB) MergeSeen(ctx context.Context, ids, runs []int64) error {
	return db.write(ctx, durable, func(ctx context.Context, t *txn) error {
		b := t.batch()
		b.Queue(`INSERT INTO seen_new SELECT * FROM unnest($1::bigint[], $2::bigint[])`, ids, runs)
		b.Queue(mergeSeenSQL, int64(math.MinInt64), int64(math.MaxInt64))
		return t.commit(ctx, b)
	})
}

// SeenRunSQL is seenRunSQL.
var SeenRunSQL = seenRunSQL

// WaitAnalyzed waits for the handle's look for grown tables, if one runs.
func (db *DB) WaitAnalyzed() { db.grown.wg.Wait() }

// AnalyzeGrown analyzes the tables that grew now (see analyzeGrown).
func (db *DB) AnalyzeGrown(ctx context.Context) ([]string, error) { return db.analyzeGrown(ctx) }

// MaintainLockForTest is the advisory lock the maintenance of the store
// in schema holds.
func MaintainLockForTest(schema string) int64 { return (&DB{scope: schema}).maintainLock() }

// HostRangeForTest is hostRange.
func HostRangeForTest(r, n int) (lo, hi int64) { return hostRange(r, n) }

// FullURLSQLForTest is fullURLSQL.
func FullURLSQLForTest(rel, key string) string { return fullURLSQL(rel, key) }

// RelURLSQLForTest is relURLSQL.
func RelURLSQLForTest(u, key string) string { return relURLSQL(u, key) }

// AnchorsOf is anchorsOf: the SQL of the anchor text indexed for the page
// whose ID is the SQL expression id.
func AnchorsOf(id string) string { return anchorsOf(id) }

// UnpackAll makes every packed URL a row of urls, queued, as a claim or
// a page linking to it does.
func (db *DB) UnpackAll(ctx context.Context) error {
	var ids []int64
	if err := db.pool.QueryRow(ctx, `SELECT coalesce(array_agg(x.id ORDER BY x.id), '{}') FROM seen, unnest(ids) AS x(id)`).
		Scan(&ids); err != nil {
		return err
	}
	return db.write(ctx, durable, func(ctx context.Context, t *txn) error {
		if err := t.send(ctx, t.batch()); err != nil { // begin
			return err
		}
		b := t.batch()
		if err := t.unpackURLs(ctx, b, ids); err != nil {
			return err
		}
		return t.commit(ctx, b)
	})
}
