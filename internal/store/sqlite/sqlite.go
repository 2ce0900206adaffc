// Package sqlite is the embedded store: the whole crawl in one SQLite file,
// no server needed. One process writes (a lock file beside the database
// enforces it, see lock.go); any number may read while it does.
package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/snippet"
	"github.com/acrawler/acrawler/internal/store/migrate"

	sqlitedrv "modernc.org/sqlite" // also registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"
)

// Options configure Open.
type Options struct {
	// ReadOnly opens the database for reading while another process may be
	// crawling into it. No lock is taken, nothing is migrated and nothing
	// written: a database of an older schema is refused with
	// ErrNeedsMigration. A database in a directory the process cannot
	// write is read too.
	ReadOnly bool
	// Outbox makes page writes queue operations for an external index
	// (OpenSearch), drained with OutboxNext and OutboxDone.
	Outbox bool
	// NearDistance is the SimHash distance within which a page is recorded
	// as a near-duplicate of an earlier one (and not indexed): 0 means
	// crawl.DefaultNearDistance, a negative value no near-duplicate
	// detection. At most crawl.MaxNearDistance.
	NearDistance int
	// IndexDelay is how long a committed page waits before its full-text
	// row is written (pending.go): the anchor texts of the links found
	// meanwhile are indexed with it, and a page linked again before the
	// end-of-crawl pass is tokenized once instead of twice. SetRanks and
	// Close write every waiting row. Search does not find a page while it
	// waits. 0 writes the row at the page's commit.
	IndexDelay time.Duration
	// Engine is the embedded full-text index's engine for a database
	// that has none yet: EngineFTS5 (the default) or EngineSegments. A
	// database keeps the engine it was made with; an Engine that differs
	// from it is refused, unless the database has no indexed document.
	Engine string
	// Log receives what an open does that may take long: the steps of a
	// schema upgrade, the search index rebuilt after one, and the pages a
	// killed process left waiting for the index delay, indexed. nil:
	// nothing is logged.
	Log *slog.Logger

	tune *tuning // nil: defaultTuning; tests set smaller sizes (export_test.go)
}

// tuning is the sizes at which a store stages and packs what it is
// offered: merges of staged offers (stageMin, stageShare: offers.go),
// runs (packMin: runs.go) and the staging of commits' discoveries
// (findsFrom, findsShare, findsMin: finds.go). A store keeps its own, so
// that tests run the same code on small data side by side.
type tuning struct {
	stageMin, stageShare, packMin, findsFrom, findsShare, findsMin int64
}

var defaultTuning = tuning{stageMin: stageMin, stageShare: stageShare, packMin: packMin,
	findsFrom: findsFrom, findsShare: findsShare, findsMin: findsMin}

// DB is a crawl store in a SQLite file.
type DB struct {
	path     string
	w        *sql.DB        // the single writer connection (nil when read-only)
	r        *sql.DB        // readers
	snippets *snippet.Maker // search hits' snippets
	lock     *os.File
	// lockCreated: this open created the lock file (see dropCreatedLock).
	lockCreated bool

	mu     sync.Mutex // serializes write transactions and guards anchorsFresh
	outbox bool
	near   int // near-duplicate distance; negative: none
	// anchorsFresh: the last write transaction committed was
	// RefreshAnchors's, so nothing was written since every document's
	// anchor texts were refreshed, and SetRanks need not look for changed
	// ones again.
	anchorsFresh bool

	// The writer connection's statement cache (see prep), guarded by mu.
	stmts map[string]*sql.Stmt
	want  map[string]struct{}

	staged    stagedLinks // the staged inbound links (staged.go), guarded by mu
	knownURLs urlIDCache  // URL IDs committed in urls (links.go), guarded by mu
	// claimMerges is what merges of discoveries that ClaimHosts ran
	// decided, for the next commit to report (finds.go), guarded by mu.
	claimMerges crawl.AddStats
	// hasRuns: runs may hold packed URLs (runs.go), so the look-ups of
	// URLs by ID ask seen too; read at the first transaction, guarded by
	// mu.
	hasRuns, runsRead bool

	ckpt *checkpointer // copies the log back beside the writer (checkpoint.go); guarded by mu

	indexDelay time.Duration // Options.IndexDelay
	tune       tuning        // Options' tuning, or defaultTuning
	engine     string        // the embedded index's engine (EngineFTS5, EngineSegments)
	segs       segReader     // the segments engine's view of the index, for searches
	log        *slog.Logger  // Options.Log, or a logger that drops everything
	opened     bool          // Open succeeded (Close writes the rows waiting for the delay)
}

