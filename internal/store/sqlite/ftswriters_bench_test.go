package sqlite_test

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/cputime"
	"github.com/acrawler/acrawler/internal/postings"
	"github.com/acrawler/acrawler/internal/query"
)

// BenchmarkFTSWriters measures what a full-text index written on two
// cores would give the end-of-crawl pass, whose FTS5 inserts run on the
// one writer connection: 20,000 generated documents of 1,000 words (a
// 30,000-word vocabulary with Zipf frequencies) inserted in one
// transaction into one table of pages_fts's definition (migrations 0010
// and 0011), against the same documents split by key parity between two
// such tables in two database files, each written by a connection of its
// own at the same time. Beside them, the same documents (folded as the
// store folds them) as a segment of internal/postings, on one goroutine,
// and as two halves on two goroutines merged after: what the crawler's
// own index, built by both cores, spends. It reports the wall time and
// the process's CPU of each:
//
//	go test -run '^$' -bench BenchmarkFTSWriters -benchtime 1x ./internal/store/sqlite
func BenchmarkFTSWriters(b *testing.B) {
	const docs, words = 20_000, 1_000
	rnd := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 30_000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%x%c", i, 'a'+rune(i%26))
	}
	zipf := rand.NewZipf(rnd, 1.1, 2, uint64(len(vocab)-1))
	texts := make([]string, docs)
	for i := range texts {
		var sb strings.Builder
		for range words {
			sb.WriteString(vocab[zipf.Uint64()])
			sb.WriteByte(' ')
		}
		texts[i] = sb.String()
	}
	var even, odd, all []int
	for i := range docs {
		all = append(all, i)
		if i%2 == 0 {
			even = append(even, i)
		} else {
			odd = append(odd, i)
		}
	}
	dir := b.TempDir()
	n := 0
	write := func(b *testing.B, keys []int) {
		n++
		db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, fmt.Sprintf("%d.db", n))+
			"?_pragma=journal_mode(wal)&_pragma=synchronous(NORMAL)&_pragma=cache_size(-24576)")
		if err != nil {
			b.Error(err)
			return
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		if _, err := db.Exec(`CREATE VIRTUAL TABLE pages_fts USING fts5(title, body, anchors, content = '',
				contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0');
			INSERT INTO pages_fts (pages_fts, rank) VALUES ('hashsize', 8388608)`); err != nil {
			b.Error(err)
			return
		}
		tx, err := db.Begin()
		if err != nil {
			b.Error(err)
			return
		}
		defer tx.Rollback()
		for _, k := range keys {
			if _, err := tx.Exec(`INSERT INTO pages_fts (rowid, title, body, anchors) VALUES (?, ?, ?, ?)`,
				k, "a title of some words", texts[k], "anchor words"); err != nil {
				b.Error(err)
				return
			}
		}
		if err := tx.Commit(); err != nil {
			b.Error(err)
		}
	}
	measure := func(b *testing.B, run func()) {
		var wall, cpu time.Duration
		for b.Loop() {
			c, start := cputime.Process(), time.Now()
			run()
			wall, cpu = wall+time.Since(start), cpu+cputime.Process()-c
		}
		b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s")
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s")
	}
	b.Run("one-table", func(b *testing.B) { measure(b, func() { write(b, all) }) })
	segment := func(b *testing.B, keys []int) *postings.Segment {
		bld := postings.NewBuilder(3)
		for _, k := range keys {
			bld.Add(uint32(k+1), query.Fold("a title of some words"), query.Fold(texts[k]), query.Fold("anchor words"))
		}
		s, err := postings.Open(bld.Segment())
		if err != nil {
			b.Error(err)
		}
		return s
	}
	b.Run("go-segment", func(b *testing.B) { measure(b, func() { segment(b, all) }) })
	b.Run("go-segments-two-at-once", func(b *testing.B) {
		measure(b, func() {
			var first, second *postings.Segment
			var wg sync.WaitGroup
			wg.Go(func() { first = segment(b, all[:docs/2]) })
			wg.Go(func() { second = segment(b, all[docs/2:]) })
			wg.Wait()
			if first == nil || second == nil {
				return
			}
			if _, err := postings.Merge([]postings.Part{{Seg: first}, {Seg: second}}); err != nil {
				b.Error(err)
			}
		})
	})
	b.Run("two-files", func(b *testing.B) {
		measure(b, func() {
			var wg sync.WaitGroup
			wg.Go(func() { write(b, even) })
			wg.Go(func() { write(b, odd) })
			wg.Wait()
		})
	})
}
