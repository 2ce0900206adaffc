package postgres_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// stagedScenario runs the commits of TestStagedInlinks on s in two parts:
// first (part 1) the pages s0..s2, then (part 2) s3..s5 and a retry of y.
// Pages s0..s5 link to x (queued), y (in flight until its retry, in the
// middle of part 2) and z (queued, on another host), with a bonus of 2
// capped at 8 (4 links): x gets 6 links, capped in part 2; z 5, capped
// within its rows staged; y 5, of which the last 2 while queued.
type stagedScenario struct {
	s   crawl.Store
	cs  []crawl.ClaimedURL
	now time.Time
}

var stagedLim = crawl.Limits{InlinkBonus: 2, MaxInlinkBonus: 8}

const stagedX, stagedY, stagedZ = "http://a.test/x", "http://a.test/y", "http://b.test/z"

func (sc *stagedScenario) part1(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	sc.now = time.Unix(1_800_000_000, 0)
	var urls []crawl.NewURL
	for i := range 6 {
		urls = append(urls, storetest.U("http://a.test/s"+string(rune('0'+i)), 0, 100-i))
	}
	urls = append(urls, storetest.U(stagedY, 1, 90), storetest.U(stagedX, 1, 0), storetest.U(stagedZ, 1, 0))
	if _, err := sc.s.AddURLs(ctx, urls, stagedLim); err != nil {
		t.Fatal(err)
	}
	hs, err := sc.s.ClaimHosts(ctx, "p", 1, time.Hour, sc.now)
	if err != nil || len(hs) != 1 || hs[0].ID != urls[0].HostID {
		t.Fatalf("ClaimHosts = %v, %v", hs, err)
	}
	sc.cs, _, err = sc.s.ClaimURLs(ctx, "p", hs[0].ID, 7, stagedLim, sc.now)
	if err != nil || len(sc.cs) != 7 || sc.cs[6].URL != stagedY {
		t.Fatalf("ClaimURLs = %+v, %v; want s0..s5 and y", sc.cs, err)
	}
	xyz := []string{stagedX, stagedY, stagedZ}
	sc.commit(t, page(sc.cs[0], sc.now, xyz, nil), page(sc.cs[1], sc.now, []string{stagedX, stagedZ}, nil))
	sc.commit(t, page(sc.cs[2], sc.now, xyz, nil))
}

func (sc *stagedScenario) part2(t *testing.T) {
	t.Helper()
	xyz := []string{stagedX, stagedY, stagedZ}
	retry := crawl.Result{URL: sc.cs[6], Outcome: crawl.OutcomeRetry, RetryAt: sc.now.Add(time.Hour), Error: "timeout"}
	sc.commit(t, page(sc.cs[3], sc.now, xyz, nil), retry,
		page(sc.cs[4], sc.now, []string{stagedX, stagedY}, nil), page(sc.cs[5], sc.now, xyz, nil))
}

func (sc *stagedScenario) commit(t *testing.T, rs ...crawl.Result) {
	t.Helper()
	if st, err := sc.s.Commit(context.Background(), rs, stagedLim); err != nil || st.Stale != 0 {
		t.Fatalf("Commit = %+v, %v", st, err)
	}
}

// stagedRecord is what a store answers of a target.
type stagedRecord struct {
	Inlinks, Priority int
	State             crawl.State
}

func stagedRecords(t *testing.T, s crawl.Store) map[string]stagedRecord {
	t.Helper()
	out := map[string]stagedRecord{}
	for _, u := range []string{stagedX, stagedY, stagedZ} {
		r, err := s.URL(context.Background(), crawl.URLID(u))
		if err != nil {
			t.Fatal(err)
		}
		out[u] = stagedRecord{r.Inlinks, r.Priority, r.State}
	}
	return out
}

