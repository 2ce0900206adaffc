package postgres

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/acrawler/acrawler/internal/store/postgres/pgtest"
)

// openPlanDB opens a store on a schema of its own, for EXPLAIN.
func openPlanDB(t *testing.T) *DB {
	t.Helper()
	dsn, schema := pgtest.Schema(t)
	db, err := Open(context.Background(), dsn, Options{Schema: schema, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestHotPathByHost checks, with EXPLAIN, that the statement that claims
// hosts' URLs (claimSQL, without budgets and with both, leaving out hosts
// with runs and not) reads urls, hosts and queue_runs only through an
// index on the hosts it names ($1, joined as x, and
// the hosts of the URLs it claimed, k and c), or on the IDs of rows it
// chose by host (pick, and the ANY subquery of the skipped URLs), never by
// a scan of the table: the property that lets the schema be distributed
// by host (docs/scale.md). Sequential scans are disabled for the session,
// so a read no index serves by host shows as a Seq Scan.
func TestHotPathByHost(t *testing.T) {
	ctx := context.Background()
	db := openPlanDB(t)
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SET enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	const host = int64(1) << 52
	scan := regexp.MustCompile(`(Seq Scan|Index Scan|Index Only Scan|Bitmap Heap Scan)( using (\S+))? on (urls|hosts|queue_runs)\b`)
	byHost := map[string]*regexp.Regexp{
		"hosts":      regexp.MustCompile(`Cond: \(id = (x|k|c)(_\d+)?\.(id|host_id)\)`),
		"urls":       regexp.MustCompile(`Cond: \((host_id = (x|k)(_\d+)?\.(id|host_id)|id = (pick(_\d+)?|"ANY_subquery")\.id)\)`),
		"queue_runs": regexp.MustCompile(`Cond: \(+host_id = (h|k)(_\d+)?\.(id|host_id)\)`),
	}
	for i, budgets := range [][2]int64{{0, 0}, {1000, 1 << 20}, {0, 0}, {1000, 1 << 20}} {
		packed := i >= 2
		args := []any{[]int64{host, host + 1}, int64(1_800_000_000_000), "owner", int64(1), int64(8), int64(0), int64(0), budgets[0], budgets[1],
			packed}
		plan := explain(t, conn, claimSQL, args...)
		reads := map[string]int{}
		for i, line := range plan {
			m := scan.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			reads[m[4]]++
			if m[1] == "Seq Scan" {
				t.Errorf("claimSQL with budgets %v scans all of %s:\n%s", budgets, m[4], strings.Join(plan, "\n"))
				continue
			}
			// The node's condition, on the lines below it.
			found := false
			for _, c := range plan[i+1:] {
				if strings.Contains(c, "Cond:") {
					found = byHost[m[4]].MatchString(c)
					break
				}
			}
			if !found {
				t.Errorf("claimSQL with budgets %v reads %s by something other than the hosts it names:\n%s", budgets, m[4], strings.Join(plan, "\n"))
			}
		}
		if reads["urls"] == 0 || reads["hosts"] == 0 {
			t.Errorf("claimSQL with budgets %v: reads of urls and hosts %v, want both:\n%s", budgets, reads, strings.Join(plan, "\n"))
		}
	}
}

// TestSetRanksReadsAnchorsOnce checks, with EXPLAIN, that the rank pass's
// statement gathers a page's inbound anchor texts once (one scan of
// links), not once for each place that names them.
func TestSetRanksReadsAnchorsOnce(t *testing.T) {
	db := openPlanDB(t)
	plan := explain(t, db.pool, setAnchorsSQL, []int64{1}, []int64{1, 2}, true, false)
	links := 0
	onLinks := regexp.MustCompile(`\bon links\b`)
	for _, line := range plan {
		if onLinks.MatchString(line) {
			links++
		}
	}
	if links != 1 {
		t.Errorf("the rank pass's statement reads links %d times, want once:\n%s", links, strings.Join(plan, "\n"))
	}
}

// explain returns the lines of q's plan (EXPLAIN without costs) for args.
func explain(t *testing.T, db interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(context.Background(), `EXPLAIN (COSTS OFF) `+q, args...)
	if err != nil {
		t.Fatalf("EXPLAIN: %v", err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}
