package frontier

import (
	"testing"

	"github.com/acrawler/acrawler/internal/score"
)

// TestAvoidedPagesBelowValueFloor: the pages the default priority policy
// avoids by their own URL or anchor (about, news and events listings,
// dated posts) rank below the default ValueFloor, so that their host's
// value does not lift them, however their site lifts them otherwise: a
// topic word in the host's name ("-university", "-journal"), linked from
// every page of the site (the largest inbound-link bonus) or, for a post,
// from its listing and one more page.
// Above the floor, a research site's value would lift its about and news
// pages above other hosts' research under a page budget.
func TestAvoidedPagesBelowValueFloor(t *testing.T) {
	p, err := score.New(score.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var cfg Config
	cfg.defaults()
	bonus, most := p.InlinkBonus()
	for _, c := range []struct {
		url, anchor, from string
		depth, inlinks    int // inlinks 0: linked from every page
	}{
		{"http://elsworth8-university.test/acerca", "Acerca", "http://elsworth8-university.test/", 1, 0},
		{"http://redcliff6-university.test/chi-siamo", "Chi siamo", "http://redcliff6-university.test/", 1, 0},
		{"http://lorne23-journal.test/about", "About us", "http://lorne23-journal.test/", 1, 0},
		{"http://corrin1-university.test/actualites/", "Actualités", "http://corrin1-university.test/", 1, 0},
		{"http://marston22-institute.test/events/", "Events", "http://marston22-institute.test/", 1, 0},
		{"http://oakridge4-university.test/haberler/", "Haberler", "http://oakridge4-university.test/", 1, 0},
		{"http://x-university.test/2024/05/open-day", "Open day", "http://x-university.test/blog/", 2, 2},
	} {
		inlinks := most
		if c.inlinks > 0 {
			inlinks = min(c.inlinks*bonus, most)
		}
		prio := p.Score(c.url, c.anchor, c.depth) + p.Context(c.from) + inlinks
		if prio >= cfg.ValueFloor {
			t.Errorf("%s (anchor %q, from %s): priority up to %d, not below the value floor %d", c.url, c.anchor, c.from, prio, cfg.ValueFloor)
		}
	}
}
