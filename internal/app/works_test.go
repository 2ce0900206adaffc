package app

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/testweb"
)

// TestExportWorks crawls a journal and the repository that deposits
// papers of it and exports the works as JSON lines and as BibTeX, RIS
// and CSL-JSON: one record per work, a deposit joined to its original.
func TestExportWorks(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	apptest.ForEachBackend(t, func(t *testing.T, be apptest.Backend) {
		web := apptest.NewWeb(t, testweb.Config{Seed: 29, PagesPerSite: 10, NoFaults: true})
		db := be.NewDB(t)
		mustCrawl(t, web.CrawlArgs(db, "--delay", "0", "--max-crawl-delay", "1ms", "--no-pdf", "--warc", "off",
			"http://www.northfield-university.test/", "http://"+testweb.RepositoryHost+"/")...)
		out := filepath.Join(t.TempDir(), "works")
		export := func(format string) string {
			mustCrawl(t, "export", "--db", db, "--what", "works", "--format", format, "--out", out)
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		var works []crawl.Work
		sc := bufio.NewScanner(strings.NewReader(export("jsonl")))
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		joined := 0
		for sc.Scan() {
			var w crawl.Work
			if err := json.Unmarshal(sc.Bytes(), &w); err != nil {
				t.Fatalf("export line %d: %v", len(works)+1, err)
			}
			works = append(works, w)
			hosts := map[string]bool{}
			for _, c := range w.Copies {
				hosts[crawl.HostKey(c.URL)] = true
			}
			if hosts["http://"+testweb.RepositoryHost] && len(hosts) > 1 {
				joined++
			}
		}
		if len(works) < 5 || joined == 0 {
			t.Fatalf("%d works exported, %d with a deposit joined to another host's copy", len(works), joined)
		}
		for format, marker := range map[string]string{"bibtex": "\n@", "ris": "TY  - ", "csl-json": `"citation-key"`} {
			if got := strings.Count("\n"+export(format), marker); got != len(works) {
				t.Errorf("--format %s: %d records, want %d", format, got, len(works))
			}
		}
		if _, _, err := runCmd(t, "export", "--db", db, "--what", "pages", "--format", "bibtex"); err == nil {
			t.Errorf("export --what pages --format bibtex succeeded")
		}
	})
}
