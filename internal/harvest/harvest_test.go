package harvest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/fetch"
	"github.com/acrawler/acrawler/internal/harvest"
	"github.com/acrawler/acrawler/internal/oai"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/postgres/pgtest"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/testweb"
	"github.com/acrawler/acrawler/internal/urlnorm"
	"github.com/acrawler/acrawler/internal/works"
)

const origin = "http://" + testweb.RepositoryHost

// forEachStore runs fn on a fresh store of each backend: a SQLite file and
// a PostgreSQL schema.
func forEachStore(t *testing.T, fn func(t *testing.T, open func() crawl.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		n := 0
		fn(t, func() crawl.Store {
			n++
			db, err := sqlite.Open(t.Context(), filepath.Join(dir, fmt.Sprintf("crawl%d.db", n)), sqlite.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		})
	})
	t.Run("postgres", func(t *testing.T) {
		pgtest.DSN(t) // skips, or fails, without a server
		fn(t, func() crawl.Store {
			dsn, schema := pgtest.Schema(t)
			db, err := postgres.Open(t.Context(), dsn, postgres.Options{Schema: schema, MaxConns: 4})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return db
		})
	})
}

// env is the repository served over HTTP, reached as the crawl reaches
// hosts (through the fetcher, with the server as its proxy), and a clock
// whose sleeps are logged among the requests the server receives.
type env struct {
	web  *testweb.Web
	repo *testweb.Repository
	srv  *httptest.Server
	f    *fetch.Client

	mu     sync.Mutex
	robots string   // robots.txt served instead of the repository's ("" keeps it)
	events []string // "GET /path?query" and "sleep 3s", in order
	now    time.Time
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{web: testweb.New(testweb.Config{}), now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	e.repo = testweb.NewRepository(e.web)
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.events = append(e.events, "GET "+r.URL.RequestURI())
		rb := e.robots
		e.mu.Unlock()
		if r.URL.Path == "/robots.txt" && rb != "" {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte(rb))
			return
		}
		e.repo.ServeHTTP(w, r)
	}))
	t.Cleanup(e.srv.Close)
	f, err := fetch.New(fetch.Config{UserAgent: "acrawler-test/1.0", Proxy: e.srv.URL, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	e.f = f
	return e
}

func (e *env) clock() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now
}

func (e *env) sleep(ctx context.Context, d time.Duration) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if d > 0 {
		e.events = append(e.events, "sleep "+d.String())
		e.now = e.now.Add(d)
	}
	return ctx.Err() == nil
}

func (e *env) takeEvents() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	ev := e.events
	e.events = nil
	return ev
}

// requests are the requests among events, without the sleeps.
func requests(events []string) []string {
	var out []string
	for _, ev := range events {
		if s, ok := strings.CutPrefix(ev, "GET "); ok {
			out = append(out, s)
		}
	}
	return out
}

// recorder records what a harvest hands to Works, and hands it on to the
// store.
type recorder struct {
	mu      sync.Mutex
	records []works.Record
	st      harvest.Works
}

func (w *recorder) AddRecords(ctx context.Context, rs []works.Record) error {
	w.mu.Lock()
	w.records = append(w.records, rs...)
	w.mu.Unlock()
	return w.st.AddRecords(ctx, rs)
}

