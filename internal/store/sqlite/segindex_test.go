package sqlite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
)

// FuzzDecodeAttrs: attributes read are written again as they were read,
// and bytes that are not attributes are refused without a panic.
func FuzzDecodeAttrs(f *testing.F) {
	var seed []byte
	for _, a := range []docAttrs{{key: 1, host: "http://a.test", typ: "article", lang: "en", year: 2020}, {key: crawl.ID(-5), year: -1}} {
		seed = a.append(seed)
	}
	f.Add(seed, 2)
	f.Add([]byte{1, 2, 3}, 1)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		if n < 0 || n > len(b) {
			return
		}
		as, err := decodeAttrs(b, n)
		if err != nil {
			return
		}
		var again []byte
		for _, a := range as {
			again = a.append(again)
		}
		back, err := decodeAttrs(again, n)
		if len(as) != n || err != nil || fmt.Sprint(back) != fmt.Sprint(as) || len(again) > len(b) {
			t.Fatalf("%d attributes %+v written again as %x (%v), read from %x", len(as), as, again, err, b)
		}
	})
}

// TestBlockCacheKeepsTheLastUsed: the cache holds at most its bytes, and
// drops the block used longest ago.
func TestBlockCacheKeepsTheLastUsed(t *testing.T) {
	c := newBlockCache(30)
	for n := range int64(3) {
		c.put(1, n, make([]byte, 10))
	}
	c.get(1, 0) // 1 is now the oldest
	c.put(2, 0, make([]byte, 10))
	for _, k := range []struct {
		seg, n int64
		in     bool
	}{{1, 0, true}, {1, 1, false}, {1, 2, true}, {2, 0, true}} {
		if _, ok := c.get(k.seg, k.n); ok != k.in {
			t.Errorf("block %d/%d cached: %v, want %v", k.seg, k.n, ok, k.in)
		}
	}
	if c.size != 30 {
		t.Errorf("cache holds %d bytes, want 30", c.size)
	}
}

