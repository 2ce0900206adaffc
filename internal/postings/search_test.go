package postings

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/query"
	_ "modernc.org/sqlite"
)

// weights are the embedded index's field weights: title, text, anchors.
var weights = []float64{10, 1, 4}

// fts5 is the same documents in an FTS5 table of the embedded store's
// tokenizer, the reference Search is held to.
type fts5 struct{ db *sql.DB }

func newFTS5(t *testing.T, docs []testDoc) *fts5 {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "fts.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE t USING fts5(title, body, anchors, tokenize = 'unicode61 remove_diacritics 0')`); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if _, err := tx.ExecContext(ctx, `INSERT INTO t (rowid, title, body, anchors) VALUES (?, ?, ?, ?)`, d.id, d.fields[0], d.fields[1], d.fields[2]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return &fts5{db: db}
}

func (f *fts5) delete(t *testing.T, id uint32) {
	if _, err := f.db.Exec(`DELETE FROM t WHERE rowid = ?`, id); err != nil {
		t.Fatal(err)
	}
}

func (f *fts5) replace(t *testing.T, d testDoc) {
	f.delete(t, d.id)
	if _, err := f.db.Exec(`INSERT INTO t (rowid, title, body, anchors) VALUES (?, ?, ?, ?)`, d.id, d.fields[0], d.fields[1], d.fields[2]); err != nil {
		t.Fatal(err)
	}
}

func (f *fts5) search(t *testing.T, q query.Query) []Hit {
	return ftsHits(t, f.db, `SELECT rowid, bm25(t, 10, 1, 4) AS s FROM t WHERE t MATCH ? ORDER BY s, rowid`, q)
}

// ftsHits runs a query of FTS5 rows and their bm25 scores, q's match
// expression its parameter.
func ftsHits(tb testing.TB, db *sql.DB, sqlq string, q query.Query) []Hit {
	rows, err := db.Query(sqlq, q.FTS5())
	if err != nil {
		tb.Fatalf("%s: %v", q.FTS5(), err)
	}
	defer rows.Close()
	var out []Hit
	for rows.Next() {
		var h Hit
		if err := rows.Scan(&h.Doc, &h.Score); err != nil {
			tb.Fatal(err)
		}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// testQueries returns the queries both engines answer: words common and
// rare, phrases, prefixes (of a phrase too), exclusions, folded forms,
// words joined by punctuation, and random mixes of them.
func testQueries(seed uint64, random int) []string {
	qs := []string{
		"the", "graph", "w1b", "w79b", "the graph", "graph rank crawler", `"the graph"`, `"graph of the"`,
		"w1*", "gr*", "th*", `"the w1"*`, "the -graph", `graph -"of the"`, "the -w1* -doi",
		"Zoë", "ZOE", "zoe", "Straße", "strasse", "graph-rank", "doi.journal", "absent", "the absent",
		`"absent word"`, "ab*", "-the", `"zoe strasse"`, "paper paper", "w2c w3d w4e",
	}
	rnd := rand.New(rand.NewPCG(seed, 11))
	words := []string{"the", "of", "graph", "rank", "crawler", "index", "paper", "web", "w1b", "w5f", "w12m", "w30e", "zoë", "data", "set"}
	for range random {
		var parts []string
		for range 1 + rnd.IntN(4) {
			w := words[rnd.IntN(len(words))]
			switch rnd.IntN(8) {
			case 0:
				w = `"` + w + " " + words[rnd.IntN(len(words))] + `"`
			case 1:
				w = w[:min(len(w), 2)] + "*"
			case 2:
				w = "-" + w
			}
			parts = append(parts, w)
		}
		qs = append(qs, strings.Join(parts, " "))
	}
	return qs
}

// sameHits reports how got differs from FTS5's want, or "".
func sameHits(got, want []Hit) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d matches, FTS5 %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Doc != want[i].Doc {
			return fmt.Sprintf("match %d is %d, FTS5's %d (scores %g, %g)", i, got[i].Doc, want[i].Doc, got[i].Score, want[i].Score)
		}
		if d := math.Abs(got[i].Score - want[i].Score); d > 1e-9*math.Max(1, math.Abs(want[i].Score)) {
			return fmt.Sprintf("match %d (%d) scores %.17g, FTS5 %.17g", i, got[i].Doc, got[i].Score, want[i].Score)
		}
	}
	return ""
}

