package app

// End-to-end test of a trap flag across a restart: a host flagged as a
// suspected trap is recorded in the store, and a later crawl on the same
// database applies --trap-policy to it from its first URL, instead of
// running it freely until the discovery-rate watch catches it again.

import (
	"strconv"
	"strings"
	"testing"
)

func TestTrapFlagSurvivesRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	forEachBackend(t, testTrapFlagSurvivesRestart)
}

func testTrapFlagSurvivesRestart(t *testing.T, be backend) {
	// The first crawl's budget runs out shortly after the blog is flagged
	// (about 100 pages), with URLs of the blog still queued.
	const firstBudget, secondBudget = 120, 1000
	for _, policy := range []string{"stop", "throttle"} {
		t.Run(policy, func(t *testing.T) {
			web, db, _ := clTrapCrawl(t, be, "--max-pages", strconv.Itoa(firstBudget), "--trap-policy", "stop")
			d := openDB(t, db)
			before := clHostRow(t, d, clBlog)
			if !strings.HasPrefix(before.trap, "discovery rate not falling") {
				t.Fatalf("first crawl: blog host trap = %q, want it flagged for its discovery rate", before.trap)
			}
			queued := queryInt(t, d, `SELECT count(*) FROM urls u JOIN hosts h ON h.id = u.host_id WHERE h.key = ? AND u.state = 0`, clBlog)
			if queued == 0 {
				t.Fatal("first crawl left no URL of the blog queued: the restart has nothing to show")
			}
			requests := len(clHostRequests(web, clBlog))

			// Restart on the same database with room to spare.
			args := web.crawlArgs(db, "--delay", "0", "--scope", "host", "--max-depth", "0", "--max-path-repeats", "0",
				"--max-pages", strconv.Itoa(secondBudget), "--trap-policy", policy)
			out := mustCrawl(t, append(args, clBlog+"/")...)
			after := clHostRow(t, d, clBlog)
			again := len(clHostRequests(web, clBlog)) - requests
			left := queryInt(t, d, `SELECT count(*) FROM urls u JOIN hosts h ON h.id = u.host_id WHERE h.key = ? AND u.state = 0`, clBlog)
			skipped := queryInt(t, d, `SELECT count(*) FROM urls u JOIN hosts h ON h.id = u.host_id
				WHERE h.key = ? AND u.state = 5 AND u.error LIKE 'suspected trap%'`, clBlog)
			t.Logf("first crawl: %d pages of the blog fetched, %d queued; second (%s): %d fetched, %d admitted (was %d), %d skipped as a trap, %d left",
				requests, queued, policy, again, after.admitted, before.admitted, skipped, left)
			if after.trap != before.trap {
				t.Errorf("trap after the restart = %q, want %q kept", after.trap, before.trap)
			}
			if left != 0 || !strings.Contains(out, "frontier exhausted") {
				t.Errorf("%d URLs of the blog still queued, want the frontier exhausted:\n%s", left, out)
			}
			switch policy {
			case "stop":
				// Nothing more is fetched from the flagged host: its queued
				// URLs are skipped from the start.
				if again != 0 {
					t.Errorf("stop: %d pages of the flagged blog fetched after the restart, want none", again)
				}
				if skipped < queued {
					t.Errorf("stop: %d URLs of the blog skipped as a trap, want its %d queued ones", skipped, queued)
				}
			case "throttle":
				// What was known is fetched, nothing new is admitted.
				if after.admitted != before.admitted {
					t.Errorf("throttle: %d URLs of the flagged blog admitted after the restart, want none", after.admitted-before.admitted)
				}
				if int64(again) > queued {
					t.Errorf("throttle: %d pages of the blog fetched after the restart, want at most the %d queued", again, queued)
				}
			}
		})
	}
}