var _ crawl.Store = (*DB)(nil)

// logOrDiscard is log, or a logger that drops everything when it is nil.
func logOrDiscard(log *slog.Logger) *slog.Logger {
	if log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return log
}

// Open opens (creating it if needed) the crawl database at path, applies
// pending migrations and, since SQLite crawls are single-process, returns
// whatever a previous process left in flight to the queue.
func Open(ctx context.Context, file string, opts Options) (*DB, error) {
	if file == "" {
		return nil, errors.New("sqlite: open: empty database path")
	}
	if opts.NearDistance > crawl.MaxNearDistance {
		return nil, fmt.Errorf("sqlite: near-duplicate distance %d above %d", opts.NearDistance, crawl.MaxNearDistance)
	}
	if opts.IndexDelay < 0 {
		return nil, fmt.Errorf("sqlite: negative index delay %s", opts.IndexDelay)
	}
	usePageCache(opts.ReadOnly)
	db := &DB{path: file, outbox: opts.Outbox, near: cmp.Or(opts.NearDistance, crawl.DefaultNearDistance),
		indexDelay: opts.IndexDelay, log: logOrDiscard(opts.Log), stmts: map[string]*sql.Stmt{}, want: map[string]struct{}{},
		segs: segReader{cache: newBlockCache(segCacheBytes)}, tune: defaultTuning}
	if opts.tune != nil {
		db.tune = *opts.tune
	}
	if !opts.ReadOnly {
		if err := db.acquireLock(); err != nil {
			return nil, err
		}
	}
	ok := false
	defer func() {
		if !ok {
			db.Close()
		}
	}()
	var err error
	if !opts.ReadOnly {
		db.w, err = sql.Open("sqlite", dsn(file, false, writerCacheKiB))
		if err != nil {
			return nil, fmt.Errorf("sqlite: open %s: %w", file, err)
		}
		db.w.SetMaxOpenConns(1)
		db.w.SetMaxIdleConns(1)
		db.w.SetConnMaxLifetime(0)
		if err := db.w.PingContext(ctx); err != nil {
			return nil, db.readErr("open", err)
		}
		if _, err := db.takeOver(ctx); err != nil {
			return nil, err
		}
		if err := db.migrate(ctx); err != nil {
			return nil, err
		}
		if err := db.recover(ctx); err != nil {
			return nil, fmt.Errorf("sqlite: recover in-flight urls: %w", err)
		}
	} else if _, err := os.Stat(file); err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", file, err)
	}
	if err := db.openReaders(ctx, opts.ReadOnly); err != nil {
		return nil, err
	}
	if err := db.chooseEngine(ctx, opts); err != nil {
		return nil, err
	}
	if db.snippets, err = snippet.New(); err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", file, err)
	}
	if !opts.ReadOnly {
		if err := db.maintain(ctx); err != nil {
			return nil, err
		}
		if err := db.indexLeftWaiting(ctx); err != nil {
			return nil, err
		}
		if err := db.startCheckpointer(ctx); err != nil {
			return nil, err
		}
	}
	ok = true
	db.opened = true
	return db, nil
}

// maintain does the work a migration left for the store to do once it is
// open: rebuilding the full-text index (after 0009 changed its keys). A
// task stays recorded until it is done, so an interrupted rebuild starts
// again at the next open.
func (db *DB) maintain(ctx context.Context) error {
	var n int
	if err := db.w.QueryRowContext(ctx, `SELECT count(*) FROM maintenance WHERE task = 'reindex'`).Scan(&n); err != nil {
		return fmt.Errorf("sqlite: maintenance: %w", err)
	}
	if n == 0 {
		return nil
	}
	db.log.Info("rebuilding the search index, once, for the upgraded schema", "db", db.path)
	start := time.Now()
	docs, err := db.RebuildIndex(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: maintenance: %w", err)
	}
	db.log.Info("search index rebuilt", "db", db.path, "documents", docs, "took", time.Since(start).Round(time.Millisecond))
	if _, err := db.w.ExecContext(ctx, `DELETE FROM maintenance WHERE task = 'reindex'`); err != nil {
		return fmt.Errorf("sqlite: maintenance: %w", err)
	}
	return nil
}

