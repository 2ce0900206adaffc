package app

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/testweb"
)

// TestWorksOfHarvestedRecords crawls Northfield University's sites and its
// repository with --oai: every record the repository lists is a
// repository copy of its paper's work, from its Dublin Core, beside the
// deposit's landing page and PDF and the original publication; a field
// comes from the record's Dublin Core only where no copy with citation
// tags or JSON-LD states it, and says so; the withdrawn records are no
// copies. The clustering of the copies (pages and records) is measured
// against the web's truth, as TestWorksOfTheTestWeb measures pages.
func TestWorksOfHarvestedRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the test web")
	}
	apptest.ForEachBackend(t, func(t *testing.T, be apptest.Backend) {
		web := apptest.NewWeb(t, testweb.Config{Seed: 29, PagesPerSite: 10, NoFaults: true})
		repo := testweb.NewRepository(web.Web)
		db := be.NewDB(t)
		endpoint := "http://" + testweb.RepositoryHost + "/oai"
		mustCrawl(t, web.CrawlArgs(db, "--delay", "0", "--max-crawl-delay", "1ms", "--oai", endpoint,
			"http://www.northfield-university.test/", "http://cs.northfield-university.test/", "http://"+testweb.RepositoryHost+"/")...)
		ctx := context.Background()
		st, err := openStoreReadOnly(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		ws := st.(crawl.WorkStore)

		// The records' copies, by OAI identifier.
		type recCopy struct {
			work *crawl.Work
			c    crawl.WorkCopy
		}
		records := map[string]recCopy{}
		paperOf := map[crawl.ID]string{}
		for _, p := range web.Papers() {
			for _, u := range p.URLs {
				paperOf[crawl.URLID(u)] = p.ID
			}
		}
		var truth []copyTruth
		for w, err := range ws.Works(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range w.Copies {
				paper := paperOf[c.PageID]
				if strings.Contains(c.URL, "verb=GetRecord") {
					u, err := url.Parse(c.URL)
					if err != nil {
						t.Fatal(err)
					}
					id := u.Query().Get("identifier")
					if _, dup := records[id]; dup {
						t.Errorf("record %s has two copies", id)
					}
					records[id] = recCopy{w, c}
					paper = "record " + id // known once the records are read
				}
				truth = append(truth, copyTruth{page: c.PageID, work: w.ID, paper: paper})
			}
		}
		live, fromDC, citationOver := 0, 0, 0
		paperOfRecord := map[string]string{}
		for _, r := range repo.Records() {
			rc, ok := records[r.Identifier]
			if r.Deleted {
				if ok {
					t.Errorf("withdrawn record %s is a copy of work %d", r.Identifier, rc.work.ID)
				}
				continue
			}
			live++
			if !ok {
				t.Errorf("record %s (%s) is a copy of no work", r.Identifier, r.Title)
				continue
			}
			w, c := rc.work, rc.c
			paperOfRecord["record "+r.Identifier] = paperOf[crawl.URLID(r.Landing)]
			if c.Kind != "repository" || c.Source != "dublincore" {
				t.Errorf("record %s: copy %+v, want a repository copy from Dublin Core", r.Identifier, c)
			}
			// The deposit's landing page and PDF, and the original, are
			// copies of the same work.
			for _, u := range []string{r.Landing, r.PDF, r.Original} {
				if u == "" {
					continue
				}
				if o, err := ws.WorkOf(ctx, crawl.URLID(u)); err != nil || o.ID != w.ID {
					t.Errorf("record %s: %s in work %v (%v), the record in %d", r.Identifier, u, workID(o), err, w.ID)
				}
			}
			// The landing page's citation tags come before the record's
			// Dublin Core; the record gives what they do not state.
			if f := w.Fields["title"]; f.Source != "citation" {
				t.Errorf("record %s: title from %+v, want citation tags", r.Identifier, f)
			}
			if !contains(w.Keywords, r.Subject()) {
				t.Errorf("record %s: keywords %q without the record's subject %q", r.Identifier, w.Keywords, r.Subject())
			}
			for name, f := range w.Fields {
				if f.Source == "dublincore" && f.URL == c.URL {
					fromDC++
				}
				_ = name
			}
			switch f := w.Fields["publisher"]; {
			case w.Publisher == "":
				t.Errorf("record %s: no publisher (the record states one)", r.Identifier)
			case f.Source == "dublincore" && f.URL == c.URL:
				if w.Publisher != "Northfield University" {
					t.Errorf("record %s: publisher %q from the record", r.Identifier, w.Publisher)
				}
			case f.Source == "citation" || f.Source == "jsonld":
				citationOver++
			default:
				t.Errorf("record %s: publisher %q from %+v, neither the record nor a better source", r.Identifier, w.Publisher, f)
			}
			if r.Original == "" {
				// Found only in the repository: the abstract is the
				// record's description.
				if f := w.Fields["abstract"]; w.Abstract != r.Abstract() || f.Source != "dublincore" || f.URL != c.URL {
					t.Errorf("record %s: abstract %q from %+v, want the record's", r.Identifier, w.Abstract, f)
				}
			}
		}
		for i := range truth {
			if p, ok := paperOfRecord[truth[i].paper]; ok {
				truth[i].paper = p
			}
		}
		m := measure(truth)
		t.Logf("%d records (%d live), %d fields of works from their Dublin Core, %d publishers from better sources; %s",
			len(repo.Records()), live, fromDC, citationOver, m)
		if live == 0 || fromDC == 0 {
			t.Errorf("no record's Dublin Core reached a work")
		}
		if m.precision() < 1 || m.recall() < 1 || len(m.mixed) > 0 {
			t.Errorf("clustering with the records: %s", m)
		}
	})
}

func workID(w *crawl.Work) int64 {
	if w == nil {
		return 0
	}
	return w.ID
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// copyTruth is a copy of a work and the paper it is a copy of ("" for
// none of the web's papers).
type copyTruth struct {
	page  crawl.ID
	work  int64
	paper string
}

// pairs measures a clustering by pairs of copies of papers.
type pairs struct {
	tp, fp, fn, copies int
	mixed              []string
}

func (m pairs) precision() float64 { return frac(m.tp, m.tp+m.fp) }
func (m pairs) recall() float64    { return frac(m.tp, m.tp+m.fn) }

func frac(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func (m pairs) String() string {
	return fmt.Sprintf("precision %.4f recall %.4f over %d copies of papers (pairs: %d true, %d false, %d missed); mixed works %q",
		m.precision(), m.recall(), m.copies, m.tp, m.fp, m.fn, m.mixed)
}

func measure(copies []copyTruth) pairs {
	var m pairs
	var known []copyTruth
	papersOf := map[int64]map[string]bool{}
	for _, c := range copies {
		if c.paper == "" {
			continue
		}
		known = append(known, c)
		if papersOf[c.work] == nil {
			papersOf[c.work] = map[string]bool{}
		}
		papersOf[c.work][c.paper] = true
	}
	m.copies = len(known)
	for w, ps := range papersOf {
		if len(ps) > 1 {
			var names []string
			for p := range ps {
				names = append(names, p)
			}
			sort.Strings(names)
			m.mixed = append(m.mixed, fmt.Sprintf("work %d: %v", w, names))
		}
	}
	for i, a := range known {
		for _, b := range known[i+1:] {
			switch samePaper, sameWork := a.paper == b.paper, a.work == b.work; {
			case samePaper && sameWork:
				m.tp++
			case sameWork:
				m.fp++
			case samePaper:
				m.fn++
			}
		}
	}
	return m
}
