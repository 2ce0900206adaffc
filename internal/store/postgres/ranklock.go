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
// pool: unlock lets it go and closes the connection, and a process that
// dies lets it go with its connection. The server ends a closed
// connection's session after the client has gone, so unlock lets the lock
// go first: a pass that asks for it right after gets it.
func (db *DB) LockRanks(ctx context.Context, wait bool) (unlock func(), ok bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, db.pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, false, fmt.Errorf("postgres: lock ranks: %w", err)
	}
	key := db.lockKey("ranks")
	q := `SELECT pg_try_advisory_lock($1)`
	if wait {
		q = `SELECT true FROM pg_advisory_lock($1)`
	}
	err = conn.QueryRow(ctx, q, key).Scan(&ok)
	if err != nil || !ok {
		conn.Close(context.WithoutCancel(ctx))
		if err != nil {
			return nil, false, fmt.Errorf("postgres: lock ranks: %w", err)
		}
		return nil, false, nil
	}
	return func() {
		ctx := context.WithoutCancel(ctx)
		// Should the unlock fail, closing the connection lets the lock go.
		conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, key)
		conn.Close(ctx)
	}, true, nil
}
