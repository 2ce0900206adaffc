package postgres

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/acrawler/acrawler/internal/crawl"
)

// slotPool hands each running write transaction a counters row that no
// other running transaction uses.
type slotPool struct {
	mu   sync.Mutex
	base int64
	n    int64
	free []int64
}

func (p *slotPool) get() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k := len(p.free); k > 0 {
		s := p.free[k-1]
		p.free = p.free[:k-1]
		return s
	}
	p.n++
	return p.base + p.n
}

func (p *slotPool) put(s int64) {
	p.mu.Lock()
	p.free = append(p.free, s)
	p.mu.Unlock()
}

// budgetLock is the advisory lock key under which ClaimURLs checks and
// raises the crawl's reserved page count; nothing else raises it.
func (db *DB) budgetLock() int64 {
	return db.lockKey("page budget")
}

// txn is one write transaction on one connection. Its statements are sent
// in pipelined batches: the first batch opens the transaction and the last
// one applies the counter deltas and commits, so a transaction costs one
// round trip per step that depends on the previous step's answers.
type txn struct {
	conn      *pgx.Conn
	slot      int64 // the counters row of this transaction
	lazy      bool  // commit without waiting for the WAL flush
	begun     bool
	committed bool
	again     bool // an earlier run of the transaction failed and was rolled back
	delta     counterDelta
}

// batch returns an empty batch of the transaction (opening it, if this is
// the first).
func (t *txn) batch() *pgx.Batch {
	b := &pgx.Batch{}
	if !t.begun {
		b.Queue("begin")
		if t.lazy {
			b.Queue("SET LOCAL synchronous_commit TO off")
		}
		t.begun = true
	}
	return b
}

// send runs b and its callbacks. A failed statement aborts the transaction
// and skips the rest of b.
func (t *txn) send(ctx context.Context, b *pgx.Batch) error {
	if b.Len() == 0 {
		return nil
	}
	return t.conn.SendBatch(ctx, b).Close()
}

// commit adds the counter deltas and the commit to b and runs it. The
// counters row is the last lock the transaction takes and is held only for
// this final round trip.
func (t *txn) commit(ctx context.Context, b *pgx.Batch) error {
	t.delta.queue(b, t.slot)
	b.Queue("commit")
	t.committed = true
	return t.send(ctx, b)
}

func (t *txn) rollback(ctx context.Context) {
	if t.conn.IsClosed() || t.conn.PgConn().TxStatus() == 'I' {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	// On failure the connection is left in a transaction and the pool
	// destroys it when it is released.
	t.conn.Exec(ctx, "rollback")
}

const maxAttempts = 5

// Durability of a write transaction.
const (
	// durable transactions (results, admissions) return once on disk.
	durable = false
	// lazy transactions (leases and claims) return before their WAL is
	// flushed: PostgreSQL keeps them atomic and in order, but a crash of
	// the server may forget the last few hundred milliseconds of them. A
	// forgotten claim puts its URLs back in the queue (their results are
	// then ignored as stale), a forgotten lease makes the next ClaimURLs
	// fail with crawl.ErrLeaseLost, a forgotten release leaves the lease to
	// expire. In exchange, lease and claim transactions do not wait for a
	// disk flush (about 3 ms on the test machine) nor hold their locks
	// through one.
	lazy = true
)

// write runs fn in a transaction, committing it unless fn did, and runs it
// again (up to maxAttempts times) when PostgreSQL aborted it to break a
// deadlock or a serialization conflict. fn must not keep state across runs.
func (db *DB) write(ctx context.Context, async bool, fn func(context.Context, *txn) error) error {
	if db.readOnly {
		return errors.New("store is open read-only")
	}
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return connectCause(err)
	}
	defer conn.Release()
	return db.writeOn(ctx, conn.Conn(), async, fn)
}

// writeOn is write on conn, a connection the caller holds.
func (db *DB) writeOn(ctx context.Context, conn *pgx.Conn, async bool, fn func(context.Context, *txn) error) error {
	slot := db.slots.get()
	defer db.slots.put(slot)
	for attempt := 1; ; attempt++ {
		t := &txn{conn: conn, slot: slot, lazy: async, again: attempt > 1}
		err := fn(ctx, t)
		if err == nil && !t.committed {
			err = t.commit(ctx, t.batch())
		}
		if err == nil {
			return nil
		}
		t.rollback(ctx)
		if !retryable(err) {
			return refusal(err)
		}
		if attempt == maxAttempts {
			return err
		}
		pause := time.Duration(attempt) * time.Duration(1+rand.IntN(5)) * time.Millisecond
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
	}
}

func retryable(err error) bool {
	if errors.Is(err, errLeftFlight) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "40001", "40P01": // serialization_failure, deadlock_detected
			return true
		case "23505": // unique_violation
			// An admission inserts URLs without ON CONFLICT: it found them
			// unknown with their hosts locked, so only a URL ID stored
			// under another host meanwhile conflicts, and the next run
			// finds it known. A commit inserts the links of pages it found
			// unrecorded so too (linkRows): a page another process recorded
			// meanwhile conflicts, and the next run, which skips recorded
			// links, finds it.
			return pe.TableName == "urls" || pe.TableName == "links"
		}
	}
	return false
}

// refusal marks err crawl.ErrRefused when PostgreSQL refused the statement
// itself, which it does again however often it runs (by SQLSTATE class): a
// constraint (23), a table, column or privilege it lacks or bad SQL (42),
// data it cannot hold (22), a feature it lacks (0A), a limit passed (54),
// a cardinality violation (21), an error a function raised (P0), damaged
// data (XX001, XX002). Lost connections, conflicts, lack of resources and
// an administrator's stop may pass, and so may a unique or exclusion
// violation: another process may have written the same key meanwhile.
func refusal(err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || len(pe.Code) != 5 || pe.Code == "23505" || pe.Code == "23P01" {
		return err
	}
	switch pe.Code[:2] {
	case "23", "42", "22", "0A", "54", "21", "P0":
		return crawl.Refused(err)
	}
	if pe.Code == "XX001" || pe.Code == "XX002" {
		return crawl.Refused(err)
	}
	return err
}

// counterDelta accumulates a transaction's changes to the counters row.
type counterDelta struct {
	queued, inflight, done, failed, disallowed, skipped int64
	reserved, bytes, hosts, pages, links, duplicates    int64
}

func (d *counterDelta) queue(b *pgx.Batch, slot int64) {
	if *d == (counterDelta{}) {
		return
	}
	b.Queue(`INSERT INTO counters AS c (slot, queued, inflight, done, failed, disallowed, skipped, reserved, bytes,
			hosts, pages, links, duplicates)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
		ON CONFLICT (slot) DO UPDATE SET queued = c.queued + excluded.queued, inflight = c.inflight + excluded.inflight,
			done = c.done + excluded.done, failed = c.failed + excluded.failed,
			disallowed = c.disallowed + excluded.disallowed, skipped = c.skipped + excluded.skipped,
			reserved = c.reserved + excluded.reserved, bytes = c.bytes + excluded.bytes, hosts = c.hosts + excluded.hosts,
			pages = c.pages + excluded.pages, links = c.links + excluded.links, duplicates = c.duplicates + excluded.duplicates`,
		slot, d.queued, d.inflight, d.done, d.failed, d.disallowed, d.skipped,
		d.reserved, d.bytes, d.hosts, d.pages, d.links, d.duplicates)
}
