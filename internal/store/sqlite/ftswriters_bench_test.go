package sqlite_test

import (
	"database/sql"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/cputime"
	"github.com/acrawler/acrawler/internal/query"
)

// BenchmarkFTSWriters measures what a full-text index written on two
// cores would give the end-of-crawl pass, whose FTS5 inserts run on the
// one writer connection: 20,000 generated documents of 1,000 words (a
// 30,000-word vocabulary with Zipf frequencies) inserted in one
// transaction into one table of pages_fts's definition (migrations 0010
// and 0011), against the same documents split by key parity between two
// such tables in two database files, each written by a connection of its
// own at the same time. Beside them, the same documents' postings built
// in Go (segmentOf) and written out as one sorted segment, on one
// goroutine, and as two halves on two goroutines merged after: what an
// index of the crawler's own, built by both cores, would spend. It
// reports the wall time and the process's CPU of each:
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
	b.Run("go-segment", func(b *testing.B) {
		measure(b, func() { mergeSegments(segmentOf(texts, all), nil) })
	})
	b.Run("go-segments-two-at-once", func(b *testing.B) {
		measure(b, func() {
			var first, second map[string][]byte
			var wg sync.WaitGroup
			wg.Go(func() { first = segmentOf(texts, all[:docs/2]) })
			wg.Go(func() { second = segmentOf(texts, all[docs/2:]) })
			wg.Wait()
			mergeSegments(first, second)
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

// segmentOf builds in Go what an index of the crawler's own would write
// for the documents of keys (the title, text and anchors of
// BenchmarkFTSWriters): for each word (query.Lexemes of the folded text),
// its postings, each document's key as a delta from the one before, the
// number of positions and the positions as deltas, in varints.
func segmentOf(texts []string, keys []int) map[string][]byte {
	lists := map[string][]byte{}
	lastDoc := map[string]int{}
	positions := map[string][]uint32{}
	for _, k := range keys {
		clear(positions)
		pos := uint32(0)
		for _, text := range []string{"a title of some words", texts[k], "anchor words"} {
			for w := range query.Lexemes(query.Fold(text)) {
				positions[w] = append(positions[w], pos)
				pos++
			}
		}
		for w, ps := range positions {
			l := lists[w]
			l = binary.AppendUvarint(l, uint64(k-lastDoc[w]))
			l = binary.AppendUvarint(l, uint64(len(ps)))
			prev := uint32(0)
			for _, p := range ps {
				l = binary.AppendUvarint(l, uint64(p-prev))
				prev = p
			}
			lists[w], lastDoc[w] = l, k
		}
	}
	return lists
}

// mergeSegments writes two segments of consecutive key ranges as one,
// its words in order: each word's postings are the first's then the
// second's.
func mergeSegments(first, second map[string][]byte) []byte {
	words := make([]string, 0, len(first)+len(second))
	for w := range first {
		words = append(words, w)
	}
	for w := range second {
		if _, ok := first[w]; !ok {
			words = append(words, w)
		}
	}
	slices.Sort(words)
	var out []byte
	for _, w := range words {
		out = binary.AppendUvarint(out, uint64(len(w)))
		out = append(out, w...)
		out = binary.AppendUvarint(out, uint64(len(first[w])+len(second[w])))
		out = append(append(out, first[w]...), second[w]...)
	}
	return out
}