// TestSearchAgreesWithFTS5 holds Search to FTS5 over the same documents:
// their titles and texts in segments of two fields, their anchor texts in
// segments of their own, searched as one index; then with some anchor
// texts replaced by a later segment, then with documents deleted, then
// with each field's segments merged. Each time: the same matches, in the
// same order, with bm25 scores to rounding.
func TestSearchAgreesWithFTS5(t *testing.T) {
	docs := corpus(21, 1500)
	ref := newFTS5(t, docs)
	content := func(part []testDoc) *Segment {
		b := NewBuilder(2)
		for _, d := range part {
			b.Add(d.id, d.fields[0], d.fields[1])
		}
		return open(t, b.Segment())
	}
	anchors := func(part []testDoc) *Segment {
		b := NewBuilder(1)
		for _, d := range part {
			b.Add(d.id, d.fields[2])
		}
		return open(t, b.Segment())
	}
	deleted := map[*Segment]map[uint32]bool{}
	part := func(s *Segment, field int) Part {
		deleted[s] = map[uint32]bool{}
		return Part{Seg: s, Field: field, Deleted: func(doc uint32) bool { return deleted[s][doc] }}
	}
	parts := []Part{
		part(content(docs[:400]), 0), part(content(docs[400:1100]), 0), part(content(docs[1100:]), 0),
		part(anchors(docs[:900]), 2), part(anchors(docs[900:]), 2),
	}
	qs := testQueries(22, 200)
	// applied is the same index made by Apply from the one before it, and
	// answers are what it answered; once changed, it must answer so still.
	var applied *Index
	answers := func(ix *Index) []Hit {
		var all []Hit
		for _, s := range qs {
			hits, _, err := ix.Search(query.Parse(s), weights, 10)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, hits...)
		}
		return all
	}
	apply := func(stage string, c Change) {
		t.Helper()
		before := answers(applied)
		next, err := applied.Apply(c)
		if err != nil {
			t.Fatalf("%s: Apply: %v", stage, err)
		}
		if msg := sameHits(answers(applied), before); msg != "" {
			t.Fatalf("%s: the index Apply was given changed: %s", stage, msg)
		}
		applied = next
	}
	held := func(parts []Part, doc uint32) []Deletion {
		var out []Deletion
		for _, p := range parts {
			if p.Seg.holds(doc) {
				out = append(out, Deletion{Seg: p.Seg, Doc: doc})
			}
		}
		return out
	}
	check := func(stage string, parts []Part) {
		t.Helper()
		made, err := NewIndex(parts)
		if err != nil {
			t.Fatalf("%s: %v", stage, err)
		}
		for _, ix := range []*Index{made, applied} {
			checkIndex(t, stage, ix, ref, qs)
		}
		if made.Docs() != applied.Docs() || !slices.Equal(made.totals, applied.totals) {
			t.Fatalf("%s: Apply gives %d documents of %v words, NewIndex %d of %v", stage, applied.Docs(), applied.totals, made.Docs(), made.totals)
		}
		// Each document's text is where the parts say it is.
		for _, d := range docs {
			var want *Segment
			for _, p := range parts {
				if p.Field == 0 && p.Seg.holds(d.id) && (p.Deleted == nil || !p.Deleted(d.id)) {
					want = p.Seg
				}
			}
			if made.Holder(d.id) != want || applied.Holder(d.id) != want {
				t.Fatalf("%s: document %d held by %p (NewIndex) and %p (Apply), want %p", stage, d.id, made.Holder(d.id), applied.Holder(d.id), want)
			}
		}
	}
	applied = &Index{}
	apply("segments", Change{Add: parts})
	check("segments", parts)

	// New anchor texts for every fifth document, in a segment of their
	// own; the older segments' entries deleted.
	fresh := corpus(23, len(docs))
	var changed []testDoc
	var dels []Deletion
	for i := 0; i < len(docs); i += 5 {
		docs[i].fields[2] = fresh[i].fields[1][:min(len(fresh[i].fields[1]), 60)]
		changed = append(changed, docs[i])
		dels = append(dels, held(parts[3:], docs[i].id)...)
		for _, p := range parts[3:] {
			deleted[p.Seg][docs[i].id] = true
		}
		ref.replace(t, docs[i])
	}
	parts = append(parts, part(anchors(changed), 2))
	apply("anchors replaced", Change{Delete: dels, Add: parts[5:]})
	check("anchors replaced", parts)

	// Documents deleted: their titles and texts, not their anchor texts,
	// which no longer count.
	dels = nil
	for i, d := range docs {
		if i%7 == 3 {
			dels = append(dels, held(parts[:3], d.id)...)
			for _, p := range parts[:3] {
				deleted[p.Seg][d.id] = true
			}
			ref.delete(t, d.id)
		}
	}
	apply("documents deleted", Change{Delete: dels})
	check("documents deleted", parts)

	mergedText, err := Merge(parts[:3])
	if err != nil {
		t.Fatal(err)
	}
	mergedAnchors, err := Merge(applied.Parts()[3:])
	if err != nil {
		t.Fatal(err)
	}
	merged := []Part{{Seg: open(t, mergedText)}, {Seg: open(t, mergedAnchors), Field: 2}}
	var inputs []*Segment
	for _, p := range parts {
		inputs = append(inputs, p.Seg)
	}
	apply("merged", Change{Remove: inputs, Add: merged})
	check("merged", merged)

	if _, err := NewIndex([]Part{parts[0], {Seg: parts[3].Seg, Field: 2}, parts[5]}); err == nil {
		t.Fatal("an index of a document's anchor texts in two parts was made")
	}
	if _, err := applied.Apply(Change{Add: []Part{{Seg: parts[5].Seg, Field: 2}}}); err == nil {
		t.Fatal("Apply added a document's anchor texts to the index twice")
	}
	if _, err := applied.Apply(Change{Delete: []Deletion{{Seg: merged[0].Seg, Doc: docs[3].id}}}); err == nil {
		t.Fatal("Apply deleted a document the segment does not hold")
	}
}