// Page cache sizes, in KiB. The writer's is what keeps the crawl fast:
// at 16 MiB a lean crawl ran 25% slower than at 32; at 24 the default
// crawl's CPU a page was as at 32 (stage profiles of the same period), for
// 16 MB less of the process. The readers of a store open for writing (the
// crawl's: host values, figures) get the smallest: the two readers a
// crawl keeps open held some 30 MB at 8 MiB each, when each page cached
// took 8 KiB (before pagecache.go), for reads that gain little from them.
// A store open read-only (search, the API) gives its readers more.
const (
	writerCacheKiB      = 24 << 10
	readerCacheKiB      = 8 << 10
	crawlReaderCacheKiB = 2 << 10
)

// ErrNeedsMigration is crawl.ErrNeedsMigration: a read-only open found a
// database of an older schema (or none yet).
var ErrNeedsMigration = crawl.ErrNeedsMigration

// openReaders opens the reader connections: read-only (SQLite's mode=ro),
// so reading never writes the database file. For a read-only open it
// checks the database is acrawler's, of this build's schema. When SQLite
// cannot create the files WAL readers share (-wal, -shm), because the
// directory is not writable, and there is no write-ahead log to read,
// the file is read as unchanging (immutable=1).
func (db *DB) openReaders(ctx context.Context, readOnly bool) error {
	open := func(immutable bool) error {
		if db.r != nil {
			db.r.Close()
		}
		cache := crawlReaderCacheKiB
		if readOnly {
			cache = readerCacheKiB
		}
		r, err := sql.Open("sqlite", readerDSN(db.path, immutable, cache))
		if err != nil {
			return fmt.Errorf("sqlite: open %s: %w", db.path, err)
		}
		r.SetMaxOpenConns(4)
		db.r = r
		return nil
	}
	if err := open(false); err != nil || !readOnly {
		return err
	}
	v, foreign, err := db.schemaOf(ctx, db.r)
	if err != nil && cannotShare(err) {
		if fi, serr := os.Stat(db.path + "-wal"); serr == nil && fi.Size() > 0 {
			return fmt.Errorf("sqlite: open %s read-only: its write-ahead log (%s-wal) holds changes not yet in the database "+
				"(a crawl is running, or stopped without closing it), and they can only be read with write access to its directory: %w",
				db.path, db.path, err)
		}
		if err := open(true); err != nil {
			return err
		}
		v, foreign, err = db.schemaOf(ctx, db.r)
	}
	switch {
	case err != nil:
		return err
	case foreign != "":
		return fmt.Errorf("sqlite: %s is %w (%s)", db.path, crawl.ErrForeign, foreign)
	}
	if err := migrations.Check(db.path, v); err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	return nil
}

// cannotShare reports whether err is SQLite failing to open or create the
// files WAL readers share.
func cannotShare(err error) bool {
	var se *sqlitedrv.Error
	if !errors.As(err, &se) {
		return false
	}
	c := se.Code() & 0xff
	return c == sqlite3.SQLITE_READONLY || c == sqlite3.SQLITE_CANTOPEN
}

// refusal marks err crawl.ErrRefused when SQLite refused the statement
// itself, which it does again however often it runs: an SQL error (a table,
// column or index it lacks), a constraint (a trigger's RAISE too), a value
// too big or of the wrong type, a damaged or foreign file. Busy and locked
// databases, I/O errors, a full disk and a file it cannot open may pass.
func refusal(err error) error {
	var se *sqlitedrv.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_ERROR, sqlite3.SQLITE_CONSTRAINT, sqlite3.SQLITE_TOOBIG, sqlite3.SQLITE_MISMATCH,
		sqlite3.SQLITE_RANGE, sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return crawl.Refused(err)
	}
	return err
}

// uriPath is file as the path of a SQLite URI: '%', '?' and '#' escaped,
// and no leading "//", which would start an authority.
func uriPath(file string) string {
	if strings.HasPrefix(file, "//") {
		file = "/" + strings.TrimLeft(file, "/")
	}
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(file)
}

func readerDSN(file string, immutable bool, cacheKiB int) string {
	d := dsn(file, true, cacheKiB) + "&mode=ro"
	if immutable {
		d += "&immutable=1"
	}
	return d
}

