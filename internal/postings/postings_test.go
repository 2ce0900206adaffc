package postings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/query"
)

// testDoc is a document of a test corpus: its number and folded fields.
type testDoc struct {
	id     uint32
	fields []string
}

// corpus returns n documents of three fields (a title, a text, anchor
// texts) of words drawn from a small Zipf-spread vocabulary, so that
// words repeat within and across documents and phrases occur; documents
// are numbered with gaps.
func corpus(seed uint64, n int) []testDoc {
	rnd := rand.New(rand.NewPCG(seed, 7))
	vocab := []string{"the", "of", "graph", "rank", "crawler", "index", "search", "paper", "journal", "doi",
		"zoë", "straße", "university", "lab", "physics", "data", "set", "web", "page", "link"}
	for i := range 80 {
		vocab = append(vocab, fmt.Sprintf("w%d%c", i, 'a'+rune(i%26)))
	}
	zipf := rand.NewZipf(rnd, 1.2, 1.5, uint64(len(vocab)-1))
	text := func(words int) string {
		var sb strings.Builder
		for i := range words {
			if i > 0 {
				sb.WriteString([]string{" ", ", ", ". ", "-"}[rnd.IntN(4)])
			}
			sb.WriteString(vocab[zipf.Uint64()])
		}
		return query.Fold(sb.String())
	}
	docs := make([]testDoc, n)
	id := uint32(0)
	for i := range docs {
		id += 1 + uint32(rnd.IntN(3))
		docs[i] = testDoc{id: id, fields: []string{text(rnd.IntN(6)), text(rnd.IntN(300)), text(rnd.IntN(8))}}
	}
	return docs
}

func build(t testing.TB, docs []testDoc) []byte {
	t.Helper()
	b := NewBuilder(3)
	for _, d := range docs {
		if !b.Add(d.id, d.fields...) {
			t.Fatalf("Add(%d) refused", d.id)
		}
	}
	return b.Segment()
}

// partsOf returns segs as the parts of an index, without deleted's
// documents.
func partsOf(segs []*Segment, deleted func(uint32) bool) []Part {
	var out []Part
	for _, s := range segs {
		out = append(out, Part{Seg: s, Deleted: deleted})
	}
	return out
}