func (e *env) config(t *testing.T, st crawl.Store, path string) harvest.Config {
	t.Helper()
	n, err := urlnorm.New(urlnorm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return harvest.Config{
		Endpoint:   origin + path,
		Fetcher:    e.f,
		Store:      st,
		Normalizer: n,
		Admit:      func(u string) bool { return urlnorm.HostKey(u) == origin },
		Token:      "acrawler",
		Delay:      2 * time.Second,
		Now:        e.clock,
		Sleep:      e.sleep,
	}
}

// checkQueued reports whether every URL of recs is queued through the
// harvest, high in priority, and no URL of other records of the repository.
func checkQueued(t *testing.T, st crawl.Store, all []testweb.RepositoryRecord, want func(testweb.RepositoryRecord) bool) {
	t.Helper()
	for _, r := range all {
		if r.Deleted {
			continue
		}
		for _, u := range []string{r.Landing, r.PDF} {
			rec, err := st.URL(t.Context(), crawl.URLID(u))
			switch {
			case !want(r) && err == nil:
				t.Errorf("%s (record %s, datestamp %s) queued; it should not be", u, r.Identifier, r.Datestamp)
			case !want(r):
			case err != nil:
				t.Errorf("%s (record %s) not in the frontier: %v", u, r.Identifier, err)
			case rec.Via != harvest.ViaOAI || rec.State != crawl.StateQueued || rec.Priority < harvest.Boost || rec.Depth != 1:
				t.Errorf("%s: via %q, state %v, priority %d, depth %d; want via oai, queued, priority ≥ %d, depth 1",
					u, rec.Via, rec.State, rec.Priority, rec.Depth, harvest.Boost)
			}
		}
		if r.DOI != "" {
			if _, err := st.URL(t.Context(), crawl.URLID("https://doi.org/"+r.DOI)); err == nil {
				t.Errorf("the DOI resolver URL of %s was queued though the scope refuses it", r.Identifier)
			}
		}
	}
}

func pageCount(n int) int { return (n + testweb.RepositoryPageSize - 1) / testweb.RepositoryPageSize }

// TestHarvestQueuesEveryRecord: one run reads every page of the list,
// following the resumption tokens, queues the landing page and PDF of
// every record that is not deleted, hands every record to Works, and
// records where the next harvest starts.
func TestHarvestQueuesEveryRecord(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() crawl.Store) {
		e := newEnv(t)
		st := open()
		all := e.repo.Records()
		cfg := e.config(t, st, "/oai")
		w := &recorder{st: st.(harvest.Works)}
		cfg.Works = w
		res, err := harvest.Run(t.Context(), cfg)
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		pages := pageCount(len(all))
		live := len(all) - 2
		if pages < 3 || !res.Complete || res.Resumed || res.From != "" || res.Pages != pages || res.Records != len(all) ||
			res.Deleted != 2 || res.Offered != 2*live || res.Added != 2*live || res.Requests != 2+pages {
			t.Errorf("Result = %+v; want complete, %d pages, %d records (2 deleted), %d URLs added, %d requests", res, pages, len(all), 2*live, 2+pages)
		}
		checkQueued(t, st, all, func(testweb.RepositoryRecord) bool { return true })

		reqs := requests(e.takeEvents())
		if len(reqs) != 2+pages || reqs[0] != "/robots.txt" || reqs[1] != "/oai?verb=Identify" ||
			reqs[2] != "/oai?metadataPrefix=oai_dc&verb=ListRecords" {
			t.Fatalf("requests %q; want robots.txt, Identify, then %d ListRecords pages", reqs, pages)
		}
		// Paging: every later page asks with the token of the one before.
		for i, r := range reqs[3:] {
			q := mustQuery(t, r)
			if q.Get("verb") != "ListRecords" || q.Get("resumptionToken") == "" || len(q) != 2 {
				t.Errorf("page %d requested as %s; want ListRecords with a resumptionToken only", i+2, r)
			}
		}

		if len(w.records) != len(all) {
			t.Fatalf("Works got %d records, want %d", len(w.records), len(all))
		}
		ws := st.(crawl.WorkStore)
		for i, r := range w.records {
			want := all[i]
			wantURL := harvest.RecordURL(cfg.Endpoint, want.Identifier, cfg.Normalizer)
			if r.Identifier != want.Identifier || r.Deleted != want.Deleted || r.URL != wantURL || r.ID != int64(crawl.URLID(wantURL)) ||
				!strings.HasPrefix(r.URL, origin+"/oai?") || !strings.Contains(r.URL, "verb=GetRecord") ||
				!strings.Contains(r.URL, "identifier="+url.QueryEscape(want.Identifier)) {
				t.Errorf("record %d = %s deleted=%v at %s (%d); want %s deleted=%v at %s", i, r.Identifier, r.Deleted, r.URL, r.ID,
					want.Identifier, want.Deleted, wantURL)
			}
			wantType := "article"
			if want.Type == "Thesis" {
				wantType = "thesis"
			}
			m := r.Meta
			if !want.Deleted && (m.Title != want.Title || m.DOI != want.DOI || m.Year != want.Year || !strings.HasPrefix(want.Date, m.Date) ||
				strings.Join(m.Authors, "; ") != strings.Join(want.Creators, "; ") || m.PDFURL != want.PDF ||
				m.Publisher != "Northfield University" || m.Type != wantType) {
				t.Errorf("record %s: %+v; want %+v", r.Identifier, m, want)
			}
			// Every record is a repository copy of a work, its Dublin Core
			// the source; a deleted one none.
			wk, err := ws.WorkOf(t.Context(), crawl.ID(r.ID))
			switch {
			case want.Deleted && !errors.Is(err, crawl.ErrNotFound):
				t.Errorf("deleted record %s: work %+v, %v", r.Identifier, wk, err)
			case want.Deleted:
			case err != nil:
				t.Errorf("record %s: no work: %v", r.Identifier, err)
			case len(wk.Copies) != 1 || wk.Copies[0].Kind != "repository" || wk.Copies[0].Source != "dublincore" ||
				wk.Title != want.Title || wk.Fields["title"].URL != wantURL:
				t.Errorf("record %s: work %+v", r.Identifier, wk)
			}
		}

		s, err := harvest.LoadState(t.Context(), st, cfg.Endpoint)
		if err != nil {
			t.Fatal(err)
		}
		if s.Token != "" || s.Started != "" || s.From == "" {
			t.Errorf("state after a complete harvest = %+v; want only From", s)
		}
		if errs, _ := st.SourceErrors(t.Context(), 0); len(errs) != 0 {
			t.Errorf("source errors %+v after a clean harvest", errs)
		}
	})
}