func dsn(file string, readOnly bool, cacheKiB int) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(0)")
	// The writer's page cache is large enough that the hot parts of the
	// frontier and seen-set indexes stay in memory (SQLite's default is
	// 2 MiB); each of the readers (searches, stats) gets a smaller one.
	q.Add("_pragma", fmt.Sprintf("cache_size(-%d)", cacheKiB))
	// Temporary tables stay in files (cached like any table, written out
	// only when large): statements such as an UPDATE of the full-text
	// table stage every row they change, which in memory grew the process
	// by 200 MB when ranks were set after a 20,000-page crawl.
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		// WAL is switched on by takeOver, once the file is known to be
		// acrawler's or empty.
		q.Add("_pragma", "synchronous(NORMAL)")
		// The log is checkpointed every 32,000 frames (128 MB) beside the
		// writer (checkpoint.go), not SQLite's 1,000 in the committing
		// connection: a page rewritten by many commits is copied to the
		// database once, with fewer syncs. The lean crawl ran about 4%
		// faster with 40,000 than with 10,000. The writer's own
		// checkpoint waits for twice that, for when the checkpointer
		// falls behind.
		q.Add("_pragma", fmt.Sprintf("wal_autocheckpoint(%d)", 2*checkpointFrames))
		// A transaction larger than that (a merge of staged offers, a rank
		// pass) grows the WAL file past it, and SQLite reuses the file at
		// its largest: once a checkpoint has copied it back, the file is
		// cut to this size when the next transaction starts it over.
		q.Add("_pragma", fmt.Sprintf("journal_size_limit(%d)", walSizeLimit))
		q.Add("_txlock", "immediate")
		// The writer's consecutive writes to the WAL and the database file
		// are gathered into large ones (walbuf.go); without the VFS, each
		// is written as SQLite asks.
		if registerWALVFS() == nil {
			q.Add("vfs", walVFSName)
		}
	}
	return "file:" + uriPath(file) + "?" + q.Encode()
}

// walSizeLimit is the size, in bytes, a WAL file grown by a large
// transaction is cut back to: the frames between two checkpoints.
var walSizeLimit int64 = checkpointFrames * 4096

// Close closes the database and releases the process lock.
func (db *DB) Close() error {
	var errs []error
	if db.opened && db.w != nil && db.indexDelay > 0 {
		if _, err := db.IndexPending(context.Background()); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, db.stopCheckpointer())
	if db.r != nil {
		errs = append(errs, db.r.Close())
	}
	if db.snippets != nil {
		errs = append(errs, db.snippets.Close())
	}
	if db.w != nil {
		db.closeStmts()
		errs = append(errs, db.w.Close())
	}
	errs = append(errs, db.releaseLock())
	return errors.Join(errs...)
}

// Migrate brings the database at file up to this build's schema (creating
// it if needed) and reports the versions before and after. Of opts it
// reads Log alone.
func Migrate(ctx context.Context, file string, opts Options) (from, to int, err error) {
	db := &DB{path: file, log: logOrDiscard(opts.Log)}
	if err := db.acquireLock(); err != nil {
		return 0, 0, err
	}
	defer db.Close()
	usePageCache(false)
	if db.w, err = sql.Open("sqlite", dsn(file, false, writerCacheKiB)); err != nil {
		return 0, 0, fmt.Errorf("sqlite: open %s: %w", file, err)
	}
	db.w.SetMaxOpenConns(1)
	if from, err = db.takeOver(ctx); err != nil {
		return 0, 0, err
	}
	if err := db.migrate(ctx); err != nil {
		return from, 0, err
	}
	to, err = db.version(ctx, db.w)
	return from, to, err
}

func (db *DB) version(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, db.readErr("read", err)
	}
	return v, nil
}

// coreTables are the tables every acrawler database has had since its
// first schema version.
var coreTables = []string{"counters", "hosts", "links", "pages", "urls"}

