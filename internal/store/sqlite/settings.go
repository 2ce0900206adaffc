package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/acrawler/acrawler/internal/crawl"
)

// SetSetting records a crawl setting, replacing its earlier value.
func (db *DB) SetSetting(ctx context.Context, key, value string) error {
	err := db.tx(ctx, func(t *txn) error {
		_, err := t.tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: set setting %s: %w", key, err)
	}
	return nil
}

// Setting returns the recorded value of a crawl setting, or an error
// wrapping crawl.ErrNotFound when it was never set.
func (db *DB) Setting(ctx context.Context, key string) (string, error) {
	var v string
	err := db.r.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", fmt.Errorf("sqlite: setting %s: %w", key, crawl.ErrNotFound)
	case err != nil:
		return "", fmt.Errorf("sqlite: setting %s: %w", key, err)
	}
	return v, nil
}
