package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"modernc.org/libc"
	sqlitedrv "modernc.org/sqlite"
)

// auxConnector opens connections of a driver of its own, whose connection
// hook registers the FTS5 auxiliary functions, counting the registrations.
type auxConnector struct {
	drv        *sqlitedrv.Driver
	dsn        string
	registered *atomic.Int64
}

func (c auxConnector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c auxConnector) Driver() driver.Driver                        { return c.drv }

// openAuxDB opens the database (a DSN as Open makes them) with every
// pooled connection registering the auxiliary functions.
func openAuxDB(t testing.TB, dsn string) (*sql.DB, *atomic.Int64) {
	t.Helper()
	var registered atomic.Int64
	drv := &sqlitedrv.Driver{}
	drv.RegisterConnectionHook(func(c sqlitedrv.ExecQuerierContext, _ string) error {
		if err := registerFTS5Aux(context.Background(), c); err != nil {
			return err
		}
		registered.Add(1)
		return nil
	})
	db := sql.OpenDB(auxConnector{drv: drv, dsn: dsn, registered: &registered})
	t.Cleanup(func() { db.Close() })
	return db, &registered
}

const auxTable = `CREATE VIRTUAL TABLE t USING fts5(title, body, anchors, content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 0')`

type auxDoc [3]string // title, body, anchors

// auxQuery is a full-text query and its phrases, in FTS5's numbering.
type auxQuery struct {
	match   string
	phrases [][]string
	any     bool // the phrases are ORed, else ANDed
}

var auxQueries = []auxQuery{
	{match: "alpha", phrases: [][]string{{"alpha"}}},
	{match: "alpha beta", phrases: [][]string{{"alpha"}, {"beta"}}},
	{match: "beta gamma delta", phrases: [][]string{{"beta"}, {"gamma"}, {"delta"}}},
	{match: "alpha OR eta", phrases: [][]string{{"alpha"}, {"eta"}}, any: true},
	{match: `"alpha beta" delta`, phrases: [][]string{{"alpha", "beta"}, {"delta"}}},
	{match: `"gamma delta" OR zeta`, phrases: [][]string{{"gamma", "delta"}, {"zeta"}}, any: true},
}

// auxWords is n words, each of the query words about once in 110, so
// that most match fewer than half the rows and their IDF is not FTS5's
// floor.
func auxWords(rng *rand.Rand, n int) string {
	query := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"}
	w := make([]string, n)
	for i := range w {
		if k := rng.IntN(len(query) + 100); k < len(query) {
			w[i] = query[k]
		} else {
			w[i] = fmt.Sprintf("filler%d", k)
		}
	}
	return strings.Join(w, " ")
}

// auxCorpus is the test's documents by rowid.
func auxCorpus() map[int64]auxDoc {
	rng := rand.New(rand.NewPCG(3, 4))
	docs := map[int64]auxDoc{}
	for id := int64(1); id <= 40; id++ {
		d := auxDoc{auxWords(rng, 1+rng.IntN(4)), auxWords(rng, 5+rng.IntN(40)), auxWords(rng, rng.IntN(8))}
		if rng.IntN(5) == 0 {
			d[1] += " alpha beta"
		}
		if rng.IntN(5) == 0 {
			d[2] += " gamma delta"
		}
		docs[id] = d
	}
	return docs
}

// phraseHits is how many times phrase starts in text's words.
func phraseHits(text string, phrase []string) int {
	words := strings.Fields(text)
	n := 0
	for i := range words {
		if i+len(phrase) <= len(words) && slices.Equal(words[i:i+len(phrase)], phrase) {
			n++
		}
	}
	return n
}

func (q auxQuery) matches(d auxDoc) bool {
	for _, p := range q.phrases {
		in := phraseHits(d[0], p)+phraseHits(d[1], p)+phraseHits(d[2], p) > 0
		if in == q.any {
			return q.any
		}
	}
	return !q.any
}

