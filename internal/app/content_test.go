package app

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/testweb"
	"github.com/acrawler/acrawler/internal/warc"
)

// TestContentPipeline crawls publication pages, PDFs and mirrors of the
// test web and checks what was recorded against the web's ground truth:
// scholarly metadata, PDF text, near-duplicates, the WARC archive, reparse
// from the archive, and the export.
func TestContentPipeline(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	t.Parallel()
	apptest.ForEachBackend(t, testContentPipeline)
}

func testContentPipeline(t *testing.T, be apptest.Backend) {
	web := apptest.NewWeb(t, testweb.Config{Seed: 23, Sites: 1, PagesPerSite: 20})
	db := be.NewDB(t)
	warcDir := filepath.Join(t.TempDir(), "warc")
	args := web.CrawlArgs(db, "--delay", "0", "--max-depth", "0", "--max-crawl-delay", "1ms")
	args = append(args, "--warc", warcDir, "http://www.northfield-university.test/", "http://journal-of-applied-crawling.test/")
	for _, s := range web.Sites() {
		if strings.HasPrefix(s.Host, "www.uni-") {
			args = append(args, s.Origin+"/")
		}
	}
	mustCrawl(t, args...)
	st, err := openStoreReadOnly(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()

	// Scholarly metadata of every publication crawled.
	checked := 0
	for _, info := range web.Pages() {
		if info.Kind != "publication" || info.Citation == nil {
			continue
		}
		p, err := st.Page(ctx, crawl.URLID(info.URL))
		if err != nil {
			continue // not reached within the crawl
		}
		checked++
		c := info.Citation
		m := p.Meta
		if m == nil || m.Title != c.Title || m.DOI != strings.ToLower(c.DOI) || !strings.HasPrefix(c.Date, m.Date) || m.Year == 0 {
			t.Errorf("%s: metadata %+v, want %+v", info.URL, m, c)
			continue
		}
		want := dedupe(c.Authors)
		if strings.Join(m.Authors, "; ") != strings.Join(want, "; ") {
			t.Errorf("%s: authors %q, want %q", info.URL, m.Authors, want)
		}
		if m.Type != "article" && m.Type != "proceedings" && m.Type != "preprint" && m.Type != "thesis" {
			t.Errorf("%s: type %q (%s)", info.URL, m.Type, m.TypeRule)
		}
		if p.MainText == "" || p.Lang == "" || p.SimHash == 0 || p.WARC.File == "" {
			t.Errorf("%s: main text %d bytes, lang %q, simhash %x, warc %+v", info.URL, len(p.MainText), p.Lang, p.SimHash, p.WARC)
		}
	}
	if checked < 20 {
		t.Errorf("only %d publications checked", checked)
	}
	// PDFs became documents with their text.
	pdfs, withText, nearDups := 0, 0, 0
	for p, err := range st.Pages(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if p.ContentType == "application/pdf" && p.Status == 200 {
			pdfs++
			if len(p.Text) > 200 && p.Error == "" {
				withText++
			}
		}
		if p.NearDuplicateOf != 0 || p.DuplicateOf != 0 {
			nearDups++
		}
	}
	if pdfs == 0 || withText < pdfs*9/10 {
		t.Errorf("%d PDFs, %d with text", pdfs, withText)
	}
	// Mirrors (the same text, another footer or date line) are not separate.
	mirrors, caught := 0, 0
	for _, info := range web.Pages() {
		if info.Kind != "duplicate" {
			continue
		}
		p, err := st.Page(ctx, crawl.URLID(info.URL))
		if err != nil {
			continue
		}
		mirrors++
		if p.DuplicateOf != 0 || p.NearDuplicateOf != 0 || p.Canonical != "" && p.Canonical != p.URL {
			caught++
		}
	}
	if mirrors == 0 || caught < mirrors*3/4 {
		t.Errorf("%d of %d mirror or copy pages recognised as duplicates", caught, mirrors)
	}
	st.Close()

	// The archive is valid WARC, every record readable, and closed: no
	// file is left under its name for one being written.
	files, err := warc.Files(warcDir)
	if err != nil || len(files) == 0 {
		t.Fatalf("WARC files: %v, %v", files, err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, warc.OpenSuffix) {
			t.Errorf("%s: left open by the crawl", f)
		}
	}
	records := 0
	for _, f := range files {
		skipped, err := warc.Scan(f, func(r *warc.Record, loc warc.Location) error {
			records++
			return nil
		})
		if err != nil || skipped != 0 {
			t.Errorf("scan %s: %d skipped, %v", f, skipped, err)
		}
	}
	if records < checked {
		t.Errorf("%d response records archived", records)
	}

	// Reparse from the archive, with no network: the same extraction.
	before := pageStates(t, db)
	out := mustCrawl(t, "reparse", "--db", db, "--warc", warcDir)
	if !strings.Contains(out, "reparsed") {
		t.Errorf("reparse output: %s", out)
	}
	after := pageStates(t, db)
	for u, b := range before {
		if a := after[u]; string(a.hash) != string(b.hash) {
			t.Errorf("%s: content hash changed by a reparse of the same bytes", u)
		}
	}
	// The export: one JSON object per document, authors as a list.
	exp := filepath.Join(t.TempDir(), "docs.jsonl")
	mustCrawl(t, "export", "--db", db, "--out", exp)
	f, err := os.Open(exp)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, withAuthors := 0, 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var rec ExportRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("export line %d: %v", n+1, err)
		}
		n++
		if rec.Metadata != nil && len(rec.Metadata.Authors) > 0 {
			withAuthors++
		}
	}
	if n < checked || withAuthors < checked {
		t.Errorf("export: %d documents, %d with authors", n, withAuthors)
	}
	t.Logf("%d publications checked, %d PDFs (%d with text), %d of %d mirrors caught, %d WARC records, %d exported",
		checked, pdfs, withText, caught, mirrors, records, n)
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
