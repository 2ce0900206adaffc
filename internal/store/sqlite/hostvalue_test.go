package sqlite

import (
	"context"
	"database/sql/driver"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	sqlite "modernc.org/sqlite"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/outlinks"
)

// The form in which host values were computed before learnHost, all in
// SQL, a page's link targets expanded by acrawler_link_targets: the
// measure TestHostValueAsInSQL holds learnHost to.
func init() {
	sqlite.MustRegisterDeterministicScalarFunction("acrawler_link_targets", 1,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			b, _ := args[0].([]byte)
			if b == nil {
				return "[]", nil
			}
			ts, err := outlinks.Targets(nil, b)
			if err != nil {
				return nil, err
			}
			return jsonIDs(ts), nil
		})
}

const hostValueInSQL = `SELECT n, research, related, copies, citing,
	(24 * research + 12 * related + 12 * citing - 24 * copies - 6 * n) / (n + 4) FROM (
	SELECT count(*) AS n,
		coalesce(sum(k = 1), 0) AS research, coalesce(sum(k = 2), 0) AS related, coalesce(sum(k = 3), 0) AS copies,
		coalesce(sum(k = 0 AND EXISTS (SELECT 1 FROM outlinks l, json_each(acrawler_link_targets(l.links)) j JOIN urls t ON t.id = j.value
			WHERE l.source_id = c.id AND t.host_id <> ?1 AND (t.priority >= max(c.priority, 0) + 6
				OR EXISTS (SELECT 1 FROM pages tp INDEXED BY pages_search WHERE tp.url_id = t.id AND tp.doc_type IN ` + researchTypes + `
					AND tp.status BETWEEN 200 AND 299)))), 0) AS citing
	FROM (` + hostPageKindsSQL + `) c)`

// TestHostValueAsInSQL: on a store of hosts two of which share a third's
// host bits, with pages of every kind linking to URLs of their own host,
// of hosts of the same bits and of others, ranking below and above them,
// recorded as research or not and unknown, learnHost counts what the
// whole computation in SQL counts, host by host.
func TestHostValueAsInSQL(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "crawl.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	hosts := []string{"http://h0.test"}
	for i := 0; len(hosts) < 3; i++ {
		if h := fmt.Sprintf("http://s%d.test", i); crawl.HostBits(crawl.HashID(h)) == crawl.HostBits(crawl.HashID(hosts[0])) {
			hosts = append(hosts, h)
		}
	}
	for i := 1; i < 8; i++ {
		hosts = append(hosts, fmt.Sprintf("http://h%d.test", i))
	}
	const perHost = 60
	rng := rand.New(rand.NewPCG(5, 6))
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.w.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	var ids []crawl.ID
	for _, h := range hosts {
		exec(`INSERT INTO hosts (id, key) VALUES (?, ?)`, crawl.HashID(h), h)
		for i := range perHost {
			u := fmt.Sprintf("%s/p%d", h, i)
			id := crawl.URLID(u)
			ids = append(ids, id)
			var fetched, kind int64
			if rng.IntN(3) > 0 {
				fetched = 1_800_000_000_000 + rng.Int64N(1000)
			}
			if rng.IntN(10) == 0 {
				kind = int64(crawl.KindSitemap)
			}
			exec(`INSERT INTO urls (id, url, host_id, depth, priority, state, via, discovered_at, fetched_at, kind)
				VALUES (?, ?, ?, 1, ?, 2, 0, 1, ?, ?)`, id, u, crawl.HashID(h), rng.IntN(23)-10, fetched, kind)
		}
	}
	// IDs no URL has: of the shared bits, of others.
	unknown := []crawl.ID{crawl.URLID(hosts[0] + "/none"), crawl.URLID(hosts[1] + "/none"), crawl.URLID("http://z.test/none")}
	types := []string{"", "article", "dataset", "person", "listing", "other", "news", "other", "other"}
	for _, id := range ids {
		var fetched int64
		if err := db.w.QueryRowContext(ctx, `SELECT fetched_at FROM urls WHERE id = ?`, id).Scan(&fetched); err != nil {
			t.Fatal(err)
		}
		if fetched == 0 {
			continue
		}
		status := []int{200, 200, 200, 204, 404}[rng.IntN(5)]
		var dup, near crawl.ID
		if rng.IntN(8) == 0 {
			dup = ids[rng.IntN(len(ids))]
		}
		if rng.IntN(8) == 0 {
			near = ids[rng.IntN(len(ids))]
		}
		exec(`INSERT INTO pages (url_id, url, status, fetched_at, doc_type, duplicate_of, near_duplicate_of) VALUES (?, '', ?, ?, ?, ?, ?)`,
			id, status, fetched, types[rng.IntN(len(types))], dup, near)
		if rng.IntN(6) == 0 {
			continue // no outlinks row
		}
		var ls []outlinks.Link
		for range rng.IntN(10) {
			target := ids[rng.IntN(len(ids))]
			if crawl.HostBits(id) == crawl.HostBits(ids[0]) && rng.IntN(3) > 0 {
				target = ids[rng.IntN(3*perHost)] // the hosts of the shared bits link mostly among themselves
			}
			if rng.IntN(10) == 0 {
				target = unknown[rng.IntN(len(unknown))]
			}
			ls = append(ls, outlinks.Link{Target: int64(target)})
		}
		exec(`INSERT INTO outlinks (source_id, links) VALUES (?, ?)`, id, outlinks.Encode(nil, ls))
	}
	citing := 0
	for _, h := range hosts {
		id := crawl.HashID(h)
		var want hostLearned
		want.id = id
		if err := db.r.QueryRowContext(ctx, hostValueInSQL, id, crawl.HostValueWindow).Scan(
			&want.n, &want.research, &want.related, &want.copies, &want.citing, &want.value); err != nil {
			t.Fatal(err)
		}
		got, err := learnHost(ctx, db.r, id)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: learned %+v, in SQL %+v", h, got, want)
		}
		citing += int(want.citing)
	}
	if citing == 0 {
		t.Error("no citing page: the test does not test the links")
	}
}
