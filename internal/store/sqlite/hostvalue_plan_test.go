package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// TestHostValueReadsIndex: valuing a host reads the pages' columns from
// the covering index pages_search, not from the table rows, where they sit
// behind the page's text, and looks the link targets up by ID, one at a
// time in the order given.
func TestHostValueReadsIndex(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "crawl.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	plan := func(q string, args ...any) []string { return queryPlan(t, db, q, args...) }
	// The host's pages are p, the targets' tp.
	pages := 0
	for _, detail := range append(plan(hostPagesSQL, 1, crawl.HostValueWindow), plan(linkTargetsSQL, "[1,2]", 6)...) {
		if f := strings.Fields(detail); len(f) > 1 && (f[1] == "p" || f[1] == "tp") {
			pages++
			if !strings.Contains(detail, "COVERING INDEX pages_search") {
				t.Errorf("host value plan reads pages without the covering index: %s", detail)
			}
		}
	}
	if pages != 2 {
		t.Errorf("host value plans read pages %d times, want 2 (the host's pages, the targets')", pages)
	}
	targets := plan(linkTargetsSQL, "[1,2]", 6)
	if len(targets) < 2 || !strings.HasPrefix(targets[0], "SCAN j ") ||
		!strings.HasPrefix(targets[1], "SEARCH t USING ") || !strings.HasSuffix(targets[1], "(id=?)") {
		t.Errorf("link targets not looked up by ID in the order given: %q", targets)
	}
}

// TestClaimReadsQueueInOrder: a claim reads a host's queued URLs from
// urls_queue in the order it hands them out (priority, then rowid), with
// no sort of the host's queue.
func TestClaimReadsQueueInOrder(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "crawl.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	all := strings.Join(queryPlan(t, db, claimURLsSQL, 1, 2, 3), "; ")
	if !strings.Contains(all, "SEARCH urls USING INDEX urls_queue (host_id=?)") || strings.Contains(all, "TEMP B-TREE") {
		t.Errorf("claim plan %q; want urls_queue read in order, no sort", all)
	}
}

// queryPlan is the detail of each step of SQLite's plan for q on the
// writer's connection.
func queryPlan(t testing.TB, db *DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.w.QueryContext(context.Background(), `EXPLAIN QUERY PLAN `+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		out = append(out, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
