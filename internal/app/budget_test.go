package app

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/testweb"
)

// A reached page budget ends the crawl although a host's robots.txt keeps
// answering 500 and its next attempt is an hour away: nothing new starts
// after the budget, robots.txt retries included.
func TestBudgetEndsWithRobotsRetryPending(t *testing.T) {
	t.Parallel()
	web := apptest.NewWeb(t, testweb.Config{Seed: 4, PagesPerSite: 30})
	db := apptest.Backends[0].NewDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := append(web.CrawlArgs(db, "--delay", "0", "--max-pages", "20", "--robots-retry", "1h"),
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

func TestMaxHostShare(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	t.Parallel()
	apptest.ForEachBackend(t, testMaxHostShare)
}

// testMaxHostShare gives no host more than a fifth of a 1 MB byte
// budget: a host that reaches its share has its queued URLs skipped, while
// the other hosts go on.
func testMaxHostShare(t *testing.T, be apptest.Backend) {
	const maxBytes, share = 1_000_000, 0.2
	web := apptest.NewWeb(t, testweb.Config{Seed: 4, PagesPerSite: 30, NoFaults: true})
	db := be.NewDB(t)
	// PDFs are fetched and counted, not read (--no-pdf).
	out := mustCrawl(t, web.CrawlArgs(db, "--delay", "50ms", "--max-depth", "0", "--no-pdf", "--max-bytes", strconv.Itoa(maxBytes),
		"--max-host-share", fmt.Sprint(share), "http://www.northfield-university.test/", clJournal+"/",
		"http://lab.quantum-optics-institute.test/")...)
	d := apptest.OpenDB(t, db)
	const hostShare = int64(share * maxBytes)

	capped := apptest.QueryStrings(t, d, `SELECT DISTINCT h.key FROM urls u JOIN hosts h ON h.id = u.host_id
		WHERE u.state = 5 AND u.error = 'host byte budget reached' ORDER BY h.key`)
	if len(capped) == 0 {
		t.Fatalf("no host reached its share of %d bytes:\n%s", hostShare, out)
	}
	// A budget is never reached silently. (Hosts that spent their share
	// with nothing left queued count too, so the summary may name more.)
	var spent int
	if i := strings.Index(out, "budget:"); i < 0 {
		t.Errorf("the run summary names no budget:\n%s", out)
	} else if _, err := fmt.Sscanf(strings.TrimSpace(out[i+len("budget:"):]), "%d host(s) spent their byte share", &spent); err != nil || spent < len(capped) {
		t.Errorf("the run summary says %d host(s) spent their byte share (%v), want at least %d:\n%s", spent, err, len(capped), out)
	}
	hosts := apptest.QueryStrings(t, d, `SELECT key FROM hosts WHERE fetched > 0 ORDER BY key`)
	if len(hosts) <= len(capped) {
		t.Errorf("hosts fetched %v, capped %v: want the others to go on", hosts, capped)
	}
	for _, h := range hosts {
		// Pages fetched after the host's bytes reached its share: none,
		// as the crawler counts a host's bytes when a fetch ends, not when
		// the store records them, and a host takes one request at a time
		// (--host-inflight 1); one at most if the host was let go and
		// claimed again before the store recorded its last fetch.
		rows, err := d.Query(d.Rebind(`SELECT CASE WHEN p.wire_bytes > 0 THEN p.wire_bytes ELSE p.bytes END
			FROM pages p JOIN urls u ON u.id = p.url_id JOIN hosts h ON h.id = u.host_id WHERE h.key = ? ORDER BY p.fetched_at`), h)
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		over := 0
		for rows.Next() {
			var n int64
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			if sum >= hostShare {
				over++
			}
			sum += n
		}
		rows.Close()
		t.Logf("%s: %d bytes, %d pages after its share was spent", h, sum, over)
		if over > 1 {
			t.Errorf("%s fetched %d pages after spending its share of %d bytes (%d bytes in all)", h, over, hostShare, sum)
		}
	}
}
