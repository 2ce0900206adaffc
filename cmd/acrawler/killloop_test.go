package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/testweb"
	"github.com/acrawler/acrawler/internal/warc"
)

// maxUnrecorded is how many pages a crawl killed at any moment can have
// fetched without recording them, with the default 16 workers: the
// workers' requests, the 64 results queued for the committer (four a
// worker) and the batch it was committing. That batch holds what waited
// while the commit before it ran (at most 16 + 64 again: a full queue
// holds the workers up, however long a loaded server takes to commit)
// and what arrived in the 100 ms it then collected for (at most 48 on
// these small webs). A crawl that recorded its pages late would fetch
// again everything since its last commit.
const maxUnrecorded = 2*(16+64) + 48

// TestKillLoop kills a real crawl process (SIGKILL) ten times at random
// moments and resumes it each time, then compares the result with an
// uninterrupted crawl of the same web: the same URLs and pages, none
// recorded twice or lost, no page recorded before a kill fetched again,
// every archived response readable and no WARC file left open.
func TestKillLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and kills it ten times")
	}
	t.Parallel()
	bin := programPath(t)
	cfg := testweb.Config{Seed: 11, PagesPerSite: 20}
	seeds := []string{"http://www.northfield-university.test/", "http://journal-of-applied-crawling.test/",
		"http://lab.quantum-optics-institute.test/"}

	// PDFs are fetched and recorded but not read (--no-pdf): their text is
	// TestContentPipeline's; here the extractor's start in every process
	// would be half the work.
	ref := apptest.NewWeb(t, cfg)
	refDB := apptest.Backends[0].NewDB(t)
	mustCrawl(t, append(ref.CrawlArgs(refDB, "--delay", "0", "--max-depth", "0", "--no-pdf"), seeds...)...)
	wantURLs := apptest.FinalURLs(t, refDB)
	wantPages := pageContents(t, refDB)
	if len(wantPages) < 100 {
		t.Fatalf("reference crawl recorded only %d pages", len(wantPages))
	}
	refRequests := len(apptest.PageRequests(ref))

	web := apptest.NewWeb(t, cfg)
	db := apptest.Backends[0].NewDB(t)
	args := append(web.CrawlArgs(db, "--delay", "0", "--max-depth", "0", "--lease", "1s", "--no-pdf"), seeds...)
	rng := rand.New(rand.NewPCG(2026, 12))
	// Kill points: page requests seen by the web, spread over the crawl.
	points := make([]int, 10)
	for i := range points {
		points[i] = 1 + rng.IntN(refRequests*9/10)
	}
	slices.Sort(points)
	type kill struct {
		requests int             // requests the web had received at the kill
		final    map[string]bool // URLs recorded by then
	}
	var kills []kill
	for i, at := range points {
		cmd := programCommand(bin, args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		deadline := time.Now().Add(time.Minute)
		finished := false
	wait:
		for len(apptest.PageRequests(web)) < at {
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("run %d: %v\n%s", i, err, out.String())
				}
				finished = true
				break wait
			case <-time.After(2 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("run %d: %d requests after a minute, waiting for %d\n%s", i, len(apptest.PageRequests(web)), at, out.String())
			}
		}
		if finished {
			t.Logf("run %d finished the crawl before its kill point", i)
			break
		}
		time.Sleep(time.Duration(rng.IntN(20)) * time.Millisecond)
		cmd.Process.Kill() // SIGKILL: no chance to clean up
		<-exited
		k := kill{requests: len(web.Requests()), final: map[string]bool{}}
		for _, u := range apptest.FinalURLs(t, db) {
			k.final[u] = true
		}
		kills = append(kills, k)
	}
	if len(kills) < 5 {
		t.Fatalf("only %d kills before the crawl finished", len(kills))
	}
	if out, err := programCommand(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("last run: %v\n%s", err, out)
	}

	got := apptest.FinalURLs(t, db)
	if a, b := apptest.Diff(wantURLs, got); len(a)+len(b) > 0 {
		t.Errorf("killed crawl differs from the uninterrupted one: %d only in the reference %s, %d only in the killed %s",
			len(a), apptest.Short(a), len(b), apptest.Short(b))
	}
	d := apptest.OpenDB(t, db)
	if dups := apptest.QueryStrings(t, d, `SELECT url FROM `+d.URLs()+` AS urls GROUP BY url HAVING count(*) > 1`); len(dups) > 0 {
		t.Errorf("URLs recorded twice: %s", apptest.Short(dups))
	}
	if dups := apptest.QueryStrings(t, d, `SELECT url FROM pages GROUP BY url HAVING count(*) > 1`); len(dups) > 0 {
		t.Errorf("pages recorded twice: %s", apptest.Short(dups))
	}
	gotPages := pageContents(t, db)
	for u, want := range wantPages {
		if g, ok := gotPages[u]; !ok {
			t.Errorf("page lost: %s", u)
		} else if g != want {
			t.Errorf("page %s differs from the uninterrupted crawl's:\n got %.200q\nwant %.200q", u, g, want)
		}
	}
	for u := range gotPages {
		if _, ok := wantPages[u]; !ok {
			t.Errorf("page %s not in the uninterrupted crawl", u)
		}
	}

	// A page recorded before a kill is not fetched again after it; of
	// those requested before a kill but not recorded, no more are fetched
	// again in the run after it than could have been in flight at the kill
	// (maxUnrecorded).
	refetched := 0
	reqs := web.Requests()
	for i, k := range kills {
		next := len(reqs)
		if i+1 < len(kills) {
			next = kills[i+1].requests
		}
		requested := map[string]bool{}
		inFlight := map[string]bool{}
		for j, r := range reqs {
			if r.Method == "CONNECT" || strings.HasPrefix(r.Path, "/robots") {
				continue
			}
			u := "http://" + r.Host + r.Path
			answered := r.Status < 500 && r.Status != 429 // not a retry of a failure
			switch {
			case j < k.requests:
				requested[u] = requested[u] || answered
			case k.final[u]:
				t.Errorf("%s fetched again after a kill although it was recorded before", u)
				refetched++
				if refetched > 10 {
					t.FailNow()
				}
			case j < next && requested[u] && answered:
				inFlight[u] = true
			}
		}
		if len(inFlight) > maxUnrecorded {
			t.Errorf("kill %d: %d pages fetched again in the run after it: more than could have been in flight (%d)", i, len(inFlight), maxUnrecorded)
		}
	}

	// The archive: no file left open, every page's response readable.
	dir := filepath.Join(web.Dir, "warc")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), warc.OpenSuffix) {
			t.Errorf("WARC file left open: %s", e.Name())
		}
	}
	rows, err := d.Query(`SELECT url, warc_file, warc_offset, warc_length FROM pages WHERE warc_file <> ''`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var u string
		var loc warc.Location
		if err := rows.Scan(&u, &loc.File, &loc.Offset, &loc.Length); err != nil {
			t.Fatal(err)
		}
		if _, err := warc.ReadAt(dir, loc); err != nil {
			t.Errorf("archived response of %s: %v", u, err)
		}
		n++
	}
	t.Logf("%d kills; %d URLs, %d pages, %d archived responses; %d requests (uninterrupted: %d)",
		len(kills), len(got), len(gotPages), n, len(web.Requests()), len(ref.Requests()))
}

// pageContents returns what a crawl recorded of each page: status, content
// hash, title and text.
func pageContents(t *testing.T, db string) map[string]string {
	t.Helper()
	d := apptest.OpenDB(t, db)
	out := map[string]string{}
	for _, row := range apptest.QueryStrings(t, d, `SELECT url || char(31) || status || char(31) || coalesce(hex(content_hash), '') ||
		char(31) || title || char(31) || text FROM pages`) {
		u, rest, _ := strings.Cut(row, "\x1f")
		out[u] = rest
	}
	return out
}
