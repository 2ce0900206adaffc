// Package postgres is the shared store: the frontier, hosts, robots cache,
// pages, links, duplicate hashes, per-host outcomes and metrics of a crawl
// in PostgreSQL, so that several crawl processes on several machines can
// work on one crawl, coordinated by PostgreSQL alone.
//
// Hosts are leased by locking candidate rows with FOR UPDATE SKIP LOCKED,
// those whose next fetch time has come first, the best of them (by
// top_priority, the priority of their best queued URL) first.
// A host row lock also guards the host's URLs: whoever admits, claims or
// settles URLs of a host holds its row, so the per-host cap and the
// in-flight bookkeeping hold across processes. The page budget is checked
// under an advisory lock that only claims take. Every transaction takes
// its locks in one order (hosts by ID, then URLs by ID, then content
// hashes by hash, then pages by URL ID, then its counters row) and is
// retried if PostgreSQL still reports a deadlock. A commit does not touch
// the link targets of its pages: it stages their inbound-link counts and
// bonuses (Limits.InlinkBonus) in a table of its own, merged into the URL
// rows in large batches by whichever process finds the stage large, which
// locks the URL rows it writes in ID order and skips those another
// transaction holds or that are in flight (inlinks.go). The
// counters are split over rows, one per running transaction, and summed
// when read, so that no single row serializes the processes. Lease and
// claim transactions commit without waiting for the disk (see lazy);
// results and admissions wait.
//
// Exact duplicates are found through the content hashes, unique keys, so
// concurrent commits agree on the first page with some content.
// Near-duplicates are judged against the pages recorded when a commit
// looks (through the SimHash band indexes) and the earlier pages of its
// own batch: two pages within the near-duplicate distance committed at the
// same moment by two transactions may both be recorded as originals.
//
// The embedded search index is a tsvector column of pages with a GIN
// index, written by the statement that writes the page; SetRanks
// refreshes its anchor texts a batch of pages at a time.
//
// Recrawls: a commit with a crawl.Revisit records the page's schedule and
// history; a 304 or 404/410 revisit leaves the page row as it was, an
// unchanged 200 rewrites it but keeps its index entry. Commits that write
// schedules or touch pages lock the recorded pages they write in URL ID
// order before writing any. ScheduleDue requeues due pages under their
// host and URL row locks, so that processes running it at once requeue
// each page once. With Options.Outbox, every change of a page's index
// entry queues operations for an external index in the outbox table, in
// the same transaction; OutboxNext leases them with FOR UPDATE SKIP
// LOCKED, so that no operation goes to two processes within a lease.
//
// Owner names must be unique among running processes. A lease is held by
// an owner through one store handle: an owner that opens a new handle
// (after a restart) takes its earlier leases back at once.
package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/snippet"
	"github.com/acrawler/acrawler/internal/store/migrate"
)

// Options configure Open.
type Options struct {
	// MaxConns caps the connection pool; 0 keeps pgxpool's default (the
	// larger of 4 and the number of CPUs).
	MaxConns int32
	// ReadOnly opens the store for reading a crawl that other processes
	// may be writing: nothing is migrated and every write fails.
	ReadOnly bool
	// Schema is the PostgreSQL schema holding the crawl's tables (it
	// becomes the connections' search_path); empty means the first schema
	// of the DSN's search_path, or, when that starts with "$user" (the
	// server's default), the first of it that exists. Open creates it
	// when missing unless ReadOnly.
	Schema string
	// Outbox makes page writes (Commit, Reparse, FinishRun, SetRanks,
	// RebuildIndex) queue operations for an external index (OpenSearch),
	// drained with OutboxNext and OutboxDone.
	Outbox bool
	// NearDistance is the SimHash distance within which a page is recorded
	// as a near-duplicate of an earlier one (and not indexed): 0 means
	// crawl.DefaultNearDistance, a negative value no near-duplicate
	// detection. At most crawl.MaxNearDistance.
	NearDistance int
	// Log receives what an open does that may take long: the steps of a
	// schema upgrade, the search index rebuilt after one, and a wait for
	// another process's rebuild. nil: nothing is logged.
	Log *slog.Logger

	tune *tuning // nil: defaultTuning; tests set smaller sizes (export_test.go)
}