func open(t testing.TB, data []byte) *Segment {
	t.Helper()
	s, err := Open(data)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

// model is what a segment of docs must hold: each word's documents and
// occurrence keys.
func model(docs []testDoc) map[string]map[uint32][]uint32 {
	m := map[string]map[uint32][]uint32{}
	for _, d := range docs {
		for f, text := range d.fields {
			pos := uint32(0)
			for w := range query.Lexemes(text) {
				if m[w] == nil {
					m[w] = map[uint32][]uint32{}
				}
				m[w][d.id] = append(m[w][d.id], uint32(f)<<fieldShift|pos)
				pos++
			}
		}
	}
	return m
}

func TestSegmentHoldsEveryOccurrence(t *testing.T) {
	docs := corpus(1, 700) // several blocks for the common words
	s := open(t, build(t, docs))
	if s.Docs() != len(docs) {
		t.Fatalf("Docs() = %d, want %d", s.Docs(), len(docs))
	}
	for i, d := range docs {
		if s.Doc(i) != d.id {
			t.Fatalf("Doc(%d) = %d, want %d", i, s.Doc(i), d.id)
		}
		for f, text := range d.fields {
			n := 0
			for range query.Lexemes(text) {
				n++
			}
			if got := s.FieldLen(i, f); got != n {
				t.Fatalf("FieldLen(%d, %d) = %d, want %d", i, f, got, n)
			}
		}
	}
	m := model(docs)
	if s.Terms() != len(m) {
		t.Fatalf("Terms() = %d, want %d", s.Terms(), len(m))
	}
	for w, want := range m {
		c := cursor(t, s, w)
		if c == nil {
			t.Fatalf("Cursor(%q) = nil", w)
		}
		if c.Count() != len(want) {
			t.Errorf("%q: Count() = %d, want %d", w, c.Count(), len(want))
		}
		n := 0
		for c.Next() {
			n++
			if got := c.Occurrences(); !slices.Equal(got, want[c.Doc()]) {
				t.Fatalf("%q in %d: occurrences %v, want %v", w, c.Doc(), got, want[c.Doc()])
			}
		}
		if c.Err() != nil || n != len(want) {
			t.Fatalf("%q: %d documents read (err %v), want %d", w, n, c.Err(), len(want))
		}
	}
	for _, w := range []string{"", "absent", "zo", "zoe", "w99z"} {
		if _, ok := m[w]; !ok && cursor(t, s, w) != nil {
			t.Errorf("Cursor(%q) found a word the documents do not hold", w)
		}
	}
}

func TestCursorSeek(t *testing.T) {
	docs := corpus(2, 1000)
	s := open(t, build(t, docs))
	m := model(docs)
	rnd := rand.New(rand.NewPCG(3, 3))
	for w, want := range m {
		ids := make([]uint32, 0, len(want))
		for id := range want {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		c := cursor(t, s, w)
		at := uint32(0)
		for {
			target := at + uint32(rnd.IntN(300))
			i, _ := slices.BinarySearch(ids, target)
			ok := c.Seek(target)
			if ok != (i < len(ids)) {
				t.Fatalf("%q: Seek(%d) = %v, want %v", w, target, ok, i < len(ids))
			}
			if !ok {
				break
			}
			if c.Doc() != ids[i] {
				t.Fatalf("%q: Seek(%d) at %d, want %d", w, target, c.Doc(), ids[i])
			}
			if !slices.Equal(c.Occurrences(), want[ids[i]]) {
				t.Fatalf("%q: occurrences in %d after a seek", w, ids[i])
			}
			at = c.Doc()
		}
		if c.Seek(0) {
			t.Fatalf("%q: a cursor at its end moved again", w)
		}
	}
}

func TestAddRefusesDocumentsOutOfOrder(t *testing.T) {
	b := NewBuilder(1)
	if !b.Add(5, "a") || b.Add(5, "b") || b.Add(4, "c") || !b.Add(6, "d") {
		t.Fatal("Add accepted a document not above the last, or refused one above")
	}
	s := open(t, b.Segment())
	if s.Docs() != 2 || cursor(t, s, "b") != nil || cursor(t, s, "c") != nil {
		t.Fatalf("the refused documents were added: %d documents", s.Docs())
	}
	if b.Len() != 0 {
		t.Fatal("Segment did not empty the builder")
	}
}

// TestMergeIsTheSegmentOfAllDocuments: merged parts hold the postings of
// the segment built from their documents at once, and are that segment
// byte for byte when the postings are decoded and written again (with
// deletions, or documents that interleave).
func TestMergeIsTheSegmentOfAllDocuments(t *testing.T) {
	docs := corpus(4, 900)
	parts := [][]testDoc{docs[:300], docs[300:301], docs[301:650], docs[650:]}
	var segs []*Segment
	for _, p := range parts {
		segs = append(segs, open(t, build(t, p)))
	}
	got, err := Merge(partsOf(segs, nil))
	if err != nil {
		t.Fatal(err)
	}
	// Parts in order without deletions are concatenated, their blocks
	// kept: the same postings as the segment built at once, in more
	// blocks.
	if want := build(t, docs); dump(t, open(t, got)) != dump(t, open(t, want)) {
		t.Fatalf("merged segment (%d bytes) holds other postings than the segment of all documents (%d bytes)", len(got), len(want))
	}

	deleted := func(doc uint32) bool { return doc%5 == 0 || doc == docs[300].id }
	got, err = Merge(partsOf(segs, deleted))
	if err != nil {
		t.Fatal(err)
	}
	var kept []testDoc
	for _, d := range docs {
		if !deleted(d.id) {
			kept = append(kept, d)
		}
	}
	if want := build(t, kept); !bytes.Equal(got, want) {
		t.Fatalf("merged segment without deletions (%d bytes) differs from the segment of the rest (%d bytes)", len(got), len(want))
	}

	// Segments whose documents interleave, one document in two of them,
	// deleted in the older.
	again := docs[100]
	odd, even := NewBuilder(3), NewBuilder(3)
	for i, d := range docs {
		if i%2 == 0 {
			even.Add(d.id, d.fields...)
		} else {
			odd.Add(d.id, d.fields...)
		}
	}
	newer := NewBuilder(3)
	newer.Add(again.id, "a new title", "and a new text")
	interleaved := []Part{
		{Seg: open(t, even.Segment()), Deleted: func(doc uint32) bool { return doc == again.id }},
		{Seg: open(t, odd.Segment())},
		{Seg: open(t, newer.Segment())},
	}
	got, err = Merge(interleaved)
	if err != nil {
		t.Fatal(err)
	}
	replaced := slices.Clone(docs)
	replaced[100] = testDoc{id: again.id, fields: []string{"a new title", "and a new text", ""}}
	if want := build(t, replaced); !bytes.Equal(got, want) {
		t.Fatalf("interleaved segments merged (%d bytes) differ from the segment of their documents (%d bytes)", len(got), len(want))
	}
	interleaved[0].Deleted = nil
	if _, err := Merge(interleaved); err == nil {
		t.Fatal("a document in two segments merged")
	}
}

func TestOpenRefusesDamage(t *testing.T) {
	good := build(t, corpus(5, 12))
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"magic", append([]byte("XCPS"), good[4:]...)},
		{"version", append(append([]byte("ACPS"), 9), good[5:]...)},
		{"truncated", good[:len(good)-1]},
		{"trailing", append(slices.Clone(good), 0)},
		{"header only", good[:5]},
	} {
		if _, err := Open(tc.data); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Open = %v, want ErrCorrupt", tc.name, err)
		}
	}
	// Every single-byte change is either refused, or read without a panic.
	for i := range good {
		bad := slices.Clone(good)
		bad[i] ^= 0x41
		readAll(bad)
	}
}

