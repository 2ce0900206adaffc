package sqlite

// The write-ahead log copied back beside the writer.
//
// A checkpoint copies the log's frames back into the database file and
// syncs both files. SQLite runs one in the connection that commits, right
// after the commit that takes the log past wal_autocheckpoint frames: the
// crawl's writer spent 220–300 ms on each such checkpoint (40,000
// frames), holding the store's write lock. Claims and the next commit waited, the workers'
// results filled their queue, and both processors were half idle for that
// time, every few thousand pages.
//
// A checkpointer does most of that work beside the writer: a goroutine
// with a connection of its own, woken once the writer has written
// checkpointFrames frames since it was last woken. It
//   - copies the committed frames in passive checkpoints, which SQLite
//     runs beside a writer (each copies what was committed when it began,
//     as far as the oldest reader allows), taking no lock of the store's,
//     again while the writer committed more than checkpointTail frames
//     during the last;
//   - then, holding the store's write lock (DB.mu), so that no write
//     transaction is open, copies the few frames committed meanwhile: the
//     whole log is then in the database file, and the writer's next
//     transaction starts it over (as after its own checkpoint).
//
// The writer waits for that last copy only, whose syncs are most of it
// (about 100 ms on the machine the figures in docs/ come from, against
// 220–300 for the whole). Its own autocheckpoint stays, at twice
// checkpointFrames, for a log the checkpointer cannot keep short (readers
// holding it back). A store opened read-only or to migrate has no
// checkpointer. What a commit made durable does not depend on it: a frame
// stays in the log until a checkpoint has copied it.

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
)

// checkpointFrames is how many frames the writer writes between two of
// the checkpointer's checkpoints: about what wal_autocheckpoint waited for
// before, so that pages the crawl rewrites often are copied as often. The
// writer's own autocheckpoint waits for twice as many, which it reaches
// only when the checkpointer falls behind.
var checkpointFrames int64 = 32_000

const (
	// checkpointTail is the most frames committed during a checkpoint
	// beside the writer for which the checkpointer stops and takes the
	// rest with the writer held; for more, it copies again beside it
	// first (up to checkpointRounds times).
	checkpointTail   = 1000
	checkpointRounds = 4
	// checkpointerCacheKiB is the checkpointer connection's page cache: it
	// reads pages only to copy them.
	checkpointerCacheKiB = 1 << 10
)

// checkpointer is the goroutine that checkpoints the log of a store open
// for writing.
type checkpointer struct {
	conn *sql.DB
	wake chan struct{} // a checkpoint is due (capacity 1)
	done chan struct{} // closed when the goroutine has returned
	// mark is the count of frames written (walWrites.frames) when the
	// checkpointer was last woken; guarded by DB.mu.
	mark int64
	// rounds counts the checkpoints done to the end (the last with the
	// writer held).
	rounds atomic.Int64
}

// startCheckpointer opens the checkpointer's connection and starts it.
func (db *DB) startCheckpointer(ctx context.Context) error {
	conn, err := sql.Open("sqlite", dsn(db.path, false, checkpointerCacheKiB))
	if err != nil {
		return fmt.Errorf("sqlite: open %s for checkpoints: %w", db.path, err)
	}
	conn.SetMaxOpenConns(1)
	conn.SetMaxIdleConns(1)
	conn.SetConnMaxLifetime(0)
	if err := conn.PingContext(ctx); err != nil {
		conn.Close()
		return fmt.Errorf("sqlite: open %s for checkpoints: %w", db.path, err)
	}
	c := &checkpointer{conn: conn, wake: make(chan struct{}, 1), done: make(chan struct{}), mark: walWrites.frames.Load()}
	db.ckpt = c
	go db.checkpoints(c)
	return nil
}

// wrote wakes the checkpointer once checkpointFrames frames were written
// since it was last woken. The caller holds db.mu, after a commit. The
// count is the process's (every store's writer), which only decides when
// to look: a checkpoint of a log with nothing to copy costs little.
func (c *checkpointer) wrote() {
	if c == nil {
		return
	}
	if n := walWrites.frames.Load(); n-c.mark >= checkpointFrames {
		c.mark = n
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
}

// checkpoints runs the checkpointer until stopCheckpointer.
func (db *DB) checkpoints(c *checkpointer) {
	defer close(c.done)
	ctx := context.Background()
	for range c.wake {
		if err := db.checkpoint(ctx, c); err != nil {
			db.log.Warn("checkpoint of the write-ahead log failed; the writer's own will copy it", "db", db.path, "err", err)
			continue
		}
		c.rounds.Add(1)
	}
}

// checkpoint copies the log back: beside the writer while it commits
// more than checkpointTail frames during a copy (up to checkpointRounds
// copies), then the rest with the writer held.
func (db *DB) checkpoint(ctx context.Context, c *checkpointer) error {
	for range checkpointRounds {
		before := walWrites.frames.Load()
		if err := c.passive(ctx); err != nil {
			return err
		}
		if walWrites.frames.Load()-before < checkpointTail {
			break
		}
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	return c.passive(ctx)
}

// passive runs a passive checkpoint. One that could not copy all the log
// (another checkpoint ran, or readers held the log) is no error.
func (c *checkpointer) passive(ctx context.Context) error {
	var busy, log, copied int
	if err := c.conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &log, &copied); err != nil {
		return fmt.Errorf("passive checkpoint: %w", err)
	}
	return nil
}

// stopCheckpointer ends the checkpointer, once its checkpoint under way
// is done, and closes its connection.
func (db *DB) stopCheckpointer() error {
	db.mu.Lock()
	c := db.ckpt
	db.ckpt = nil
	db.mu.Unlock()
	if c == nil {
		return nil
	}
	close(c.wake)
	<-c.done
	return c.conn.Close()
}