// schemaOf reads the schema version of the database q reads and whether it
// is acrawler's, or empty; foreign, when it is neither, describes what it
// holds. It only reads.
func (db *DB) schemaOf(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (version int, foreign string, err error) {
	if version, err = db.version(ctx, q); err != nil {
		return 0, "", err
	}
	rows, err := q.QueryContext(ctx, `SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY type = 'table' DESC, name`)
	if err != nil {
		return 0, "", db.readErr("read", err)
	}
	defer rows.Close()
	tables := map[string]bool{}
	var names, others []string
	for rows.Next() {
		var typ, name string
		if err := rows.Scan(&typ, &name); err != nil {
			return 0, "", db.readErr("read", err)
		}
		if typ == "table" {
			tables[name] = true
			names = append(names, name)
		} else {
			others = append(others, typ+" "+name)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, "", db.readErr("read", err)
	}
	switch {
	case len(names) == 0 && len(others) == 0 && version == 0:
		return 0, "", nil
	case len(names) == 0 && len(others) == 0:
		return version, fmt.Sprintf("it has no tables but schema version %d", version), nil
	case len(names) == 0:
		return version, "it has " + listSome(others), nil
	}
	for _, t := range coreTables {
		if !tables[t] || version == 0 {
			return version, "it has tables: " + listSome(names), nil
		}
	}
	return version, "", nil
}

// listSome joins the first names of a list, saying how many it left out.
func listSome(names []string) string {
	const most = 12
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:most], ", "), len(names)-most)
}

// readErr says what an error of the first operation (op) on the file means.
func (db *DB) readErr(op string, err error) error {
	var se *sqlitedrv.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_NOTADB {
		db.dropCreatedLock()
		return fmt.Errorf("sqlite: %s is not a SQLite database (%w); refusing to change it", db.path, err)
	}
	return fmt.Errorf("sqlite: %s %s: %w", op, db.path, err)
}

// takeOver makes the file the writer opened acrawler's to write: it
// refuses a database of another program before anything in it changes,
// then switches it to WAL. It returns the schema version.
func (db *DB) takeOver(ctx context.Context) (int, error) {
	v, foreign, err := db.schemaOf(ctx, db.w)
	if err != nil {
		return 0, err
	}
	if foreign != "" {
		db.dropCreatedLock()
		return 0, fmt.Errorf("sqlite: %s is %w (%s); refusing to change it", db.path, crawl.ErrForeign, foreign)
	}
	var mode string
	if err := db.w.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode); err != nil {
		return 0, fmt.Errorf("sqlite: open %s: journal mode: %w", db.path, err)
	}
	if !strings.EqualFold(mode, "wal") {
		return 0, fmt.Errorf("sqlite: open %s: journal mode is %s, WAL could not be set", db.path, mode)
	}
	return v, nil
}

// migrate applies the embedded migrations the database does not have yet,
// each in its own transaction together with the version bump.
func (db *DB) migrate(ctx context.Context) error {
	cur, err := db.version(ctx, db.w)
	if err != nil {
		return err
	}
	_, err = migrations.Apply(ctx, db.log, db.path, cur, func(ctx context.Context, m migrate.Migration) error {
		tx, err := db.w.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		stmts, err := addColumns(ctx, tx, m.SQL)
		if err != nil {
			tx.Rollback()
			return err
		}
		if _, err := tx.ExecContext(ctx, stmts); err != nil {
			tx.Rollback()
			return err
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.Version)); err != nil {
			tx.Rollback()
			return err
		}
		return tx.Commit()
	})
	switch {
	case errors.Is(err, crawl.ErrSchemaTooNew):
		return fmt.Errorf("sqlite: %w", err)
	case err != nil:
		return fmt.Errorf("sqlite: migrate %s: %w", db.path, err)
	}
	return nil
}

// recover returns URLs left in flight by a previous process to the queue and
// clears every host lease: with the process lock held, no one else can be
// working on them.
func (db *DB) recover(ctx context.Context) error {
	return db.tx(ctx, func(t *txn) error {
		rows, err := t.tx.QueryContext(ctx, `SELECT host_id, count(*) FROM urls WHERE state = 1 GROUP BY host_id`)
		if err != nil {
			return err
		}
		perHost := map[crawl.ID]int64{}
		for rows.Next() {
			var h crawl.ID
			var n int64
			if err := rows.Scan(&h, &n); err != nil {
				rows.Close()
				return err
			}
			perHost[h] = n
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if err := t.requeueInFlight(ctx, perHost); err != nil {
			return err
		}
		_, err = t.tx.ExecContext(ctx, `UPDATE hosts SET lease_owner = NULL, lease_until = 0 WHERE lease_owner IS NOT NULL`)
		return err
	})
}

// Path returns the database file name.
func (db *DB) Path() string { return db.path }
