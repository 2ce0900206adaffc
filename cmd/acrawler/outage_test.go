package main

import (
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestDatabaseOutage loses PostgreSQL in the middle of a crawl: a short
// outage pauses the crawl, which then finishes with every page; a long one
// ends it cleanly with a message.
func TestDatabaseOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls through a broken database link")
	}
	seeds := []string{"http://www.northfield-university.test/", "http://journal-of-applied-crawling.test/"}
	t.Run("short", func(t *testing.T) {
		dsn := pgtest.SchemaDSN(t)
		link := newFlakyLink(t, pgTarget(t, dsn))
		web := newTestWeb(t, testweb.Config{Seed: 4, PagesPerSite: 30})
		db := link.viaLink(t, dsn)
		done := make(chan error, 1)
		var out string
		go func() {
			var err error
			out, _, err = runCmd(t, append(web.crawlArgs(db, "--delay", "10ms", "--store-outage", "30s"), seeds...)...)
			done <- err
		}()
		waitRequests(t, web, 60)
		link.cut()
		time.Sleep(1500 * time.Millisecond)
		during := len(pageRequests(web))
		time.Sleep(1500 * time.Millisecond)
		// With the store gone, fetching stops (what is in flight and buffered may finish).
		if after := len(pageRequests(web)); after > during+64 {
			t.Errorf("%d pages fetched while the database was unreachable", after-during)
		}
		link.restore()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("crawl failed after the database came back: %v\n%s", err, out)
			}
		case <-time.After(2 * time.Minute):
			t.Fatal("crawl did not finish after the database came back")
		}
		// Every page of the reference crawl is there.
		ref := newTestWeb(t, testweb.Config{Seed: 4, PagesPerSite: 30})
		refDB := backends[0].newDB(t)
		mustCrawl(t, append(ref.crawlArgs(refDB, "--delay", "0"), seeds...)...)
		want, got := finalURLs(t, refDB), finalURLs(t, dsn)
		if a, b := diff(want, got); len(a)+len(b) > 0 {
			t.Errorf("after the outage: %d URLs missing %s, %d extra %s", len(a), short(a), len(b), short(b))
		}
	})
	t.Run("long", func(t *testing.T) {
		dsn := pgtest.SchemaDSN(t)
		link := newFlakyLink(t, pgTarget(t, dsn))
		web := newTestWeb(t, testweb.Config{Seed: 4, PagesPerSite: 30})
		db := link.viaLink(t, dsn)
		done := make(chan error, 1)
		go func() {
			_, _, err := runCmd(t, append(web.crawlArgs(db, "--delay", "10ms", "--store-outage", "2s"), seeds...)...)
			done <- err
		}()
		waitRequests(t, web, 60)
		link.cut()
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("crawl succeeded without its database")
			}
			var stderr strings.Builder
			if code := exitCode(err, &stderr); code != 1 || !strings.Contains(stderr.String(), "unavailable") {
				t.Errorf("exit %d, message %q; want 1 and a message saying the store is unavailable", code, stderr.String())
			}
			t.Logf("message: %s", stderr.String())
			if strings.Contains(stderr.String(), "password") {
				t.Errorf("message mentions a password: %q", stderr.String())
			}
		case <-time.After(time.Minute):
			t.Fatal("crawl did not give up on a lost database")
		}
	})
}

func waitRequests(t *testing.T, web *testWeb, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for len(pageRequests(web)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d pages fetched after a minute", len(pageRequests(web)))
		}
		time.Sleep(5 * time.Millisecond)
	}
}
