// Package storetest is the conformance suite every crawl.Store backend
// passes, one runner per role of the store (RunFrontier, RunPages,
// RunSearch, RunRanks, RunRecrawl, RunStats, RunSettings, RunHostValues,
// RunOutbox; Run runs them all): frontier add/claim with priorities and
// per-host readiness, seen-set semantics, budgets, host leases, robots
// cache, pages, links, duplicate hashes, resume after an unclean stop,
// search, ranks, recrawls and the crawl's figures.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// Factory creates a fresh, empty database for one test and returns a
// function that opens it; the suite may open it several times (never twice
// at once) and closes every store it opens.
type Factory func(t *testing.T) (open func() (crawl.Store, error))

// test is one check of the suite. Each role's checks are a table of
// tests; a file of checks declares its own table and adds it to its
// role's runner, or to Run.
type test = struct {
	name string
	fn   func(*testing.T, *env)
}

// The roles of crawl.Store (see internal/crawl/store.go) and the runner of
// each role's checks. Every runner takes a whole store: the checks record
// their pages through the frontier role.
var roles = []struct {
	name string
	run  func(*testing.T, Factory)
}{
	{"Frontier", RunFrontier},
	{"HostValues", RunHostValues},
	{"Pages", RunPages},
	{"Search", RunSearch},
	{"Ranks", RunRanks},
	{"Recrawl", RunRecrawl},
	{"Stats", RunStats},
	{"Settings", RunSettings},
}

// Run runs the whole suite against a backend: every role's checks, each
// role a subtest named after it, then the checks that belong to no single
// role. (The outbox, which needs a store opened with it, has RunOutbox.)
func Run(t *testing.T, factory Factory) {
	for _, r := range roles {
		t.Run(r.name, func(t *testing.T) { r.run(t, factory) })
	}
	// Tables of checks that belong to no single role, one line each:
	// tests = append(tests, xxxTests...).
	var tests []test
	tests = append(tests, worksTests...)
	tests = append(tests, readyTests...)
	run(t, factory, tests)
}

// RunFrontier checks the frontier role (crawl.FrontierStore): admission
// under budgets, priorities, host leases, readiness, claims, commits,
// the robots.txt cache, politeness, traps and resume.
func RunFrontier(t *testing.T, factory Factory) { run(t, factory, frontierTests) }

// RunHostValues checks what a store that is a frontier.HostValuer learns
// of hosts.
func RunHostValues(t *testing.T, factory Factory) { run(t, factory, hostValueTests) }

// RunPages checks the pages role (crawl.PageStore): pages, links,
// duplicates, content metadata and reparse.
func RunPages(t *testing.T, factory Factory) { run(t, factory, pageTests) }

// RunSearch checks the embedded index (crawl.SearchStore).
func RunSearch(t *testing.T, factory Factory) { run(t, factory, searchTests) }

// RunRanks checks the link graph and ranks (crawl.RankStore).
func RunRanks(t *testing.T, factory Factory) { run(t, factory, rankTests) }

// RunRecrawl checks revisit scheduling and recrawl runs
// (crawl.RecrawlStore).
func RunRecrawl(t *testing.T, factory Factory) { run(t, factory, recrawlTests) }

// RunStats checks the crawl's figures (crawl.StatsStore).
func RunStats(t *testing.T, factory Factory) { run(t, factory, statsTests) }

// RunSettings checks the recorded settings (crawl.SettingStore).
func RunSettings(t *testing.T, factory Factory) { run(t, factory, settingsTests) }

var frontierTests = []test{
	{"AddAndClaimInPriorityOrder", testPriorityOrder},
	{"SeenSet", testSeenSet},
	{"DepthAndHostBudgets", testAdmissionBudgets},
	{"HostLeases", testLeases},
	{"ClaimOnlyReadyHostsAndURLs", testReadiness},
	{"PageBudget", testPageBudget},
	{"ClaimURLsOfSeveralHosts", testClaimMany},
	{"ByteBudget", testByteBudget},
	{"CommitOutcomes", testOutcomes},
	{"CommitUnderEndedContext", testCommitEndedContext},
	{"RobotsCacheAndPoliteness", testRobotsAndPoliteness},
	{"ResumeAfterUncleanStop", testResume},
	{"ConcurrentClaimers", testConcurrentClaimers},
	{"StaleResultAfterLostLease", testStaleResult},
	{"ReleaseKeepsPoliteness", testReleasePoliteness},
	{"SitemapKindAndDates", testKindAndDates},
	{"HostByteBudget", testHostByteBudget},
	{"InboundLinksRaisePriority", testInlinks},
	{"InboundLinksOfABatch", testInlinksBatch},
	{"InboundLinksOfFetchedURLs", testInlinksOfFetched},
	{"InboundLinksOfUnknownURLs", testInlinksUnknown},
	{"TrapFlagComesBackOnClaim", testTrapOnClaim},
	{"BestHostsFirst", testBestHostsFirst},
	{"StagedOffers", testStagedOffers},
}

var pageTests = []test{
	{"PagesLinksAndDiscovered", testPagesAndLinks},
	{"PagesStreamInIDOrder", testPagesStream},
	{"DuplicateContent", testDuplicates},
	{"ContentMetadataAndNearDuplicates", testContent},
	{"CanonicalOwnsItsContent", testCanonicalContent},
	{"Reparse", testReparse},
	{"LinksKept", testLinksKept},
}

var rankTests = []test{
	{"LinksAndRanks", testRanks},
}

var recrawlTests = []test{
	{"RecrawlSchedule", testRecrawl},
	{"InactivePages", testInactive},
	{"SitemapTouch", testTouch},
	{"SitemapTouchQueuesInRun", testTouchQueue},
}

var statsTests = []test{
	{"HostOutcomesAndTraps", testHostStats},
	{"DiscoveredInOneBatch", testDiscoveredInOneBatch},
	{"PolitenessOfOneBatch", testPolitenessOfOneBatch},
	{"MetricsOverTime", testMetrics},
	{"SourceErrors", testSourceErrors},
}

// run runs tests, each on a fresh store.
func run(t *testing.T, factory Factory, tests []test) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			open := factory(t)
			e := &env{t: t, open: open, ctx: context.Background(), now: time.Unix(1_800_000_000, 0)}
			e.s = e.reopen()
			tc.fn(t, e)
		})
	}
}

type env struct {
	t    *testing.T
	open func() (crawl.Store, error)
	s    crawl.Store
	ctx  context.Context
	now  time.Time
	// links are the links of the pages commitPages records, by URL.
	links map[string][]crawl.Link
}

func (e *env) reopen() crawl.Store {
	e.t.Helper()
	s, err := e.open()
	if err != nil {
		e.t.Fatalf("open store: %v", err)
	}
	e.t.Cleanup(func() { s.Close() })
	return s
}

// U builds a NewURL for an absolute URL.
func U(raw string, depth, priority int) crawl.NewURL {
	u, err := url.Parse(raw)
	if err != nil {
		panic(err)
	}
	host := u.Scheme + "://" + u.Host
	return crawl.NewURL{ID: crawl.URLID(raw), URL: raw, HostID: crawl.HashID(host), Host: host,
		Depth: depth, Priority: priority, Via: crawl.ViaLink}
}

func (e *env) add(lim crawl.Limits, urls ...crawl.NewURL) crawl.AddStats {
	e.t.Helper()
	st, err := e.s.AddURLs(e.ctx, urls, lim)
	if err != nil {
		e.t.Fatalf("AddURLs: %v", err)
	}
	return st
}

func (e *env) claimHosts(owner string, n int) []crawl.Host {
	e.t.Helper()
	hs, err := e.s.ClaimHosts(e.ctx, owner, n, time.Minute, e.now)
	if err != nil {
		e.t.Fatalf("ClaimHosts(%s): %v", owner, err)
	}
	return hs
}

func (e *env) claimURLs(owner string, host crawl.ID, n int, lim crawl.Limits) []crawl.ClaimedURL {
	e.t.Helper()
	us, _, err := e.s.ClaimURLs(e.ctx, owner, host, n, lim, e.now)
	if err != nil {
		e.t.Fatalf("ClaimURLs: %v", err)
	}
	return us
}

func (e *env) commit(lim crawl.Limits, rs ...crawl.Result) crawl.CommitStats {
	e.t.Helper()
	st, err := e.s.Commit(e.ctx, rs, lim)
	if err != nil {
		e.t.Fatalf("Commit: %v", err)
	}
	return st
}

func (e *env) counters() crawl.Counters {
	e.t.Helper()
	c, err := e.s.Counters(e.ctx)
	if err != nil {
		e.t.Fatalf("Counters: %v", err)
	}
	return c
}

func (e *env) state(raw string) crawl.State {
	e.t.Helper()
	r, err := e.s.URL(e.ctx, crawl.URLID(raw))
	if err != nil {
		e.t.Fatalf("URL(%s): %v", raw, err)
	}
	return r.State
}

func urlsOf(cs []crawl.ClaimedURL) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.URL
	}
	return out
}

func hostKeys(hs []crawl.Host) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Key
	}
	sort.Strings(out)
	return out
}

func done(c crawl.ClaimedURL, text string) crawl.Result {
	p := &crawl.Page{URL: c.URL, Status: 200, ContentType: "text/html", Title: "t " + c.URL, Text: text,
		Bytes: int64(len(text)), FetchedAt: time.Unix(1_800_000_100, 0)}
	if text != "" {
		h := crawl.HashID(text)
		p.ContentHash = []byte(fmt.Sprintf("%016x%016x", uint64(h), uint64(h)))
	}
	return crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Page: p}
}

func rel(ids ...crawl.ID) []crawl.HostRelease {
	out := make([]crawl.HostRelease, len(ids))
	for i, id := range ids {
		out[i] = crawl.HostRelease{ID: id}
	}
	return out
}

