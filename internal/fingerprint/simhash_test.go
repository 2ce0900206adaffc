package fingerprint

import (
	"bytes"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/net/html"

	"github.com/acrawler/acrawler/internal/htmlx"
	"github.com/acrawler/acrawler/internal/testweb"
)

// vocabulary returns n distinct pseudo-words made of syllables.
func vocabulary(r *rand.Rand, n int) []string {
	syll := []string{"ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "dri", "pla", "ston", "qua", "ber", "lin", "gor", "ment", "is", "ar", "ex", "un"}
	seen := make(map[string]bool)
	var words []string
	for len(words) < n {
		var b strings.Builder
		for range 1 + r.IntN(4) {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return words
}

// article returns n words drawn from vocab with a Zipf distribution, as
// sentences.
func article(r *rand.Rand, vocab []string, n int) string {
	z := rand.NewZipf(r, 1.1, 1, uint64(len(vocab)-1))
	var b strings.Builder
	for i := range n {
		w := vocab[z.Uint64()]
		if i%12 == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
		if i%12 == 11 {
			b.WriteString(". ")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// englishArticle is a 400-word news-like article.
var englishArticle = strings.Repeat(`The university announced on Monday that its library will extend
opening hours during the examination period. Students had asked for
longer hours in a survey conducted by the student union last autumn,
and the rector said the change reflects the growing demand for quiet
study space. `, 1) + `Research groups in physics, chemistry and biology
will also share a new computing cluster, funded by a national grant of
twelve million euros. The cluster is expected to shorten the time needed
for simulations of proteins, climate models and materials from weeks to
days. According to the head of the computing centre, the machines will be
installed in a renovated building on the northern campus, which uses
waste heat from the servers to warm nearby lecture halls. The faculty of
medicine welcomed the decision and announced two new professorships in
bioinformatics and medical imaging. Applications are open until the end
of the month, and the appointment committees will include external
members from partner universities abroad. In addition, the university
plans to expand its exchange programmes with institutions in Turkey,
Japan and Brazil. Each year about three hundred students spend a semester
abroad, and the international office hopes to double that number within
five years. Scholarships will be available for students from families
with low incomes, and the administration promised to simplify the
recognition of credits earned abroad. Critics pointed out that housing
remains the most pressing problem for students in the city. Rents have
risen sharply, and the waiting list for places in student residences now
exceeds two thousand names. The city council and the university are
negotiating the construction of new residences on land owned by the
state, but no agreement has been reached yet. The student union called
for faster action and organised a demonstration in front of the main
building last week. The rector acknowledged the problem and said that
the university would make additional land available if the council
agreed to finance the buildings. Meanwhile, the library will open at
seven in the morning and close at midnight from the first of June. Staff
will be supported by student assistants, and the cafeteria on the ground
floor will extend its hours as well. A shuttle bus will connect the
library with the main railway station during the night. The
administration will review the new arrangements in autumn and decide
whether to keep them for the following academic year, taking into
account the number of visitors and the costs of the extended service.
The rector thanked everyone involved.`

func TestSimHashSame(t *testing.T) {
	same := [][2]string{
		{"Hello World, and goodbye!", "hello   world and GOODBYE"},
		{"Öğrenci İşleri: duyurular", "öğrenci\nişleri — duyurular"},
		{englishArticle, strings.ToUpper(englishArticle)},
		{englishArticle, strings.Join(strings.Fields(englishArticle), "\n\t")},
		{"", "  ... !!! "},
	}
	for _, p := range same {
		if a, b := SimHash(p[0]), SimHash(p[1]); a != b {
			t.Errorf("SimHash(%.30q) = %#x, SimHash(%.30q) = %#x; want equal", p[0], a, p[1], b)
		}
	}
}

// TestSimHashStable pins the definition: the fingerprints are stored.
func TestSimHashStable(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
	}{
		{"", 0},
		{"word", fmix64(fnv("word"))},
		{"two words", fmix64(fnv("two")) & fmix64(fnv("words"))},
		{"Three Small Words", fmix64(fnv("three") ^ bits.RotateLeft64(fnv("small"), 21) ^ bits.RotateLeft64(fnv("words"), 42))},
		{"Efficient crawling of scholarly web sites", 0x10a05e980b200300},
		{englishArticle, 0x3886a33d28ce6385},
	}
	for _, tt := range tests {
		if got := SimHash(tt.in); got != tt.want {
			t.Errorf("SimHash(%.40q) = %#x, want %#x", tt.in, got, tt.want)
		}
	}
}

func fnv(s string) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

func TestSimHashFooter(t *testing.T) {
	a := SimHash(englishArticle + "\nLast updated 12 March 2024")
	b := SimHash(englishArticle + "\nLast updated 3 April 2025")
	if d := Distance(a, b); d > 3 {
		t.Errorf("Distance(article + footer 1, article + footer 2) = %d, want <= 3", d)
	}
}

// TestSimHashFooterGenerated measures the distance between generated
// articles of 400 words that differ in their date line. Changing 3 of 398
// shingles turns the SimHash by an angle of acos(395/398), about 2.5
// expected bits: most pairs are within 3, not all.
func TestSimHashFooterGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vocab := vocabulary(r, 5000)
	const n = 500
	var within, total int
	hist := make(map[int]int)
	for range n {
		text := article(r, vocab, 400)
		d := Distance(SimHash(text+"Last updated 12 March 2024"), SimHash(text+"Last updated 3 April 2025"))
		hist[d]++
		total += d
		if d <= 3 {
			within++
		}
	}
	t.Logf("distances of %d pairs: %v; within 3: %d; mean %.2f", n, hist, within, float64(total)/n)
	if mean := float64(total) / n; mean > 3 || within < n*6/10 {
		t.Errorf("footer change: mean distance %.2f, %d of %d within 3; want mean <= 3 and most within 3", mean, within, n)
	}
}

func TestSimHashUnrelated(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	vocab := vocabulary(r, 5000)
	const n = 2000
	fps := make([]uint64, n)
	for i := range fps {
		fps[i] = SimHash(article(r, vocab, 400))
	}
	pairs, close, minD := 0, 0, 64
	for i := range fps {
		for j := i + 1; j < min(i+50, n); j++ {
			d := Distance(fps[i], fps[j])
			pairs++
			minD = min(minD, d)
			if d <= 10 {
				close++
			}
		}
	}
	t.Logf("%d pairs of unrelated articles: minimum distance %d", pairs, minD)
	if close > 0 {
		t.Errorf("%d of %d pairs of unrelated articles within distance 10, want 0", close, pairs)
	}
}

func TestDistanceBands(t *testing.T) {
	if d := Distance(0, ^uint64(0)); d != 64 {
		t.Errorf("Distance(0, ^0) = %d, want 64", d)
	}
	// The order is stored: band i is bits 16i to 16i+15.
	if b := Bands(0x0123456789abcdef); b != [4]uint16{0xcdef, 0x89ab, 0x4567, 0x0123} {
		t.Errorf("Bands(0x0123456789abcdef) = %#x, want [0xcdef 0x89ab 0x4567 0x123]", b)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 10000 {
		a := r.Uint64()
		// As the stores have computed their band columns band0 to band3.
		if b, want := Bands(a), [4]uint16{uint16(a & 0xffff), uint16(a >> 16 & 0xffff), uint16(a >> 32 & 0xffff), uint16(a >> 48)}; b != want {
			t.Fatalf("Bands(%#x) = %#x, want %#x (the stored band columns)", a, b, want)
		}
		b := flip(r, a, r.IntN(4))
		ba, bb := Bands(a), Bands(b)
		if ba[0] != bb[0] && ba[1] != bb[1] && ba[2] != bb[2] && ba[3] != bb[3] {
			t.Fatalf("Bands(%#x) and Bands(%#x) at distance %d share no band", a, b, Distance(a, b))
		}
	}
}

// flip returns fp with n distinct random bits flipped.
func flip(r *rand.Rand, fp uint64, n int) uint64 {
	for _, i := range r.Perm(64)[:n] {
		fp ^= 1 << i
	}
	return fp
}

// scan is the linear scan that Index.Near must agree with.
func scan(ids []int64, fps []uint64, fp uint64, maxDist int) (id int64, dist int, ok bool) {
	dist = maxDist + 1
	for i, f := range fps {
		d := Distance(f, fp)
		if d < dist || d == dist && ok && ids[i] < id {
			id, dist, ok = ids[i], d, true
		}
	}
	if !ok {
		return 0, 0, false
	}
	return id, dist, true
}

func TestIndex100k(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	x, err := NewIndex(3)
	if err != nil {
		t.Fatal(err)
	}
	const n = 100000
	ids := make([]int64, n)
	fps := make([]uint64, n)
	for i := range fps {
		ids[i], fps[i] = int64(i), r.Uint64()
		x.Add(ids[i], fps[i])
	}
	if x.Len() != n {
		t.Errorf("Len() = %d, want %d", x.Len(), n)
	}
	for i := range 2000 {
		k := r.IntN(n)
		q := flip(r, fps[k], i%4)
		id, d, ok := x.Near(q)
		if !ok || d > i%4 {
			t.Errorf("Near(fingerprint %d with %d bits flipped) = %d, %d, %v; want a match within %d", k, i%4, id, d, ok, i%4)
		}
		if wid, wd, _ := scan(ids, fps, q, 3); id != wid || d != wd {
			t.Errorf("Near(%#x) = %d, %d; scan finds %d, %d", q, id, d, wid, wd)
		}
	}
	for range 2000 {
		q := r.Uint64()
		if id, d, ok := x.Near(q); ok {
			t.Errorf("Near(random %#x) = %d, %d, true; want no match", q, id, d)
		}
	}
}

// TestIndexScan compares Near with a linear scan on clustered data, where
// many fingerprints are close to one another, for every maxDist.
func TestIndexScan(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for maxDist := 0; maxDist <= MaxIndexDistance; maxDist++ {
		x, _ := NewIndex(maxDist)
		var ids []int64
		var fps []uint64
		centres := []uint64{r.Uint64(), r.Uint64(), r.Uint64()}
		for range 3000 {
			fp := flip(r, centres[r.IntN(3)], r.IntN(8))
			id := int64(r.IntN(1000))
			x.Add(id, fp)
			ids, fps = append(ids, id), append(fps, fp)
		}
		for range 3000 {
			q := flip(r, centres[r.IntN(3)], r.IntN(10))
			id, d, ok := x.Near(q)
			wid, wd, wok := scan(ids, fps, q, maxDist)
			if id != wid || d != wd || ok != wok {
				t.Fatalf("maxDist %d: Near(%#x) = %d, %d, %v; scan: %d, %d, %v", maxDist, q, id, d, ok, wid, wd, wok)
			}
		}
	}
}

func TestNewIndex(t *testing.T) {
	for _, d := range []int{-1, 4, 64} {
		if _, err := NewIndex(d); err == nil {
			t.Errorf("NewIndex(%d) succeeded, want an error", d)
		}
	}
	x, err := NewIndex(0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := x.Near(42); ok || x.Len() != 0 {
		t.Errorf("empty Index: Near ok %v, Len %d", ok, x.Len())
	}
	x.Add(7, 42)
	x.Add(3, 42)
	x.Add(1, 43)
	if id, d, ok := x.Near(42); id != 3 || d != 0 || !ok {
		t.Errorf("Near(42) = %d, %d, %v; want 3, 0, true", id, d, ok)
	}
	if _, _, ok := x.Near(44); ok {
		t.Errorf("Near(44) with maxDist 0 found a match")
	}
}

// FuzzSimHash checks that SimHash depends only on the lowercased words.
func FuzzSimHash(f *testing.F) {
	f.Add("Hello, World! How are you?")
	f.Add("İstanbul'da ıslak ŞEMSİYE\xff\xfeu\u0308ber")
	f.Add("a")
	f.Fuzz(func(t *testing.T, s string) {
		words := strings.FieldsFunc(s, func(r rune) bool { return !isWordRune(r) })
		for i, w := range words {
			words[i] = strings.Map(unicode.ToLower, w)
		}
		norm := strings.Join(words, " ")
		if a, b := SimHash(s), SimHash(norm); a != b {
			t.Errorf("SimHash(%q) = %#x, SimHash(%q) = %#x; want equal", s, a, norm, b)
		}
		if len(words) == 0 && SimHash(s) != 0 {
			t.Errorf("SimHash(%q) = %#x, want 0 without words", s, SimHash(s))
		}
	})
}

// FuzzIndex checks Index.Near against a linear scan. The input is read
// as operations: fingerprints derived from a few bases by flipping bits,
// so that near matches are common.
func FuzzIndex(f *testing.F) {
	f.Add(uint8(3), []byte("\x00\x01\x02\x03\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0"))
	f.Add(uint8(1), []byte("\xff\xff\xff\xff\xff\xff\xff\xff\x00\x00"))
	f.Fuzz(func(t *testing.T, maxDist uint8, ops []byte) {
		x, err := NewIndex(int(maxDist % 4))
		if err != nil {
			t.Fatal(err)
		}
		bases := []uint64{0, ^uint64(0), 0x0123456789abcdef, 0xf0f0f0f0f0f0f0f0}
		var ids []int64
		var fps []uint64
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i], ops[i+1]
			fp := bases[op&3] ^ 1<<(arg&63) ^ 1<<(arg>>2&63) ^ uint64(op>>4)<<(arg&31)
			if op&4 != 0 {
				id := int64(arg % 16)
				x.Add(id, fp)
				ids, fps = append(ids, id), append(fps, fp)
				continue
			}
			id, d, ok := x.Near(fp)
			wid, wd, wok := scan(ids, fps, fp, int(maxDist%4))
			if id != wid || d != wd || ok != wok {
				t.Fatalf("Near(%#x) = %d, %d, %v; scan: %d, %d, %v", fp, id, d, ok, wid, wd, wok)
			}
		}
		if x.Len() != len(fps) {
			t.Errorf("Len() = %d, want %d", x.Len(), len(fps))
		}
	})
}

func ExampleIndex() {
	x, _ := NewIndex(3)
	x.Add(1, SimHash(englishArticle+"\nLast updated 12 March 2024"))
	x.Add(2, SimHash("An unrelated page about something else entirely, with other words."))
	id, _, ok := x.Near(SimHash(englishArticle + "\nLast updated 3 April 2025"))
	fmt.Println(id, ok)
	// Output: 1 true
}

func TestMatchCompare(t *testing.T) {
	for _, tc := range []struct {
		a, b Match
		want int
	}{
		{Match{ID: 9, Dist: 1}, Match{ID: 1, Dist: 2}, -1}, // nearer wins over a smaller ID
		{Match{ID: 1, Dist: 2}, Match{ID: 9, Dist: 1}, 1},
		{Match{ID: -5, Dist: 2}, Match{ID: 3, Dist: 2}, -1}, // equally near: the smaller ID
		{Match{ID: 3, Dist: 2}, Match{ID: 3, Dist: 2}, 0},
	} {
		if got := tc.a.Compare(tc.b); got != tc.want {
			t.Errorf("%+v.Compare(%+v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// simHashReference is SimHash as its doc defines it, a step at a time:
// the words, their hashes, the shingles, the bit counts.
func simHashReference(text string) uint64 {
	var hashes []uint64
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) }) {
		h := uint64(fnvOffset)
		for _, b := range []byte(strings.Map(unicode.ToLower, w)) {
			h = (h ^ uint64(b)) * fnvPrime
		}
		hashes = append(hashes, h)
	}
	var features []uint64
	for i := 2; i < len(hashes); i++ {
		features = append(features, fmix64(hashes[i-2]^bits.RotateLeft64(hashes[i-1], 21)^bits.RotateLeft64(hashes[i], 42)))
	}
	if len(hashes) < 3 {
		for _, h := range hashes {
			features = append(features, fmix64(h))
		}
	}
	var fp uint64
	for i := range 64 {
		set := 0
		for _, f := range features {
			set += int(f >> i & 1)
		}
		if 2*set > len(features) {
			fp |= 1 << i
		}
	}
	return fp
}

// wordSoup is n words drawn from 1,000, each made of letters by a
// generator of its own: text whose features vary, many to a page.
func wordSoup(n int) string {
	var b strings.Builder
	x := uint32(1)
	for range n {
		x = x*1664525 + 1013904223
		w := x >> 22 // one of 1,024
		for w > 0 {
			b.WriteByte('a' + byte(w%26))
			w /= 26
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// FuzzSimHashReference checks SimHash against simHashReference.
func FuzzSimHashReference(f *testing.F) {
	f.Add("Hello, World! How are you?")
	f.Add("İstanbul'da ıslak ŞEMSİYE\xff\xfeu\u0308ber")
	f.Add("a")
	f.Add("über-straße ǅemal 12ab\u0301c")
	f.Add(strings.Repeat("a b ", 100))
	f.Add(strings.Repeat("ab cd ef gh ", 600)) // batches of features, counts past 255
	f.Add(wordSoup(20000))                     // sixteens folded, several times
	f.Add(englishArticle)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := SimHash(s), simHashReference(s); got != want {
			t.Errorf("SimHash(%q) = %#x, simHashReference = %#x", s, got, want)
		}
	})
}

// textOf collects the text tokens of a page.
type textOf struct{ b strings.Builder }

func (v *textOf) VisitToken(t *htmlx.Token) {
	if t.Type == html.TextToken {
		v.b.Write(t.Text())
		v.b.WriteByte(' ')
	}
}

// TestSimHashPages holds SimHash to simHashReference, and Exact to
// exactRef, on the pages of the
// uniform test web the throughput benchmark crawls and on the real pages
// of scholar's tests, their markup and their text.
func TestSimHashPages(t *testing.T) {
	var pages [][]byte
	web := testweb.NewUniform(testweb.UniformConfig{Seed: 1})
	for h := range 10 {
		for i := range 40 {
			pages = append(pages, web.Page(h, i))
		}
	}
	files, err := filepath.Glob("../scholar/testdata/*.html")
	if err != nil || len(files) == 0 {
		t.Fatalf("real pages: %v, %d files", err, len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, b)
	}
	for n, page := range pages {
		var v textOf
		htmlx.Tokens(page, &v)
		for _, s := range []string{string(page), v.b.String()} {
			if got, want := SimHash(s), simHashReference(s); got != want {
				t.Fatalf("page %d (%d bytes): SimHash = %#x, simHashReference = %#x", n, len(s), got, want)
			}
			if got, want := Exact(s), exactRef(s); !bytes.Equal(got, want) {
				t.Fatalf("page %d (%d bytes): Exact = %x, exactRef = %x", n, len(s), got, want)
			}
		}
	}
}
