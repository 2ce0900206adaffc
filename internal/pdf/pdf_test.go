package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// cacheDir holds the compiled PDFium module for the Extractors of this
// test process, so that only the first New compiles it. Set
// ACRAWLER_PDF_CACHE to share it between runs (fuzz workers, benchmarks,
// CI, which sets it to pdf.DefaultCacheDir).
var cacheDir string

func TestMain(m *testing.M) {
	cacheDir = os.Getenv("ACRAWLER_PDF_CACHE")
	if cacheDir == "" {
		dir, err := os.MkdirTemp("", "pdf-test-cache-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		cacheDir = dir
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

var shared struct {
	once sync.Once
	e    *Extractor
	err  error
}

// sharedExtractor returns an Extractor with the default options, made once
// per test process.
func sharedExtractor(tb testing.TB) *Extractor {
	tb.Helper()
	shared.once.Do(func() {
		shared.e, shared.err = New(context.Background(), Options{CacheDir: cacheDir, Workers: 2})
	})
	if shared.err != nil {
		tb.Fatalf("New: %v", shared.err)
	}
	return shared.e
}

// newExtractor returns an Extractor with opts, closed at the end of the
// test.
func newExtractor(tb testing.TB, opts Options) *Extractor {
	tb.Helper()
	sharedExtractor(tb) // fills the cache
	opts.CacheDir = cacheDir
	e, err := New(context.Background(), opts)
	if err != nil {
		tb.Fatalf("New(%+v): %v", opts, err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

func readTestdata(tb testing.TB, name string) []byte {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

func extract(tb testing.TB, e *Extractor, data []byte) *Document {
	tb.Helper()
	d, err := e.Extract(context.Background(), data)
	if err != nil {
		tb.Fatalf("Extract: %v", err)
	}
	checkText(tb, d.Text)
	return d
}

// checkText checks the form promised for Document.Text.
func checkText(tb testing.TB, text string) {
	tb.Helper()
	if !utf8.ValidString(text) {
		tb.Errorf("Text is not valid UTF-8: %q", text)
	}
	for _, r := range text {
		if r != '\n' && unicode.IsControl(r) || r == '\uFFFE' || r == '\u00AD' || '\uFB00' <= r && r <= '\uFB06' {
			tb.Errorf("Text has %U: %q", r, text)
			break
		}
	}
	if strings.Contains(text, "  ") || strings.Contains(text, "\n\n\n") || strings.Contains(text, " \n") || strings.Contains(text, "\n ") {
		tb.Errorf("Text has stray whitespace: %q", text)
	}
	if text != strings.TrimSpace(text) {
		tb.Errorf("Text is not trimmed: %q", text)
	}
}

// TestUnusableCacheDir: a cache directory that cannot be created, or
// whose module file cannot be read or written, costs New the compile,
// not the extraction.
func TestUnusableCacheDir(t *testing.T) {
	sharedExtractor(t) // fills cacheDir
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The module's files of cacheDir, as directories in another: a read
	// of them fails, and so does a write.
	blocked := t.TempDir()
	err := filepath.WalkDir(cacheDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(cacheDir, path)
		if err != nil {
			return err
		}
		return os.MkdirAll(filepath.Join(blocked, rel), 0o755)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Join(file, "pdfium"), blocked} {
		e, err := New(context.Background(), Options{CacheDir: dir})
		if err != nil {
			t.Fatalf("New with cache directory %s: %v", dir, err)
		}
		d := extract(t, e, readTestdata(t, "twocolumn.pdf"))
		e.Close()
		if !strings.Contains(d.Text, "Efficient Crawling of Scholarly Web Sites") {
			t.Errorf("cache directory %s: text %q", dir, d.Text)
		}
	}
}

func TestExtractTwoColumn(t *testing.T) {
	d := extract(t, sharedExtractor(t), readTestdata(t, "twocolumn.pdf"))
	paras := strings.Split(strings.ReplaceAll(d.Text, "\n\n", "\n"), "\n")
	has := make(map[string]bool)
	for _, p := range paras {
		has[p] = true
	}
	// Whole paragraphs: words spaced, ligatures expanded (find, flow,
	// affords, efficient, fills, fifty, fine, office, difficulty),
	// hyphenated words rejoined (po-liteness, in-stitutional,
	// labora-tories, deduplica-tion, liga-tures, Hy-phenated, ro-bust).
	for _, want := range []string{
		"Efficient Crawling of Scholarly Web Sites",
		"We study how a focused crawler can find the official pages of universities and keep the flow of requests polite. Our configuration affords an efficient schedule that fills the frontier with fifty fine candidates per host.",
		"1 Introduction",
		"Scholarly web sites are large, slow and full of near-duplicates. A crawler that wants to find every paper must balance coverage against politeness. In this paper we describe the architecture of a crawler that keeps a per-host queue, respects robots.txt and records the provenance of each fetched document.",
		"The first difficulty is the sheer number of institutional subdomains. Departments, laboratories and student organisations run their own servers, often with inconsistent configurations and misconfigured certificates. A crawler must therefore treat every host as an independent unit of politeness.",
		"The second difficulty is the heterogeneity of the content itself. Besides HTML pages there are presentations, spreadsheets and, above all, PDF files that hold the actual scientific output. Extracting their text reliably is a prerequisite for any downstream classification or deduplication.",
		"We crawled the web sites of two hundred universities over a period of four weeks. The crawler fetched approximately thirty million documents, of which eleven percent were PDF files. Among those, the overwhelming majority were produced by pdfTeX, which encodes ligatures such as fi, fl and ffi as single glyphs and does not store explicit spaces between words.",
		"Our extraction pipeline recovered the interword spacing in almost all documents. Hyphenated words at line ends were rejoined, and ligatures were expanded into their constituent characters, so that a search for the word “find” also matches documents that typeset it with a ligature.",
		"4 Conclusion",
		"Crawling the scholarly web efficiently requires careful engineering of the politeness policy, robust handling of malformed documents and a text extraction that respects the typographic conventions of scientific publishing. Our characterisation of institutional web sites suggests that a modest infrastructure suffices to cover the academic output of an entire country.",
	} {
		if !has[want] {
			t.Errorf("Text has no paragraph %q; Text:\n%s", want, d.Text)
		}
	}
	// Reading order: the second column follows the first.
	last := -1
	for _, h := range []string{"1 Introduction", "2 Architecture", "3 Evaluation", "4 Conclusion"} {
		i := strings.Index(d.Text, h)
		if i <= last {
			t.Errorf("section %q at %d, want after %d", h, i, last)
		}
		last = i
	}
	pages := strings.Split(d.Text, "\n\n")
	if len(pages) != 2 || !strings.HasPrefix(pages[1], "4 Conclusion\n") {
		t.Errorf("Text has %d pages, want 2, the second starting with the conclusion", len(pages))
	}
	if strings.Contains(d.Text, "\n1\n") || strings.HasSuffix(d.Text, "\n2") {
		t.Errorf("Text keeps the page numbers: %q", d.Text)
	}
	want := Document{
		Text:     d.Text,
		Pages:    2,
		Title:    "Efficient Crawling of Scholarly Web Sites",
		Heading:  "Efficient Crawling of Scholarly Web Sites",
		Author:   "Ada Lovelace; Alan Turing",
		Subject:  "Focused web crawling",
		Keywords: "crawler, scholarly web, near-duplicates",
		Creator:  "LaTeX with hyperref",
		Producer: "pdfTeX-1.40.24",
		Created:  time.Date(2024, 3, 12, 11, 0, 0, 0, time.UTC),
		Modified: time.Date(2024, 3, 12, 11, 0, 0, 0, time.UTC),
	}
	if *d != want {
		t.Errorf("Extract(twocolumn.pdf) = %+v\nwant %+v", *d, want)
	}
}

func TestExtractTurkish(t *testing.T) {
	wantText := "Üniversite Ağlarında Gezinme\n" +
		"Bu çalışmada üniversitelerin web sitelerini gezen bir örümcek yazılımının tasarımını açıklıyoruz. Öğrenci işleri sayfaları, akademik yayınlar ve duyurular ayrı ayrı değerlendirilir.\n" +
		"Işık hızında çalışan bir sistem değil, kibar ve güvenilir bir sistem hedefliyoruz. Çağrı merkezi, ölçüm sonuçları ve şikâyetler düzenli olarak gözden geçirilir.\n" +
		"The final paragraph is in English and contains the ligatures in “find”, “flow”, “office” and “affluent”."
	want := Document{
		Text:     wantText,
		Pages:    1,
		Title:    "Üniversite Ağlarında Gezinme",
		Heading:  "Üniversite Ağlarında Gezinme",
		Author:   "Şükrü Çağlar Öztürk",
		Subject:  "Türkçe metin çıkarma",
		Keywords: "ğ, ı, ş, ç, ö, ü",
		Creator:  "LaTeX with hyperref",
		Producer: "pdfTeX-1.40.24",
		Created:  time.Date(2025, 4, 3, 0, 0, 0, 0, time.UTC),
		Modified: time.Date(2025, 4, 3, 0, 0, 0, 0, time.UTC),
	}
	// owner-only.pdf is turkish.pdf encrypted with an empty user
	// password: readable without one.
	for _, name := range []string{"turkish.pdf", "owner-only.pdf"} {
		t.Run(name, func(t *testing.T) {
			d := extract(t, sharedExtractor(t), readTestdata(t, name))
			if *d != want {
				t.Errorf("Extract(%s) = %+v\nwant %+v", name, *d, want)
			}
		})
	}
}

func TestExtractErrors(t *testing.T) {
	two := readTestdata(t, "twocolumn.pdf")
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"encrypted.pdf", readTestdata(t, "encrypted.pdf"), ErrEncrypted},
		{"truncated.pdf", readTestdata(t, "truncated.pdf"), ErrBroken},
		{"garbage.pdf", readTestdata(t, "garbage.pdf"), ErrBroken},
		{"html.pdf", readTestdata(t, "html.pdf"), ErrBroken},
		{"empty", []byte{}, ErrBroken},
		{"nil", nil, ErrBroken},
		{"header only", []byte("%PDF-1.7\n"), ErrBroken},
		{"header and garbage", append([]byte("%PDF-1.4\n"), readTestdata(t, "garbage.pdf")...), ErrBroken},
		{"first half", two[:len(two)/2], ErrBroken},
		{"no pages", buildPDF(nil, false), nil},
	}
	e := sharedExtractor(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := e.Extract(context.Background(), tt.data)
			if tt.want == nil {
				if err != nil || d.Pages != 0 || d.Text != "" {
					t.Errorf("Extract(%s) = %+v, %v; want no pages, no error", tt.name, d, err)
				}
				return
			}
			if !errors.Is(err, tt.want) || d != nil {
				t.Errorf("Extract(%s) = %v, %v; want error %v", tt.name, d, err, tt.want)
			}
		})
	}
}

func TestExtractRepaired(t *testing.T) {
	// A PDF 1.4 file cut before its cross-reference table: PDFium
	// rebuilds the table by scanning the objects.
	data := buildPDF([][]byte{textPage("First page."), textPage("Second page, cut short.")}, false)
	data = data[:bytes.LastIndex(data, []byte("xref"))]
	d := extract(t, sharedExtractor(t), data)
	if want := "First page.\n\nSecond page, cut short."; d.Text != want || d.Pages != 2 {
		t.Errorf("Extract(cut PDF) = %q, %d pages; want %q, 2 pages", d.Text, d.Pages, want)
	}
}

func TestExtractManyPages(t *testing.T) {
	const n = 20000
	pages := make([][]byte, n)
	for i := range pages {
		pages[i] = textPage(fmt.Sprintf("Page %d.", i+1))
	}
	data := buildPDF(pages, false)
	d := extract(t, sharedExtractor(t), data)
	got := strings.Split(d.Text, "\n\n")
	if d.Pages != n || !d.Truncated || len(got) != DefaultMaxPages || got[len(got)-1] != "Page 200." {
		t.Errorf("Extract(%d pages) = %d pages, Truncated %v, %d pages of text ending %q; want %d, true, %d, %q",
			n, d.Pages, d.Truncated, len(got), got[len(got)-1], n, DefaultMaxPages, "Page 200.")
	}
}

func TestExtractMaxText(t *testing.T) {
	line := strings.Repeat("word ", 15)
	var pages [][]byte
	for range 5 {
		var lines []string
		for range 45 {
			lines = append(lines, line)
		}
		pages = append(pages, textPage(lines...))
	}
	data := buildPDF(pages, true)
	full := extract(t, sharedExtractor(t), data)
	for _, max := range []int{1, 100, 3000, 4000, 50000} {
		t.Run(fmt.Sprint(max), func(t *testing.T) {
			d := extract(t, newExtractor(t, Options{MaxText: max}), data)
			if len(d.Text) > max || !strings.HasPrefix(full.Text, d.Text) || d.Truncated != (len(full.Text) > max) {
				t.Errorf("Extract with MaxText %d = %d bytes, Truncated %v; want a prefix of the %d-byte text within the limit",
					max, len(d.Text), d.Truncated, len(full.Text))
			}
		})
	}
	t.Run("MaxPages", func(t *testing.T) {
		d := extract(t, newExtractor(t, Options{MaxPages: 2}), data)
		if want := strings.Join(strings.Split(full.Text, "\n\n")[:2], "\n\n"); d.Text != want || !d.Truncated || d.Pages != 5 {
			t.Errorf("Extract with MaxPages 2 = %d bytes, Truncated %v, %d pages; want %d bytes, true, 5", len(d.Text), d.Truncated, d.Pages, len(want))
		}
	})
}

// TestExtractMaxTextHidden checks MaxText on a page that starts with
// thousands of characters that cleaning removes (here control
// characters): the text after them is kept, not cut off while the next
// page is kept.
func TestExtractMaxTextHidden(t *testing.T) {
	data := buildPDF([][]byte{textPage(strings.Repeat("\x01", 6000), "end of page one"), textPage("page two")}, true)
	full := extract(t, sharedExtractor(t), data)
	if want := "end of page one\n\npage two"; full.Text != want || full.Truncated {
		t.Fatalf("Extract = %q, Truncated %v; want %q, false", full.Text, full.Truncated, want)
	}
	for _, max := range []int{20, 100} {
		t.Run(fmt.Sprint(max), func(t *testing.T) {
			d := extract(t, newExtractor(t, Options{MaxText: max}), data)
			if want := truncate(full.Text, max); d.Text != want || d.Truncated != (len(full.Text) > max) {
				t.Errorf("Extract with MaxText %d = %q, Truncated %v; want %q, %v", max, d.Text, d.Truncated, want, len(full.Text) > max)
			}
		})
	}
}

// bomb returns a one-page PDF whose deflated content stream expands to
// about size bytes of text-showing operators.
func bomb(size int) []byte {
	var c bytes.Buffer
	c.WriteString("BT /F1 1 Tf 0 0 Td\n")
	op := "(" + strings.Repeat("x", 70) + ") Tj\n"
	for c.Len() < size {
		c.WriteString(op)
	}
	c.WriteString("ET\n")
	return buildPDF([][]byte{c.Bytes()}, true)
}

func TestExtractBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	// 32 MB of text in 64 MiB of memory: PDFium runs out of memory (or
	// time) and the instance is replaced.
	e := newExtractor(t, Options{MaxMemory: 64 << 20, Timeout: 30 * time.Second})
	d, err := e.Extract(context.Background(), bomb(32<<20))
	if !errors.Is(err, ErrBroken) && !errors.Is(err, ErrTooLarge) {
		t.Errorf("Extract(bomb) = %v, %v; want ErrBroken or ErrTooLarge", d, err)
	}
	extract(t, e, readTestdata(t, "turkish.pdf"))
	// A document larger than half the memory is refused before parsing.
	big := append(readTestdata(t, "turkish.pdf"), make([]byte, 32<<20)...)
	if _, err := e.Extract(context.Background(), big); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Extract(32 MiB) = %v, want ErrTooLarge", err)
	}
}

func TestExtractTimeout(t *testing.T) {
	e := newExtractor(t, Options{Timeout: time.Nanosecond})
	d, err := e.Extract(context.Background(), readTestdata(t, "twocolumn.pdf"))
	if !errors.Is(err, ErrTooLarge) || d != nil {
		t.Errorf("Extract with Timeout 1ns = %v, %v; want ErrTooLarge", d, err)
	}
	// A killed instance is replaced.
	e2 := sharedExtractor(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e2.Extract(ctx, readTestdata(t, "twocolumn.pdf")); !errors.Is(err, context.Canceled) {
		t.Errorf("Extract(canceled ctx) = %v, want context.Canceled", err)
	}
	extract(t, e2, readTestdata(t, "turkish.pdf"))
}

func TestExtractConcurrent(t *testing.T) {
	e := sharedExtractor(t)
	names := []string{"twocolumn.pdf", "turkish.pdf", "garbage.pdf", "encrypted.pdf"}
	want := make(map[string]string)
	for _, n := range names {
		d, err := e.Extract(context.Background(), readTestdata(t, n))
		want[n] = fmt.Sprint(d, err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		n := names[i%len(names)]
		data := readTestdata(t, n)
		wg.Go(func() {
			d, err := e.Extract(context.Background(), data)
			if got := fmt.Sprint(d, err); got != want[n] {
				t.Errorf("concurrent Extract(%s) = %s, want %s", n, got, want[n])
			}
		})
	}
	wg.Wait()
}

func TestNewClose(t *testing.T) {
	for _, opts := range []Options{{MaxPages: -1}, {MaxText: -1}, {Timeout: -1}, {Workers: -1}, {MaxMemory: -1}, {MaxMemory: 1 << 20}} {
		if e, err := New(context.Background(), opts); err == nil {
			e.Close()
			t.Errorf("New(%+v) succeeded, want an error", opts)
		}
	}
	e := newExtractor(t, Options{})
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if d, err := e.Extract(context.Background(), readTestdata(t, "turkish.pdf")); err == nil {
		t.Errorf("Extract after Close = %v, want an error", d)
	}
}