func mustQuery(t *testing.T, req string) url.Values {
	t.Helper()
	u, err := url.Parse(req)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

// TestHarvestTruncatedResumes: a page whose XML is cut short is recorded
// as a source error; the records queued before it stay, and the next run
// resumes from the token of that page, until the list is complete.
func TestHarvestTruncatedResumes(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() crawl.Store) {
		e := newEnv(t)
		st := open()
		all := e.repo.Records()
		pages := pageCount(len(all))
		cfg := e.config(t, st, "/oai/truncated")

		// /oai/truncated cuts the first answer to each token: each run
		// reads one page more.
		res, err := harvest.Run(t.Context(), cfg)
		if !errors.Is(err, oai.ErrTruncated) || res.Complete || res.Pages != 1 || res.Added != 2*testweb.RepositoryPageSize {
			t.Fatalf("first run: %+v, %v; want one page read, then a truncated response", res, err)
		}
		checkQueued(t, st, all, func(r testweb.RepositoryRecord) bool { return indexOf(all, r) < testweb.RepositoryPageSize })
		s, _ := harvest.LoadState(t.Context(), st, cfg.Endpoint)
		reqs := requests(e.takeEvents())
		failed := reqs[len(reqs)-1]
		if tok := mustQuery(t, failed).Get("resumptionToken"); s.Token == "" || tok != s.Token || s.Started == "" || s.From != "" {
			t.Fatalf("state %+v after the failure at %s; want the failed page's token and the list's start", s, failed)
		}
		errs, err := st.SourceErrors(t.Context(), 0)
		if err != nil || len(errs) != 1 {
			t.Fatalf("source errors %+v, %v; want one", errs, err)
		}
		if se := errs[0]; se.Kind != harvest.SourceKind || se.Source != cfg.Endpoint || se.URL != origin+failed ||
			!strings.Contains(se.Error, "truncated") || se.URLs != 2*testweb.RepositoryPageSize {
			t.Errorf("source error %+v; want kind oai, the endpoint, the failed request, truncated, %d URLs", se, 2*testweb.RepositoryPageSize)
		}

		for run := 2; run <= pages; run++ {
			token := s.Token
			res, err = harvest.Run(t.Context(), cfg)
			reqs := requests(e.takeEvents())
			resume := "/oai/truncated?" + url.Values{"verb": {"ListRecords"}, "resumptionToken": {token}}.Encode()
			if len(reqs) < 3 || reqs[2] != resume || !res.Resumed {
				t.Fatalf("run %d requests %q (resumed %v); want the list resumed at token %q", run, reqs, res.Resumed, token)
			}
			last := run == pages
			if last != (err == nil) || res.Complete != last {
				t.Fatalf("run %d: %+v, %v", run, res, err)
			}
			s, _ = harvest.LoadState(t.Context(), st, cfg.Endpoint)
		}
		if s.Token != "" || s.From == "" {
			t.Errorf("state %+v after the list was read to its end", s)
		}
		checkQueued(t, st, all, func(testweb.RepositoryRecord) bool { return true })
		if errs, _ := st.SourceErrors(t.Context(), 0); len(errs) != pages-1 {
			t.Errorf("%d source errors, want %d (one per truncated page)", len(errs), pages-1)
		}
	})
}

func indexOf(all []testweb.RepositoryRecord, r testweb.RepositoryRecord) int {
	for i := range all {
		if all[i].Identifier == r.Identifier {
			return i
		}
	}
	return -1
}

