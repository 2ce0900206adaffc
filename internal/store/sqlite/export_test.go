package sqlite

import (
	"context"
	"fmt"

	"github.com/acrawler/acrawler/internal/crawl"
)

// SetSchemaVersionForTest pretends a newer acrawler wrote the database.
func (db *DB) SetSchemaVersionForTest(ctx context.Context, v int) error {
	_, err := db.w.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v))
	return err
}

// SetSearchLimitsForTest sets the search strategy's sizes (see Search) and
// returns a function that restores them.
func SetSearchLimitsForTest(exact, share, tier, scored, candidates int) (restore func()) {
	old := [5]int{exactLimit, tierShare, tierSize, tierScored, tierCandidates}
	exactLimit, tierShare, tierSize, tierScored, tierCandidates = exact, share, tier, scored, candidates
	return func() {
		exactLimit, tierShare, tierSize, tierScored, tierCandidates = old[0], old[1], old[2], old[3], old[4]
	}
}

// SetSegmentFlushForTest sets how many bytes of folded text a
// transaction holds before it builds them into segments, and returns a
// function that restores it.
func SetSegmentFlushForTest(n int) (restore func()) {
	old := segFlushBytes
	segFlushBytes = n
	return func() { segFlushBytes = old }
}

// ExecForTest runs statements on the writer connection.
func (db *DB) ExecForTest(ctx context.Context, sql string) error {
	_, err := db.w.ExecContext(ctx, sql)
	return err
}

// SearchTierForTest returns the URL IDs of the search tier, checking that
// its full-text index holds the same pages, each with the token counts
// it has in the main index.
func (db *DB) SearchTierForTest(ctx context.Context) (map[crawl.ID]bool, error) {
	out := map[crawl.ID]bool{}
	rows, err := db.r.QueryContext(ctx, `SELECT url_id FROM search_tier`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id crawl.ID
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[urlIDOfKey(id)] = true
	}
	var n, same int
	// The indexes keep no text (migration 0011): a tier row is compared
	// with the main index by its token count in each column.
	if err := db.r.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(t.sz = f.sz
		AND t.id IN (SELECT url_id FROM search_tier)), 0) FROM pages_top_docsize t JOIN pages_fts_docsize f ON f.id = t.id`).Scan(&n, &same); err != nil {
		return nil, err
	}
	if n != len(out) || same != n {
		return nil, fmt.Errorf("search tier: %d pages listed, %d indexed, %d of them as in the main index", len(out), n, same)
	}
	return out, rows.Err()
}

// BM25ForTest returns FTS5's own ranking of an FTS5 query's matches over
// the whole index: bm25 scores, higher better.
func (db *DB) BM25ForTest(ctx context.Context, match string) (map[crawl.ID]float64, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT rowid, rank FROM pages_fts WHERE pages_fts MATCH ?`, match)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[crawl.ID]float64{}
	for rows.Next() {
		var id crawl.ID
		var r float64
		if err := rows.Scan(&id, &r); err != nil {
			return nil, err
		}
		out[urlIDOfKey(id)] = -r
	}
	return out, rows.Err()
}

// WriterCacheSizeForTest returns the writer connection's cache_size.
func (db *DB) WriterCacheSizeForTest(ctx context.Context) (int, error) {
	var n int
	err := db.w.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&n)
	return n, err
}

// SetWALSizeLimit sets the size a grown WAL file is cut back to, for the
// stores opened until the returned function restores it.
func SetWALSizeLimit(n int64) (restore func()) {
	old := walSizeLimit
	walSizeLimit = n
	return func() { walSizeLimit = old }
}

// CheckpointForTest copies the WAL back into the database file.
func (db *DB) CheckpointForTest(ctx context.Context) error {
	_, err := db.w.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
	return err
}

// SegmentsForTest returns the number of segments of the segments engine
// at each level, those merges retired at -1.
func (db *DB) SegmentsForTest(ctx context.Context) (map[int]int, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT CASE WHEN retired = 0 THEN level ELSE -1 END, count(*) FROM index_segments GROUP BY 1`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int]int{}
	for rows.Next() {
		var level, n int
		if err := rows.Scan(&level, &n); err != nil {
			return nil, err
		}
		out[level] = n
	}
	return out, rows.Err()
}

// EngineForTest returns the store's index engine.
func (db *DB) EngineForTest() string { return db.engine }

// SetCheckpointFrames sets how many frames the writer writes between two
// of the checkpointer's checkpoints, for the stores opened until the
// returned function restores it.
func SetCheckpointFrames(n int64) (restore func()) {
	old := checkpointFrames
	checkpointFrames = n
	return func() { checkpointFrames = old }
}

// CheckpointRoundsForTest returns how many checkpoints the checkpointer
// did to the end; -1 when the store has none.
func (db *DB) CheckpointRoundsForTest() int64 {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.ckpt == nil {
		return -1
	}
	return db.ckpt.rounds.Load()
}

// PackedForTest is o for a store whose every merge of staged offers
// packs the URLs it admits into runs (runs.go), as only large ones do by
// default.
func PackedForTest(o Options) Options {
	tu := defaultTuning
	tu.packMin = 0
	o.tune = &tu
	return o
}

// StagedFindsForTest is o for a store whose commits stage their
// discoveries from from URLs stored on, and merge the stage once it
// holds least offers (finds.go).
func StagedFindsForTest(o Options, from, least int64) Options {
	tu := stagedFinds(from, least)
	o.tune = &tu
	return o
}

// StagedFindsPackedForTest is StagedFindsForTest with every merge
// packing the URLs it admits into runs, discoveries included.
func StagedFindsPackedForTest(o Options, from, least int64) Options {
	tu := stagedFinds(from, least)
	tu.packMin = 0
	o.tune = &tu
	return o
}

// stagedFinds is the tuning of StagedFindsForTest.
func stagedFinds(from, least int64) tuning {
	tu := defaultTuning
	tu.findsFrom, tu.findsMin, tu.findsShare = from, least, 1<<62
	return tu
}

// stagedOffers is the tuning of a store that merges its staged offers
// once it holds least, and packs those of a merge of pack or more.
func stagedOffers(least, pack int64) tuning {
	tu := defaultTuning
	tu.stageMin, tu.stageShare, tu.packMin = least, 1<<40, pack
	return tu
}