// TestSegmentRowsReadBack: a segment stored in rows (its postings as they
// were made, its front after) reads back as the bytes it was, at every
// offset and across the rows' ends, and no further.
func TestSegmentRowsReadBack(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rnd := rand.New(rand.NewPCG(1, 2))
	front := make([]byte, 2*segBlock+77)
	post := make([]byte, 3*segBlock+5)
	for _, b := range [][]byte{front, post} {
		for i := range b {
			b[i] = byte(rnd.IntN(256))
		}
	}
	var id int64
	if err := db.tx(ctx, func(t *txn) (err error) {
		id, err = t.writeSegment(ctx, textField, 0, 0, nil, func(w io.Writer) ([]byte, error) {
			for p := post; len(p) > 0; {
				k := min(len(p), 1+rnd.IntN(segBlock/3))
				if _, err := w.Write(p[:k]); err != nil {
					return nil, err
				}
				p = p[k:]
			}
			return front, nil
		})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	whole := append(slices.Clone(front), post...)
	r := blockReader{ctx: ctx, seg: id, front: int64(len(front)), q: db.r, cache: newBlockCache(segBlock)}
	for range 2000 {
		off := rnd.IntN(len(whole))
		n := 1 + rnd.IntN(min(len(whole)-off, 2*segBlock))
		got := make([]byte, n)
		if k, err := r.ReadAt(got, int64(off)); err != nil || k != n || !bytes.Equal(got, whole[off:off+n]) {
			t.Fatalf("ReadAt(%d bytes at %d) = %d, %v; not the bytes written", n, off, k, err)
		}
	}
	if _, err := r.ReadAt(make([]byte, 2), int64(len(whole)-1)); !errors.Is(err, io.EOF) {
		t.Fatalf("ReadAt past the end: %v, want io.EOF", err)
	}
}

// TestDocumentsWrittenAgainWhileBuilt: with segments of a few documents,
// a transaction builds its earlier documents' segments while it goes on;
// writing one of them again, or its anchor texts, stores what is built
// first, so that each document is found once, by its last words, and by
// the anchor texts it was given last.
func TestDocumentsWrittenAgainWhileBuilt(t *testing.T) {
	defer SetSegmentFlushForTest(300)()
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const n = 60
	doc := func(i int, word string) foldedDoc {
		return foldedDoc{key: crawl.ID(i + 1), title: "title", body: fmt.Sprintf("%s text%d of some length to fill the segments quickly", word, i), attrs: &docAttrs{}}
	}
	var settled int
	if err := db.tx(ctx, func(t *txn) error {
		w := t.segWriter()
		for i := range n {
			if err := w.insert(ctx, doc(i, "alpha")); err != nil {
				return err
			}
		}
		// Every document again, the last first: the latest are held or
		// being built.
		for i := n - 1; i >= 0; i-- {
			if w.building != nil && w.building.keys[crawl.ID(i+1)] || w.pending[crawl.ID(i+1)] {
				settled++
			}
			if err := w.insert(ctx, doc(i, "beta")); err != nil {
				return err
			}
			if err := w.setAnchors(ctx, crawl.ID(i+1), fmt.Sprintf("gamma anchor%d", i)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if settled == 0 {
		t.Fatal("no document was written again while held or built: the test does not test")
	}
	v, err := db.segView(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]int{"alpha": 0, "beta": n, "gamma": n, "text7": 1, "anchor7": 1, "title": n} {
		_, total, err := v.ix.Search(query.Parse(q), indexWeights, 10)
		if err != nil || total != want {
			t.Errorf("%q: %d found, %v; want %d", q, total, err, want)
		}
	}
	if got := v.ix.Docs(); got != n {
		t.Errorf("%d documents in the index, want %d", got, n)
	}
}

// TestBestOfEachUpTo: the first result of each work taken from a heap
// are those of the candidates sorted, whatever the ties, copies and
// number asked.
func TestBestOfEachUpTo(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for round := range 200 {
		n := rnd.IntN(300)
		cands := make([]cand, n)
		works := map[crawl.ID]int64{}
		for i := range cands {
			cands[i] = cand{id: crawl.ID(rnd.Int64N(1000) - 500), score: float64(rnd.IntN(20))}
			if rnd.IntN(3) == 0 {
				works[cands[i].id] = rnd.Int64N(10) + 1
			}
		}
		want := slices.Clone(cands)
		slices.SortFunc(want, betterCand)
		k := rnd.IntN(n + 2)
		if got, w := bestOfEachUpTo(slices.Clone(cands), works, k), firstOfEachUpTo(want, works, k); !slices.Equal(got, w) {
			t.Fatalf("round %d, %d of %d: %v, want %v", round, k, n, got, w)
		}
	}
}

// TestBlendRanks: every candidate's score is blended with its own rank,
// over several statements' worth of candidates.
func TestBlendRanks(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "r.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := 2*rankChunk + 7
	ranks := map[crawl.ID]float64{}
	cands := make([]cand, n)
	for i := range cands {
		id := crawl.ID(i*7919 - 3000)
		cands[i] = cand{id: ftsKey(id), score: 2}
		if i%3 != 0 {
			ranks[id] = float64(i % 11)
		}
	}
	for id, r := range ranks {
		if _, err := db.w.ExecContext(ctx, `INSERT INTO ranks (url_id, rank) VALUES (?, ?)`, id, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.blendRanks(ctx, cands, 0.5); err != nil {
		t.Fatal(err)
	}
	for i, c := range cands {
		if want := 2 * (1 + 0.5*math.Log1p(ranks[urlIDOfKey(c.id)])); c.score != want {
			t.Fatalf("candidate %d: score %v, want %v", i, c.score, want)
		}
	}
}

// TestBestBlendedOfEach: a search by work that blends only the
// candidates that may stand for its works gives the works and
// candidates, and scores, that blending every match gives, for pages of
// results near and far; and blends fewer than all when it can.
func TestBestBlendedOfEach(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "r.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rnd := rand.New(rand.NewPCG(5, 6))
	n := 6*rankChunk + 11
	cands := make([]cand, n)
	works := map[crawl.ID]int64{}
	for i := range cands {
		id := crawl.ID(i*104729 - 7_000_000)
		cands[i] = cand{id: ftsKey(id), score: 1 + float64(rnd.IntN(400))/10}
		if rnd.IntN(4) == 0 {
			works[cands[i].id] = rnd.Int64N(300) + 1
		}
		if rnd.IntN(2) == 0 {
			if _, err := db.w.ExecContext(ctx, `INSERT INTO ranks (url_id, rank) VALUES (?, ?)`, id, rnd.Float64()*rnd.Float64()*20); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, need := range []int{1, 10, 60, 2000} {
		all := slices.Clone(cands)
		if err := db.blendRanks(ctx, all, 0.5); err != nil {
			t.Fatal(err)
		}
		want := bestOfEachUpTo(all, works, need)
		some, err := db.bestBlendedOfEach(ctx, slices.Clone(cands), works, need, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		if got := bestOfEachUpTo(some, works, need); !slices.Equal(got, want) {
			t.Fatalf("the best %d works: %v, want %v", need, got, want)
		}
		if need <= 10 && len(some) == len(cands) {
			t.Errorf("the best %d works: every candidate blended", need)
		}
	}
}

// TestKnowHeldDocuments: the keys writeDocs looks up before its inserts
// (know) include the documents the transaction holds but has not written
// to the index yet, and those it writes after; remove finds them all, so
// no document is indexed twice. A key neither holds is not looked for.
func TestKnowHeldDocuments(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "know.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	doc := func(key crawl.ID) foldedDoc {
		return foldedDoc{key: key, title: "a title", body: "a body of words", attrs: &docAttrs{key: key}}
	}
	if err := db.tx(ctx, func(tx *txn) error {
		w := tx.segWriter()
		if err := w.insert(ctx, doc(1)); err != nil { // held by the transaction
			return err
		}
		if err := w.know(ctx, []crawl.ID{1, 2, 3}); err != nil {
			return err
		}
		defer w.forget()
		if err := w.flush(ctx); err != nil { // 1 leaves what the transaction holds
			return err
		}
		if err := w.insert(ctx, doc(2)); err != nil {
			return err
		}
		for _, c := range []struct {
			key   crawl.ID
			found bool
		}{{1, true}, {2, true}, {3, false}} {
			if _, found, err := w.remove(ctx, c.key); err != nil || found != c.found {
				t.Errorf("remove(%d) after know = %v, %v; want %v", c.key, found, err, c.found)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
