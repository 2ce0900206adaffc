package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/acrawler/acrawler/internal/crawl"
)

// rankLock is the advisory lock key of the rank passes of the schema a
// connection works in (the store's, or the DSN's search_path).
func rankLock(ctx context.Context, conn *pgx.Conn) (int64, error) {
	var schema string
	if err := conn.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return 0, err
	}
	return int64(crawl.HashID("acrawler/postgres ranks:" + schema)), nil
}

// LockRanks takes the store's rank lock, which one process of a fleet
// holds while it ranks (the pass reads the whole link graph and writes the
// ranks and anchor texts; two at once would each do it all, and contend
// for the same rows). With wait it waits for the lock (until ctx ends);
// without, it answers ok false at once when another process holds it.
// The lock is a session lock on a connection of its own, outside the
// pool, which unlock closes: a process that dies lets it go with its
// connection.
func (db *DB) LockRanks(ctx context.Context, wait bool) (unlock func(), ok bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, db.pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, false, fmt.Errorf("postgres: lock ranks: %w", err)
	}
	key, err := rankLock(ctx, conn)
	q := `SELECT pg_try_advisory_lock($1)`
	if wait {
		q = `SELECT true FROM pg_advisory_lock($1)`
	}
	if err == nil {
		err = conn.QueryRow(ctx, q, key).Scan(&ok)
	}
	if err != nil || !ok {
		conn.Close(context.WithoutCancel(ctx))
		if err != nil {
			return nil, false, fmt.Errorf("postgres: lock ranks: %w", err)
		}
		return nil, false, nil
	}
	return func() { conn.Close(context.WithoutCancel(ctx)) }, true, nil
}