// TestHarvestIncremental: a harvest after a complete one asks only for the
// records changed since that one began (from), and queues only theirs.
func TestHarvestIncremental(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() crawl.Store) {
		e := newEnv(t)
		all := e.repo.Records()

		// After a complete harvest, the next asks from its responseDate.
		st := open()
		cfg := e.config(t, st, "/oai")
		if _, err := harvest.Run(t.Context(), cfg); err != nil {
			t.Fatal(err)
		}
		first, _ := harvest.LoadState(t.Context(), st, cfg.Endpoint)
		e.takeEvents()
		e.web.Advance()
		res, err := harvest.Run(t.Context(), cfg)
		if err != nil || !res.Complete || res.From != first.From {
			t.Fatalf("second run %+v, %v; want complete, from %s", res, err, first.From)
		}
		reqs := requests(e.takeEvents())
		if q := mustQuery(t, reqs[2]); q.Get("from") != first.From || q.Get("metadataPrefix") != "oai_dc" {
			t.Errorf("the second harvest asked %s; want from=%s", reqs[2], first.From)
		}
		from, _ := time.Parse(time.RFC3339, first.From)
		newer := 0
		for _, r := range all {
			if !r.Datestamp.Before(from) {
				newer++
			}
		}
		if res.Records != newer {
			t.Errorf("second run read %d records; %d have changed since %s", res.Records, newer, first.From)
		}
		second, _ := harvest.LoadState(t.Context(), st, cfg.Endpoint)
		if second.From == first.From || second.From == "" {
			t.Errorf("state after the second harvest %+v; want a later from than %s", second, first.From)
		}

		// A crawl whose last harvest began in the middle of the records'
		// datestamps takes only those changed since.
		st2 := open()
		cfg2 := e.config(t, st2, "/oai")
		mid := all[len(all)/2].Datestamp
		if err := st2.SetSetting(t.Context(), harvest.Key(cfg2.Endpoint), `{"from":"`+mid.Format(time.RFC3339)+`"}`); err != nil {
			t.Fatal(err)
		}
		res, err = harvest.Run(t.Context(), cfg2)
		if err != nil || !res.Complete || res.From != mid.Format(time.RFC3339) {
			t.Fatalf("run from %s: %+v, %v", mid, res, err)
		}
		changed := func(r testweb.RepositoryRecord) bool { return !r.Datestamp.Before(mid) }
		n := 0
		for _, r := range all {
			if changed(r) {
				n++
			}
		}
		if res.Records != n || n == 0 || n == len(all) {
			t.Errorf("read %d records from %s; %d of %d have changed since", res.Records, mid, n, len(all))
		}
		checkQueued(t, st2, all, changed)
	})
}

// TestHarvestPolite: every request to the repository's host waits the
// crawl's delay after the one before, or the host's Crawl-delay when that
// is longer; a 503 is waited out as its Retry-After asks and the list
// goes on; an endpoint robots.txt forbids is not asked at all.
func TestHarvestPolite(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() crawl.Store) {
		for _, tc := range []struct {
			name, robots, path string
			gap                time.Duration // least time between two requests
		}{
			{"delay", "", "/oai", 2 * time.Second},
			{"crawl-delay", "User-agent: *\nCrawl-delay: 5\n", "/oai", 5 * time.Second},
			{"crawl-delay capped", "User-agent: acrawler\nCrawl-delay: 600\n", "/oai", 30 * time.Second},
			{"busy", "", "/oai/busy", 2 * time.Second},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e := newEnv(t)
				e.robots = tc.robots
				st := open()
				all := e.repo.Records()
				res, err := harvest.Run(t.Context(), e.config(t, st, tc.path))
				if err != nil || !res.Complete || res.Records != len(all) {
					t.Fatalf("Run: %+v, %v; want all %d records", res, err, len(all))
				}
				checkQueued(t, st, all, func(testweb.RepositoryRecord) bool { return true })
				events := e.takeEvents()
				var waited time.Duration
				n := 0
				asked := map[string]int{} // requests by token
				for i, ev := range events {
					if d, ok := strings.CutPrefix(ev, "sleep "); ok {
						dd, err := time.ParseDuration(d)
						if err != nil {
							t.Fatal(err)
						}
						waited += dd
						continue
					}
					if n > 0 && waited < tc.gap {
						t.Errorf("event %d %s came %s after the request before; want at least %s\n%s", i, ev, waited, tc.gap, strings.Join(events, "\n"))
					}
					if tok := mustQuery(t, strings.TrimPrefix(ev, "GET ")).Get("resumptionToken"); tok != "" {
						asked[tok]++
					}
					n++
					waited = 0
				}
				// The run ends a delay after its last request.
				if waited < tc.gap {
					t.Errorf("the run ended %s after its last request; want at least %s", waited, tc.gap)
				}
				// /oai/busy refuses the first request of each token once.
				pages := pageCount(len(all))
				want := 1
				if tc.path == "/oai/busy" {
					want = 2
				}
				for tok, k := range asked {
					if k != want {
						t.Errorf("token %s asked %d times, want %d", tok, k, want)
					}
				}
				if len(asked) != pages-1 || n != 2+pages+(want-1)*(pages-1) {
					t.Errorf("%d requests, %d tokens; want %d pages\n%s", n, len(asked), pages, strings.Join(events, "\n"))
				}
			})
		}
		t.Run("disallowed", func(t *testing.T) {
			e := newEnv(t)
			e.robots = "User-agent: *\nDisallow: /oai\n"
			st := open()
			cfg := e.config(t, st, "/oai")
			res, err := harvest.Run(t.Context(), cfg)
			if !errors.Is(err, harvest.ErrDisallowed) || res.Requests != 1 {
				t.Fatalf("Run: %+v, %v; want ErrDisallowed after robots.txt alone", res, err)
			}
			if reqs := requests(e.takeEvents()); len(reqs) != 1 || reqs[0] != "/robots.txt" {
				t.Errorf("requests %q; want robots.txt alone", reqs)
			}
			if errs, _ := st.SourceErrors(t.Context(), 0); len(errs) != 1 || errs[0].URL != cfg.Endpoint {
				t.Errorf("source errors %+v; want the endpoint refused", errs)
			}
		})
	})
}

