package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/store/postgres/pgtest"
	"github.com/acrawler/acrawler/internal/testweb"
)

// flakyLink forwards TCP connections to a server and can cut them all, and
// refuse new ones, to play a database lost on the network.
type flakyLink struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]bool
}

func newFlakyLink(t *testing.T, target string) *flakyLink {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &flakyLink{ln: ln, target: target, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { ln.Close(); l.cut() })
	go l.serve()
	return l
}

func (l *flakyLink) serve() {
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		l.mu.Lock()
		if l.down {
			l.mu.Unlock()
			c.Close()
			continue
		}
		s, err := net.Dial("tcp", l.target)
		if err != nil {
			l.mu.Unlock()
			c.Close()
			continue
		}
		l.conns[c], l.conns[s] = true, true
		l.mu.Unlock()
		go func() { io.Copy(s, c); s.Close(); c.Close() }()
		go func() { io.Copy(c, s); s.Close(); c.Close() }()
	}
}

// cut closes every connection and refuses new ones until restore.
func (l *flakyLink) cut() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.down = true
	for c := range l.conns {
		c.Close()
	}
	clear(l.conns)
}

func (l *flakyLink) restore() {
	l.mu.Lock()
	l.down = false
	l.mu.Unlock()
}

// viaLink rewrites a DSN to reach the server through the link.
func (l *flakyLink) viaLink(t *testing.T, dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = l.ln.Addr().String()
	return u.String()
}

func pgTarget(t *testing.T, dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	host := u.Host
	if !strings.Contains(host, ":") {
		host += ":5432"
	}
	return host
}

// noticeWriter collects a command's stderr and notes how many requests the
// test web had received when a line containing mark was first written.
type noticeWriter struct {
	mu     sync.Mutex
	buf    strings.Builder
	mark   string
	web    *apptest.Web
	at     int // page requests when mark was seen; -1 before
	marked chan struct{}
}

func newNoticeWriter(web *apptest.Web, mark string) *noticeWriter {
	return &noticeWriter{mark: mark, web: web, at: -1, marked: make(chan struct{})}
}

func (w *noticeWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.at < 0 && strings.Contains(w.buf.String(), w.mark) {
		w.at = len(apptest.PageRequests(w.web))
		close(w.marked)
	}
	return len(p), nil
}

