package app

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/crawl"
)

// shapeWeb serves shape.test: a home page whose meta robots tag speaks to
// mybot alone and that links to ten pages whose queries are not in name
// order. It keeps the User-Agents it was asked with.
type shapeWeb struct {
	mu     sync.Mutex
	agents map[string]int
}

func (s *shapeWeb) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.agents[r.UserAgent()]++
	s.mu.Unlock()
	if r.URL.Path == "/robots.txt" {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "User-agent: *\nDisallow:\n")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if r.URL.Path != "/" {
		fmt.Fprintf(w, `<!DOCTYPE html><html lang="en"><head><title>Report</title></head><body>
<p>A report of the group, %s, with enough text to be a page of its own about its research.</p></body></html>`, r.URL)
		return
	}
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><title>Reports</title><meta name="mybot" content="noindex"></head><body>
<p>The research group publishes its papers, datasets and theses here. Browse the reports below.</p>`)
	for i := range 10 {
		fmt.Fprintf(&b, `<a href="/report?z=%d&a=1">Report %d</a> `, i, i)
	}
	fmt.Fprint(w, b.String()+"</body></html>")
}

// homeLinks returns the targets of the links the home page of shape.test
// has in the store, and whether the page is marked noindex.
func homeLinks(t *testing.T, db string) ([]string, bool) {
	t.Helper()
	ctx := context.Background()
	st, err := openStoreReadOnly(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id := crawl.URLID("http://shape.test/")
	ls, err := st.Links(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range ls {
		out = append(out, l.Target)
	}
	slices.Sort(out)
	p, err := st.Page(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return out, p.NoIndex
}

// The settings that shape stored data are recorded by the crawl and used
// by reparse: a crawl with --user-agent mybot/1.0, --sort-query=false and
// --max-links-per-page 5 is re-extracted with mybot's meta robots tag,
// unsorted queries and five links a page, from another directory, where
// --warc auto finds the archive the crawl recorded. A flag contradicting
// a recorded setting is refused, naming both values; with
// --override-recorded it is used and recorded.
func TestRecordedSettings(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls")
	}
	apptest.ForEachBackend(t, func(t *testing.T, be apptest.Backend) {
		web := &shapeWeb{agents: map[string]int{}}
		srv := httptest.NewServer(web)
		defer srv.Close()
		db := be.NewDB(t)
		crawlDir, elsewhere := t.TempDir(), t.TempDir()
		t.Chdir(crawlDir)
		mustCrawl(t, "crawl", "--db", db, "--proxy", srv.URL, "--delay", "0", "--progress", "off", "--log-level", "warn",
			"--no-pdf", "--no-sitemaps", "--max-depth", "1", "--warc", "auto",
			"--user-agent", "mybot/1.0", "--sort-query=false", "--max-links-per-page", "5", "http://shape.test/")
		check := func(when string, n int) {
			t.Helper()
			links, noindex := homeLinks(t, db)
			if len(links) != n || !noindex {
				t.Errorf("%s: home page has %d links %q, noindex %v; want %d and noindex (meta name=mybot)", when, len(links), links, noindex, n)
			}
			for _, l := range links {
				if !strings.Contains(l, "?z=") {
					t.Errorf("%s: link %s has its query sorted, want it as written (--sort-query=false)", when, l)
				}
			}
		}
		check("crawl", 5)
		if out := mustCrawl(t, "stats", "--db", db); !regexp.MustCompile(`(?m)^  max_links_per_page +5$`).MatchString(out) ||
			!regexp.MustCompile(`(?m)^  robots_token +mybot$`).MatchString(out) {
			t.Errorf("stats does not show the recorded settings:\n%s", out)
		}

		// serve looks a URL up spelt as the crawl normalized it: the query
		// in its order, the tracking parameter stripped.
		base := startServe(t, db)
		for _, u := range []string{"http://shape.test/report?z=1&a=1", "http://shape.test/report?z=1&a=1&utm_source=x"} {
			resp, err := http.Get(base + "/documents?url=" + url.QueryEscape(u))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("serve /documents?url=%s: %s, want the page the crawl stored", u, resp.Status)
			}
		}

		t.Chdir(elsewhere)
		if out := mustCrawl(t, "reparse", "--db", db); !strings.Contains(out, filepath.Join(crawlDir, "acrawler-warc")) && apptest.IsPostgres(db) {
			t.Errorf("reparse read %q, want the archive the crawl recorded in %s", out, crawlDir)
		}
		check("reparse", 5)
		conf := func(line string) string {
			file := filepath.Join(t.TempDir(), "c.toml")
			os.WriteFile(file, []byte(line+"\n"), 0o644)
			return file
		}

		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"reparse", "--sort-query"}, "--sort-query true contradicts"},
			{[]string{"reparse", "--max-links-per-page", "7"}, "which was made with 5"},
			{[]string{"recrawl", "--user-agent", "otherbot/2", "--progress", "off"}, "mybot/1.0"},
			// reindex takes no such flag; a config file's key is as explicit.
			{[]string{"reindex", "--config", conf("strip_params = [\"z\"]")}, "--strip-params z contradicts"},
		} {
			code, _, msg := runQuiet(t, append(tc.args, "--db", db)...)
			if code != 2 || !strings.Contains(msg, tc.want) {
				t.Errorf("acrawler %s: exit %d, %q; want exit 2 and %q", strings.Join(tc.args, " "), code, msg, tc.want)
			}
		}
		// A new version of the same robot is no contradiction.
		if code, _, msg := runQuiet(t, "reindex", "--db", db, "--config", conf(`user_agent = "mybot/2.0"`)); code != 0 {
			t.Errorf("reindex --user-agent mybot/2.0: exit %d, %q; want the same product token accepted", code, msg)
		}

		// recrawl asks as the crawl did, and keeps its link limit.
		web.mu.Lock()
		clear(web.agents)
		web.mu.Unlock()
		mustCrawl(t, "recrawl", "--db", db, "--proxy", srv.URL, "--delay", "0", "--progress", "off", "--log-level", "warn",
			"--no-pdf", "--no-sitemaps", "--all")
		web.mu.Lock()
		if len(web.agents) != 1 || web.agents["mybot/1.0"] == 0 {
			t.Errorf("recrawl asked with User-Agents %v, want mybot/1.0 alone, as recorded", web.agents)
		}
		web.mu.Unlock()
		check("recrawl", 5)

		mustCrawl(t, "reparse", "--db", db, "--max-links-per-page", "7", "--override-recorded")
		check("reparse --max-links-per-page 7 --override-recorded", 7)
		mustCrawl(t, "reparse", "--db", db)
		check("reparse after the override", 7)
	})
}

// Every command takes --config, reads the file and validates it: a file
// with a bad value is refused by each, with the value's flag named; -h
// lists --config. ACRAWLER_DB and a file's db reach commands that open a
// database.
func TestEveryCommandTakesConfig(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("max_links_per_page = 0\n"), 0o644)
	for _, cmd := range Commands {
		t.Run(cmd, func(t *testing.T) {
			code, _, msg := runQuiet(t, cmd, "--config", bad)
			if code != 2 || !strings.Contains(msg, "--max-links-per-page") {
				t.Errorf("acrawler %s --config bad.toml: exit %d, %q; want exit 2 naming --max-links-per-page", cmd, code, msg)
			}
			code, help, _ := runQuiet(t, cmd, "--config", filepath.Join(dir, "none.toml"), "-h")
			if code != 2 {
				t.Errorf("acrawler %s --config none.toml: exit %d; want 2 (no such file)", cmd, code)
			}
			if cmd == "version" {
				return
			}
			code, help, _ = runQuiet(t, cmd, "-h")
			if code != 0 || !strings.Contains(help, "-config file") {
				t.Errorf("acrawler %s -h: exit %d, %q; want --config listed", cmd, code, apptest.FirstLines(help, 5))
			}
		})
	}
	good := filepath.Join(dir, "good.toml")
	fromFile := filepath.Join(dir, "from-file.db")
	os.WriteFile(good, []byte(fmt.Sprintf("db = %q\n", fromFile)), 0o644)
	if code, _, msg := runQuiet(t, "migrate", "--config", good); code != 0 {
		t.Fatalf("migrate --config: exit %d, %q", code, msg)
	}
	if _, err := os.Stat(fromFile); err != nil {
		t.Errorf("migrate --config did not use the file's db: %v", err)
	}
	fromEnv := filepath.Join(dir, "from-env.db")
	t.Setenv("ACRAWLER_DB", fromEnv)
	if code, _, msg := runQuiet(t, "migrate", "--config", good); code != 0 {
		t.Fatalf("migrate with ACRAWLER_DB: exit %d, %q", code, msg)
	}
	if _, err := os.Stat(fromEnv); err != nil {
		t.Errorf("migrate did not take ACRAWLER_DB over the file: %v", err)
	}
}
