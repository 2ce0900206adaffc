package extract

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/acrawler/acrawler/internal/htmlx"
	"github.com/acrawler/acrawler/internal/pdf"
	"github.com/acrawler/acrawler/internal/scholar"
	"github.com/acrawler/acrawler/internal/testweb"
)

// TestTestwebTitles checks the recorded titles of the synthetic web's HTML
// pages against its ground truth: a page whose <title> carries the site's
// name ("Deep learning for X | Northfield University") is recorded under
// its own title, and one whose <title> is its own title keeps it. It does
// so for the pages as served, and without their og: and citation_ tags
// (where only <h1>, the site's name and the host are left to tell).
func TestTestwebTitles(t *testing.T) {
	w := testweb.New(testweb.Config{Seed: 1})
	x := newTestExtractor(t, false)
	for _, variant := range []string{"as served", "without metadata"} {
		t.Run(variant, func(t *testing.T) {
			var suffixed, stripped, plain, kept int
			for _, p := range w.Pages() {
				if p.Status != 200 || !strings.HasPrefix(p.ContentType, "text/html") || p.Title == "" || p.Kind == "fault" || p.Kind == "trap" {
					continue
				}
				rec := httptest.NewRecorder()
				w.ServeHTTP(rec, httptest.NewRequest("GET", p.URL, nil))
				ct := rec.Header().Get("Content-Type")
				body := rec.Body.Bytes()
				if variant == "without metadata" {
					body = bytes.ReplaceAll(body, []byte(`property="og:`), []byte(`property="x:`))
					body = bytes.ReplaceAll(body, []byte(`name="citation_`), []byte(`name="x_`))
				}
				r := x.HTML(body, ct, p.URL, nil)
				utf8, _, err := htmlx.Decode(body, ct)
				if err != nil {
					t.Fatal(err)
				}
				doc, err := htmlx.Parse(utf8, p.URL, htmlx.Options{Resolver: x.opts.Resolver})
				if err != nil {
					t.Fatal(err)
				}
				raw := doc.Title
				if raw == p.Title {
					plain++
					if r.Title == p.Title {
						kept++
					} else {
						t.Errorf("%s: title %q recorded as %q", p.URL, raw, r.Title)
					}
					continue
				}
				if !strings.HasPrefix(raw, p.Title) {
					continue // not a title the ground truth names
				}
				suffixed++
				if r.Title == p.Title {
					stripped++
				} else if testing.Verbose() {
					t.Logf("%s: title %q recorded as %q, want %q", p.URL, raw, r.Title, p.Title)
				}
			}
			t.Logf("%d of %d titles with the site's name recorded without it; %d of %d plain titles kept", stripped, suffixed, kept, plain)
			if suffixed < 100 || stripped*100 < suffixed*90 {
				t.Errorf("%d of %d titles with the site's name recorded without it, want at least 90%%", stripped, suffixed)
			}
		})
	}
}

