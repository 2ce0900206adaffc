package app

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/testweb"
)

// A reached page budget ends the crawl although a host's robots.txt keeps
// answering 500 and its next attempt is an hour away: nothing new starts
// after the budget, robots.txt retries included.
func TestBudgetEndsWithRobotsRetryPending(t *testing.T) {
	web := newTestWeb(t, testweb.Config{Seed: 4, PagesPerSite: 30})
	db := backends[0].newDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := append(web.crawlArgs(db, "--delay", "0", "--max-pages", "20", "--robots-retry", "1h"),
		"http://shop.campus-store.test/", "http://www.northfield-university.test/")
	var stdout, stderr bytes.Buffer
	err := run(ctx, args, &stdout, &stderr)
	if ctx.Err() != nil {
		t.Fatalf("the crawl did not end after its page budget (robots.txt retry pending)\n%s", stderr.String())
	}
	if err != nil {
		t.Fatalf("crawl: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "page budget reached") {
		t.Errorf("summary does not report the page budget:\n%s", stdout.String())
	}
	n := 0
	for _, r := range web.Requests() {
		if r.Host == "shop.campus-store.test" && r.Path == "/robots.txt" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the shop's robots.txt was requested %d times, want 1", n)
	}
}