// TestStagedInlinks: a commit stages the inbound links of its pages; the
// counts and priorities read are those the SQLite store gives (which
// counts them in the commit) right after the commits, after a merge that
// leaves some rows staged (a target in flight, one whose row another
// transaction holds), after more commits, after the process that staged
// them is killed and after another merges everything; merging again
// changes nothing.
func TestStagedInlinks(t *testing.T) {
	p := newLockProbe(t)
	ctx := context.Background()

	lite, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "crawl.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	ref := &stagedScenario{s: lite}
	ref.part1(t)
	want1 := stagedRecords(t, lite)
	ref.part2(t)
	want2 := stagedRecords(t, lite)
	if x := want2[stagedX]; x.Inlinks != 6 || x.Priority != 8 {
		t.Fatalf("SQLite: x %+v; want 6 inlinks, priority 8", x)
	}

	check := func(when string, s crawl.Store, want map[string]stagedRecord) {
		t.Helper()
		got := stagedRecords(t, s)
		for u, w := range want {
			if got[u] != w {
				t.Errorf("%s: %s is %+v; want %+v (SQLite)", when, u, got[u], w)
			}
		}
	}
	staged := func() (targets []int64) {
		t.Helper()
		if err := queryRow(t, p.dsn, p.schema, `SELECT coalesce(array_agg(DISTINCT target_id ORDER BY target_id), '{}') FROM inlinks_staged`,
			nil, &targets); err != nil {
			t.Fatal(err)
		}
		return targets
	}
	id := func(u string) int64 { return int64(crawl.URLID(u)) }

	a := open(t, p.dsn, p.schema)
	sc := &stagedScenario{s: a}
	sc.part1(t)
	check("after the commits", a, want1)
	if got := staged(); len(got) != 3 {
		t.Fatalf("staged targets %v; want x, y and z", got)
	}

	// A merge while another transaction holds z's row: y (in flight) and
	// z stay staged, x is merged.
	release := p.hold(`SELECT 1 FROM urls WHERE id = $1 FOR UPDATE`, id(stagedZ))
	if n, err := a.MergeInlinks(ctx, false); err != nil || n != 2 {
		t.Fatalf("MergeInlinks = %d, %v; want x's 2 rows", n, err)
	}
	release()
	if got, want := staged(), []int64{id(stagedY), id(stagedZ)}; len(got) != 2 || !(got[0] == want[0] && got[1] == want[1] || got[0] == want[1] && got[1] == want[0]) {
		t.Fatalf("staged targets after the merge %v; want y and z (%v)", got, want)
	}
	check("after a merge of x", a, want1)

	sc.part2(t)
	check("after more commits", a, want2)

	// Killed: no last merge. Another process reads the same and merges.
	a.Abandon()
	b := open(t, p.dsn, p.schema)
	check("after a kill", b, want2)
	if n, err := b.MergeInlinks(ctx, true); err != nil || n == 0 {
		t.Fatalf("MergeInlinks = %d, %v", n, err)
	}
	if got := staged(); len(got) != 0 {
		t.Fatalf("staged targets after merging all: %v", got)
	}
	check("after merging all", b, want2)
	var inlinks, prio int
	if err := queryRow(t, p.dsn, p.schema, `SELECT inlinks, priority FROM urls WHERE id = $1`, []any{id(stagedX)}, &inlinks, &prio); err != nil ||
		inlinks != want2[stagedX].Inlinks || prio != want2[stagedX].Priority {
		t.Errorf("x's row: %d inlinks, priority %d, %v; want %+v", inlinks, prio, err, want2[stagedX])
	}
	if n, err := b.MergeInlinks(ctx, true); err != nil || n != 0 {
		t.Fatalf("MergeInlinks again = %d, %v; want nothing", n, err)
	}
	check("after merging again", b, want2)
}

// TestCommitLocksNoLinkTarget: a commit stages the inbound links of its
// pages without locking their targets: it does not wait for a
// transaction that holds one (a claim, a merge, a commit of that host).
func TestCommitLocksNoLinkTarget(t *testing.T) {
	p := newLockProbe(t)
	ctx := context.Background()
	lim := crawl.Limits{InlinkBonus: 1, MaxInlinkBonus: 5}
	x := p.mustOpen("x")
	now := time.Unix(1_800_000_000, 0)
	cx := claimOne(t, x, "http://x.test/page", "x", now)
	target := storetest.U("http://z.test/t", 0, 0)
	if _, err := x.AddURLs(ctx, []crawl.NewURL{target}, lim); err != nil {
		t.Fatal(err)
	}
	release := p.hold(`SELECT 1 FROM urls WHERE id = $1 FOR UPDATE`, int64(target.ID))
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := x.Commit(cctx, []crawl.Result{page(cx[0], now, []string{target.URL}, nil)}, lim); err != nil {
		t.Fatalf("Commit while the link target's row is held: %v", err)
	}
	release()
	if r, err := x.URL(ctx, target.ID); err != nil || r.Inlinks != 1 || r.Priority != 1 {
		t.Errorf("target: %+v, %v; want 1 inbound link, priority 1", r, err)
	}
}
