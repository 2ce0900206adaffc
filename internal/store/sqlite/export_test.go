package sqlite

import (
	"context"
	"fmt"
)

// SetSchemaVersionForTest pretends a newer acrawler wrote the database.
func (db *DB) SetSchemaVersionForTest(ctx context.Context, v int) error {
	_, err := db.w.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v))
	return err
}
