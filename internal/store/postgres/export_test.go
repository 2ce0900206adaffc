package postgres

import "context"

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

// SetMergeRows sets how many staged rows start a handle's background
// merge, until the returned function restores it.
func SetMergeRows(n int) (restore func()) {
	old := mergeRows
	mergeRows = n
	return func() { mergeRows = old }
}

// SetAnalyzeEvery sets how many rows a handle writes between two looks for
// grown tables, until the returned function restores it.
func SetAnalyzeEvery(n int) (restore func()) {
	old := analyzeEvery
	analyzeEvery = n
	return func() { analyzeEvery = old }
}

// WaitAnalyzed waits for the handle's look for grown tables, if one runs.
func (db *DB) WaitAnalyzed() { db.grown.wg.Wait() }

// AnalyzeGrown analyzes the tables that grew now (see analyzeGrown).
func (db *DB) AnalyzeGrown(ctx context.Context) ([]string, error) { return db.analyzeGrown(ctx) }

// SetPageChunkBytes sets how much page text one statement of a commit
// writes, until the returned function restores it.
func SetPageChunkBytes(n int) (restore func()) {
	old := pageChunkBytes
	pageChunkBytes = n
	return func() { pageChunkBytes = old }
}

// SetStageThresholds sets when a stage is large enough to merge (see
// stageMin, stageShare), until the returned function restores them.
func SetStageThresholds(min, share int64) (restore func()) {
	oldMin, oldShare := stageMin, stageShare
	stageMin, stageShare = min, share
	return func() { stageMin, stageShare = oldMin, oldShare }
}

// SetMergeApart sets the smallest stage merged in ranges apart and the
// number of ranges (see mergeApartMin, mergeRanges), until the returned
// function restores them.
func SetMergeApart(min int64, ranges int) (restore func()) {
	oldMin, oldRanges := mergeApartMin, mergeRanges
	mergeApartMin, mergeRanges = min, ranges
	return func() { mergeApartMin, mergeRanges = oldMin, oldRanges }
}

// MaintainLockForTest is the advisory lock the maintenance of the store
// in schema holds.
func MaintainLockForTest(schema string) int64 { return (&DB{scope: schema}).maintainLock() }

// HostRangeForTest is hostRange.
func HostRangeForTest(r int) (lo, hi int64) { return hostRange(r) }

// FullURLSQLForTest is fullURLSQL.
func FullURLSQLForTest(rel, key string) string { return fullURLSQL(rel, key) }

// RelURLSQLForTest is relURLSQL.
func RelURLSQLForTest(u, key string) string { return relURLSQL(u, key) }

// AnchorsOf is anchorsOf: the SQL of the anchor text indexed for the page
// whose ID is the SQL expression id.
func AnchorsOf(id string) string { return anchorsOf(id) }
