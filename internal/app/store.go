package app

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/sqlite"
)

// isPostgres reports whether a --db value names a PostgreSQL database
// rather than a SQLite file.
func isPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// OpenStore opens the crawl store db names (a SQLite path or a postgres://
// DSN), read-write, with at most pgConns connections to PostgreSQL.
func OpenStore(ctx context.Context, db string, pgConns int) (crawl.Store, error) {
	return openStoreWith(ctx, db, pgConns, false, crawl.DefaultNearDistance, 0)
}

// openStoreWith opens a store read-write, with an outbox for an external
// index when outbox is set, recording near-duplicates within nearDistance
// bits (0: none); a SQLite store indexes a page indexDelay after it is
// stored (sqlite.Options.IndexDelay).
func openStoreWith(ctx context.Context, db string, pgConns int, outbox bool, nearDistance int, indexDelay time.Duration) (crawl.Store, error) {
	near, err := crawl.NearDistanceOption(nearDistance)
	if err != nil {
		return nil, UsageError{err}
	}
	if isPostgres(db) {
		return postgres.Open(ctx, db, postgres.Options{MaxConns: int32(pgConns), Outbox: outbox, NearDistance: near})
	}
	return sqlite.Open(ctx, db, sqlite.Options{Outbox: outbox, NearDistance: near, IndexDelay: indexDelay})
}

// redactDB is a --db value fit for logs: a PostgreSQL DSN without its
// password.
func redactDB(db string) string {
	if !isPostgres(db) {
		return db
	}
	u, err := url.Parse(db)
	if err != nil {
		return "postgres://(unparsable DSN)"
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	return u.String()
}

// Migrate applies the database schema migrations.
func Migrate(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	var err error
	var from, to int
	if isPostgres(cfg.DB) {
		from, to, err = postgres.Migrate(ctx, cfg.DB, postgres.Options{})
	} else {
		from, to, err = sqlite.Migrate(ctx, cfg.DB)
	}
	if err != nil {
		return err
	}
	if from == to {
		fmt.Fprintf(stdout, "%s: schema is at version %d, nothing to do\n", redactDB(cfg.DB), to)
	} else {
		fmt.Fprintf(stdout, "%s: schema migrated from version %d to %d\n", redactDB(cfg.DB), from, to)
	}
	return nil
}
