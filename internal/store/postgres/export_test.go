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