func (w *noticeWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// outageWorkers is the --workers of the outage tests: at most that many
// requests can be on their way when the crawler meets the outage.
const outageWorkers = 4

// runOutageCrawl starts a crawl through the link and returns its stderr
// watcher and a channel with its error.
func runOutageCrawl(t *testing.T, web *apptest.Web, db string, extra ...string) (*noticeWriter, chan error) {
	t.Helper()
	return runOutageCrawlCtx(t, context.Background(), web, db, extra...)
}

func runOutageCrawlCtx(t *testing.T, ctx context.Context, web *apptest.Web, db string, extra ...string) (*noticeWriter, chan error) {
	t.Helper()
	stderr := newNoticeWriter(web, "store unavailable")
	done := make(chan error, 1)
	args := append(web.CrawlArgs(db, append([]string{"--delay", "10ms", "--workers", fmt.Sprint(outageWorkers), "--lease", "2s"},
		extra...)...), outageSeeds...)
	go func() {
		ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
		defer cancel()
		done <- run(ctx, args, io.Discard, stderr)
	}()
	return stderr, done
}

var outageSeeds = []string{"http://www.northfield-university.test/", "http://journal-of-applied-crawling.test/"}

// checkQuietDuringOutage checks that once the crawler met the outage it
// sent no request beyond those already on their way.
func checkQuietDuringOutage(t *testing.T, web *apptest.Web, stderr *noticeWriter, end int) {
	t.Helper()
	select {
	case <-stderr.marked:
	default:
		t.Fatalf("the crawler never reported the outage:\n%s", stderr)
	}
	stderr.mu.Lock()
	at := stderr.at
	stderr.mu.Unlock()
	t.Logf("%d pages requested when the outage was met, %d after", at, end-at)
	// Each worker may hold a task handed out before, and the dispatcher
	// one more it was handing out.
	if end-at > outageWorkers+1 {
		t.Errorf("%d pages requested after the crawler met the outage, want at most %d (in flight)", end-at, outageWorkers+1)
	}
}

// checkEveryPageOnce compares a crawl with an uninterrupted one of the same
// web and checks that no page recorded when the database went (atCut) was
// fetched again: only results lost with the database are fetched twice.
func checkEveryPageOnce(t *testing.T, web *apptest.Web, dsn string, cfg testweb.Config, atCut map[string]bool) {
	t.Helper()
	ref := apptest.NewWeb(t, cfg)
	refDB := apptest.Backends[0].NewDB(t)
	mustCrawl(t, append(ref.CrawlArgs(refDB, "--delay", "0"), outageSeeds...)...)
	want, got := apptest.FinalURLs(t, refDB), apptest.FinalURLs(t, dsn)
	if a, b := apptest.Diff(want, got); len(a)+len(b) > 0 {
		t.Errorf("after the outage: %d URLs missing %s, %d extra %s", len(a), apptest.Short(a), len(b), apptest.Short(b))
	}
	seen := map[string]int{}
	twice := 0
	for _, r := range web.Requests() {
		if r.Method == "CONNECT" || strings.HasPrefix(r.Path, "/robots") || r.Status >= 500 || r.Status == 429 {
			continue
		}
		u := "http://" + r.Host + r.Path
		switch seen[u]++; {
		case seen[u] > 2:
			t.Errorf("%s fetched %d times", u, seen[u])
		case seen[u] == 2 && atCut[u]:
			t.Errorf("%s fetched again although it was recorded before the outage", u)
		case seen[u] == 2:
			twice++
		}
	}
	t.Logf("%d URLs recorded at the cut, %d in all; %d pages fetched again (results lost with the database)", len(atCut), len(got), twice)
}

// resumeAndCheck runs the crawl again through db and checks it as
// checkEveryPageOnce does, on the database at dsn.
func resumeAndCheck(t *testing.T, web *apptest.Web, db, dsn string, cfg testweb.Config, atCut map[string]bool) {
	t.Helper()
	_, resumed := runOutageCrawl(t, web, db)
	select {
	case err := <-resumed:
		if err != nil {
			t.Fatalf("resumed crawl: %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("resumed crawl did not finish")
	}
	checkEveryPageOnce(t, web, dsn, cfg, atCut)
}

// recordedURLs reads the URLs with a final state straight from the
// database (not through the link).
func recordedURLs(t *testing.T, dsn string) map[string]bool {
	t.Helper()
	m := map[string]bool{}
	for _, u := range apptest.FinalURLs(t, dsn) {
		m[u] = true
	}
	return m
}

// TestDatabaseOutage loses PostgreSQL in the middle of a crawl: fetching
// stops at once (nothing is fetched that could not be recorded); a short
// outage pauses the crawl, which then finishes with every page; a long one
// ends it with a clear message, and the next run completes the crawl.
func TestDatabaseOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls through a broken database link")
	}
	cfg := testweb.Config{Seed: 4, PagesPerSite: 30}
	t.Run("short", func(t *testing.T) {
		dsn := pgtest.SchemaDSN(t)
		link := newFlakyLink(t, pgTarget(t, dsn))
		web := apptest.NewWeb(t, cfg)
		stderr, done := runOutageCrawl(t, web, link.viaLink(t, dsn), "--store-outage", "30s")
		waitRequests(t, web, 60)
		link.cut()
		atCut := recordedURLs(t, dsn)
		select {
		case <-stderr.marked:
		case <-time.After(10 * time.Second):
		}
		time.Sleep(2 * time.Second)
		checkQuietDuringOutage(t, web, stderr, len(apptest.PageRequests(web)))
		link.restore()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("crawl failed after the database came back: %v\n%s", err, stderr)
			}
		case <-time.After(2 * time.Minute):
			t.Fatal("crawl did not finish after the database came back")
		}
		checkEveryPageOnce(t, web, dsn, cfg, atCut)
	})
	t.Run("long", func(t *testing.T) {
		dsn := pgtest.SchemaDSN(t)
		link := newFlakyLink(t, pgTarget(t, dsn))
		web := apptest.NewWeb(t, cfg)
		db := link.viaLink(t, dsn)
		stderr, done := runOutageCrawl(t, web, db, "--store-outage", "2s")
		waitRequests(t, web, 60)
		link.cut()
		atCut := recordedURLs(t, dsn)
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("crawl succeeded without its database")
			}
			// A failure (exit status 1), not bad usage nor a stop.
			var u UsageError
			var i Interrupted
			msg := err.Error()
			if errors.As(err, &u) || errors.As(err, &i) || !strings.Contains(msg, "unavailable") || !strings.Contains(msg, "--store-outage") {
				t.Errorf("error %q; want a failure saying the store is unavailable", msg)
			}
			t.Logf("message: %s", msg)
			if strings.Contains(msg, "password") {
				t.Errorf("message mentions a password: %q", msg)
			}
		case <-time.After(time.Minute):
			t.Fatalf("crawl did not give up on a lost database\n%s", stderr)
		}
		checkQuietDuringOutage(t, web, stderr, len(apptest.PageRequests(web)))
		if strings.Contains(stderr.String(), "available again") {
			t.Errorf("the crawler said the store was back while it was not:\n%s", stderr)
		}

		// The next run, with the database back, completes the crawl.
		link.restore()
		resumeAndCheck(t, web, db, dsn, cfg, atCut)
	})
	t.Run("signal", func(t *testing.T) {
		// Ctrl-C while the database is away stops the crawl within
		// seconds, although --store-outage would wait for minutes.
		dsn := pgtest.SchemaDSN(t)
		link := newFlakyLink(t, pgTarget(t, dsn))
		web := apptest.NewWeb(t, cfg)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		stderr, done := runOutageCrawlCtx(t, ctx, web, link.viaLink(t, dsn), "--store-outage", "10m")
		waitRequests(t, web, 60)
		link.cut()
		select {
		case <-stderr.marked:
		case <-time.After(10 * time.Second):
			t.Fatalf("the crawler never reported the outage:\n%s", stderr)
		}
		cancel() // SIGINT
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("the crawl did not stop during the outage\n%s", stderr)
		}
	})
}

func waitRequests(t *testing.T, web *apptest.Web, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for len(apptest.PageRequests(web)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d pages fetched after a minute", len(apptest.PageRequests(web)))
		}
		time.Sleep(5 * time.Millisecond)
	}
}