// TestHarvestExpiredToken: a token the repository no longer knows (it was
// issued before the repository changed) restarts the list from its start,
// and the harvest completes.
func TestHarvestExpiredToken(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() crawl.Store) {
		e := newEnv(t)
		st := open()
		all := e.repo.Records()
		cfg := e.config(t, st, "/oai/truncated")
		if _, err := harvest.Run(t.Context(), cfg); !errors.Is(err, oai.ErrTruncated) {
			t.Fatalf("first run: %v; want a truncated page", err)
		}
		e.web.Advance() // the saved token expires
		e.takeEvents()
		cfg.Endpoint = origin + "/oai/truncated"
		res, err := harvest.Run(t.Context(), cfg)
		// The restarted list is truncated again at its second page.
		if !errors.Is(err, oai.ErrTruncated) && err != nil || !res.Resumed {
			t.Fatalf("second run: %+v, %v", res, err)
		}
		reqs := requests(e.takeEvents())
		if len(reqs) < 4 || mustQuery(t, reqs[2]).Get("resumptionToken") == "" || mustQuery(t, reqs[3]).Get("metadataPrefix") != "oai_dc" {
			t.Fatalf("requests %q; want the expired token, then the list from its start", reqs)
		}
		for range pageCount(len(all)) {
			if res, err = harvest.Run(t.Context(), cfg); err == nil {
				break
			}
		}
		if err != nil || !res.Complete {
			t.Fatalf("the harvest did not complete: %+v, %v", res, err)
		}
		checkQueued(t, st, all, func(testweb.RepositoryRecord) bool { return true })
	})
}

// TestHarvestDOI: a record's DOI is queued as its resolver URL when the
// crawl's scope takes doi.org.
func TestHarvestDOI(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() crawl.Store) {
		e := newEnv(t)
		st := open()
		cfg := e.config(t, st, "/oai")
		cfg.Admit = nil
		res, err := harvest.Run(t.Context(), cfg)
		if err != nil || !res.Complete {
			t.Fatalf("Run: %+v, %v", res, err)
		}
		dois := 0
		for _, r := range e.repo.Records() {
			if r.DOI == "" {
				continue
			}
			dois++
			u := "https://doi.org/" + strings.ToLower(r.DOI)
			if rec, err := st.URL(t.Context(), crawl.URLID(u)); err != nil || rec.Via != harvest.ViaOAI {
				t.Errorf("%s (record %s): %+v, %v; want it queued", u, r.Identifier, rec, err)
			}
		}
		if dois == 0 || res.Offered != 2*(len(e.repo.Records())-2)+dois {
			t.Errorf("%d URLs offered; want a landing page and a PDF per live record and %d DOIs", res.Offered, dois)
		}
	})
}