// tuning is the sizes at which a store merges what it stages (stageMin,
// stageShare, mergeApartMin, mergeRanges: offers.go; packMin: runs.go; mergeRows:
// inlinks.go), stages its discoveries (findsFrom, findsShare, findsMin:
// finds.go), looks for grown tables (analyzeEvery: analyze.go), splits
// a commit's pages into statements (pageChunkBytes: commit.go) and
// advises on the server's settings (settingsFrom: server.go). A
// store keeps its own, so that tests run the same code on small data
// side by side.
type tuning struct {
	stageMin, stageShare, mergeApartMin, packMin    int64
	findsFrom, findsShare, findsMin, settingsFrom   int64
	mergeRanges, mergeRows, analyzeEvery, pageChunk int
}

var defaultTuning = tuning{stageMin: stageMin, stageShare: stageShare, mergeApartMin: mergeApartMin, packMin: packMin,
	findsFrom: findsFrom, findsShare: findsShare, findsMin: findsMin, settingsFrom: settingsFrom,
	mergeRanges: mergeRanges, mergeRows: mergeRows, analyzeEvery: analyzeEvery, pageChunk: pageChunkBytes}

// DB is a crawl store in a PostgreSQL database.
type DB struct {
	pool     *pgxpool.Pool
	target   string // host:port/database, for messages; never the password
	schema   string
	scope    string // the schema the store's advisory locks are keys of (lockKey)
	readOnly bool
	outbox   bool         // queue external-index operations with page writes
	near     int          // near-duplicate distance; negative: none
	log      *slog.Logger // Options.Log, or a logger that drops everything
	tune     tuning       // Options' tuning, or defaultTuning

	// session tells this handle's leases from those its owner took through
	// an earlier handle, i.e. before a restart.
	session int64
	slots   slotPool
	merger  inlinkMerger // merges of the staged inbound links (inlinks.go)
	stored  findsStored  // about the URLs stored, for a commit's choice to stage (finds.go)
	claimed merged       // what merges run by claims decided, for the next commit (finds.go)
	grown   analyzer     // analyses of the tables that grew (analyze.go)

	snippets *snippet.Maker // search hits' snippets
}

var _ crawl.Store = (*DB)(nil)

// Open connects to the database named by dsn (a postgres:// URL or a
// key=value string), applies pending migrations unless opts.ReadOnly, and
// returns the store. It fails with an error wrapping crawl.ErrSchemaTooNew
// when the database was written by a newer acrawler. Error messages name
// the server by host, port and database only: never the password.
func Open(ctx context.Context, dsn string, opts Options) (*DB, error) {
	db, err := connect(ctx, dsn, opts)
	if err != nil {
		return nil, err
	}
	if opts.ReadOnly {
		err = db.checkVersion(ctx)
	} else if _, _, err = db.migrate(ctx); err == nil {
		if err = db.foldCounters(ctx); err == nil {
			err = db.maintain(ctx)
		}
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	if !opts.ReadOnly {
		db.adviseSettings(ctx)
	}
	return db, nil
}

// Migrate brings the database named by dsn to the newest schema this build
// knows and returns the versions before and after. Open does the same; the
// acrawler migrate command calls it on its own.
func Migrate(ctx context.Context, dsn string, opts Options) (from, to int, err error) {
	opts.ReadOnly = false
	opts.MaxConns = 1
	db, err := connect(ctx, dsn, opts)
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	return db.migrate(ctx)
}

// parseDSN parses dsn into a pool configuration and names its server.
// Its error never shows a password of dsn.
func parseDSN(dsn string) (*pgxpool.Config, string, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// Not wrapped: a *pgconn.ParseConfigError carries the DSN, password
		// included, and redacts its message only on a best-effort basis.
		return nil, "", fmt.Errorf("postgres: parse DSN: %s", redact(err.Error(), dsn))
	}
	return cfg, describe(cfg.ConnConfig.Config), nil
}