// TestFTS5AuxHits checks the auxiliary functions against counts made from
// the indexed text, and that bm25 made from them is FTS5's, on a
// contentless table like pages_fts, some of its rows deleted.
func TestFTS5AuxHits(t *testing.T) {
	ctx := context.Background()
	db, _ := openAuxDB(t, dsn(filepath.Join(t.TempDir(), "aux.db"), false, 2048))
	if _, err := db.ExecContext(ctx, auxTable); err != nil {
		t.Fatal(err)
	}
	docs := auxCorpus()
	for id, d := range docs {
		if _, err := db.ExecContext(ctx, "INSERT INTO t (rowid, title, body, anchors) VALUES (?, ?, ?, ?)", id, d[0], d[1], d[2]); err != nil {
			t.Fatal(err)
		}
	}
	// Rows deleted from a contentless table leave their postings behind
	// until merged: queries must not see them.
	for id := int64(100); id < 103; id++ {
		if _, err := db.ExecContext(ctx, "INSERT INTO t (rowid, title, body, anchors) VALUES (?, 'alpha', 'alpha beta gamma', 'delta')", id); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, "DELETE FROM t WHERE rowid = ?", id); err != nil {
			t.Fatal(err)
		}
	}
	weights := []float64{10, 1, 4}
	top := 0.0
	for _, q := range auxQueries {
		st := queryAuxStats(t, db, q.match)
		checkAuxStats(t, q, st, docs)
		rows, err := db.QueryContext(ctx, "SELECT rowid, "+ftsHitsFunc+"(t), bm25(t, 10, 1, 4) FROM t WHERE t MATCH ?", q.match)
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for rows.Next() {
			var id int64
			var b []byte
			var score float64
			if err := rows.Scan(&id, &b, &score); err != nil {
				t.Fatal(err)
			}
			seen++
			h, err := decodeFTSHits(b)
			if err != nil {
				t.Fatal(err)
			}
			d, ok := docs[id]
			if !ok || !q.matches(d) {
				t.Fatalf("%s: row %d matched", q.match, id)
			}
			checkAuxHits(t, q, id, h, d)
			top = min(top, score)
			if got := bm25(st, h, weights); math.Abs(got-score) > 1e-9 {
				t.Errorf("%s: row %d: bm25 from hits %.17g, FTS5's %.17g", q.match, id, got, score)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		want := 0
		for _, d := range docs {
			if q.matches(d) {
				want++
			}
		}
		if seen != want || seen == 0 {
			t.Errorf("%s: %d rows matched, want %d (and some)", q.match, seen, want)
		}
	}
	if top > -1 {
		t.Errorf("best score %g: the phrases' IDF is at FTS5's floor, which tests little", top)
	}
}

func queryAuxStats(t *testing.T, db *sql.DB, match string) ftsStats {
	t.Helper()
	var b []byte
	if err := db.QueryRowContext(context.Background(), "SELECT "+ftsStatsFunc+"(t) FROM t WHERE t MATCH ? LIMIT 1", match).Scan(&b); err != nil {
		t.Fatalf("%s: %v", match, err)
	}
	st, err := decodeFTSStats(b)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func checkAuxStats(t *testing.T, q auxQuery, st ftsStats, docs map[int64]auxDoc) {
	t.Helper()
	want := ftsStats{rows: int64(len(docs)), colTotal: make([]int64, 3), phraseRows: make([]int64, len(q.phrases))}
	for _, d := range docs {
		for c, text := range d {
			want.colTotal[c] += int64(len(strings.Fields(text)))
		}
		for p, phrase := range q.phrases {
			if phraseHits(d[0], phrase)+phraseHits(d[1], phrase)+phraseHits(d[2], phrase) > 0 {
				want.phraseRows[p]++
			}
		}
	}
	if st.rows != want.rows || !slices.Equal(st.colTotal, want.colTotal) || !slices.Equal(st.phraseRows, want.phraseRows) {
		t.Errorf("%s: stats %+v, want %+v", q.match, st, want)
	}
}

func checkAuxHits(t *testing.T, q auxQuery, id int64, h ftsHits, d auxDoc) {
	t.Helper()
	want := ftsHits{colSize: make([]int, 3), hits: make([]int, 3*len(q.phrases))}
	for c, text := range d {
		want.colSize[c] = len(strings.Fields(text))
		for p, phrase := range q.phrases {
			want.hits[p*3+c] = phraseHits(text, phrase)
		}
	}
	if !slices.Equal(h.colSize, want.colSize) || !slices.Equal(h.hits, want.hits) {
		t.Errorf("%s: row %d: hits %+v, want %+v", q.match, id, h, want)
	}
}

// TestFTS5AuxEveryPooledConnection holds several connections of one pool
// and queries them concurrently: the connection hook registered the
// functions on each, and on
// the read-only connections searches use; a connection of the plain
// driver, without them, fails the same query.
func TestFTS5AuxEveryPooledConnection(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "pool.db")
	db, registered := openAuxDB(t, dsn(file, false, 2048))
	if _, err := db.ExecContext(ctx, auxTable+"; INSERT INTO t (rowid, title, body, anchors) VALUES (1, 'alpha', 'alpha beta', 'gamma')"); err != nil {
		t.Fatal(err)
	}
	const n = 4
	conns := make([]*sql.Conn, n)
	for i := range conns {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns[i] = c
	}
	if got := registered.Load(); got < n {
		t.Fatalf("%d registrations for %d connections", got, n)
	}
	const q = "SELECT " + ftsHitsFunc + "(t) FROM t WHERE t MATCH 'alpha'"
	// All at once, each connection calling the functions in a goroutine
	// of its own.
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() {
			for range 50 {
				var b []byte
				if err := c.QueryRowContext(ctx, q).Scan(&b); err != nil {
					t.Errorf("connection %d: %v", i, err)
					return
				}
				h, err := decodeFTSHits(b)
				if want := (ftsHits{colSize: []int{1, 2, 1}, hits: []int{1, 1, 0}}); err != nil || !slices.Equal(h.colSize, want.colSize) || !slices.Equal(h.hits, want.hits) {
					t.Errorf("connection %d: %+v, %v, want %+v", i, h, err, want)
					return
				}
			}
		})
	}
	wg.Wait()
	ro, _ := openAuxDB(t, readerDSN(file, false, 2048))
	var b []byte
	if err := ro.QueryRowContext(ctx, q).Scan(&b); err != nil {
		t.Errorf("read-only connection: %v", err)
	}
	plain, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if err := plain.QueryRowContext(ctx, q).Scan(&b); err == nil || !strings.Contains(err.Error(), "no such function") {
		t.Errorf("without registration: %v, want no such function", err)
	}
}

