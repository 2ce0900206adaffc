// Package migrate is the schema migration rule both stores follow: how
// migrations are named, embedded, ordered and applied, and how a
// database's schema version is judged against this build's. The SQL is
// each store's own; where the version is kept (SQLite's user_version,
// PostgreSQL's schema_migrations table) and how a step is made atomic
// (SQLite: a transaction per step; PostgreSQL: one transaction for all,
// under an advisory lock) is the store's apply function.
//
// # Numbering
//
// A migration is a file "NNNN_what.sql" in the store's migrations
// directory; NNNN is the schema version it brings the database to.
// Versions count per backend and need not agree. SQLite needed five steps
// PostgreSQL did not: 0006_near_index (PostgreSQL made its band indexes
// covering in 0003), 0008_search_tier and, for its FTS5 index,
// 0010_fts_hashsize and 0011_contentless_fts; and it folds search text in
// two steps (0012_fold_capitals, 0013_fold_diacritics) where PostgreSQL
// took one (0008_fold). So the same schema is SQLite version 14 and
// PostgreSQL version 9. Versions are recorded in existing databases and
// are never renumbered: a renumbered step would be applied twice, or
// skipped. A new step takes the next number of its own backend; a change
// both backends need is two files, one in each directory, whose names
// after the number match.
package migrate

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/acrawler/acrawler/internal/crawl"
)

// Migration is one step of a schema.
type Migration struct {
	Version int    // the schema version the step brings a database to
	Name    string // the file name, "0003_content.sql"
	SQL     string
}

// Set is a backend's migrations, in version order.
type Set struct {
	ms []Migration
}

// Load reads the migrations in dir of fsys: every file, named by a version
// number, "_" and a description. It refuses a name without a number and
// two files of one version.
func Load(fsys fs.FS, dir string) (*Set, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	var ms []Migration
	for _, e := range entries {
		n, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(n)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration file %s: name must start with a number above 0 and _", e.Name())
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("migration file %s: %w", e.Name(), err)
		}
		ms = append(ms, Migration{Version: v, Name: e.Name(), SQL: string(b)})
	}
	slices.SortFunc(ms, func(a, b Migration) int { return a.Version - b.Version })
	for i := 1; i < len(ms); i++ {
		if ms[i].Version == ms[i-1].Version {
			return nil, fmt.Errorf("migration files %s and %s: same version %d", ms[i-1].Name, ms[i].Name, ms[i].Version)
		}
	}
	return &Set{ms: ms}, nil
}

// MustLoad is Load for migrations embedded in the program, which a test
// of the store loads: it panics on an error.
func MustLoad(fsys fs.FS, dir string) *Set {
	s, err := Load(fsys, dir)
	if err != nil {
		panic(err)
	}
	return s
}

// Latest is the newest schema version the set knows (0 for none).
func (s *Set) Latest() int {
	if len(s.ms) == 0 {
		return 0
	}
	return s.ms[len(s.ms)-1].Version
}

// TooNew is the error for a database at version v, newer than the set
// knows: it wraps crawl.ErrSchemaTooNew. where names the database.
func (s *Set) TooNew(where string, v int) error {
	return fmt.Errorf("%s has schema version %d, this acrawler knows up to %d: %w", where, v, s.Latest(), crawl.ErrSchemaTooNew)
}

// Check judges a database at version v that is to be read without
// migrating it: nil when v is the set's latest, else an error wrapping
// crawl.ErrSchemaTooNew or crawl.ErrNeedsMigration. where names the
// database.
func (s *Set) Check(where string, v int) error {
	switch known := s.Latest(); {
	case v > known:
		return s.TooNew(where, v)
	case v < known:
		return fmt.Errorf("%s has schema version %d, this acrawler reads %d: it %w", where, v, known, crawl.ErrNeedsMigration)
	}
	return nil
}

// Apply brings a database at version from up to the latest: it calls
// apply, in version order, for each migration above from, stopping at
// the first error, and returns the version reached. apply runs the step's
// SQL and records its version. A database newer than the set is refused
// (TooNew) before any step. An error of a step is returned wrapped with
// the step's name, for the store to wrap with the database's.
//
// Each step is logged to log (nil: not logged) as it starts: at Info when
// the database had a schema, whose upgrade may take a while on a large
// crawl, and at Debug when it is new.
func (s *Set) Apply(ctx context.Context, log *slog.Logger, where string, from int, apply func(context.Context, Migration) error) (to int, err error) {
	if from > s.Latest() {
		return from, s.TooNew(where, from)
	}
	level := slog.LevelInfo
	if from == 0 {
		level = slog.LevelDebug
	}
	to = from
	for _, m := range s.ms {
		if m.Version <= from {
			continue
		}
		if err := ctx.Err(); err != nil {
			return to, err
		}
		if log != nil {
			log.Log(ctx, level, "upgrading the database schema", "db", where, "migration", m.Name, "from", to)
		}
		if err := apply(ctx, m); err != nil {
			return to, fmt.Errorf("%s: %w", m.Name, err)
		}
		to = m.Version
	}
	return to, nil
}