func connect(ctx context.Context, dsn string, opts Options) (*DB, error) {
	if opts.NearDistance > crawl.MaxNearDistance {
		return nil, fmt.Errorf("postgres: near-duplicate distance %d above %d", opts.NearDistance, crawl.MaxNearDistance)
	}
	cfg, target, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	rp := cfg.ConnConfig.RuntimeParams
	if opts.Schema != "" {
		rp["search_path"] = pgx.Identifier{opts.Schema}.Sanitize()
	}
	if opts.ReadOnly {
		rp["default_transaction_read_only"] = "on"
	}
	if rp["application_name"] == "" {
		rp["application_name"] = "acrawler"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect to %s: %w", target, connectCause(err))
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: connect to %s: %w", target, connectCause(err))
	}
	snippets, err := snippet.New()
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: connect to %s: %w", target, err)
	}
	// A crawl is one schema's tables, named by Schema or else first in the
	// DSN's search_path, which an open for writing creates as it does
	// Schema; the locks of crawls in different schemas of one server are
	// apart either way. A search_path that starts with "$user" (the
	// server's default) leaves the schema to the server: the first of it
	// that exists.
	schema, scope := opts.Schema, ""
	if schema == "" {
		var path, current string
		if err := pool.QueryRow(ctx, `SELECT current_setting('search_path'), coalesce(current_schema(), '')`).Scan(&path, &current); err != nil {
			pool.Close()
			return nil, fmt.Errorf("postgres: connect to %s: %w", target, err)
		}
		schema, _ = firstSchema(path) // "": the server's choice
		scope = cmp.Or(current, path)
	}
	scope = cmp.Or(schema, scope)
	session := 1<<32 + rand.Int64N(1<<61)
	db := &DB{pool: pool, target: target, schema: schema, scope: scope, readOnly: opts.ReadOnly, outbox: opts.Outbox,
		near: cmp.Or(opts.NearDistance, crawl.DefaultNearDistance), session: session, slots: slotPool{base: session},
		snippets: snippets, log: logOrDiscard(opts.Log), tune: defaultTuning}
	if opts.tune != nil {
		db.tune = *opts.tune
	}
	return db, nil
}

// logOrDiscard is log, or a logger that drops everything when it is nil.
func logOrDiscard(log *slog.Logger) *slog.Logger {
	if log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return log
}

// describe names the server of a connection configuration without its
// credentials.
func describe(c pgconn.Config) string {
	host := c.Host
	if strings.HasPrefix(host, "/") {
		return fmt.Sprintf("%s/.s.PGSQL.%d/%s", host, c.Port, c.Database)
	}
	return net.JoinHostPort(host, strconv.Itoa(int(c.Port))) + "/" + c.Database
}

// connectCause strips a *pgconn.ConnectError, whose Config field holds the
// password, down to the per-address dial errors it wraps.
func connectCause(err error) error {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		if inner := ce.Unwrap(); inner != nil {
			return inner
		}
		return errors.New("connection failed")
	}
	return err
}

// redact masks in msg the connection string quoted by pgx's parse errors
// and every password found in dsn: in a URL's user information (taken, as
// a person would read it, from the first colon after the user name to the
// last @, even when the URL is malformed), in a password query parameter
// and in a password=value pair.
func redact(msg, dsn string) string {
	// pgx quotes the whole connection string between backquotes.
	if i, j := strings.IndexByte(msg, '`'), strings.LastIndexByte(msg, '`'); i >= 0 && j > i {
		msg = msg[:i] + "DSN" + msg[j+1:]
	}
	var secrets []string
	if rest, ok := strings.CutPrefix(dsn, "postgres://"); ok || strings.HasPrefix(dsn, "postgresql://") {
		if !ok {
			rest = strings.TrimPrefix(dsn, "postgresql://")
		}
		if at := strings.LastIndexByte(rest, '@'); at >= 0 {
			if colon := strings.IndexByte(rest[:at], ':'); colon >= 0 {
				secrets = append(secrets, rest[colon+1:at])
			}
		}
		if u, err := url.Parse(dsn); err == nil {
			if pw, ok := u.User.Password(); ok {
				secrets = append(secrets, pw)
			}
		}
		_, query, _ := strings.Cut(rest, "?")
		for _, kv := range strings.Split(query, "&") {
			if k, v, ok := strings.Cut(kv, "="); ok && strings.Contains(strings.ToLower(k), "pass") {
				secrets = append(secrets, v)
				if uv, err := url.QueryUnescape(v); err == nil {
					secrets = append(secrets, uv)
				}
			}
		}
	} else {
		for _, f := range strings.Fields(dsn) {
			if k, v, ok := strings.Cut(f, "="); ok && strings.Contains(strings.ToLower(k), "pass") {
				secrets = append(secrets, v, strings.Trim(v, `'"`))
			}
		}
	}
	for _, s := range secrets {
		if s == "" {
			continue
		}
		msg = strings.ReplaceAll(msg, s, "xxxxx")
		if q := strconv.Quote(s); len(q) > 2 {
			msg = strings.ReplaceAll(msg, q[1:len(q)-1], "xxxxx")
		}
		if e := url.PathEscape(s); e != s {
			msg = strings.ReplaceAll(msg, e, "xxxxx")
		}
	}
	return msg
}