// TestFTS5AuxRaw registers on one connection of a plain pool through
// sql.Conn.Raw, and refuses what is not a modernc.org/sqlite connection.
func TestFTS5AuxRaw(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", dsn(filepath.Join(t.TempDir(), "raw.db"), false, 2048))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Raw(func(dc any) error { return registerFTS5Aux(ctx, dc) }); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, auxTable+"; INSERT INTO t (rowid, title, body, anchors) VALUES (7, 'alpha alpha', '', '')"); err != nil {
		t.Fatal(err)
	}
	var b []byte
	if err := c.QueryRowContext(ctx, "SELECT "+ftsStatsFunc+"(t) FROM t WHERE t MATCH 'alpha'").Scan(&b); err != nil {
		t.Fatal(err)
	}
	if st, err := decodeFTSStats(b); err != nil || st.rows != 1 || !slices.Equal(st.colTotal, []int64{2, 0, 0}) || !slices.Equal(st.phraseRows, []int64{1}) {
		t.Errorf("stats %+v, %v", st, err)
	}
	if err := c.QueryRowContext(ctx, "SELECT "+ftsHitsFunc+"(t, 1) FROM t WHERE t MATCH 'alpha'").Scan(&b); err == nil || !strings.Contains(err.Error(), "no argument after the table") {
		t.Errorf("an extra argument: %v", err)
	}
	if err := registerFTS5Aux(ctx, struct{ db uintptr }{1}); err == nil {
		t.Error("registered on a struct that is not a connection")
	}
	// The check that the handle found is the connection's: another
	// connection's handle fails it.
	other, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	err = c.Raw(func(dc any) error {
		h, err := connHandle(dc)
		if err != nil {
			return err
		}
		return other.Raw(func(odc any) error {
			tls := libc.NewTLS()
			defer tls.Close()
			if err := checkHandle(ctx, tls, h, dc); err != nil {
				return fmt.Errorf("its own handle: %w", err)
			}
			if err := checkHandle(ctx, tls, h, odc); err == nil {
				return errors.New("another connection's handle passed the check")
			}
			return nil
		})
	})
	if err != nil {
		t.Error(err)
	}
}

// BenchmarkFTS5Hits measures what ftsHitsFunc adds to a query matching
// 1,000 of 2,000 rows of pages_fts's shape (8-word titles, 1,500-word
// bodies of about 10 KB, 20-word anchor texts), per matching row:
//
//	go test -run '^$' -bench BenchmarkFTS5Hits -benchtime 20x ./internal/store/sqlite
func BenchmarkFTS5Hits(b *testing.B) {
	db := auxBenchDB(b)
	for _, q := range []struct{ name, match string }{{"1term", "common"}, {"2terms", "common rare"}} {
		for _, sel := range []struct{ name, cols string }{
			{"rowid", "rowid"},
			{"bm25", "rowid, bm25(t, 10, 1, 4)"},
			{"bm25x2", "rowid, bm25(t, 10, 1, 4), bm25(t, 1, 1, 1)"},
			{"hits", "rowid, " + ftsHitsFunc + "(t)"},
			{"bm25+hits", "rowid, bm25(t, 10, 1, 4), " + ftsHitsFunc + "(t)"},
		} {
			b.Run(q.name+"/"+sel.name, func(b *testing.B) {
				benchAuxQuery(b, db, "SELECT "+sel.cols+" FROM t WHERE t MATCH ?", q.match)
			})
		}
	}
}