// readAll opens data and reads every term's postings, merges it and
// searches it; it reports whether all of it read without an error.
func readAll(data []byte) bool {
	s, err := Open(data)
	if err != nil {
		return false
	}
	clean := true
	var err2 error
	for _, e := range s.scan("", &err2) {
		c := s.newCursor(e)
		for c.Next() {
			if c.Occurrences() == nil {
				break
			}
		}
		clean = clean && c.Err() == nil
	}
	clean = clean && err2 == nil
	if _, err := Merge([]Part{{Seg: s}}); err != nil {
		clean = false
	}
	ix, err := NewIndex([]Part{{Seg: s}})
	if err == nil {
		for _, q := range []string{"the graph", `"rank of"`, "w1* -doi", "zoe"} {
			if _, _, err := ix.Search(query.Parse(q), []float64{10, 1, 4}, 5); err != nil {
				clean = false
			}
		}
	}
	return clean
}

// FuzzOpen: any bytes are refused or read without a panic; bytes read
// cleanly merge into a segment that holds the same postings, and read
// through an io.ReaderAt hold them too.
func FuzzOpen(f *testing.F) {
	f.Add(build(f, corpus(6, 3)))
	f.Add(build(f, corpus(7, 20)))
	f.Add([]byte("ACPS\x01\x01\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !readAll(data) {
			return
		}
		s := open(t, data)
		merged, err := Merge([]Part{{Seg: s}})
		if err != nil {
			t.Fatal(err)
		}
		m := open(t, merged)
		if dump(t, m) != dump(t, s) {
			t.Fatalf("a segment merged alone holds other postings")
		}
		at, err := OpenAt(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("OpenAt refused what Open read: %v", err)
		}
		if dump(t, at) != dump(t, s) {
			t.Fatalf("a segment read through ReadAt holds other postings")
		}
	})
}

// FuzzBuild: any texts make a segment that opens and holds each word's
// occurrences.
func FuzzBuild(f *testing.F) {
	f.Add("the graph of the web", "Zoë Straße", "a-b c")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		docs := []testDoc{
			{1, []string{query.Fold(a), query.Fold(b)}},
			{2, []string{query.Fold(c), query.Fold(a + " " + c)}},
		}
		bld := NewBuilder(2)
		for _, d := range docs {
			bld.Add(d.id, d.fields...)
		}
		s := open(t, bld.Segment())
		for w, want := range model(docs) {
			c := cursor(t, s, w)
			if c == nil {
				t.Fatalf("%q not found", w)
			}
			for c.Next() {
				if !slices.Equal(c.Occurrences(), want[c.Doc()]) {
					t.Fatalf("%q in %d: occurrences differ", w, c.Doc())
				}
			}
			if c.Err() != nil {
				t.Fatal(c.Err())
			}
		}
	})
}

