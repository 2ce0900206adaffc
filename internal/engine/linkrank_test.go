package engine

import (
	"net/http"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/scope"
)

// A site whose URLs say nothing of their pages (/node/N for a paper and a
// news story alike): the story found on the news listing ranks below the
// paper found on the publication listing, by the listing that links them;
// a link to another host ranks by its own URL whatever the page.
func TestLinksRankByTheirListing(t *testing.T) {
	tc := newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) {
		switch r.Host + r.URL.Path {
		case "a.test/":
			html(rw, `<a href="/news/">News</a> <a href="/publications/">Publications</a>`)
		case "a.test/news/":
			html(rw, `<a href="/node/1">A new building</a> <a href="http://b.test/node/3">Elsewhere</a>`)
		case "a.test/publications/":
			html(rw, `<a href="/node/2">On crawling</a> <a href="http://b.test/node/4">Elsewhere</a>`)
		default:
			html(rw, `a page`)
		}
	}, "http://a.test/")
	sc, err := scope.New(scope.Any, tc.cfg.Seeds, nil, scope.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	tc.cfg.Scope = sc
	tc.crawl(20 * time.Second)
	prio := func(u string) int {
		t.Helper()
		rec, ok := tc.url(u)
		if !ok {
			t.Fatalf("%s not queued", u)
		}
		return rec.Priority
	}
	story, paper := prio("http://a.test/node/1"), prio("http://a.test/node/2")
	if story >= paper {
		t.Errorf("the story on the news listing ranks %d, the paper on the publication listing %d: want the paper first", story, paper)
	}
	if b3, b4 := prio("http://b.test/node/3"), prio("http://b.test/node/4"); b3 != b4 {
		t.Errorf("links to another host rank %d (from the news) and %d (from the publications): want them equal", b3, b4)
	}
}
