package postings

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/query"
)

// BenchmarkSearchAgainstFTS5 indexes the same generated documents (a title
// of 5 words, a text of 1,000 and anchor texts of 10, Zipf-spread over
// 30,000 words, as BenchmarkFTSWriters in internal/store/sqlite) in an FTS5
// table of the embedded store's shape and as segments of 1,000 documents,
// one a commit, then merged into one; and times the best ten of queries
// of two to three words drawn by corpus frequency and drawn uniformly, on
// each engine, one at a time:
//
//	ACRAWLER_POSTINGS_DOCS=100000 go test -run '^$' -bench BenchmarkSearchAgainstFTS5 -benchtime 1x -timeout 30m ./internal/postings
func BenchmarkSearchAgainstFTS5(b *testing.B) {
	n := 20_000
	if s := os.Getenv("ACRAWLER_POSTINGS_DOCS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	const queries = 300
	docs, vocab, rnd, zipf := benchCorpus(n)
	var frequent, specific []query.Query
	for range queries {
		k := 2 + rnd.IntN(2)
		var f, s []string
		for range k {
			f = append(f, vocab[zipf.Uint64()])
			s = append(s, vocab[rnd.IntN(len(vocab))])
		}
		frequent = append(frequent, query.Parse(strings.Join(f, " ")))
		specific = append(specific, query.Parse(strings.Join(s, " ")))
	}

	for range b.N {
		start := time.Now()
		db := ftsTable(b, docs)
		ftsBuild := time.Since(start)

		start = time.Now()
		var segs []*Segment
		bld := NewBuilder(3)
		for i, d := range docs {
			bld.Add(d.id, d.fields...)
			if bld.Len() == 1000 || i == len(docs)-1 {
				s, err := Open(bld.Segment())
				if err != nil {
					b.Fatal(err)
				}
				segs = append(segs, s)
			}
		}
		segBuild := time.Since(start)
		start = time.Now()
		merged, err := Merge(partsOf(segs, nil))
		if err != nil {
			b.Fatal(err)
		}
		one, err := Open(merged)
		if err != nil {
			b.Fatal(err)
		}
		mergeTime := time.Since(start)
		b.Logf("%d documents: FTS5 built in %v; segments of 1,000 in %v (%d segments), merged in %v to %.1f MB",
			n, ftsBuild.Round(time.Millisecond), segBuild.Round(time.Millisecond), len(segs), mergeTime.Round(time.Millisecond), float64(len(merged))/1e6)

		many, err := NewIndex(partsOf(segs, nil))
		if err != nil {
			b.Fatal(err)
		}
		merged1, err := NewIndex([]Part{{Seg: one}})
		if err != nil {
			b.Fatal(err)
		}
		for _, set := range []struct {
			name string
			qs   []query.Query
		}{{"frequent words", frequent}, {"specific words", specific}} {
			engines := []struct {
				name   string
				search func(query.Query) int
			}{
				{"FTS5", func(q query.Query) int { return len(ftsTop(b, db, q)) }},
				{fmt.Sprintf("segments (%d)", len(segs)), func(q query.Query) int { return searchTop(b, many, q) }},
				{"one merged segment", func(q query.Query) int { return searchTop(b, merged1, q) }},
			}
			for _, e := range engines {
				var took []time.Duration
				matched := 0
				for _, q := range set.qs {
					start := time.Now()
					matched += e.search(q)
					took = append(took, time.Since(start))
				}
				slices.Sort(took)
				b.Logf("%s, %s: p50 %v, p99 %v, max %v; %d of the best ten found",
					set.name, e.name, took[len(took)/2].Round(time.Microsecond), took[len(took)*99/100].Round(time.Microsecond),
					took[len(took)-1].Round(time.Microsecond), matched)
			}
		}
	}
}

func ftsTable(b *testing.B, docs []testDoc) *sql.DB {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(b.TempDir(), "fts.db")+"?_pragma=journal_mode(wal)&_pragma=synchronous(NORMAL)&_pragma=cache_size(-65536)")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE t USING fts5(title, body, anchors, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0')`); err != nil {
		b.Fatal(err)
	}
	for start := 0; start < len(docs); start += 1000 {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range docs[start:min(start+1000, len(docs))] {
			if _, err := tx.ExecContext(ctx, `INSERT INTO t (rowid, title, body, anchors) VALUES (?, ?, ?, ?)`, d.id, d.fields[0], d.fields[1], d.fields[2]); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	return db
}

func ftsTop(b *testing.B, db *sql.DB, q query.Query) []Hit {
	return ftsHits(b, db, `SELECT rowid, bm25(t, 10, 1, 4) AS s FROM t WHERE t MATCH ? ORDER BY s LIMIT 10`, q)
}

func searchTop(b *testing.B, ix *Index, q query.Query) int {
	hits, _, err := ix.Search(q, weights, 10)
	if err != nil {
		b.Fatal(err)
	}
	return len(hits)
}
