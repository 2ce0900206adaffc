package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

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
	q := `SELECT pg_try_advisory_lock($1)`
	if wait {
		q = `SELECT true FROM pg_advisory_lock($1)`
	}
	err = conn.QueryRow(ctx, q, db.lockKey("ranks")).Scan(&ok)
	if err != nil || !ok {
		conn.Close(context.WithoutCancel(ctx))
		if err != nil {
			return nil, false, fmt.Errorf("postgres: lock ranks: %w", err)
		}
		return nil, false, nil
	}
	return func() { conn.Close(context.WithoutCancel(ctx)) }, true, nil
}