// auxBenchDB is a database of 2,000 documents of pages_fts's shape, in t
// and split between p (title, body) and a (anchors). Every other document
// holds "common" (three times in each column) and "rare" (once in each),
// every fourth one also in its anchor texts.
func auxBenchDB(b *testing.B) *sql.DB {
	ctx := context.Background()
	db, _ := openAuxDB(b, dsn(filepath.Join(b.TempDir(), "bench.db"), false, 2048))
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, auxTable+";"+auxSplitTables); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	for id := range 2000 {
		c := id%2 == 0
		title, body, anchors := auxBenchWords(rng, 8, c), auxBenchWords(rng, 1500, c), auxBenchWords(rng, 20, id%4 == 0)
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{"INSERT INTO t (rowid, title, body, anchors) VALUES (?, ?, ?, ?)", []any{id + 1, title, body, anchors}},
			{"INSERT INTO p (rowid, title, body) VALUES (?, ?, ?)", []any{id + 1, title, body}},
			{"INSERT INTO a (rowid, anchors) VALUES (?, ?)", []any{id + 1, anchors}},
		} {
			if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return db
}

func auxBenchWords(rng *rand.Rand, n int, common bool) string {
	w := make([]string, n)
	for i := range w {
		w[i] = fmt.Sprintf("w%x", rng.IntN(5000))
	}
	if common {
		for range 3 {
			w[rng.IntN(n)] = "common"
		}
		w[rng.IntN(n)] = "rare"
	}
	return strings.Join(w, " ")
}

// BenchmarkFTS5AuxSplit compares, on auxBenchDB, a search of the one
// table scored by bm25 with splitSearch over p and a (per query), and
// rewriting a document in the one table with rewriting its anchor texts
// in a (per document, in one transaction):
//
//	go test -run '^$' -bench BenchmarkFTS5AuxSplit -benchtime 20x ./internal/store/sqlite
func BenchmarkFTS5AuxSplit(b *testing.B) {
	ctx := context.Background()
	db := auxBenchDB(b)
	for _, q := range []auxQuery{
		{match: "common", phrases: [][]string{{"common"}}},
		{match: "common rare", phrases: [][]string{{"common"}, {"rare"}}},
	} {
		b.Run(strings.ReplaceAll(q.match, " ", "+")+"/one-table", func(b *testing.B) {
			for b.Loop() {
				scores, err := oneTableSearch(ctx, db, q.match)
				if err != nil || len(scores) != 1000 {
					b.Fatal(err, len(scores))
				}
			}
		})
		b.Run(strings.ReplaceAll(q.match, " ", "+")+"/two-tables", func(b *testing.B) {
			for b.Loop() {
				scores, err := splitSearch(ctx, db, q, []float64{10, 1, 4})
				if err != nil || len(scores) != 1000 {
					b.Fatal(err, len(scores))
				}
			}
		})
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var texts [50][3]string
	for i := range texts {
		texts[i] = [3]string{auxBenchWords(rng, 8, false), auxBenchWords(rng, 1500, false), auxBenchWords(rng, 24, false)}
	}
	for _, w := range []struct{ name, del, ins string }{
		{"rewrite/one-table", "DELETE FROM t WHERE rowid = ?", "INSERT INTO t (rowid, title, body, anchors) VALUES (?, ?, ?, ?)"},
		{"rewrite/anchors", "DELETE FROM a WHERE rowid = ?", "INSERT INTO a (rowid, anchors) VALUES (?, ?)"},
	} {
		b.Run(w.name, func(b *testing.B) {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer tx.Rollback()
			id := 0
			for b.Loop() {
				id = id%2000 + 1
				text := texts[id%len(texts)]
				args := []any{id, text[0], text[1], text[2]}
				if w.name == "rewrite/anchors" {
					args = []any{id, text[2]}
				}
				if _, err := tx.ExecContext(ctx, w.del, id); err != nil {
					b.Fatal(err)
				}
				if _, err := tx.ExecContext(ctx, w.ins, args...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchAuxQuery(b *testing.B, db *sql.DB, query, match string) {
	ctx := context.Background()
	n := 0
	for b.Loop() {
		rows, err := db.QueryContext(ctx, query, match)
		if err != nil {
			b.Fatal(err)
		}
		cols, _ := rows.Columns()
		dest := make([]any, len(cols))
		for i := range dest {
			dest[i] = new(any)
		}
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				b.Fatal(err)
			}
			n++
		}
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
		rows.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/row")
}

// BenchmarkFTS5HitsDecode measures the Go side of a score made from hits:
// decoding a row's value of three columns and two phrases and its bm25.
func BenchmarkFTS5HitsDecode(b *testing.B) {
	st := ftsStats{rows: 2000, colTotal: []int64{16000, 3000000, 40000}, phraseRows: []int64{1000, 1000}}
	var v []byte
	for _, n := range []uint64{3, 2, 8, 1500, 20, 1, 3, 1, 0, 1, 0} {
		v = binary.AppendUvarint(v, n)
	}
	weights := []float64{10, 1, 4}
	for b.Loop() {
		h, err := decodeFTSHits(v)
		if err != nil {
			b.Fatal(err)
		}
		_ = bm25(st, h, weights)
	}
}
