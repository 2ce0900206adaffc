package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/acrawler/acrawler/internal/crawl"
)

// SetSetting records a crawl setting, replacing its earlier value.
func (db *DB) SetSetting(ctx context.Context, key, value string) error {
	if db.readOnly {
		return fmt.Errorf("postgres: set setting %s: store is open read-only", key)
	}
	_, err := db.pool.Exec(ctx, `INSERT INTO settings (key, value) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("postgres: set setting %s: %w", key, err)
	}
	return nil
}

// Setting returns the recorded value of a crawl setting, or an error
// wrapping crawl.ErrNotFound when it was never set.
func (db *DB) Setting(ctx context.Context, key string) (string, error) {
	var v string
	err := db.pool.QueryRow(ctx, `SELECT value FROM settings WHERE key = $1`, key).Scan(&v)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return "", fmt.Errorf("postgres: setting %s: %w", key, crawl.ErrNotFound)
	case err != nil:
		return "", fmt.Errorf("postgres: setting %s: %w", key, err)
	}
	return v, nil
}
