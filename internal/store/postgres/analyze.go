package postgres

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// The store's statements are prepared once a connection, and PostgreSQL
// keeps a generic plan of each, costed with the table statistics of the
// moment it made it. A crawl starts on empty tables: a plan made then
// joins pages by reading the whole table, and keeps doing so for the
// connection's life as the table grows to millions of rows (a claim of
// four URLs read every recorded page four times), until the table is
// analyzed again, which invalidates the plans that read it. The server's
// autovacuum analyzes a table once a tenth of it changed, if it is on and
// keeps up; a store handle also does it itself: after every analyzeEvery
// rows it wrote it looks for its schema's tables that more than doubled
// since they were last analyzed (their size on disk against
// pg_class.relpages, which ANALYZE sets) and analyzes them, in the
// background, one process at a time. Doubling is enough: the planner
// scales the rows it expects by the table's size on disk now, so the
// statistics of a table half as large give the same estimates, and a
// table is analyzed about log₂ of its growth times. An analysis of pages
// samples up to 30,000 rows, about a second at the end of the throughput
// benchmark's crawl, which analyzed pages ten times when a growth by a
// fifth was the rule, and five times now.

// analyzeEvery is how many rows (pages committed, URLs offered) a store
// handle writes between two looks for grown tables (tuning.analyzeEvery).
const analyzeEvery = 1000

// grownSQL lists the tables of the store's schema that more than doubled
// (and grew by 8 blocks) since their last analysis. The stage of offers
// (offers.go) is left out: every merge empties it (TRUNCATE, which leaves
// it with no statistics), and the merge's plan, made when it runs, takes
// the table's size from its file.
const grownSQL = `SELECT c.oid::regclass::text FROM pg_class c
WHERE c.relnamespace = to_regnamespace(current_schema()) AND c.relkind = 'r' AND c.relname <> 'offers'
  AND pg_relation_size(c.oid) / 8192 > 8 + 2 * greatest(c.relpages, 0)
ORDER BY c.relname`

// analyzeLock is the advisory lock key an analysis holds, so that one
// process analyzes at a time (the others, finding it taken, leave it).
func (db *DB) analyzeLock() int64 {
	return db.lockKey("analyze")
}

// analyzeGrown analyzes the tables that grew since their last analysis,
// unless another process is analyzing, and returns their names.
func (db *DB) analyzeGrown(ctx context.Context) ([]string, error) {
	var tables []string
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		tables = nil
		var got bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, db.analyzeLock()).Scan(&got); err != nil || !got {
			return err
		}
		rows, err := tx.Query(ctx, grownSQL)
		if err != nil {
			return err
		}
		if tables, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil || len(tables) == 0 {
			return err
		}
		// Names from regclass are quoted where they need to be.
		_, err = tx.Exec(ctx, `ANALYZE `+strings.Join(tables, ", "))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: analyze grown tables: %w", err)
	}
	return tables, nil
}

// analyzer starts a store handle's looks for grown tables: one in the
// background after every analyzeEvery rows the handle wrote, never two at
// once.
type analyzer struct {
	mu      sync.Mutex
	pending int // rows written since the last look began
	running bool
	closed  bool
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// wrote notes that the handle wrote n rows, and starts a look if they are
// many.
func (a *analyzer) wrote(db *DB, n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pending += n
	if a.pending < db.tune.analyzeEvery || a.running || a.closed {
		return
	}
	a.pending, a.running = 0, true
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	a.cancel = cancel
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer cancel()
		// A failed look is tried again after the next analyzeEvery rows;
		// the server's autovacuum may do the work meanwhile.
		db.analyzeGrown(ctx)
		a.mu.Lock()
		a.running = false
		a.mu.Unlock()
	}()
}

// close stops a running look and waits for it.
func (a *analyzer) close() {
	a.mu.Lock()
	a.closed = true
	if a.cancel != nil {
		a.cancel()
	}
	a.mu.Unlock()
	a.wg.Wait()
}
