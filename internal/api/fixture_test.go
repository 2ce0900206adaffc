package api_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

// The test collection's known documents.
const (
	urlSurvey  = "https://uni-a.example.edu/papers/focused-crawling"
	urlNotes   = "https://uni-a.example.edu/notes/search-engines"
	urlThesis  = "https://uni-b.example.org/thesis/web-archiving"
	urlPerson  = "https://uni-b.example.org/people/grace"
	urlPrint   = "https://preprints.example.net/abs/2401.00001"
	urlHostile = "https://uni-b.example.org/odd"
	urlHidden  = "https://uni-a.example.edu/private"
	urlGone    = "https://uni-a.example.edu/gone"
	hostA      = "https://uni-a.example.edu"
	hostB      = "https://uni-b.example.org"
	hostTrap   = "https://calendar.example.com"

	// A phrase only the survey holds, in its body.
	uniquePhrase = "zymurgical lattice"
	hostileTitle = `<script>alert("title")</script> Tricky & "quoted"`
)

// fixedNow is the time the test crawl happens at.
var fixedNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// corpus is the small collection most tests search: a survey whose title
// says "focused crawling", notes that say it only in their body, a thesis,
// a person, a preprint, a page whose title is hostile HTML, a noindex page,
// a 404, and filler pages about crawling spread over three hosts so that
// searches for "crawling" have several pages of results.
func corpus() (pages []*crawl.Page, links map[string][]crawl.Link) {
	pages = []*crawl.Page{
		{URL: urlSurvey, Title: "A survey of focused crawling strategies", Lang: "en",
			MainText: "Focused crawlers fetch the pages most likely to be relevant first.\n\nWe model the frontier as a " + uniquePhrase + " of priorities and compare best-first, shark search and reinforcement learning.",
			Meta: &crawl.Metadata{Type: "article", TypeRule: "highwire", Year: 2021, DOI: "10.1234/fc.2021", Venue: "Journal of Web Studies",
				Authors: []string{"Ada Lovelace", "Alan Turing"}}},
		{URL: urlNotes, Title: "Lecture notes on search engines", Lang: "en",
			MainText: "Week three covers focused crawling and how a frontier decides what to fetch next.",
			Meta:     &crawl.Metadata{Type: "other", Year: 2019}},
		{URL: urlThesis, Title: "Web archiving at scale", Lang: "en",
			MainText: "This thesis studies crawling for web archives, with politeness and deduplication.",
			Meta:     &crawl.Metadata{Type: "thesis", Year: 2023, Authors: []string{"Grace Hopper"}}},
		{URL: urlPerson, Title: "Grace Hopper, home page", Lang: "en",
			MainText: "I work on compilers and, lately, on crawling scholarly repositories.",
			Meta:     &crawl.Metadata{Type: "person"}},
		{URL: urlPrint, Title: "Crawling the academic web on a budget", Lang: "en",
			MainText: "A preprint on budgeted crawling: byte budgets, page budgets and host caps.",
			Meta:     &crawl.Metadata{Type: "preprint", Year: 2024, DOI: "10.48550/arXiv.2401.00001"}},
		{URL: urlHostile, Title: hostileTitle, Lang: "en",
			MainText: `Body with <b>tags</b> & "quotes" about crawling <img src=x onerror=alert(1)>.`},
		{URL: urlHidden, Title: "Focused crawling secrets", MainText: "focused crawling noindex", NoIndex: true},
		{URL: urlGone, Title: "Focused crawling gone", MainText: "not found", Status: 404},
	}
	hosts := []string{hostA, hostB, "https://preprints.example.net"}
	types := []string{"article", "preprint", "thesis"}
	for i := range 24 {
		pages = append(pages, &crawl.Page{
			URL:      fmt.Sprintf("%s/reports/%02d", hosts[i%3], i),
			Title:    fmt.Sprintf("Report %02d on distributed systems", i),
			MainText: fmt.Sprintf("Progress report %d. The crawling experiments continue with run %d.", i, i*7),
			Lang:     []string{"en", "de"}[i%2],
			Meta:     &crawl.Metadata{Type: types[i%3], Year: 2015 + i%5},
		})
	}
	links = map[string][]crawl.Link{
		urlSurvey: {
			{TargetID: crawl.URLID(urlThesis), Target: urlThesis, Anchor: "a thesis on web archiving"},
			{TargetID: crawl.URLID(urlPrint), Target: urlPrint, Anchor: "budgeted crawling", NoFollow: true},
			{TargetID: crawl.URLID("https://elsewhere.example/unfetched"), Target: "https://elsewhere.example/unfetched", Anchor: "<not fetched>"},
		},
		urlNotes: {{TargetID: crawl.URLID(urlSurvey), Target: urlSurvey, Anchor: "survey of focused crawling"}},
		urlPrint: {{TargetID: crawl.URLID(urlSurvey), Target: urlSurvey, Anchor: "the survey"}},
	}
	return pages, links
}