// checkIndex fails t unless ix answers every query of qs as ref does.
func checkIndex(t *testing.T, stage string, ix *Index, ref *fts5, qs []string) {
	t.Helper()
	matched := 0
	for _, s := range qs {
		q := query.Parse(s)
		got, total, err := ix.Search(q, weights, 0)
		if err != nil {
			t.Fatalf("%s: Search(%q): %v", stage, s, err)
		}
		want := ref.search(t, q)
		if msg := sameHits(got, want); msg != "" {
			t.Fatalf("%s: Search(%q): %s", stage, s, msg)
		}
		if total != len(want) {
			t.Fatalf("%s: Search(%q) counted %d matches, want %d", stage, s, total, len(want))
		}
		if len(want) > 0 {
			matched++
		}
		// The best ten are the first ten of all.
		top, _, err := ix.Search(q, weights, 10)
		if err != nil {
			t.Fatal(err)
		}
		if msg := sameHits(top, want[:min(10, len(want))]); msg != "" {
			t.Fatalf("%s: Search(%q) limited to 10: %s", stage, s, msg)
		}
	}
	if matched < len(qs)/2 {
		t.Fatalf("%s: only %d of %d queries matched anything: the corpus does not test much", stage, matched, len(qs))
	}
}

func TestSearchRefusesBroadPrefix(t *testing.T) {
	b := NewBuilder(1)
	var sb strings.Builder
	for i := range MaxExpansions + 1 {
		fmt.Fprintf(&sb, "ab%d ", i)
	}
	b.Add(1, sb.String())
	ix, err := NewIndex([]Part{{Seg: open(t, b.Segment())}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ix.Search(query.Parse("ab*"), nil, 10); !errors.Is(err, ErrTooBroad) {
		t.Fatalf("Search(ab*) over %d words = %v, want ErrTooBroad", MaxExpansions+1, err)
	}
	if hits, _, err := ix.Search(query.Parse("ab1*"), nil, 10); err != nil || len(hits) != 1 {
		t.Fatalf("Search(ab1*) = %v, %v; want the document", hits, err)
	}
}