func eq(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkBalance asserts the counters add up: every admitted URL is in
// exactly one state.
func (e *env) checkBalance(admitted int64) {
	e.t.Helper()
	c := e.counters()
	sum := c.Queued + c.InFlight + c.Done + c.Failed + c.Disallowed + c.Skipped
	if sum != admitted {
		e.t.Errorf("counters: queued %d + in-flight %d + done %d + failed %d + disallowed %d + skipped %d = %d, want %d admitted",
			c.Queued, c.InFlight, c.Done, c.Failed, c.Disallowed, c.Skipped, sum, admitted)
	}
	if c.InFlight < 0 || c.Queued < 0 || c.Reserved < 0 {
		e.t.Errorf("counters went negative: %+v", c)
	}
}

func testPriorityOrder(t *testing.T, e *env) {
	// URLs of one priority are claimed in the order they were found, which
	// is not their IDs' order.
	var mids []crawl.NewURL
	var ids []crawl.ID
	for i := range 5 {
		u := U(fmt.Sprintf("http://a.test/mid%d", i+1), 1, 5)
		mids, ids = append(mids, u), append(ids, u.ID)
	}
	if slices.IsSorted(ids) {
		t.Fatal("the URLs of priority 5 are in ID order: pick others")
	}
	st := e.add(crawl.Limits{}, append([]crawl.NewURL{
		U("http://a.test/low", 1, 1),
		U("http://a.test/high", 2, 9),
	}, append(mids, U("http://b.test/", 0, 0))...)...)
	if st.Added != 8 || st.Known != 0 || len(st.Hosts) != 2 {
		t.Fatalf("AddURLs = %+v, want 8 added on 2 hosts", st)
	}
	hs := e.claimHosts("p1", 10)
	if got := hostKeys(hs); !eq(got, []string{"http://a.test", "http://b.test"}) {
		t.Fatalf("ClaimHosts = %v", got)
	}
	a := crawl.HashID("http://a.test")
	for _, want := range [][]string{
		{"http://a.test/high", "http://a.test/mid1", "http://a.test/mid2"},
		{"http://a.test/mid3", "http://a.test/mid4", "http://a.test/mid5"},
		{"http://a.test/low"},
		nil,
	} {
		if got := urlsOf(e.claimURLs("p1", a, 3, crawl.Limits{})); !eq(got, want) {
			t.Fatalf("ClaimURLs = %v, want %v (priority, then discovery order)", got, want)
		}
	}
	if s := e.state("http://a.test/high"); s != crawl.StateInFlight {
		t.Errorf("state after claim = %v, want in-flight", s)
	}
	c := e.counters()
	if c.Queued != 1 || c.InFlight != 7 || c.Reserved != 7 {
		t.Errorf("counters = %+v, want queued 1, in-flight 7, reserved 7", c)
	}
	e.checkBalance(8)
}

func testSeenSet(t *testing.T, e *env) {
	st := e.add(crawl.Limits{}, U("http://a.test/x", 1, 0), U("http://a.test/x", 1, 0), U("http://a.test/y", 1, 0))
	if st.Added != 2 || st.Known != 1 {
		t.Fatalf("first AddURLs = %+v, want 2 added 1 known (same URL twice in a batch)", st)
	}
	st = e.add(crawl.Limits{}, U("http://a.test/x", 0, 7), U("http://a.test/z", 1, 0))
	if st.Added != 1 || st.Known != 1 {
		t.Fatalf("second AddURLs = %+v, want 1 added 1 known", st)
	}
	// A URL is known from the moment it is queued, not only once fetched,
	// and stays known after it is fetched.
	hs := e.claimHosts("p", 1)
	for _, c := range e.claimURLs("p", hs[0].ID, 10, crawl.Limits{}) {
		e.commit(crawl.Limits{}, done(c, "text of "+c.URL))
	}
	st = e.add(crawl.Limits{}, U("http://a.test/x", 1, 0), U("http://a.test/y", 1, 0), U("http://a.test/z", 1, 0))
	if st.Added != 0 || st.Known != 3 {
		t.Fatalf("AddURLs after fetching = %+v, want 3 known", st)
	}
	r, err := e.s.URL(e.ctx, crawl.URLID("http://a.test/x"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Depth != 1 || r.Via != crawl.ViaLink || r.URL != "http://a.test/x" {
		t.Errorf("URL record = %+v, want the first admission kept", r)
	}
	if _, err := e.s.URL(e.ctx, crawl.URLID("http://a.test/never")); !errors.Is(err, crawl.ErrNotFound) {
		t.Errorf("URL(unknown) error = %v, want ErrNotFound", err)
	}
	e.checkBalance(3)
}

func testAdmissionBudgets(t *testing.T, e *env) {
	lim := crawl.Limits{MaxDepth: 2, MaxPagesPerHost: 3}
	st := e.add(lim,
		U("http://a.test/0", 0, 0), U("http://a.test/2", 2, 0), U("http://a.test/3", 3, 0),
		U("http://a.test/4", 1, 0), U("http://a.test/5", 1, 0), U("http://b.test/1", 1, 0))
	if st.Added != 4 || st.OverDepth != 1 || st.OverHostCap != 1 {
		t.Fatalf("AddURLs = %+v, want 4 added, 1 over depth, 1 over the host cap", st)
	}
	if len(st.CappedHosts) != 1 || st.CappedHosts[0] != crawl.HashID("http://a.test") {
		t.Fatalf("CappedHosts = %v, want [a.test]", st.CappedHosts)
	}
	// A known URL on a full host is reported as known, not as refused.
	st = e.add(lim, U("http://a.test/0", 0, 0), U("http://a.test/6", 1, 0))
	if st.Known != 1 || st.OverHostCap != 1 || st.Added != 0 {
		t.Fatalf("AddURLs on a full host = %+v, want 1 known, 1 over cap", st)
	}
	// The cap counts admissions, so fetching does not make room.
	hs := e.claimHosts("p", 10)
	for _, h := range hs {
		for _, c := range e.claimURLs("p", h.ID, 10, lim) {
			e.commit(lim, done(c, c.URL))
		}
	}
	if st := e.add(lim, U("http://a.test/7", 1, 0)); st.OverHostCap != 1 {
		t.Fatalf("AddURLs after fetching = %+v, want still over the host cap", st)
	}
	// A deeper-than-allowed discovery inside a commit is refused too.
	if _, err := e.s.URL(e.ctx, crawl.URLID("http://a.test/3")); !errors.Is(err, crawl.ErrNotFound) {
		t.Errorf("over-depth URL was stored: %v", err)
	}
	e.checkBalance(4)
}

func testLeases(t *testing.T, e *env) {
	e.add(crawl.Limits{}, U("http://a.test/1", 0, 0), U("http://a.test/2", 0, 0), U("http://b.test/1", 0, 0))
	h1 := e.claimHosts("p1", 1)
	if len(h1) != 1 {
		t.Fatalf("p1 claimed %d hosts, want 1", len(h1))
	}
	h2 := e.claimHosts("p2", 10)
	if len(h2) != 1 || h2[0].ID == h1[0].ID {
		t.Fatalf("p2 claimed %v while p1 holds %s, want only the other host", hostKeys(h2), h1[0].Key)
	}
	if got := e.claimHosts("p3", 10); len(got) != 0 {
		t.Fatalf("p3 claimed %v, want nothing: both hosts are leased", hostKeys(got))
	}
	// p2 may not claim URLs of p1's host.
	if _, _, err := e.s.ClaimURLs(e.ctx, "p2", h1[0].ID, 5, crawl.Limits{}, e.now); !errors.Is(err, crawl.ErrLeaseLost) {
		t.Fatalf("ClaimURLs on a host leased by another owner: err = %v, want ErrLeaseLost", err)
	}
	claimed := e.claimURLs("p1", h1[0].ID, 5, crawl.Limits{})
	if len(claimed) == 0 {
		t.Fatal("p1 claimed no URLs of its host")
	}
	// Renewal keeps the lease past its first expiry.
	e.now = e.now.Add(50 * time.Second)
	lost, err := e.s.RenewHosts(e.ctx, "p1", []crawl.ID{h1[0].ID}, time.Minute, e.now)
	if err != nil || len(lost) != 0 {
		t.Fatalf("RenewHosts = %v, %v; want nothing lost", lost, err)
	}
	e.now = e.now.Add(50 * time.Second)
	if got := e.claimHosts("p3", 10); len(got) != 1 || got[0].ID != h2[0].ID {
		t.Fatalf("after p2's lease expired p3 claimed %v, want only %s (p1 renewed)", hostKeys(got), h2[0].Key)
	}
	// p1 dies: once its lease expires another owner takes the host and the
	// URLs p1 had in flight return to the queue.
	e.now = e.now.Add(2 * time.Minute)
	got := e.claimHosts("p4", 10)
	var taken *crawl.Host
	for i := range got {
		if got[i].ID == h1[0].ID {
			taken = &got[i]
		}
	}
	if taken == nil {
		t.Fatalf("p4 claimed %v, want %s whose lease expired", hostKeys(got), h1[0].Key)
	}
	again := e.claimURLs("p4", h1[0].ID, 5, crawl.Limits{})
	if len(again) != len(claimed) {
		t.Fatalf("p4 reclaimed %v, want the %d URLs p1 left in flight", urlsOf(again), len(claimed))
	}
	lost, err = e.s.RenewHosts(e.ctx, "p1", []crawl.ID{h1[0].ID}, time.Minute, e.now)
	if err != nil || len(lost) != 1 {
		t.Fatalf("p1 RenewHosts after losing = %v, %v; want the host reported lost", lost, err)
	}
	// Release makes a host claimable at once.
	if err := e.s.ReleaseHosts(e.ctx, "p4", rel(h1[0].ID)); err != nil {
		t.Fatal(err)
	}
	for _, c := range again {
		e.commit(crawl.Limits{}, crawl.Result{URL: c, Outcome: crawl.OutcomeRelease})
	}
	if got := e.claimHosts("p5", 10); len(got) != 1 || got[0].ID != h1[0].ID {
		t.Fatalf("after release p5 claimed %v, want %s", hostKeys(got), h1[0].Key)
	}
	e.checkBalance(3)
}

func testReadiness(t *testing.T, e *env) {
	e.add(crawl.Limits{}, U("http://a.test/1", 0, 0), U("http://b.test/1", 0, 0))
	// A host with nothing queued is not claimed.
	hs := e.claimHosts("p", 10)
	if len(hs) != 2 {
		t.Fatalf("claimed %d hosts, want 2", len(hs))
	}
	a, b := crawl.HashID("http://a.test"), crawl.HashID("http://b.test")
	ca := e.claimURLs("p", a, 10, crawl.Limits{})
	// A retry time in the future keeps the URL out of claims until it comes.
	e.commit(crawl.Limits{}, crawl.Result{URL: ca[0], Outcome: crawl.OutcomeRetry, RetryAt: e.now.Add(time.Minute), Error: "timeout"})
	got, next, err := e.s.ClaimURLs(e.ctx, "p", a, 10, crawl.Limits{}, e.now)
	if err != nil || len(got) != 0 {
		t.Fatalf("claimed %v (err %v) before its retry time", urlsOf(got), err)
	}
	if !next.Equal(e.now.Add(time.Minute)) {
		t.Errorf("next = %v, want the retry time %v", next, e.now.Add(time.Minute))
	}
	e.now = e.now.Add(61 * time.Second)
	got = e.claimURLs("p", a, 10, crawl.Limits{})
	if len(got) != 1 || got[0].Attempts != 1 {
		t.Fatalf("after the retry time claimed %+v, want the URL with 1 previous attempt", got)
	}
	// Hosts come back in order of their next allowed fetch time.
	cb := e.claimURLs("p", b, 10, crawl.Limits{})
	e.commit(crawl.Limits{},
		crawl.Result{URL: got[0], Outcome: crawl.OutcomeRelease, Host: crawl.HostUpdate{NextFetchAt: e.now.Add(time.Hour)}},
		crawl.Result{URL: cb[0], Outcome: crawl.OutcomeRelease, Host: crawl.HostUpdate{NextFetchAt: e.now.Add(time.Minute)}})
	if err := e.s.ReleaseHosts(e.ctx, "p", rel(a, b)); err != nil {
		t.Fatal(err)
	}
	first := e.claimHosts("q", 1)
	if len(first) != 1 || first[0].ID != b {
		t.Fatalf("first host claimed = %v, want http://b.test (earlier next fetch time)", hostKeys(first))
	}
	if !first[0].NextFetchAt.Equal(e.now.Add(time.Minute)) {
		t.Errorf("NextFetchAt = %v, want %v", first[0].NextFetchAt, e.now.Add(time.Minute))
	}
	e.checkBalance(2)
}

func testPageBudget(t *testing.T, e *env) {
	lim := crawl.Limits{MaxPages: 3}
	for i := range 5 {
		e.add(lim, U(fmt.Sprintf("http://a.test/%d", i), 0, 0))
	}
	hs := e.claimHosts("p", 1)
	got := e.claimURLs("p", hs[0].ID, 10, lim)
	if len(got) != 3 {
		t.Fatalf("claimed %d URLs under a 3-page budget", len(got))
	}
	if _, _, err := e.s.ClaimURLs(e.ctx, "p", hs[0].ID, 10, lim, e.now); !errors.Is(err, crawl.ErrPageBudget) {
		t.Fatalf("ClaimURLs past the budget: err = %v, want ErrPageBudget", err)
	}
	// A URL returned unfetched and a robots refusal give their budget back;
	// a fetched page and a failure keep it.
	e.commit(lim,
		crawl.Result{URL: got[0], Outcome: crawl.OutcomeRelease},
		crawl.Result{URL: got[1], Outcome: crawl.OutcomeDisallowed},
		done(got[2], "x"))
	more := e.claimURLs("p", hs[0].ID, 10, lim)
	if len(more) != 2 {
		t.Fatalf("after giving back 2, claimed %d, want 2", len(more))
	}
	e.commit(lim, crawl.Result{URL: more[0], Outcome: crawl.OutcomeFailed, Error: "connect"}, done(more[1], "y"))
	if _, _, err := e.s.ClaimURLs(e.ctx, "p", hs[0].ID, 10, lim, e.now); !errors.Is(err, crawl.ErrPageBudget) {
		t.Fatalf("err = %v, want ErrPageBudget after 3 fetches", err)
	}
	if c := e.counters(); c.Reserved != 3 {
		t.Errorf("reserved = %d, want 3", c.Reserved)
	}
	e.checkBalance(5)
}

// testClaimMany claims for several hosts at once: each host's outcome is
// what ClaimURLs would give it, in the order asked, and the page budget is
// shared across them.
// testCommitEndedContext: a commit asked for under a context that has
// ended fails with the context's error and records nothing; the same
// results commit once asked again.
func testCommitEndedContext(t *testing.T, e *env) {
	e.add(crawl.Limits{}, U("http://a.test/1", 0, 0))
	h := e.claimHosts("p", 1)
	if len(h) != 1 {
		t.Fatalf("claimed %d hosts, want 1", len(h))
	}
	cs := e.claimURLs("p", h[0].ID, 1, crawl.Limits{})
	if len(cs) != 1 {
		t.Fatalf("claimed %d URLs, want 1", len(cs))
	}
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	r := done(cs[0], "some text")
	if _, err := e.s.Commit(ctx, []crawl.Result{r}, crawl.Limits{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Commit under an ended context: %v, want context.Canceled", err)
	}
	if st := e.state(cs[0].URL); st != crawl.StateInFlight {
		t.Fatalf("after the refused commit the URL is %v, want in flight", st)
	}
	if c := e.counters(); c.Pages != 0 {
		t.Fatalf("after the refused commit %d pages are recorded, want 0", c.Pages)
	}
	e.commit(crawl.Limits{}, r)
	if st := e.state(cs[0].URL); st != crawl.StateDone {
		t.Fatalf("after the commit the URL is %v, want done", st)
	}
}

func testClaimMany(t *testing.T, e *env) {
	lim := crawl.Limits{MaxPages: 3}
	e.add(lim, U("http://a.test/1", 0, 1), U("http://a.test/2", 0, 5), U("http://a.test/3", 0, 3),
		U("http://b.test/1", 0, 0), U("http://b.test/2", 0, 0), U("http://c.test/1", 0, 2), U("http://c.test/2", 0, 0))
	// p holds two of the three hosts and q the third; p asks for all
	// three, the one it does not hold in the middle.
	var held, other []crawl.ID
	for _, h := range e.claimHosts("p", 2) {
		held = append(held, h.ID)
	}
	for _, h := range e.claimHosts("q", 5) {
		other = append(other, h.ID)
	}
	if len(held) != 2 || len(other) != 1 {
		t.Fatalf("p holds %d hosts and q %d, want 2 and 1", len(held), len(other))
	}
	cs, err := e.s.ClaimURLsOf(e.ctx, "p", []crawl.ID{held[0], other[0], held[1]}, 2, lim, e.now)
	if err != nil {
		t.Fatalf("ClaimURLsOf: %v", err)
	}
	if len(cs) != 3 {
		t.Fatalf("ClaimURLsOf returned %d claims for 3 hosts", len(cs))
	}
	if !errors.Is(cs[1].Err, crawl.ErrLeaseLost) || len(cs[1].URLs) != 0 {
		t.Fatalf("claim on q's host = %v, %v; want ErrLeaseLost and nothing", urlsOf(cs[1].URLs), cs[1].Err)
	}
	// Two URLs for the first host, and the one left of the budget of 3
	// for the other: the claims of one call share the budget.
	total := 0
	for i, want := range map[int]int{0: 2, 2: 1} {
		if cs[i].Err != nil {
			t.Fatalf("claim %d: %v", i, cs[i].Err)
		}
		if len(cs[i].URLs) != want {
			t.Fatalf("claim %d took %d URLs under a budget of 3, want %d", i, len(cs[i].URLs), want)
		}
		for j, u := range cs[i].URLs {
			if u.HostID != held[i/2] {
				t.Fatalf("claim %d holds %s, of another host", i, u.URL)
			}
			if j > 0 && u.Priority > cs[i].URLs[j-1].Priority {
				t.Fatalf("claim %d not best first: %v", i, urlsOf(cs[i].URLs))
			}
		}
		total += len(cs[i].URLs)
	}
	if c := e.counters(); c.InFlight != int64(total) || c.Reserved != int64(total) {
		t.Fatalf("in flight %d, reserved %d after claiming %d", c.InFlight, c.Reserved, total)
	}
	cs, err = e.s.ClaimURLsOf(e.ctx, "p", held, 10, lim, e.now)
	if err != nil {
		t.Fatalf("ClaimURLsOf: %v", err)
	}
	for i, cl := range cs {
		if !errors.Is(cl.Err, crawl.ErrPageBudget) || len(cl.URLs) != 0 {
			t.Fatalf("claim %d past the budget = %v, %v; want ErrPageBudget", i, urlsOf(cl.URLs), cl.Err)
		}
	}
}

func testByteBudget(t *testing.T, e *env) {
	lim := crawl.Limits{MaxBytes: 100}
	e.add(lim, U("http://a.test/1", 0, 0), U("http://a.test/2", 0, 0))
	hs := e.claimHosts("p", 1)
	got := e.claimURLs("p", hs[0].ID, 1, lim)
	r := done(got[0], "z")
	r.Page.WireBytes = 150
	e.commit(lim, r)
	if _, _, err := e.s.ClaimURLs(e.ctx, "p", hs[0].ID, 10, lim, e.now); !errors.Is(err, crawl.ErrByteBudget) {
		t.Fatalf("err = %v, want ErrByteBudget", err)
	}
	if c := e.counters(); c.Bytes != 150 {
		t.Errorf("bytes = %d, want 150 (wire bytes)", c.Bytes)
	}
}

func testOutcomes(t *testing.T, e *env) {
	names := []string{"done", "retry", "failed", "disallowed", "skipped", "release"}
	for _, n := range names {
		e.add(crawl.Limits{}, U("http://a.test/"+n, 0, 0))
	}
	hs := e.claimHosts("p", 1)
	byURL := map[string]crawl.ClaimedURL{}
	for _, c := range e.claimURLs("p", hs[0].ID, 10, crawl.Limits{}) {
		byURL[c.URL] = c
	}
	c := func(n string) crawl.ClaimedURL { return byURL["http://a.test/"+n] }
	e.commit(crawl.Limits{},
		done(c("done"), "page text"),
		crawl.Result{URL: c("retry"), Outcome: crawl.OutcomeRetry, RetryAt: e.now.Add(time.Hour), Error: "503"},
		crawl.Result{URL: c("failed"), Outcome: crawl.OutcomeFailed, Error: "dns: no such host"},
		crawl.Result{URL: c("disallowed"), Outcome: crawl.OutcomeDisallowed},
		crawl.Result{URL: c("skipped"), Outcome: crawl.OutcomeSkipped, Error: "robots.txt unavailable"},
		crawl.Result{URL: c("release"), Outcome: crawl.OutcomeRelease},
	)
	want := map[string]crawl.State{"done": crawl.StateDone, "retry": crawl.StateQueued, "failed": crawl.StateFailed,
		"disallowed": crawl.StateDisallowed, "skipped": crawl.StateSkipped, "release": crawl.StateQueued}
	for n, s := range want {
		if got := e.state("http://a.test/" + n); got != s {
			t.Errorf("state of %s = %v, want %v", n, got, s)
		}
	}
	r, err := e.s.URL(e.ctx, crawl.URLID("http://a.test/failed"))
	if err != nil || r.Error != "dns: no such host" || r.Attempts != 1 {
		t.Errorf("failed URL record = %+v, %v; want its error and 1 attempt", r, err)
	}
	r, _ = e.s.URL(e.ctx, crawl.URLID("http://a.test/release"))
	if r.Attempts != 0 {
		t.Errorf("released URL attempts = %d, want 0 (it was not attempted)", r.Attempts)
	}
	r, _ = e.s.URL(e.ctx, crawl.URLID("http://a.test/retry"))
	if !r.RetryAt.Equal(e.now.Add(time.Hour)) || r.Attempts != 1 {
		t.Errorf("retry URL record = %+v, want retry time and 1 attempt", r)
	}
	cn := e.counters()
	if cn.Done != 1 || cn.Failed != 1 || cn.Disallowed != 1 || cn.Skipped != 1 || cn.Queued != 2 || cn.InFlight != 0 || cn.Pages != 1 {
		t.Errorf("counters = %+v", cn)
	}
	if cn.Reserved != 2 {
		t.Errorf("reserved = %d, want 2 (the fetched page and the failure)", cn.Reserved)
	}
	e.checkBalance(6)
}

func testPagesAndLinks(t *testing.T, e *env) {
	e.add(crawl.Limits{}, U("http://a.test/", 0, 0))
	hs := e.claimHosts("p", 1)
	c := e.claimURLs("p", hs[0].ID, 1, crawl.Limits{})[0]
	r := done(c, "Hello world")
	r.Page.Title = "Home — Ünïcode"
	r.Page.ETag = `"abc"`
	r.Page.LastModified = "Mon, 02 Jan 2006 15:04:05 GMT"
	r.Page.Canonical = "http://a.test/home"
	r.Page.NoIndex = true
	r.Links = []crawl.Link{
		{TargetID: crawl.URLID("http://a.test/x"), Target: "http://a.test/x", Anchor: "Research papers"},
		{TargetID: crawl.URLID("http://c.test/"), Target: "http://c.test/", Anchor: "elsewhere", NoFollow: true},
	}
	r.Discovered = []crawl.NewURL{U("http://a.test/x", 1, 3), U("http://a.test/deep", 9, 0)}
	st := e.commit(crawl.Limits{MaxDepth: 5}, r)
	if st.Pages != 1 || st.Add.Added != 1 || st.Add.OverDepth != 1 {
		t.Fatalf("Commit stats = %+v, want 1 page, 1 URL added, 1 over depth", st)
	}
	p, err := e.s.Page(e.ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != r.Page.Title || p.Text != "Hello world" || p.ETag != `"abc"` || p.Status != 200 ||
		p.Canonical != "http://a.test/home" || !p.NoIndex || !bytes.Equal(p.ContentHash, r.Page.ContentHash) ||
		!p.FetchedAt.Equal(r.Page.FetchedAt) || p.LastModified != r.Page.LastModified || p.ID != c.ID {
		t.Errorf("Page = %+v, want what was committed", p)
	}
	ls, err := e.s.Links(e.ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].Target < ls[j].Target })
	if len(ls) != 2 || ls[0].Anchor != "Research papers" || ls[0].NoFollow || !ls[1].NoFollow || ls[1].Target != "http://c.test/" {
		t.Errorf("Links = %+v", ls)
	}
	x, err := e.s.URL(e.ctx, crawl.URLID("http://a.test/x"))
	if err != nil || x.Parent != 0 && x.Depth != 1 {
		t.Errorf("discovered URL = %+v, %v", x, err)
	}
	if x.State != crawl.StateQueued || x.Priority != 3 {
		t.Errorf("discovered URL state %v priority %d, want queued with priority 3", x.State, x.Priority)
	}
	if _, err := e.s.Page(e.ctx, crawl.URLID("http://a.test/x")); !errors.Is(err, crawl.ErrNotFound) {
		t.Errorf("Page(unfetched) err = %v, want ErrNotFound", err)
	}
	n := 0
	for p, err := range e.s.Pages(e.ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if p.URL != "http://a.test/" {
			t.Errorf("Pages yielded %s", p.URL)
		}
		n++
	}
	if n != 1 {
		t.Errorf("Pages yielded %d pages, want 1", n)
	}
	if cn := e.counters(); cn.Links != 2 {
		t.Errorf("links counter = %d, want 2", cn.Links)
	}
	e.checkBalance(2)
}

func testDuplicates(t *testing.T, e *env) {
	for i := range 1200 {
		e.add(crawl.Limits{}, U(fmt.Sprintf("http://a.test/%04d", i), 0, -i))
	}
	hs := e.claimHosts("p", 1)
	cs := e.claimURLs("p", hs[0].ID, 1200, crawl.Limits{})
	if len(cs) != 1200 {
		t.Fatalf("claimed %d, want 1200", len(cs))
	}
	// The first two share their text; the duplicate is found within one
	// batch and across batches (and across restarts: the hash is stored).
	e.commit(crawl.Limits{}, done(cs[0], "same text"), done(cs[1], "same text"))
	var rs []crawl.Result
	for _, c := range cs[2:] {
		rs = append(rs, done(c, "unique "+c.URL))
	}
	e.commit(crawl.Limits{}, rs...)
	e.s.Close()
	e.s = e.reopen()
	st, err := e.s.AddURLs(e.ctx, []crawl.NewURL{U("http://a.test/late", 0, 0)}, crawl.Limits{})
	if err != nil || st.Added != 1 {
		t.Fatal(st, err)
	}
	hs = e.claimHosts("p", 1)
	late := e.claimURLs("p", hs[0].ID, 1, crawl.Limits{})
	lateResult := done(late[0], "same text")
	cst := e.commit(crawl.Limits{}, lateResult)
	if cst.Duplicates != 1 {
		t.Errorf("commit stats %+v, want 1 duplicate", cst)
	}
	if lateResult.Page.DuplicateOf != cs[0].ID {
		t.Errorf("Commit set DuplicateOf = %d on the result, want %d", lateResult.Page.DuplicateOf, cs[0].ID)
	}
	for _, u := range []crawl.ID{cs[1].ID, late[0].ID} {
		p, err := e.s.Page(e.ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if p.DuplicateOf != cs[0].ID {
			t.Errorf("%s DuplicateOf = %d, want %d (%s)", p.URL, p.DuplicateOf, cs[0].ID, cs[0].URL)
		}
	}
	if p, _ := e.s.Page(e.ctx, cs[0].ID); p.DuplicateOf != 0 {
		t.Errorf("the first page is marked duplicate of %d", p.DuplicateOf)
	}
	if c := e.counters(); c.Duplicates != 2 || c.Pages != 1201 {
		t.Errorf("counters duplicates %d pages %d, want 2 and 1201", c.Duplicates, c.Pages)
	}
	// Pages streams all of them in ID order.
	var prev crawl.ID
	n := 0
	for p, err := range e.s.Pages(e.ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 && p.ID <= prev {
			t.Fatalf("Pages out of order: %d after %d", p.ID, prev)
		}
		prev = p.ID
		n++
	}
	if n != 1201 {
		t.Errorf("Pages yielded %d, want 1201", n)
	}
}

func testRobotsAndPoliteness(t *testing.T, e *env) {
	e.add(crawl.Limits{}, U("http://a.test/", 0, 0))
	hs := e.claimHosts("p", 1)
	if hs[0].Robots != nil {
		t.Fatalf("new host has a robots record: %+v", hs[0].Robots)
	}
	rec := crawl.RobotsRecord{Status: 200, Body: []byte("User-agent: *\nDisallow: /x\n"),
		FetchedAt: e.now, ExpiresAt: e.now.Add(24 * time.Hour)}
	if err := e.s.SaveRobots(e.ctx, hs[0].ID, rec, crawl.HostUpdate{NextFetchAt: e.now.Add(2 * time.Second), Delay: 3 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if err := e.s.ReleaseHosts(e.ctx, "p", rel(hs[0].ID)); err != nil {
		t.Fatal(err)
	}
	e.s.Close()
	e.s = e.reopen()
	hs = e.claimHosts("q", 1)
	if len(hs) != 1 || hs[0].Robots == nil {
		t.Fatalf("after reopen host = %+v, want its robots record", hs)
	}
	got := hs[0].Robots
	if got.Status != 200 || string(got.Body) != string(rec.Body) || !got.ExpiresAt.Equal(rec.ExpiresAt) || !got.FetchedAt.Equal(rec.FetchedAt) {
		t.Errorf("robots record = %+v, want %+v", got, rec)
	}
	if !hs[0].NextFetchAt.Equal(e.now.Add(2*time.Second)) || hs[0].Delay != 3*time.Second {
		t.Errorf("politeness state = next %v delay %v, want it persisted", hs[0].NextFetchAt, hs[0].Delay)
	}
	// Unreachable robots.txt: status 0 with a failure count.
	if err := e.s.SaveRobots(e.ctx, hs[0].ID, crawl.RobotsRecord{Status: 0, FetchedAt: e.now, ExpiresAt: e.now.Add(time.Minute), Failures: 2}, crawl.HostUpdate{}); err != nil {
		t.Fatal(err)
	}
	// Commit persists the politeness state a fetch leaves.
	c := e.claimURLs("q", hs[0].ID, 1, crawl.Limits{})[0]
	r := done(c, "t")
	r.Host = crawl.HostUpdate{NextFetchAt: e.now.Add(time.Hour), Delay: 5 * time.Second, Backoff: 2}
	e.commit(crawl.Limits{}, r)
	e.add(crawl.Limits{}, U("http://a.test/next", 1, 0))
	if err := e.s.ReleaseHosts(e.ctx, "q", rel(hs[0].ID)); err != nil {
		t.Fatal(err)
	}
	hs = e.claimHosts("r", 1)
	if len(hs) != 1 || hs[0].Robots == nil || hs[0].Robots.Status != 0 || hs[0].Robots.Failures != 2 {
		t.Fatalf("host = %+v, want the unreachable robots record", hs)
	}
	if !hs[0].NextFetchAt.Equal(e.now.Add(time.Hour)) || hs[0].Delay != 5*time.Second || hs[0].Backoff != 2 || hs[0].Fetched != 1 {
		t.Errorf("host after commit = %+v", hs[0])
	}
}

func testResume(t *testing.T, e *env) {
	for i := range 10 {
		e.add(crawl.Limits{}, U(fmt.Sprintf("http://a.test/%d", i), 0, 0))
	}
	hs := e.claimHosts("p", 1)
	cs := e.claimURLs("p", hs[0].ID, 4, crawl.Limits{})
	e.commit(crawl.Limits{}, done(cs[0], "one"))
	// Unclean stop: three URLs in flight, the lease never released.
	e.s.Close()
	e.s = e.reopen()
	e.now = e.now.Add(2 * time.Minute) // past any lease
	hs = e.claimHosts("p2", 1)
	if len(hs) != 1 {
		t.Fatal("after restart no host could be claimed")
	}
	got := e.claimURLs("p2", hs[0].ID, 100, crawl.Limits{})
	if len(got) != 9 {
		t.Fatalf("after restart claimed %d URLs, want 9 (3 in flight at the stop + 6 queued)", len(got))
	}
	for _, c := range got {
		if c.URL == cs[0].URL {
			t.Fatalf("the committed page %s was handed out again", c.URL)
		}
	}
	c := e.counters()
	if c.InFlight != 9 || c.Done != 1 || c.Reserved != 10 {
		t.Errorf("counters after resume = %+v, want 9 in flight, 1 done, 10 reserved", c)
	}
	e.checkBalance(10)
}

func testConcurrentClaimers(t *testing.T, e *env) {
	const hosts = 40
	var urls []crawl.NewURL
	for i := range hosts {
		for j := range 3 {
			urls = append(urls, U(fmt.Sprintf("http://h%02d.test/%d", i, j), 0, 0))
		}
	}
	e.add(crawl.Limits{}, urls...)
	var mu sync.Mutex
	owners := map[crawl.ID]string{}
	claimedURLs := map[crawl.ID]string{}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 4 {
		wg.Go(func() {
			owner := fmt.Sprintf("w%d", w)
			for range 20 {
				hs, err := e.s.ClaimHosts(e.ctx, owner, 3, time.Minute, e.now)
				if err != nil {
					errs <- err
					return
				}
				for _, h := range hs {
					cs, _, err := e.s.ClaimURLs(e.ctx, owner, h.ID, 10, crawl.Limits{}, e.now)
					if err != nil {
						errs <- err
						return
					}
					mu.Lock()
					if prev, ok := owners[h.ID]; ok {
						errs <- fmt.Errorf("host %s claimed by %s and %s", h.Key, prev, owner)
					}
					owners[h.ID] = owner
					for _, c := range cs {
						if prev, ok := claimedURLs[c.ID]; ok {
							errs <- fmt.Errorf("url %s claimed by %s and %s", c.URL, prev, owner)
						}
						claimedURLs[c.ID] = owner
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(owners) != hosts || len(claimedURLs) != hosts*3 {
		t.Errorf("claimed %d hosts and %d URLs, want %d and %d", len(owners), len(claimedURLs), hosts, hosts*3)
	}
}

func testStaleResult(t *testing.T, e *env) {
	e.add(crawl.Limits{}, U("http://a.test/1", 0, 0))
	hs := e.claimHosts("p1", 1)
	c := e.claimURLs("p1", hs[0].ID, 1, crawl.Limits{})[0]
	e.now = e.now.Add(2 * time.Minute)
	hs2 := e.claimHosts("p2", 1) // p1's lease expired: its URL is back in the queue
	if len(hs2) != 1 {
		t.Fatal("p2 could not take over the expired host")
	}
	st := e.commit(crawl.Limits{}, done(c, "late"))
	if st.Stale != 1 || st.Pages != 0 {
		t.Fatalf("late commit of a lost URL = %+v, want it ignored as stale", st)
	}
	if s := e.state("http://a.test/1"); s != crawl.StateQueued {
		t.Errorf("state = %v, want queued for the new owner", s)
	}
	e.checkBalance(1)
}

func testReleasePoliteness(t *testing.T, e *env) {
	e.add(crawl.Limits{}, U("http://a.test/1", 0, 0), U("http://a.test/2", 0, 0))
	hs := e.claimHosts("p", 1)
	c := e.claimURLs("p", hs[0].ID, 1, crawl.Limits{})[0]
	late := done(c, "x")
	late.Host = crawl.HostUpdate{NextFetchAt: e.now.Add(time.Second), Delay: time.Second}
	// The host is released (with its politeness state) before the commit of
	// its last fetch lands; the late commit must not move the time back.
	if err := e.s.ReleaseHosts(e.ctx, "p", []crawl.HostRelease{{ID: hs[0].ID,
		HostUpdate: crawl.HostUpdate{NextFetchAt: e.now.Add(5 * time.Second), Delay: time.Second}}}); err != nil {
		t.Fatal(err)
	}
	e.commit(crawl.Limits{}, late)
	hs = e.claimHosts("q", 1)
	if len(hs) != 1 || !hs[0].NextFetchAt.Equal(e.now.Add(5*time.Second)) {
		t.Fatalf("claimed %+v, want next fetch time %v kept from the release", hs, e.now.Add(5*time.Second))
	}
}

func testKindAndDates(t *testing.T, e *env) {
	u := U("http://a.test/sitemap.xml", 0, 50)
	u.Kind = crawl.KindSitemap
	p := U("http://a.test/paper", 1, 0)
	p.LastMod, p.ChangeFreq, p.Via = time.Unix(1_700_000_000, 0), "monthly", crawl.ViaSitemap
	e.add(crawl.Limits{}, u, p)
	hs := e.claimHosts("p", 1)
	cs := e.claimURLs("p", hs[0].ID, 10, crawl.Limits{})
	if len(cs) != 2 || cs[0].Kind != crawl.KindSitemap || cs[1].Kind != crawl.KindPage || !cs[1].LastMod.Equal(p.LastMod) {
		t.Fatalf("claimed %+v, want the sitemap (kind 1) then the page with its lastmod", cs)
	}
	r, err := e.s.URL(e.ctx, p.ID)
	if err != nil || r.ChangeFreq != "monthly" || !r.LastMod.Equal(p.LastMod) || r.Kind != crawl.KindPage || r.Via != crawl.ViaSitemap {
		t.Errorf("URL record = %+v, %v", r, err)
	}
}

func testHostByteBudget(t *testing.T, e *env) {
	lim := crawl.Limits{MaxHostBytes: 1000}
	for i := range 4 {
		e.add(lim, U(fmt.Sprintf("http://a.test/%d", i), 0, 0))
	}
	e.add(lim, U("http://b.test/", 0, 0))
	hs := e.claimHosts("p", 2)
	a := crawl.HashID("http://a.test")
	c := e.claimURLs("p", a, 1, lim)[0]
	r := done(c, "big")
	r.Page.WireBytes = 1500
	e.commit(lim, r)
	if got, next, err := e.s.ClaimURLs(e.ctx, "p", a, 10, lim, e.now); !errors.Is(err, crawl.ErrHostBytes) || len(got) != 0 || !next.IsZero() {
		t.Fatalf("ClaimURLs on a host over its byte share = %v, %v, %v; want nothing and ErrHostBytes", urlsOf(got), next, err)
	}
	if s := e.state("http://a.test/1"); s != crawl.StateSkipped {
		t.Errorf("queued URL of the host over its share: state %v, want skipped", s)
	}
	_ = hs
	if got := e.claimURLs("p", crawl.HashID("http://b.test"), 10, lim); len(got) != 1 {
		t.Errorf("another host is affected: claimed %v", urlsOf(got))
	}
	e.checkBalance(5)
}

func testInlinks(t *testing.T, e *env) {
	lim := crawl.Limits{InlinkBonus: 2, MaxInlinkBonus: 4}
	e.add(lim, U("http://a.test/1", 0, 10), U("http://a.test/2", 0, 9), U("http://a.test/3", 0, 8), U("http://a.test/x", 1, 0))
	x := crawl.URLID("http://a.test/x")
	link := crawl.Link{TargetID: x, Target: "http://a.test/x"}
	hs := e.claimHosts("p", 1)
	cs := e.claimURLs("p", hs[0].ID, 3, lim)
	for i, c := range cs {
		r := done(c, fmt.Sprint("page ", i))
		r.Links = []crawl.Link{link, {TargetID: crawl.URLID("http://a.test/nf"), Target: "http://a.test/nf", NoFollow: true}}
		e.commit(lim, r)
	}
	rec, err := e.s.URL(e.ctx, x)
	if err != nil || rec.Inlinks != 3 || rec.Priority != 4 {
		t.Fatalf("after 3 pages linking: %+v, %v; want 3 inlinks and priority 0+2+2 (capped at 4)", rec, err)
	}
}

// testInlinksUnknown: a link to a URL the store does not hold is not
// counted, even once the URL is added later.
func testInlinksUnknown(t *testing.T, e *env) {
	lim := crawl.Limits{InlinkBonus: 2, MaxInlinkBonus: 4}
	e.add(lim, U("http://a.test/1", 0, 10))
	hs := e.claimHosts("p", 1)
	c := e.claimURLs("p", hs[0].ID, 1, lim)[0]
	r := done(c, "page")
	r.Links = []crawl.Link{{TargetID: crawl.URLID("http://b.test/y"), Target: "http://b.test/y"}}
	e.commit(lim, r)
	e.add(lim, U("http://b.test/y", 1, 0))
	rec, err := e.s.URL(e.ctx, crawl.URLID("http://b.test/y"))
	if err != nil || rec.Inlinks != 0 || rec.Priority != 0 {
		t.Fatalf("URL linked before it was added: %+v, %v; want 0 inlinks and priority 0", rec, err)
	}
}

// testInlinksBatch commits pages linking to each other in one batch: the
// counts and bonuses are those of the results recorded one after another.
// A target that is a result of the batch is in flight (counted, no bonus)
// for the pages before it, and queued again (a retry) for those after it.
func testInlinksBatch(t *testing.T, e *env) {
	lim := crawl.Limits{InlinkBonus: 2, MaxInlinkBonus: 4}
	e.add(lim, U("http://a.test/1", 0, 10), U("http://a.test/2", 0, 9), U("http://a.test/3", 0, 8), U("http://a.test/4", 0, 7),
		U("http://a.test/x", 1, 0), U("http://a.test/nf", 1, 0))
	link := func(raw string, nofollow bool) crawl.Link {
		return crawl.Link{TargetID: crawl.URLID(raw), Target: raw, NoFollow: nofollow}
	}
	hs := e.claimHosts("p", 1)
	cs := e.claimURLs("p", hs[0].ID, 4, lim)
	if got := urlsOf(cs); !eq(got, []string{"http://a.test/1", "http://a.test/2", "http://a.test/3", "http://a.test/4"}) {
		t.Fatalf("claimed %v", got)
	}
	a, c, d := done(cs[0], "page 1"), done(cs[1], "page 2"), done(cs[3], "page 4")
	a.Links = []crawl.Link{link("http://a.test/x", false), link("http://a.test/x", false), link("http://a.test/3", false), link("http://a.test/2", false)}
	b := crawl.Result{URL: cs[2], Outcome: crawl.OutcomeRetry, RetryAt: e.now.Add(time.Minute), Error: "timeout"}
	c.Links = []crawl.Link{link("http://a.test/x", false), link("http://a.test/3", false)}
	d.Links = []crawl.Link{link("http://a.test/x", false), link("http://a.test/3", false), link("http://a.test/nf", true)}
	e.commit(lim, a, b, c, d)

	for _, w := range []struct {
		url      string
		inlinks  int // -1: not checked (the stores differ once a URL is fetched)
		priority int
	}{
		{"http://a.test/x", 3, 4},  // three pages (one linking twice): +2, +2, then capped
		{"http://a.test/3", 3, 10}, // in flight for page 1, then queued: +2 for page 2, capped at page 4
		{"http://a.test/2", -1, 9}, // in flight, then fetched: never a bonus
		{"http://a.test/nf", 0, 0}, // nofollow
	} {
		rec, err := e.s.URL(e.ctx, crawl.URLID(w.url))
		if err != nil || w.inlinks >= 0 && rec.Inlinks != w.inlinks || rec.Priority != w.priority {
			t.Errorf("%s: %+v, %v; want %d inlinks and priority %d", w.url, rec, err, w.inlinks, w.priority)
		}
	}
	e.checkBalance(6)
}

func testHostStats(t *testing.T, e *env) {
	for i := range 6 {
		e.add(crawl.Limits{}, U(fmt.Sprintf("http://a.test/%d", i), 0, -i))
	}
	hs := e.claimHosts("p", 1)
	cs := e.claimURLs("p", hs[0].ID, 6, crawl.Limits{})
	r404 := done(cs[1], "")
	r404.Page.Status = 404
	blocked := done(cs[3], "access denied")
	blocked.Page.Blocked = true
	r := done(cs[0], "same")
	r.Discovered = []crawl.NewURL{U("http://a.test/new1", 1, 0), U("http://a.test/new2", 1, 0)}
	r.Host.Trap = "discovery rate not falling: /cal?month=N"
	e.commit(crawl.Limits{}, r, r404, done(cs[2], "same"), blocked,
		crawl.Result{URL: cs[4], Outcome: crawl.OutcomeFailed, Error: "timeout: slow", ErrorKind: "timeout"},
		crawl.Result{URL: cs[5], Outcome: crawl.OutcomeRetry, RetryAt: e.now, Error: "http 503", ErrorKind: "http 503"})
	if p, _ := e.s.Page(e.ctx, cs[3].ID); p == nil || !p.Blocked {
		t.Errorf("blocked page = %+v, want Blocked", p)
	}
	st, err := e.s.HostStats(e.ctx, 10)
	if err != nil || len(st) != 1 {
		t.Fatalf("HostStats = %+v, %v", st, err)
	}
	h := st[0]
	if h.Key != "http://a.test" || h.Fetched != 4 || h.Status[2] != 3 || h.Status[4] != 1 || h.Duplicates != 1 ||
		h.Blocked != 1 || h.Discovered != 2 || h.Errors["timeout"] != 1 || h.Errors["http 503"] != 1 ||
		h.Trap != "discovery rate not falling: /cal?month=N" || h.Admitted != 8 || h.Queued != 3 {
		t.Errorf("HostStats = %+v", h)
	}
}

// testDiscoveredInOneBatch commits, in one batch, pages of two hosts
// that discover URLs of a third: the decisions are those of the results
// recorded one after another. A URL both pages found is admitted for the
// first, which alone counts it as discovered; the third host's cap
// admits the first offers; a link to a URL left out keeps its text, in
// that batch and in the next.
func testDiscoveredInOneBatch(t *testing.T, e *env) {
	lim := crawl.Limits{MaxPagesPerHost: 2}
	e.add(lim, U("http://a.test/1", 0, 0), U("http://a.test/2", 0, 0), U("http://c.test/1", 0, 0))
	var cs []crawl.ClaimedURL
	for _, h := range e.claimHosts("p", 2) {
		cs = append(cs, e.claimURLs("p", h.ID, 2, lim)...)
	}
	if len(cs) != 3 {
		t.Fatalf("claimed %v", urlsOf(cs))
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].URL < cs[j].URL })
	x, y, z := U("http://b.test/x", 1, 0), U("http://b.test/y", 1, 0), U("http://b.test/z", 1, 0)
	ra, rc := done(cs[0], "from a"), done(cs[2], "from c")
	ra.Discovered = []crawl.NewURL{x, y}
	rc.Discovered = []crawl.NewURL{x, z}
	rc.Links = []crawl.Link{{TargetID: x.ID, Target: x.URL, Anchor: "x"}, {TargetID: z.ID, Target: z.URL, Anchor: "z"}}
	st := e.commit(lim, ra, rc)
	if a := st.Add; a.Offered != 4 || a.Added != 2 || a.Known != 1 || a.OverHostCap != 1 ||
		len(a.CappedHosts) != 1 || a.CappedHosts[0] != crawl.HashID("http://b.test") {
		t.Errorf("commit's additions %+v; want 4 offered, 2 added, 1 known, 1 over b.test's cap", a)
	}
	if _, err := e.s.URL(e.ctx, z.ID); !errors.Is(err, crawl.ErrNotFound) {
		t.Errorf("b.test/z, over the cap, stored: %v", err)
	}
	stats, err := e.s.HostStats(e.ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]int64{}
	for _, h := range stats {
		found[h.Key] = h.Discovered
	}
	if found["http://a.test"] != 2 || found["http://c.test"] != 0 {
		t.Errorf("discovered by host %v; want a.test 2 (x and y), c.test 0 (x known, z refused)", found)
	}
	ra2 := done(cs[1], "from a again")
	ra2.Links = rc.Links
	e.commit(lim, ra2)
	for _, r := range []crawl.Result{rc, ra2} {
		ls, err := e.s.Links(e.ctx, r.URL.ID)
		sort.Slice(ls, func(i, j int) bool { return ls[i].Target < ls[j].Target })
		if err != nil || len(ls) != 2 || ls[0] != r.Links[0] || ls[1] != r.Links[1] {
			t.Errorf("links of %s = %+v, %v; want %+v", r.URL.URL, ls, err, r.Links)
		}
	}
}

// testPolitenessOfOneBatch commits three results of a host in one batch:
// the host keeps the latest next fetch time any of them set, and the
// delay and back-off of the last, as if recorded one after another.
func testPolitenessOfOneBatch(t *testing.T, e *env) {
	for i := range 4 {
		e.add(crawl.Limits{}, U(fmt.Sprintf("http://a.test/%d", i), 0, 0))
	}
	hs := e.claimHosts("p", 1)
	cs := e.claimURLs("p", hs[0].ID, 3, crawl.Limits{})
	if len(cs) != 3 {
		t.Fatalf("claimed %v", urlsOf(cs))
	}
	var rs []crawl.Result
	for i, u := range []crawl.HostUpdate{
		{NextFetchAt: e.now.Add(3 * time.Hour), Delay: time.Second, Backoff: 1},
		{NextFetchAt: e.now.Add(5 * time.Hour), Delay: 2 * time.Second},
		{NextFetchAt: e.now.Add(time.Hour), Delay: 4 * time.Second, Backoff: 3},
	} {
		r := done(cs[i], "t")
		r.Host = u
		rs = append(rs, r)
	}
	e.commit(crawl.Limits{}, rs...)
	if err := e.s.ReleaseHosts(e.ctx, "p", rel(hs[0].ID)); err != nil {
		t.Fatal(err)
	}
	hs = e.claimHosts("q", 1)
	if len(hs) != 1 || !hs[0].NextFetchAt.Equal(e.now.Add(5*time.Hour)) || hs[0].Delay != 4*time.Second || hs[0].Backoff != 3 || hs[0].Fetched != 3 {
		t.Errorf("host after one batch = %+v; want the next fetch 5h on, delay 4s, back-off 3, 3 fetched", hs)
	}
}

// testTrapOnClaim: a host recorded as a suspected trap carries the
// description whenever it is claimed again, by another owner or after the
// store is reopened (a restart), so that the trap policy applies at once.
func testTrapOnClaim(t *testing.T, e *env) {
	const why = "duplicate content: 60% of 30 pages repeat earlier content"
	e.add(crawl.Limits{}, U("http://a.test/1", 0, 0), U("http://a.test/2", 0, 0), U("http://a.test/3", 0, 0),
		U("http://b.test/1", 0, 0), U("http://b.test/2", 0, 0))
	a, b := crawl.HashID("http://a.test"), crawl.HashID("http://b.test")
	hs := e.claimHosts("p", 2)
	if len(hs) != 2 || hs[0].Trap != "" || hs[1].Trap != "" {
		t.Fatalf("new hosts = %+v, want two without a trap flag", hs)
	}
	ca := e.claimURLs("p", a, 2, crawl.Limits{})
	cb := e.claimURLs("p", b, 1, crawl.Limits{})
	// The flag may first come with a skipped URL; a later result without
	// one leaves it in place.
	flagged := crawl.Result{URL: ca[0], Outcome: crawl.OutcomeSkipped, Error: "suspected trap"}
	flagged.Host.Trap = why
	e.commit(crawl.Limits{}, flagged, done(cb[0], "b one"))
	e.commit(crawl.Limits{}, done(ca[1], "a two"))
	if err := e.s.ReleaseHosts(e.ctx, "p", rel(a, b)); err != nil {
		t.Fatal(err)
	}
	traps := func(hs []crawl.Host) map[crawl.ID]string {
		m := map[crawl.ID]string{}
		for _, h := range hs {
			m[h.ID] = h.Trap
		}
		return m
	}
	got := traps(e.claimHosts("q", 2))
	if len(got) != 2 || got[a] != why || got[b] != "" {
		t.Fatalf("claimed by another owner: traps %v, want %q on a.test only", got, why)
	}
	// Restart: the leases are never released, and expire.
	e.s.Close()
	e.s = e.reopen()
	e.now = e.now.Add(2 * time.Minute)
	got = traps(e.claimHosts("r", 2))
	if len(got) != 2 || got[a] != why || got[b] != "" {
		t.Fatalf("claimed after reopening: traps %v, want %q on a.test only", got, why)
	}
	// A flag raised after the last result of a host is recorded on its
	// own, whoever holds the host (r does); a host's first flag stays.
	const late = "duplicate content: 50% of 30 pages repeat earlier content"
	if err := e.s.RecordTraps(e.ctx, map[crawl.ID]string{a: late, b: late}); err != nil {
		t.Fatal(err)
	}
	if err := e.s.ReleaseHosts(e.ctx, "r", rel(a, b)); err != nil {
		t.Fatal(err)
	}
	got = traps(e.claimHosts("u", 2))
	if len(got) != 2 || got[a] != why || got[b] != late {
		t.Fatalf("after RecordTraps: traps %v, want a.test's first flag kept and b.test's recorded", got)
	}
}

func testMetrics(t *testing.T, e *env) {
	m1 := crawl.Metrics{At: e.now, Owner: "p1", Interval: 10 * time.Second, Fetched: 100, Useful: 80, Duplicates: 5,
		Blocked: 1, Errors: 2, Discovered: 900, New: 300, Known: 600, Bytes: 1 << 20, Frontier: 5000, Reserved: 100, TotalBytes: 1 << 20}
	m2 := m1
	m2.At, m2.Owner, m2.Fetched = e.now.Add(10*time.Second), "p2", 50
	for _, m := range []crawl.Metrics{m2, m1} {
		if err := e.s.RecordMetrics(e.ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	got, err := e.s.Metrics(e.ctx, e.now.Add(-time.Second))
	if err != nil || len(got) != 2 || got[0] != m1 || got[1].Fetched != 50 || got[1].Owner != "p2" {
		t.Fatalf("Metrics = %+v, %v; want both, oldest first, as recorded", got, err)
	}
	if got, _ := e.s.Metrics(e.ctx, e.now.Add(time.Second)); len(got) != 1 {
		t.Errorf("Metrics since a later time = %d rows, want 1", len(got))
	}
}

func testSourceErrors(t *testing.T, e *env) {
	if got, err := e.s.SourceErrors(e.ctx, 0); err != nil || len(got) != 0 {
		t.Fatalf("SourceErrors on a new store = %v, %v; want none", got, err)
	}
	down := crawl.SourceError{At: e.now, Kind: "archive", Source: "uni.test", URL: "http://cdx.test/cdx",
		Error: "connection refused", URLs: 0}
	garbage := crawl.SourceError{At: e.now.Add(time.Minute), Kind: "archive", Source: "lab.test", URL: "http://cdx.test/cdx",
		Error: "line 3: not a CDX row \x00\xff", URLs: 12}
	for _, se := range []crawl.SourceError{down, garbage} {
		if err := e.s.RecordSourceError(e.ctx, se); err != nil {
			t.Fatal(err)
		}
	}
	e.s.Close()
	e.s = e.reopen()
	got, err := e.s.SourceErrors(e.ctx, 0)
	if err != nil || len(got) != 2 {
		t.Fatalf("SourceErrors = %+v, %v; want both", got, err)
	}
	// Newest first; a NUL byte cannot be stored everywhere, so only the
	// readable part of the message is compared.
	if g := got[0]; g.Source != "lab.test" || g.URLs != 12 || !g.At.Equal(garbage.At) || !strings.HasPrefix(g.Error, "line 3: not a CDX row") {
		t.Errorf("newest = %+v, want %+v", g, garbage)
	}
	if got[1] != down {
		t.Errorf("oldest = %+v, want %+v", got[1], down)
	}
	if got, _ := e.s.SourceErrors(e.ctx, 1); len(got) != 1 || got[0].Source != "lab.test" {
		t.Errorf("SourceErrors(limit 1) = %+v, want the newest only", got)
	}
}

func testBestHostsFirst(t *testing.T, e *env) {
	e.add(crawl.Limits{}, U("http://low.test/", 0, 1), U("http://high.test/a", 0, 2), U("http://high.test/b", 0, 9),
		U("http://mid.test/", 0, 5))
	var order []string
	for range 3 {
		hs := e.claimHosts(fmt.Sprint("p", len(order)), 1)
		if len(hs) != 1 {
			t.Fatalf("claimed %d hosts", len(hs))
		}
		order = append(order, hs[0].Key)
	}
	if !eq(order, []string{"http://high.test", "http://mid.test", "http://low.test"}) {
		t.Fatalf("hosts claimed in order %v, want the host with the best queued URL first", order)
	}
	// Once its best URL is claimed, a host ranks by the next one.
	e.claimURLs("p0", crawl.HashID("http://high.test"), 1, crawl.Limits{})
	if err := e.s.ReleaseHosts(e.ctx, "p0", rel(crawl.HashID("http://high.test"))); err != nil {
		t.Fatal(err)
	}
	if err := e.s.ReleaseHosts(e.ctx, "p1", rel(crawl.HashID("http://mid.test"))); err != nil {
		t.Fatal(err)
	}
	if hs := e.claimHosts("q", 1); len(hs) != 1 || hs[0].Key != "http://mid.test" {
		t.Fatalf("after high.test's best URL was claimed, claimed %v, want mid.test (5 > 2)", hostKeys(hs))
	}
}

func testContent(t *testing.T, e *env) {
	for i := range 4 {
		e.add(crawl.Limits{}, U(fmt.Sprintf("http://a.test/%d", i), 0, -i))
	}
	hs := e.claimHosts("p", 1)
	cs := e.claimURLs("p", hs[0].ID, 4, crawl.Limits{})
	meta := &crawl.Metadata{Title: "Crawling the Academic Web", Authors: []string{"Ada Lovelace", "Alan Turing"},
		Date: "2024-05-03", Year: 2024, Venue: "Journal of Applied Crawling", DOI: "10.5555/jac.1", Type: "article",
		TypeRule: "citation_journal_title", Keywords: []string{"crawling", "frontier"}}
	const fp = 0x0123456789abcdef
	r0 := done(cs[0], "an article")
	r0.Page.MainText, r0.Page.Meta, r0.Page.SimHash = "First paragraph.\n\nSecond paragraph.", meta, fp
	r0.Page.WARC = crawl.WARCRef{File: "acrawler-1.warc.gz", Offset: 1234, Length: 567}
	r1 := done(cs[1], "the same article, another footer")
	r1.Page.SimHash = fp ^ 0b101 // distance 2
	r2 := done(cs[2], "unrelated")
	r2.Page.SimHash = fp ^ 0xff00ff // distance 16
	r3 := done(cs[3], "the same article, a date line changed")
	r3.Page.SimHash = fp ^ 0x8000000000000001 // distance 2, bits in the first and last band
	e.commit(crawl.Limits{}, r0)
	e.commit(crawl.Limits{}, r1, r2, r3)
	if r1.Page.NearDuplicateOf != cs[0].ID || r3.Page.NearDuplicateOf != cs[0].ID || r2.Page.NearDuplicateOf != 0 {
		t.Errorf("near duplicates on the results: %d %d %d; want %d, %d, 0", r1.Page.NearDuplicateOf,
			r3.Page.NearDuplicateOf, r2.Page.NearDuplicateOf, cs[0].ID, cs[0].ID)
	}
	p, err := e.s.Page(e.ctx, cs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if p.MainText != r0.Page.MainText || p.SimHash != fp || p.WARC != r0.Page.WARC || p.Meta == nil ||
		p.Meta.Title != meta.Title || !eq(p.Meta.Authors, meta.Authors) || p.Meta.DOI != meta.DOI || p.Meta.Year != 2024 ||
		p.Meta.Type != "article" || !eq(p.Meta.Keywords, meta.Keywords) {
		t.Errorf("page = %+v meta %+v; want what was committed", p, p.Meta)
	}
	p1, _ := e.s.Page(e.ctx, cs[1].ID)
	if p1 == nil || p1.NearDuplicateOf != cs[0].ID || p1.Meta != nil {
		t.Errorf("stored near duplicate = %+v", p1)
	}
}

func testReparse(t *testing.T, e *env) {
	e.add(crawl.Limits{}, U("http://a.test/", 0, 0))
	hs := e.claimHosts("p", 1)
	c := e.claimURLs("p", hs[0].ID, 1, crawl.Limits{})[0]
	r := done(c, "old text")
	r.Page.WARC = crawl.WARCRef{File: "f.warc.gz", Offset: 10, Length: 20}
	r.Links = []crawl.Link{{TargetID: crawl.URLID("http://a.test/old"), Target: "http://a.test/old", Anchor: "old"}}
	e.commit(crawl.Limits{}, r)
	np := &crawl.Page{ID: c.ID, Title: "New title", Text: "new text", MainText: "new main text", Lang: "en",
		Meta: &crawl.Metadata{Type: "article", DOI: "10.1/x"}, ContentHash: []byte("0123456789abcdef0123456789abcdef")}
	links := []crawl.Link{{TargetID: crawl.URLID("http://a.test/new"), Target: "http://a.test/new", Anchor: "new"}}
	if err := e.s.Reparse(e.ctx, np, links); err != nil {
		t.Fatal(err)
	}
	p, err := e.s.Page(e.ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "New title" || p.MainText != "new main text" || p.Meta == nil || p.Meta.DOI != "10.1/x" ||
		p.Status != 200 || p.WARC.File != "f.warc.gz" || p.URL != c.URL {
		t.Errorf("after Reparse: %+v", p)
	}
	ls, _ := e.s.Links(e.ctx, c.ID)
	if len(ls) != 1 || ls[0].Target != "http://a.test/new" {
		t.Errorf("links after Reparse = %+v", ls)
	}
	if cn := e.counters(); cn.Pages != 1 || cn.Links != 1 {
		t.Errorf("counters after Reparse: %d pages %d links, want 1 and 1", cn.Pages, cn.Links)
	}
	if err := e.s.Reparse(e.ctx, &crawl.Page{ID: crawl.URLID("http://a.test/none")}, nil); !errors.Is(err, crawl.ErrNotFound) {
		t.Errorf("Reparse of an unknown page: %v, want ErrNotFound", err)
	}
}

// commitPages records pages with the given fields on fresh URLs.
func (e *env) commitPages(pages ...*crawl.Page) {
	e.t.Helper()
	for _, p := range pages {
		e.add(crawl.Limits{}, U(p.URL, 0, 0))
	}
	for {
		hs := e.claimHosts("p", 10)
		if len(hs) == 0 {
			break
		}
		for _, h := range hs {
			for _, c := range e.claimURLs("p", h.ID, 100, crawl.Limits{}) {
				for _, p := range pages {
					if p.URL == c.URL {
						if p.Status == 0 {
							p.Status = 200
						}
						if p.ContentType == "" {
							p.ContentType = "text/html"
						}
						if p.FetchedAt.IsZero() {
							p.FetchedAt = e.now
						}
						if p.ContentHash == nil {
							h := crawl.HashID(p.URL + p.Text)
							p.ContentHash = []byte(fmt.Sprintf("%016x%016x", uint64(h), uint64(h)))
						}
						e.commit(crawl.Limits{}, crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Page: p, Links: e.links[p.URL]})
					}
				}
			}
		}
		if err := e.s.ReleaseHosts(e.ctx, "p", rel(idsOf(hs)...)); err != nil {
			e.t.Fatal(err)
		}
	}
}

func idsOf(hs []crawl.Host) []crawl.ID {
	out := make([]crawl.ID, len(hs))
	for i, h := range hs {
		out[i] = h.ID
	}
	return out
}

func (e *env) search(r crawl.SearchRequest) crawl.SearchResult {
	e.t.Helper()
	res, err := e.s.Search(e.ctx, r)
	if err != nil {
		e.t.Fatalf("Search(%+v): %v", r, err)
	}
	return res
}

func hitURLs(res crawl.SearchResult) []string {
	out := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = h.URL
	}
	return out
}

func testSearch(t *testing.T, e *env) {
	body := "We study how a polite crawler schedules hosts and spends a budget on research pages first."
	dupText := "Duplicate of the crawler survey text."
	pages := []*crawl.Page{
		{URL: "http://a.test/survey", Title: "A survey of focused crawling", Text: body, Lang: "en",
			Meta: &crawl.Metadata{Type: "article", Year: 2021, DOI: "10.1/a", Authors: []string{"Ada Lovelace"}}},
		{URL: "http://a.test/notes", Title: "Lecture notes", Text: "Focused crawling appears here only in the body of the notes.", Lang: "en",
			Meta: &crawl.Metadata{Type: "other", Year: 2019}},
		{URL: "http://b.test/tez", Title: "Odaklı tarama üzerine bir tez", Text: "Bu tez focused crawling yöntemlerini inceler.", Lang: "tr",
			Meta: &crawl.Metadata{Type: "thesis", Year: 2023}},
		{URL: "http://a.test/hidden", Title: "Focused crawling, not indexed", Text: "noindex page", NoIndex: true},
		{URL: "http://a.test/copy", Title: "Copy", Text: dupText, DuplicateOf: 0},
		{URL: "http://a.test/copy2", Title: "Copy", Text: dupText},
		{URL: "http://a.test/404", Title: "Focused crawling gone", Text: "not found", Status: 404},
		{URL: "http://c.test/itu", Title: "İSTANBUL TEKNİK ÜNİVERSİTESİ", Text: "İstanbul'da bir araştırma, İzmir'de bir ders.", Lang: "tr"},
		{URL: "http://a.test/alias", Title: "Focused crawling alias", Text: "alias", Canonical: "http://a.test/survey"},
	}
	pages[4].ContentHash = []byte("dupdupdupdupdupdupdupdupdupdupdu")
	pages[5].ContentHash = pages[4].ContentHash
	e.commitPages(pages...)

	res := e.search(crawl.SearchRequest{Query: "focused crawling", Limit: 10})
	got := hitURLs(res)
	if len(got) != 3 || got[0] != "http://a.test/survey" || res.Total != 3 {
		t.Fatalf("search \"focused crawling\" = %v (total %d), want the survey first (title match) and only the 3 indexable pages", got, res.Total)
	}
	top := res.Hits[0]
	if top.Type != "article" || top.Year != 2021 || top.DOI != "10.1/a" || len(top.Authors) != 1 || top.Host != "http://a.test" ||
		top.Lang != "en" || top.FetchedAt.IsZero() || top.Score <= res.Hits[1].Score {
		t.Errorf("top hit = %+v", top)
	}
	if !strings.Contains(marked(res.Hits[1]), "<mark>") {
		t.Errorf("snippet %q has no highlighted words", marked(res.Hits[1]))
	}
	if res.Facets.Host["http://a.test"] != 2 || res.Facets.Host["http://b.test"] != 1 || res.Facets.Type["thesis"] != 1 || res.Facets.Year[2021] != 1 {
		t.Errorf("facets = %+v", res.Facets)
	}
	for _, tc := range []struct {
		req  crawl.SearchRequest
		want []string
	}{
		{crawl.SearchRequest{Query: `"polite crawler"`}, []string{"http://a.test/survey"}},
		{crawl.SearchRequest{Query: `"crawler polite"`}, nil},
		{crawl.SearchRequest{Query: "focused -survey"}, []string{"http://a.test/notes", "http://b.test/tez"}},
		{crawl.SearchRequest{Query: "schedul*"}, []string{"http://a.test/survey"}},
		{crawl.SearchRequest{Query: "crawling", Host: "http://b.test"}, []string{"http://b.test/tez"}},
		{crawl.SearchRequest{Query: "crawling", Type: "other"}, []string{"http://a.test/notes"}},
		{crawl.SearchRequest{Query: "crawling", Lang: "tr"}, []string{"http://b.test/tez"}},
		{crawl.SearchRequest{Query: "crawling", YearFrom: 2020, YearTo: 2022}, []string{"http://a.test/survey"}},
		{crawl.SearchRequest{Query: "tez"}, []string{"http://b.test/tez"}},
		// Turkish capital İ is found by its lowercase i and the other way
		// round, in titles and texts.
		{crawl.SearchRequest{Query: "istanbul"}, []string{"http://c.test/itu"}},
		{crawl.SearchRequest{Query: "İSTANBUL"}, []string{"http://c.test/itu"}},
		{crawl.SearchRequest{Query: "İstanbul"}, []string{"http://c.test/itu"}},
		{crawl.SearchRequest{Query: `"teknik üniversitesi"`}, []string{"http://c.test/itu"}},
		{crawl.SearchRequest{Query: "izmir'de"}, []string{"http://c.test/itu"}},
		{crawl.SearchRequest{Query: "İZMİR*"}, []string{"http://c.test/itu"}},
	} {
		got := hitURLs(e.search(tc.req))
		sort.Strings(got)
		if !eq(got, tc.want) {
			t.Errorf("Search(%+v) = %v, want %v", tc.req, got, tc.want)
		}
	}
	// Pagination.
	p1 := e.search(crawl.SearchRequest{Query: "crawling", Limit: 2})
	p2 := e.search(crawl.SearchRequest{Query: "crawling", Limit: 2, Offset: 2})
	if len(p1.Hits) != 2 || len(p2.Hits) != 1 || p1.Total != 3 || p2.Total != 3 || p2.Hits[0].URL == p1.Hits[0].URL || p2.Hits[0].URL == p1.Hits[1].URL {
		t.Errorf("pages: %v then %v (totals %d, %d)", hitURLs(p1), hitURLs(p2), p1.Total, p2.Total)
	}
	// Anything a user may type is searched as text, never an error.
	for _, q := range []string{`"`, `AND (`, `*`, `:`, `crawling:`, `'; DROP TABLE pages;--`, `NEAR(a b)`, `-`, `""""`, "\x00\xff", `title:x`, `^`} {
		if _, err := e.s.Search(e.ctx, crawl.SearchRequest{Query: q, Limit: 10}); err != nil {
			t.Errorf("Search(%q): %v", q, err)
		}
	}
	if res := e.search(crawl.SearchRequest{Query: "-crawling"}); res.Total != 0 || len(res.Hits) != 0 {
		t.Errorf("a query of exclusions only found %v", hitURLs(res))
	}
	// The snippet of a page found through a folded capital marks the word
	// as the page writes it.
	if res := e.search(crawl.SearchRequest{Query: "istanbul", Limit: 1}); len(res.Hits) != 1 ||
		!strings.Contains(marked(res.Hits[0]), "<mark>İstanbul</mark>") {
		t.Errorf("search \"istanbul\" = %+v, want the page with İstanbul marked in its snippet", res.Hits)
	}
}

// testCanonicalContent: a page that names another canonical URL does not
// take its content from it. Fetched first, the alias used to own the
// content hash (and the SimHash), so the canonical page, fetched next,
// was recorded as its duplicate: neither was searchable.
func testCanonicalContent(t *testing.T, e *env) {
	text := "Proceedings of the workshop on polite crawling, volume seven."
	hash := []byte("canonical-owns-its-content-hash!")
	const fp = 0x0f0f_1234_5678_9abc
	alias := &crawl.Page{URL: "http://a.test/item?id=7", Title: "Workshop proceedings", Text: text,
		Canonical: "http://a.test/items/7", ContentHash: hash, SimHash: fp}
	e.commitPages(alias)
	canon := &crawl.Page{URL: "http://a.test/items/7", Title: "Workshop proceedings", Text: text,
		ContentHash: hash, SimHash: fp}
	e.commitPages(canon)
	p, err := e.s.Page(e.ctx, crawl.URLID(canon.URL))
	if err != nil {
		t.Fatal(err)
	}
	if p.DuplicateOf != 0 || p.NearDuplicateOf != 0 {
		t.Errorf("canonical page: duplicate of %d, near-duplicate of %d; want neither (the alias %d does not own its content)",
			p.DuplicateOf, p.NearDuplicateOf, crawl.URLID(alias.URL))
	}
	if got := hitURLs(e.search(crawl.SearchRequest{Query: "workshop"})); !eq(got, []string{canon.URL}) {
		t.Errorf("search workshop = %v, want the canonical page", got)
	}
	// A copy under a third URL, fetched after, is the canonical page's
	// duplicate.
	copyPage := &crawl.Page{URL: "http://a.test/mirror/7", Title: "Workshop proceedings", Text: text, ContentHash: hash, SimHash: fp}
	e.commitPages(copyPage)
	if p, err := e.s.Page(e.ctx, crawl.URLID(copyPage.URL)); err != nil || p.DuplicateOf != crawl.URLID(canon.URL) {
		t.Errorf("copy: %+v, %v; want a duplicate of the canonical page", p, err)
	}
}

func testRanks(t *testing.T, e *env) {
	e.links = map[string][]crawl.Link{"http://a.test/hub": {
		{TargetID: crawl.URLID("http://a.test/x"), Target: "http://a.test/x", Anchor: "Quantum decoherence paper"},
		{TargetID: crawl.URLID("http://a.test/y"), Target: "http://a.test/y", Anchor: "other"},
		// A URL never fetched: no page, so no node of the graph.
		{TargetID: crawl.URLID("http://a.test/unfetched"), Target: "http://a.test/unfetched", Anchor: "later"},
	}}
	e.commitPages(
		&crawl.Page{URL: "http://a.test/hub", Title: "Hub", Text: "links to everything"},
		&crawl.Page{URL: "http://a.test/x", Title: "Report X", Text: "measurement results alpha"},
		&crawl.Page{URL: "http://a.test/y", Title: "Report Y", Text: "measurement results alpha"},
	)
	x, y, hub := crawl.URLID("http://a.test/x"), crawl.URLID("http://a.test/y"), crawl.URLID("http://a.test/hub")
	in, err := e.s.Inlinks(e.ctx, x, 10)
	if err != nil || len(in) != 1 || in[0].URL != "http://a.test/hub" || in[0].Anchor != "Quantum decoherence paper" {
		t.Fatalf("Inlinks = %+v, %v", in, err)
	}
	var edges [][2]crawl.ID
	for edge, err := range e.s.LinkGraph(e.ctx) {
		if err != nil {
			t.Fatal(err)
		}
		edges = append(edges, edge)
	}
	if len(edges) != 2 || edges[0][0] != hub || edges[1][0] != hub || edges[0][1] == edges[1][1] ||
		edges[0][1] != x && edges[0][1] != y || edges[1][1] != x && edges[1][1] != y {
		t.Fatalf("LinkGraph = %v, want the hub's 2 links to pages (x %d, y %d), not the one to a URL without a page", edges, x, y)
	}
	if err := e.s.SetRanks(e.ctx, map[crawl.ID]float64{x: 0.1, y: 20, hub: 1}); err != nil {
		t.Fatal(err)
	}
	// Inbound anchor text is searchable.
	if got := hitURLs(e.search(crawl.SearchRequest{Query: "decoherence"})); !eq(got, []string{"http://a.test/x"}) {
		t.Errorf("search by inbound anchor text = %v, want x", got)
	}
	// With equal text, rank decides when it is weighted.
	if got := hitURLs(e.search(crawl.SearchRequest{Query: "measurement", PageRankWeight: 1})); len(got) != 2 || got[0] != "http://a.test/y" {
		t.Errorf("ranked search = %v, want y (rank 20) first", got)
	}
	// A link recorded after its target was indexed brings its anchor text
	// to the index with the next rank pass, and the target keeps the
	// words it had.
	e.links = map[string][]crawl.Link{"http://a.test/late": {{TargetID: y, Target: "http://a.test/y", Anchor: "Zeitgeist survey, İZMİR"}}}
	e.commitPages(&crawl.Page{URL: "http://a.test/late", Title: "Late", Text: "a page linking late"})
	if err := e.s.SetRanks(e.ctx, map[crawl.ID]float64{x: 0.1, y: 20, hub: 1, crawl.URLID("http://a.test/late"): 1}); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{"zeitgeist": "http://a.test/y", "decoherence": "http://a.test/x", "other": "http://a.test/y",
		"izmir": "http://a.test/y", "İzmir": "http://a.test/y"} {
		res := e.search(crawl.SearchRequest{Query: q})
		if got := hitURLs(res); !eq(got, []string{want}) {
			t.Errorf("after a late link, search %q = %v, want %s", q, got, want)
		}
	}
	res := e.search(crawl.SearchRequest{Query: "alpha"})
	for _, h := range res.Hits {
		if !strings.Contains(marked(h), "<mark>alpha</mark>") {
			t.Errorf("snippet of %s for alpha = %q", h.URL, marked(h))
		}
	}
	// A rank that moved by less than crawl.RankTolerance is kept, one that
	// moved by more is written. Two pages whose text matches alike, so that
	// rank alone orders them: q (10.08) stays ahead of p raised from 10 to
	// 10.099, and falls behind p raised to 10.2.
	e.commitPages(&crawl.Page{URL: "http://a.test/p", Title: "Twin", Text: "zebra crossing"},
		&crawl.Page{URL: "http://a.test/q", Title: "Twin", Text: "zebra crossing"})
	p, q := crawl.URLID("http://a.test/p"), crawl.URLID("http://a.test/q")
	ranked := func(ranks map[crawl.ID]float64, want string) {
		t.Helper()
		if err := e.s.SetRanks(e.ctx, ranks); err != nil {
			t.Fatal(err)
		}
		if got := hitURLs(e.search(crawl.SearchRequest{Query: "zebra", PageRankWeight: 1})); len(got) != 2 || got[0] != want {
			t.Errorf("ranked search after SetRanks(p %g, q %g) = %v, want %s first", ranks[p], ranks[q], got, want)
		}
	}
	ranked(map[crawl.ID]float64{p: 10, q: 10.08}, "http://a.test/q")
	ranked(map[crawl.ID]float64{p: 10.099, q: 10.08}, "http://a.test/q")
	ranked(map[crawl.ID]float64{p: 10.2, q: 10.08}, "http://a.test/p")
}