// bigCorpus is n generated pages over 10 hosts for benchmarks, with a few
// common words and many rarer ones.
func bigCorpus(n int) []*crawl.Page {
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields(`crawling frontier politeness budget thesis article preprint archive metadata citation
		graph rank index query search snippet host robots sitemap duplicate canonical language science physics biology
		chemistry history economics network learning neural quantum protein climate energy material theory data model`)
	types := []string{"article", "preprint", "thesis", "person", "listing", "other"}
	pages := make([]*crawl.Page, n)
	for i := range pages {
		var text strings.Builder
		for j := range 150 {
			if j > 0 {
				text.WriteByte(' ')
			}
			text.WriteString(words[r.IntN(len(words))])
			if r.IntN(10) == 0 {
				fmt.Fprintf(&text, " term%d", r.IntN(5000))
			}
		}
		pages[i] = &crawl.Page{
			URL:      fmt.Sprintf("https://host%d.example.edu/doc/%d", i%10, i),
			Title:    words[r.IntN(len(words))] + " " + words[r.IntN(len(words))] + fmt.Sprintf(" %d", i),
			MainText: text.String(),
			Lang:     "en",
			Meta:     &crawl.Metadata{Type: types[i%len(types)], Year: 1990 + r.IntN(36), Authors: []string{"A. Author", "B. Author"}},
		}
	}
	return pages
}

func normalizer(t testing.TB) func(string) (string, error) {
	t.Helper()
	n, err := urlnorm.New(urlnorm.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return n.Normalize
}

// fill is fillStore in a test's temp dir, with a crawl history.
func fill(t testing.TB, pages []*crawl.Page, links map[string][]crawl.Link) *sqlite.DB {
	t.Helper()
	st, err := fillStore(t.TempDir(), pages, links, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// fillStore records pages (with their outlinks) in a new SQLite store in
// dir through the store API, as a crawl would, then reopens it read-only
// as `acrawler serve` does. With history, it also records metric
// intervals for the dashboard and a trap host, recorded as a mirror.
func fillStore(dir string, pages []*crawl.Page, links map[string][]crawl.Link, history bool) (_ *sqlite.DB, err error) {
	ctx := context.Background()
	path := filepath.Join(dir, "crawl.db")
	st, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			st.Close()
		}
	}()
	byURL := map[string]*crawl.Page{}
	var add []crawl.NewURL
	for _, p := range pages {
		byURL[p.URL] = p
		add = append(add, newURL(p.URL))
	}
	if history { // a trap host with a few calendar pages
		for i := range 3 {
			add = append(add, newURL(fmt.Sprintf("%s/cal?day=%d", hostTrap, i)))
		}
	}
	if _, err := st.AddURLs(ctx, add, crawl.Limits{}); err != nil {
		return nil, err
	}
	for {
		hs, err := st.ClaimHosts(ctx, "fill", 20, time.Minute, fixedNow)
		if err != nil {
			return nil, err
		}
		if len(hs) == 0 {
			break
		}
		var rel []crawl.HostRelease
		for _, h := range hs {
			for {
				cs, _, err := st.ClaimURLs(ctx, "fill", h.ID, 500, crawl.Limits{}, fixedNow)
				if err != nil {
					return nil, err
				}
				if len(cs) == 0 {
					break
				}
				var rs []crawl.Result
				for _, c := range cs {
					rs = append(rs, result(c, byURL[c.URL], links[c.URL]))
				}
				if _, err := st.Commit(ctx, rs, crawl.Limits{}); err != nil {
					return nil, err
				}
			}
			rel = append(rel, crawl.HostRelease{ID: h.ID})
		}
		if err := st.ReleaseHosts(ctx, "fill", rel); err != nil {
			return nil, err
		}
	}
	if history { // the trap host recorded as a mirror of uni-a
		if err := st.MarkMirror(ctx, crawl.HashID(hostTrap), crawl.HashID(hostA)); err != nil {
			return nil, err
		}
	}
	for i := range 12 {
		if !history {
			break
		}
		m := crawl.Metrics{At: fixedNow.Add(time.Duration(i-12) * time.Minute), Owner: "fill", Interval: time.Minute,
			Fetched: int64(20 + i), Useful: int64(15 + i), New: int64(60 - 4*i), Known: int64(10 + 3*i), Discovered: int64(70 - i),
			Errors: int64(i % 3), Bytes: int64(1e6), Frontier: int64(400 + 35*i - i*i*2)}
		if err := st.RecordMetrics(ctx, m); err != nil {
			return nil, err
		}
	}
	if err := st.Close(); err != nil {
		return nil, err
	}
	return sqlite.Open(ctx, path, sqlite.Options{ReadOnly: true})
}

func newURL(raw string) crawl.NewURL {
	u, err := url.Parse(raw)
	if err != nil {
		panic(err)
	}
	host := u.Scheme + "://" + u.Host
	return crawl.NewURL{ID: crawl.URLID(raw), URL: raw, HostID: crawl.HashID(host), Host: host, Via: crawl.ViaSeed}
}

// result is the fetch result of a claimed URL: its page from the corpus,
// or a trap-calendar page.
func result(c crawl.ClaimedURL, p *crawl.Page, links []crawl.Link) crawl.Result {
	if p == nil {
		p = &crawl.Page{URL: c.URL, Title: "Calendar", MainText: "Events on " + c.URL}
	}
	if p.Status == 0 {
		p.Status = 200
	}
	if p.ContentType == "" {
		p.ContentType = "text/html"
	}
	if p.Text == "" {
		p.Text = p.MainText
	}
	p.FetchedAt = fixedNow
	p.Bytes = int64(len(p.Text)) + 2000
	h := crawl.HashID(p.URL + p.Text)
	p.ContentHash = []byte(fmt.Sprintf("%016x%016x", uint64(h), uint64(h)))
	r := crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Page: p, Links: links}
	if strings.HasPrefix(c.URL, hostTrap) {
		r.Host.Trap = "calendar: unbounded ?day= parameter"
	}
	return r
}