// TestTestwebPDFs extracts the PDFs of the synthetic web's publications
// with PDFium and checks that each is described like its landing page:
// the same kind of work, its DOI, its title, its authors (each once) and
// its year.
func TestTestwebPDFs(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles PDFium")
	}
	pe, err := pdf.New(context.Background(), pdf.Options{CacheDir: pdf.DefaultCacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer pe.Close()
	w := testweb.New(testweb.Config{Seed: 1})
	x := newTestExtractor(t, false)
	x.opts.PDF = pe
	get := func(u string) ([]byte, string) {
		rec := httptest.NewRecorder()
		w.ServeHTTP(rec, httptest.NewRequest("GET", u, nil))
		if rec.Code != 200 {
			t.Fatalf("GET %s: %d", u, rec.Code)
		}
		return rec.Body.Bytes(), rec.Header().Get("Content-Type")
	}
	n, sameType := 0, 0
	types := map[string]int{}
	for _, p := range w.Pages() {
		c := p.Citation
		if c == nil || c.PDF == "" || p.Status != 200 || p.Kind != "publication" {
			continue
		}
		n++
		body, ct := get(p.URL)
		page := x.HTML(body, ct, p.URL, nil)
		body, _ = get(c.PDF)
		r := x.PDF(context.Background(), body, c.PDF, nil)
		m := r.Meta
		if r.Error != "" || m == nil {
			t.Fatalf("PDF %s: error %q", c.PDF, r.Error)
		}
		types[page.Meta.Type+" → "+m.Type+" by "+m.TypeRule]++
		if m.Type == page.Meta.Type {
			sameType++
		} else if testing.Verbose() {
			t.Logf("PDF %s: type %q (%s), its page %s is a %q", c.PDF, m.Type, m.TypeRule, p.URL, page.Meta.Type)
		}
		if m.Type == scholar.TypeOther {
			t.Errorf("PDF %s: type %q (%s), its page %s is a %q", c.PDF, m.Type, m.TypeRule, p.URL, page.Meta.Type)
		}
		wantDOI, _ := scholar.NormalizeDOI(c.DOI)
		var authors []string
		seen := map[string]bool{}
		for _, a := range c.Authors {
			if a = foldASCII(a); !seen[a] {
				seen[a] = true
				authors = append(authors, a)
			}
		}
		year, _ := strconv.Atoi(c.Date[:4])
		if m.DOI != wantDOI || m.Title != foldASCII(c.Title) || r.Title != m.Title || m.Year != year ||
			strings.Join(m.Authors, "; ") != strings.Join(authors, "; ") {
			t.Errorf("PDF %s: DOI %q, title %q (record %q), year %d, authors %q\nwant %q, %q, %d, %q",
				c.PDF, m.DOI, m.Title, r.Title, m.Year, m.Authors, wantDOI, foldASCII(c.Title), year, authors)
		}
	}
	for k, v := range types {
		t.Logf("%4d page → PDF %s", v, k)
	}
	t.Logf("%d of %d PDFs typed like their landing page", sameType, n)
	if n < 20 || sameType*100 < n*90 {
		t.Errorf("%d of %d PDFs typed like their landing page, want at least 90%%", sameType, n)
	}
}

// foldASCII spells s in ASCII as the synthetic web's PDFs do: accents
// dropped, dotless i as i, other letters as "?".
func foldASCII(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case r == 'ı':
			b.WriteByte('i')
		case r >= 0x80:
			b.WriteByte('?')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestHTMLTitles checks the recorded titles of the golden pages of
// internal/scholar, whose <title>s carry a journal, a conference, a
// repository, a school or a section beside the page's own title.
func TestHTMLTitles(t *testing.T) {
	x := newTestExtractor(t, false)
	for file, want := range map[string]string{
		"conference-paper.html":   "Politeness Budgets for Distributed Crawlers",
		"dataset-microdata.html":  "University Website Link Census 2023 (Version 2)",
		"faculty.html":            "Dr Maren Lindqvist",
		"journal-article.html":    "Adaptive Revisit Policies for Institutional Repositories",
		"news.html":               "Web Archives Group wins national preservation award",
		"preprint.html":           "[2401.01234] Learning to Skip: Predicting Unchanged Pages Before Fetching Them",
		"publications.html":       "Publications",
		"thesis.html":             "Measuring the Persistence of Scholarly Links",
		"turkish-article.html":    "Üniversite Web Sitelerinde Bağlantı Kalıcılığı Üzerine Bir İnceleme",
		"turkish-university.html": "Yayınlar - Bilgisayar Mühendisliği Bölümü",
	} {
		body, err := os.ReadFile(filepath.Join("../scholar/testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		if r := x.HTML(body, "text/html; charset=utf-8", "https://www.example.org/records/1", nil); r.Title != want {
			t.Errorf("HTML(%s): title %q, want %q", file, r.Title, want)
		}
	}
}
