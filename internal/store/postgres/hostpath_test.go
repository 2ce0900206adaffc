package postgres

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

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

// TestHotPathByHost checks, with EXPLAIN, that the statements that claim a
// host's URLs (every variant of claimSQL) read urls and hosts through an
// index on the one host they name (host_id = $1, id = $1), never by a
// scan of the table: the property that lets the schema be distributed by
// host (docs/scale.md). Sequential scans are disabled for the session, so
// a statement no index serves by host shows as a Seq Scan.
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
	scan := regexp.MustCompile(`(Seq Scan|Index Scan|Index Only Scan|Bitmap Heap Scan)( using (\S+))? on (urls|hosts)\b`)
	for _, pages := range []bool{false, true} {
		for _, hostBytes := range []bool{false, true} {
			q := claimSQL(pages, hostBytes)
			args := []any{host, int64(1_800_000_000_000), "owner", int64(1), int64(8), int64(0), int64(0)}
			if pages {
				args = append(args, int64(1000))
			}
			if hostBytes {
				args = append(args, int64(1<<20))
			}
			rows, err := conn.Query(ctx, `EXPLAIN (COSTS OFF) `+q, args...)
			if err != nil {
				t.Fatalf("EXPLAIN claimSQL(%v, %v): %v", pages, hostBytes, err)
			}
			var plan []string
			for rows.Next() {
				var line string
				if err := rows.Scan(&line); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, line)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("claimSQL(pages=%v, hostBytes=%v)", pages, hostBytes)
			scans := 0
			for i, line := range plan {
				m := scan.FindStringSubmatch(line)
				if m == nil {
					continue
				}
				scans++
				if m[1] == "Seq Scan" {
					t.Errorf("%s scans all of %s:\n%s", name, m[4], strings.Join(plan, "\n"))
					continue
				}
				// The node's condition, on the lines below it: the host
				// (its ID inlined in the custom plan), or for urls the
				// rows a subquery on the host chose.
				want := []string{fmt.Sprintf("(id = '%d'::bigint)", host)}
				if m[4] == "urls" {
					want = []string{fmt.Sprintf("(host_id = '%d'::bigint)", host), `(id = "ANY_subquery`}
				}
				found := false
				for _, c := range plan[i+1:] {
					if strings.Contains(c, "Cond:") {
						for _, w := range want {
							found = found || strings.Contains(c, w)
						}
						break
					}
				}
				if !found {
					t.Errorf("%s reads %s without %q in its index condition:\n%s", name, m[4], want, strings.Join(plan, "\n"))
				}
			}
			if scans == 0 {
				t.Errorf("%s: no scan of urls or hosts in the plan:\n%s", name, strings.Join(plan, "\n"))
			}
		}
	}
}

// TestSetRanksReadsAnchorsOnce checks, with EXPLAIN, that the rank pass's
// statement gathers a page's inbound anchor texts once (one scan of
// links), not once for each place that names them.
func TestSetRanksReadsAnchorsOnce(t *testing.T) {
	db := openPlanDB(t)
	rows, err := db.pool.Query(context.Background(), `EXPLAIN (COSTS OFF) `+setRanksSQL, []int64{1, 2}, []int64{1}, []float64{0.5}, false)
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	links := 0
	onLinks := regexp.MustCompile(`\bon links\b`)
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
		if onLinks.MatchString(line) {
			links++
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if links != 1 {
		t.Errorf("the rank pass's statement reads links %d times, want once:\n%s", links, strings.Join(plan, "\n"))
	}
}
