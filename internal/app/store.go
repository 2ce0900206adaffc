package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
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
	return openStoreWith(ctx, db, storeOptions{pgConns: pgConns, nearDistance: crawl.DefaultNearDistance})
}

// storeOptions are how a command opens its store read-write.
type storeOptions struct {
	pgConns      int  // at most this many connections to PostgreSQL
	outbox       bool // queue operations for an external index
	nearDistance int  // near-duplicates within this many bits (0: none)
	// indexDelay: a SQLite store indexes a page this long after it is
	// stored (sqlite.Options.IndexDelay).
	indexDelay  time.Duration
	indexEngine string       // a new SQLite store's index engine (sqlite.Options.Engine)
	log         *slog.Logger // the open's schema upgrade and index rebuild (nil: not logged)
}

// openStoreWith opens the store db names read-write.
func openStoreWith(ctx context.Context, db string, o storeOptions) (crawl.Store, error) {
	near, err := crawl.NearDistanceOption(o.nearDistance)
	if err != nil {
		return nil, UsageError{err}
	}
	if isPostgres(db) {
		return postgres.Open(ctx, db, postgres.Options{MaxConns: int32(o.pgConns), Outbox: o.outbox, NearDistance: near, Log: o.log})
	}
	return sqlite.Open(ctx, db, sqlite.Options{Outbox: o.outbox, NearDistance: near, IndexDelay: o.indexDelay, Engine: o.indexEngine, Log: o.log})
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
	log, err := newLogger(stderr, cfg.LogLevel, cfg.LogFormat)
	if err != nil {
		return err
	}
	var from, to int
	if isPostgres(cfg.DB) {
		from, to, err = postgres.Migrate(ctx, cfg.DB, postgres.Options{Log: log})
	} else {
		from, to, err = sqlite.Migrate(ctx, cfg.DB, sqlite.Options{Log: log})
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