// Close closes the connection pool. Host leases are kept.
func (db *DB) Close() error {
	db.merger.close(db)
	db.grown.close()
	db.pool.Close()
	return db.snippets.Close()
}

// Target names the database (host:port/database), without credentials.
func (db *DB) Target() string { return db.target }

func (db *DB) where() string {
	if db.schema == "" {
		return db.target
	}
	return db.target + " schema " + db.schema
}

// migrate applies the pending migrations in one transaction, under an
// advisory lock so that processes starting together apply them once.
func (db *DB) migrate(ctx context.Context) (from, to int, err error) {
	err = pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, db.lockKey("migrate")); err != nil {
			return err
		}
		if db.schema != "" {
			var exists bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, db.schema).Scan(&exists); err != nil {
				return err
			}
			if !exists {
				if _, err := tx.Exec(ctx, `CREATE SCHEMA `+pgx.Identifier{db.schema}.Sanitize()); err != nil {
					return err
				}
			}
		}
		if err := db.refuseForeign(ctx, tx); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    INTEGER     PRIMARY KEY,
			applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&from); err != nil {
			return err
		}
		to, err = migrations.Apply(ctx, db.log, db.where(), from, func(ctx context.Context, m migrate.Migration) error {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, m.Version)
			return err
		})
		return err
	})
	switch {
	case errors.Is(err, crawl.ErrForeign):
		return 0, 0, err
	case errors.Is(err, crawl.ErrSchemaTooNew):
		return 0, 0, fmt.Errorf("postgres: %w", err)
	case err != nil:
		return 0, 0, fmt.Errorf("postgres: migrate %s: %w", db.where(), err)
	}
	return from, to, nil
}

// maintain does the work a migration left for the store to do once it is
// open: rebuilding the search column (after 0023 changed its words). The
// task stays recorded until it is done, so an interrupted rebuild starts
// again at the next open; processes opening together wait for the one
// that does it, under an advisory lock.
func (db *DB) maintain(ctx context.Context) error {
	var n int
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM maintenance WHERE task = 'reindex'`).Scan(&n); err != nil {
		return fmt.Errorf("postgres: maintenance: %w", err)
	}
	if n == 0 {
		return nil
	}
	// The lock is held by a connection of its own, outside the pool,
	// which the rebuild may need whole; closing it releases the lock.
	conn, err := pgx.ConnectConfig(ctx, db.pool.Config().ConnConfig)
	if err != nil {
		return fmt.Errorf("postgres: maintenance: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var locked bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, db.maintainLock()).Scan(&locked); err != nil {
		return fmt.Errorf("postgres: maintenance: %w", err)
	}
	if !locked {
		db.log.Info("waiting for the search index rebuild another process is running", "db", db.where())
		if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, db.maintainLock()); err != nil {
			return fmt.Errorf("postgres: maintenance: %w", err)
		}
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM maintenance WHERE task = 'reindex'`).Scan(&n); err != nil {
		return fmt.Errorf("postgres: maintenance: %w", err)
	}
	if n == 0 {
		return nil // done by another process meanwhile
	}
	db.log.Info("rebuilding the search index, once, for the upgraded schema", "db", db.where())
	start := time.Now()
	docs, err := db.RebuildIndex(ctx)
	if err != nil {
		return fmt.Errorf("postgres: maintenance: %w", err)
	}
	db.log.Info("search index rebuilt", "db", db.where(), "documents", docs, "took", time.Since(start).Round(time.Millisecond))
	if _, err := conn.Exec(ctx, `DELETE FROM maintenance WHERE task = 'reindex'`); err != nil {
		return fmt.Errorf("postgres: maintenance: %w", err)
	}
	return nil
}

// lockKey is the key of the store's advisory lock called name, in its
// schema: processes of one crawl share it, crawls in other schemas of the
// server have their own.
func (db *DB) lockKey(name string) int64 {
	return int64(crawl.HashID("acrawler/postgres " + name + ":" + db.scope))
}

