package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/storetest"
	"github.com/acrawler/acrawler/internal/urlrun"
)

// dumpHosts is what a frontier's hosts and counters hold, whatever
// keeps its URLs.
func dumpHosts(t *testing.T, db *DB) string {
	t.Helper()
	var b strings.Builder
	rows, err := db.w.Query(`SELECT id, key, admitted, queued, has_queued, top_priority FROM hosts ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, admitted, queued, has, top int64
		var key string
		if err := rows.Scan(&id, &key, &admitted, &queued, &has, &top); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&b, id, key, admitted, queued, has, top)
	}
	for _, name := range []string{"queued", "inflight"} {
		var n int64
		if err := db.w.QueryRow(`SELECT value FROM counters WHERE name = ?`, name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&b, name, n)
	}
	return b.String()
}

// packedCounts are the runs of db, the URLs they hold and the counter of
// packed URLs. It fails t unless seen says where each of those URLs is,
// urls has none of them, and every other seen entry is a row's.
func packedCounts(t *testing.T, db *DB) (runs, held, packed int64) {
	t.Helper()
	holds := map[crawl.ID]int64{}
	rows, err := db.w.Query(`SELECT r.id, r.host_id, h.key, r.data FROM queue_runs r JOIN hosts h ON h.id = r.host_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var run int64
		var host crawl.ID
		var key string
		var data []byte
		if err := rows.Scan(&run, &host, &key, &data); err != nil {
			t.Fatal(err)
		}
		entries, err := urlrun.Decode(data)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		for _, e := range entries {
			holds[crawl.RelURLID(e.Path, key, host)] = run
		}
		runs++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	rows, err = db.w.Query(`SELECT id, run FROM seen s WHERE NOT EXISTS (SELECT 1 FROM urls u WHERE u.id = s.id)`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var unheld int64
	for rows.Next() {
		var id crawl.ID
		var run int64
		if err := rows.Scan(&id, &run); err != nil {
			t.Fatal(err)
		}
		if holds[id] != run {
			unheld++
		}
		held++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if unheld > 0 || held != int64(len(holds)) {
		t.Fatalf("%d seen entries without a row, %d of them not in the run they name; the runs hold %d URLs", held, unheld, len(holds))
	}
	if err := db.w.QueryRow(`SELECT value FROM counters WHERE name = 'packed'`).Scan(&packed); err != nil {
		t.Fatal(err)
	}
	return runs, held, packed
}

// packedPair gives the same random offers (storetest.OfferAsAdds) to a
// store that adds them as rows and to one that stages them, every merge
// packing what it admits; both are closed when t ends.
func packedPair(t *testing.T) (added, staged *DB) {
	t.Helper()
	tu := stagedOffers(50, 0)
	dir := t.TempDir()
	added, staged = openTuned(t, filepath.Join(dir, "added.db"), tu), openTuned(t, filepath.Join(dir, "staged.db"), tu)
	t.Cleanup(func() { added.Close(); staged.Close() })
	storetest.OfferAsAdds(t, added, staged)
	return added, staged
}

// TestPackedOffersClaimAsAdds: offers staged and merged into runs leave
// the frontier as the same offers added batch by batch, as the store
// answers for it. The hosts' counts and ranks are the same; each URL
// reads the same by ID; a committed page's links to packed URLs count
// and raise their priority as they do rows'; and the hosts' URLs are
// claimed in the same order, rows and runs together, until none is left
// and the runs are empty.
func TestPackedOffersClaimAsAdds(t *testing.T) {
	ctx := context.Background()
	added, staged := packedPair(t)
	runs, seen, packed := packedCounts(t, staged)
	if runs == 0 || seen < 100 || packed != seen {
		t.Fatalf("%d runs holding %d URLs, the counter %d: want the offers packed and counted", runs, seen, packed)
	}
	if a, s := dumpHosts(t, added), dumpHosts(t, staged); a != s {
		t.Fatalf("packed offers left the hosts\n%s\nadded batch by batch\n%s", s, a)
	}
	ids := queryIDs(t, added, `SELECT id FROM urls ORDER BY id`)
	storetest.SameURLs(t, "packed", added, staged, ids)

	// A page links to queued URLs, packed in one store: the commit
	// counts the links and raises their priority in both alike.
	now := time.Now()
	_, targets := storetest.LinkToQueued(t, added, staged, ids, crawl.Limits{InlinkBonus: 3, MaxInlinkBonus: 9}, 0)
	if _, after, _ := packedCounts(t, staged); after >= seen {
		t.Fatalf("%d URLs packed after a commit linked to %d of them, %d before", after, len(targets), seen)
	}

	// Every host's URLs, claimed a few at a time. A URL a link took out
	// of its run is a row with the time it was found, but not its place
	// among its host's URLs found in the same millisecond: claims of one
	// host, priority and millisecond (in the packed store) are compared
	// as a set.
	type claim struct {
		c   crawl.ClaimedURL
		key string
	}
	claimAll := func(db *DB) []claim {
		var out []claim
		for range 100 {
			hs, err := db.ClaimHosts(ctx, "p", 1000, time.Hour, now)
			if err != nil {
				t.Fatal(err)
			}
			if len(hs) == 0 {
				return out
			}
			slices.SortFunc(hs, func(a, b crawl.Host) int { return strings.Compare(a.Key, b.Key) })
			var rel []crawl.HostRelease
			for _, h := range hs {
				for {
					cs, _, err := db.ClaimURLs(ctx, "p", h.ID, 7, crawl.Limits{}, now)
					if err != nil {
						t.Fatal(err)
					}
					if len(cs) == 0 {
						break
					}
					for _, c := range cs {
						out = append(out, claim{c: c})
					}
				}
				rel = append(rel, crawl.HostRelease{ID: h.ID})
			}
			if err := db.ReleaseHosts(ctx, "p", rel); err != nil {
				t.Fatal(err)
			}
		}
		t.Fatal("hosts still claimable after 100 rounds")
		return nil
	}
	canonical := func(cs []claim) []string {
		for i := range cs {
			var disc int64
			if err := staged.w.QueryRow(`SELECT discovered_at FROM urls WHERE id = ?`, cs[i].c.ID).Scan(&disc); err != nil {
				t.Fatal(err)
			}
			cs[i].key = fmt.Sprint(cs[i].c.HostID, cs[i].c.Priority, disc)
		}
		out := make([]string, 0, len(cs))
		for lo := 0; lo < len(cs); {
			hi := lo + 1
			for hi < len(cs) && cs[hi].key == cs[lo].key {
				hi++
			}
			block := cs[lo:hi]
			slices.SortFunc(block, func(x, y claim) int { return strings.Compare(x.c.URL, y.c.URL) })
			for _, c := range block {
				out = append(out, fmt.Sprintf("%+v", c.c))
			}
			lo = hi
		}
		return out
	}
	ca, cs := claimAll(added), claimAll(staged)
	a, s := canonical(ca), canonical(cs)
	if len(a) < 100 {
		t.Fatalf("claimed %d URLs: the test claims too few", len(a))
	}
	if !slices.Equal(a, s) {
		for i := range min(len(a), len(s)) {
			if a[i] != s[i] {
				t.Fatalf("claim %d of the packed store: %s\nwant %s", i, s[i], a[i])
			}
		}
		t.Fatalf("the packed store claimed %d URLs, want %d", len(s), len(a))
	}
	if runs, seen, packed := packedCounts(t, staged); runs != 0 || seen != 0 || packed != 0 {
		t.Errorf("after every URL was claimed: %d runs holding %d URLs, the counter %d", runs, seen, packed)
	}
	if a, s := dumpHosts(t, added), dumpHosts(t, staged); a != s {
		t.Errorf("after the claims, the packed store's hosts\n%s\nwant\n%s", s, a)
	}

	// A page links to URLs claimed from runs that are gone: their seen
	// entries stay, and the links count as links to rows.
	var links []crawl.Link
	targets = targets[:0]
	for _, c := range ca[1:] {
		links = append(links, crawl.Link{TargetID: c.c.ID, Target: c.c.URL, Anchor: "b"})
		targets = append(targets, c.c.ID)
	}
	res := crawl.Result{URL: ca[0].c, Outcome: crawl.OutcomeDone, Links: links,
		Page: &crawl.Page{URL: ca[0].c.URL, Status: 200, ContentType: "text/html", Text: "another page", FetchedAt: now}}
	for _, db := range []*DB{added, staged} {
		if _, err := db.Commit(ctx, []crawl.Result{res}, crawl.Limits{InlinkBonus: 3, MaxInlinkBonus: 9}); err != nil {
			t.Fatal(err)
		}
	}
	storetest.SameURLs(t, "claimed and linked", added, staged, targets)
}

// TestPackedHostOverBytes: a host that spent its byte share has all its
// queued URLs skipped, the packed ones too, as a store of rows skips
// them.
func TestPackedHostOverBytes(t *testing.T) {
	ctx := context.Background()
	added, staged := packedPair(t)
	var host crawl.ID
	if err := staged.w.QueryRow(`SELECT host_id FROM queue_runs GROUP BY host_id ORDER BY count(*) DESC LIMIT 1`).Scan(&host); err != nil {
		t.Fatal(err)
	}
	for _, db := range []*DB{added, staged} {
		if _, err := db.w.Exec(`UPDATE hosts SET bytes = 1000, lease_owner = 'o', lease_until = ? WHERE id = ?`,
			time.Now().Add(time.Hour).UnixMilli(), host); err != nil {
			t.Fatal(err)
		}
		if cs, _, err := db.ClaimURLs(ctx, "o", host, 5, crawl.Limits{MaxHostBytes: 500}, time.Now()); len(cs) != 0 || err != crawl.ErrHostBytes {
			t.Fatalf("ClaimURLs of a host over its bytes = %+v, %v; want %v", cs, err, crawl.ErrHostBytes)
		}
	}
	skipped := func(db *DB) (n int64) {
		if err := db.w.QueryRow(`SELECT value FROM counters WHERE name = 'skipped'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if a, s := skipped(added), skipped(staged); a == 0 || a != s {
		t.Errorf("skipped %d URLs of the packed store, want %d", s, a)
	}
	if a, s := dumpHosts(t, added), dumpHosts(t, staged); a != s {
		t.Errorf("after the skip, the packed store's hosts\n%s\nwant\n%s", s, a)
	}
	var left int
	if err := staged.w.QueryRow(`SELECT count(*) FROM queue_runs WHERE host_id = ?`, host).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d runs left of the host (%v), want none", left, err)
	}
}

// TestPackedSurvivesKill: a store that stages offers, packs them in
// merges and claims from the runs, killed (SIGKILL) while it does, opens
// again whole: every URL a returned call staged is known (a row, packed
// or staged still), the packed counter is what the runs hold, and every
// host's queue count is its queued rows and packed URLs.
func TestPackedSurvivesKill(t *testing.T) {
	if file := os.Getenv("ACRAWLER_TEST_PACKED_CHILD"); file != "" {
		packForever(t, file)
		return
	}
	file := filepath.Join(t.TempDir(), "killed.db")
	cmd, lines := startChild(t, "TestPackedSurvivesKill", "ACRAWLER_TEST_PACKED_CHILD", file)
	last := killAt(t, cmd, lines, 40) // the last batch staged
	db := openKilled(t, file)
	var known int64
	if err := db.w.QueryRow(`SELECT count(*) FROM urls`).Scan(&known); err != nil {
		t.Fatal(err)
	}
	known += packedWhole(t, db)
	if want := (last + 1) * packKillBatch; known < want {
		t.Errorf("after the kill the store knows %d URLs, but batches up to %d (%d URLs) were staged", known, last, want)
	}
}

// openKilled opens the store at file that a killed child wrote, and
// merges what it staged.
func openKilled(t *testing.T, file string) *DB {
	t.Helper()
	db, err := Open(context.Background(), file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.MergeStaged(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// packedWhole checks a store with packed URLs after a kill: it has runs,
// the packed counter is what they hold, every host's queue count is its
// queued rows and packed URLs, the queued counter their sum, and the file
// passes integrity_check. It returns the URLs the runs hold.
func packedWhole(t *testing.T, db *DB) int64 {
	t.Helper()
	runs, held, packed := packedCounts(t, db)
	var queuedRows, hostsQueued, queued int64
	if err := db.w.QueryRow(`SELECT (SELECT count(*) FROM urls WHERE state = 0), (SELECT sum(queued) FROM hosts),
		(SELECT value FROM counters WHERE name = 'queued')`).Scan(&queuedRows, &hostsQueued, &queued); err != nil {
		t.Fatal(err)
	}
	if runs == 0 || packed != held || hostsQueued != queuedRows+packed || queued != hostsQueued {
		t.Errorf("after the kill: %d runs holding %d URLs, the packed counter %d; hosts queue %d, rows queued %d, the counter %d",
			runs, held, packed, hostsQueued, queuedRows, queued)
	}
	var check string
	if err := db.w.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check after the kill: %q, %v", check, err)
	}
	return held
}

const packKillBatch = 400

// packForever stages batches of URLs into the store at file, each merge
// packing them, and claims a few of a host after each batch, printing the
// batch's number once the staging call has returned, until it is killed.
func packForever(t *testing.T, file string) {
	tu := stagedOffers(1000, 0)
	ctx := context.Background()
	db, err := Open(ctx, file, Options{tune: &tu})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for b := int64(0); ; b++ {
		urls := make([]crawl.NewURL, packKillBatch)
		for i := range urls {
			urls[i] = storetest.U(fmt.Sprintf("http://h%d.test/batch/%d/url/%d", i%13, b, i), 0, i%5)
		}
		if _, err := db.StageURLs(ctx, urls, crawl.Limits{}); err != nil {
			t.Fatal(err)
		}
		fmt.Println(b)
		hs, err := db.ClaimHosts(ctx, "o", 2, time.Hour, now)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hs {
			if _, _, err := db.ClaimURLs(ctx, "o", h.ID, 3, crawl.Limits{}, now); err != nil {
				t.Fatal(err)
			}
		}
		var rel []crawl.HostRelease
		for _, h := range hs {
			rel = append(rel, crawl.HostRelease{ID: h.ID})
		}
		if err := db.ReleaseHosts(ctx, "o", rel); err != nil {
			t.Fatal(err)
		}
	}
}