// dump writes a segment's documents and postings as text.
func dump(t *testing.T, s *Segment) string {
	var sb strings.Builder
	for i := range s.Docs() {
		fmt.Fprintf(&sb, "doc %d", s.Doc(i))
		for f := range s.Fields() {
			fmt.Fprintf(&sb, " %d", s.FieldLen(i, f))
		}
		sb.WriteByte('\n')
	}
	var err error
	for term, e := range s.scan("", &err) {
		c := s.newCursor(e)
		fmt.Fprintf(&sb, "%q:", term)
		for c.Next() {
			fmt.Fprintf(&sb, " %d%v", c.Doc(), c.Occurrences())
		}
		if c.Err() != nil {
			t.Fatal(c.Err())
		}
		sb.WriteByte('\n')
	}
	if err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// cursor returns s's cursor over w, failing t on an error.
func cursor(t testing.TB, s *Segment, w string) *Cursor {
	t.Helper()
	c, err := s.Cursor(w)
	if err != nil {
		t.Fatalf("Cursor(%q): %v", w, err)
	}
	return c
}

// pieceReader is a segment read through io.ReaderAt, counting the bytes
// read; it fails every read once broken.
type pieceReader struct {
	data   []byte
	read   int64
	broken bool
}

var errBroken = errors.New("the disk went away")

func (r *pieceReader) ReadAt(p []byte, off int64) (int, error) {
	if r.broken {
		return 0, errBroken
	}
	if off >= int64(len(r.data)) {
		return 0, io.EOF
	}
	n := copy(p, r.data[off:])
	r.read += int64(n)
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestOpenAtReadsInPieces: a segment read through an io.ReaderAt reads
// its head at open and a rare word's blocks for a search, not the whole
// segment; it finds what the segment in memory finds; and a read that
// fails is the error of the search that met it.
func TestOpenAtReadsInPieces(t *testing.T) {
	docs := corpus(31, 3000)
	data := build(t, docs)
	pr := &pieceReader{data: data}
	s, err := OpenAt(pr, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	opened := pr.read
	t.Logf("OpenAt read %d of %d bytes", opened, len(data))
	if opened > int64(len(data))/4 {
		t.Fatalf("OpenAt read %d of %d bytes", opened, len(data))
	}
	mem, err := NewIndex([]Part{{Seg: open(t, data)}})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := NewIndex([]Part{{Seg: s}})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range testQueries(32, 50) {
		want, _, err := mem.Search(query.Parse(q), weights, 10)
		if err != nil {
			t.Fatal(err)
		}
		before := pr.read
		got, _, err := ix.Search(query.Parse(q), weights, 10)
		if err != nil {
			t.Fatalf("Search(%q) through ReadAt: %v", q, err)
		}
		if msg := sameHits(got, want); msg != "" {
			t.Fatalf("Search(%q) through ReadAt: %s", q, msg)
		}
		if q == "w79b" && pr.read-before > int64(len(data))/20 {
			t.Errorf("a search for a rare word read %d of %d bytes", pr.read-before, len(data))
		}
	}
	pr.broken = true
	if _, _, err := ix.Search(query.Parse("graph rank"), weights, 10); !errors.Is(err, errBroken) {
		t.Fatalf("Search with the reader broken = %v, want %v", err, errBroken)
	}
	if _, err := OpenAt(pr, int64(len(data))); !errors.Is(err, errBroken) {
		t.Fatalf("OpenAt with the reader broken = %v, want %v", err, errBroken)
	}
}

// pieces records the writes it gets.
type pieces struct {
	bytes.Buffer
	writes int
}

func (p *pieces) Write(b []byte) (int, error) {
	p.writes++
	return p.Buffer.Write(b)
}

// TestPostingsWrittenAsTheyCome: a segment built or merged with its
// postings written out as they are made is, put back together, the
// segment made in memory, and the writer gets them in pieces; its error
// is the builder's and the merge's.
func TestPostingsWrittenAsTheyCome(t *testing.T) {
	docs := corpus(31, 1200)
	whole := build(t, docs)
	b := NewBuilder(3)
	for _, d := range docs {
		b.Add(d.id, d.fields...)
	}
	var post pieces
	front, err := b.SegmentTo(&post)
	if err != nil || !bytes.Equal(append(front, post.Bytes()...), whole) || post.writes < 2 || len(front) > len(whole)/2 {
		t.Fatalf("SegmentTo: %d bytes and %d in %d writes (%v), want the %d of Segment, most of them written in pieces",
			len(front), post.Len(), post.writes, err, len(whole))
	}

	halves := []Part{{Seg: open(t, build(t, docs[:500]))}, {Seg: open(t, build(t, docs[500:]))}}
	merged, err := Merge(halves)
	if err != nil {
		t.Fatal(err)
	}
	post = pieces{}
	front, err = MergeTo(halves, &post)
	if err != nil || !bytes.Equal(append(front, post.Bytes()...), merged) || post.writes < 2 {
		t.Fatalf("MergeTo: %d bytes and %d in %d writes (%v), want the %d of Merge", len(front), post.Len(), post.writes, err, len(merged))
	}
	if _, err := MergeTo(halves, failing{}); !errors.Is(err, errFailing) {
		t.Fatalf("MergeTo a failing writer: %v", err)
	}
}

var errFailing = errors.New("no room")

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errFailing }