// maintainLock is the advisory lock maintain holds while it works.
func (db *DB) maintainLock() int64 {
	return db.lockKey("maintain")
}

// checkVersion makes sure a database opened read-only holds a crawl this
// build understands.
func (db *DB) checkVersion(ctx context.Context) error {
	var present bool
	if err := db.pool.QueryRow(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&present); err != nil {
		return fmt.Errorf("postgres: open %s: %w", db.where(), err)
	}
	if !present {
		if err := db.refuseForeign(ctx, db.pool); err != nil {
			return err
		}
		return fmt.Errorf("postgres: open %s: no acrawler tables: it %w", db.where(), crawl.ErrNeedsMigration)
	}
	var v int
	if err := db.pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return fmt.Errorf("postgres: open %s: %w", db.where(), err)
	}
	if err := migrations.Check(db.where(), v); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return nil
}

// refuseForeign refuses a schema that holds tables or views but no
// schema_migrations table: another program's, which a migration would
// fill with acrawler's tables beside its own.
func (db *DB) refuseForeign(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}) error {
	rows, err := q.Query(ctx, `SELECT c.relname FROM pg_class c
		WHERE c.relnamespace = coalesce(to_regnamespace(nullif($1, '')), current_schema()::regnamespace)
		  AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
		  AND NOT EXISTS (SELECT 1 FROM pg_class m WHERE m.relname = 'schema_migrations' AND m.relnamespace = c.relnamespace AND m.relkind IN ('r', 'p'))
		ORDER BY c.relname LIMIT 6`, db.schema)
	if err != nil {
		return fmt.Errorf("postgres: open %s: %w", db.where(), err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("postgres: open %s: %w", db.where(), err)
	}
	if len(names) == 0 {
		return nil
	}
	list := strings.Join(names[:min(len(names), 5)], ", ")
	if len(names) > 5 {
		list += ", ..."
	}
	return fmt.Errorf("postgres: %s is %w (it has tables: %s); refusing to change it", db.where(), crawl.ErrForeign, list)
}

// foldCounters adds the counters rows of the slots into slot 0 and
// deletes them, so that their number stays small. A process still using a
// slot just creates its row again. It locks slot 0, then the others in
// slot order, as StartRun does: in another order the two would deadlock.
func (db *DB) foldCounters(ctx context.Context) error {
	err := db.write(ctx, durable, func(ctx context.Context, t *txn) error {
		b := t.batch()
		b.Queue(`SELECT 1 FROM counters WHERE slot = 0 FOR NO KEY UPDATE`)
		b.Queue(`WITH d AS (DELETE FROM counters WHERE slot IN (
				SELECT slot FROM counters WHERE slot <> 0 ORDER BY slot FOR UPDATE) RETURNING *)
			UPDATE counters c SET queued = c.queued + s.queued, inflight = c.inflight + s.inflight, done = c.done + s.done,
				failed = c.failed + s.failed, disallowed = c.disallowed + s.disallowed, skipped = c.skipped + s.skipped,
				reserved = c.reserved + s.reserved, bytes = c.bytes + s.bytes, hosts = c.hosts + s.hosts,
				pages = c.pages + s.pages, links = c.links + s.links, duplicates = c.duplicates + s.duplicates
			FROM (SELECT coalesce(sum(queued), 0) AS queued, coalesce(sum(inflight), 0) AS inflight,
				coalesce(sum(done), 0) AS done, coalesce(sum(failed), 0) AS failed,
				coalesce(sum(disallowed), 0) AS disallowed, coalesce(sum(skipped), 0) AS skipped,
				coalesce(sum(reserved), 0) AS reserved, coalesce(sum(bytes), 0) AS bytes,
				coalesce(sum(hosts), 0) AS hosts, coalesce(sum(pages), 0) AS pages,
				coalesce(sum(links), 0) AS links, coalesce(sum(duplicates), 0) AS duplicates FROM d) s
			WHERE c.slot = 0`)
		return t.commit(ctx, b)
	})
	if err != nil {
		return fmt.Errorf("postgres: open %s: fold counters: %w", db.where(), err)
	}
	return nil
}

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v)
}

// clean makes s storable as PostgreSQL TEXT, which refuses NUL bytes and
// invalid UTF-8 (SQLite stores both as given).
func clean(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}
