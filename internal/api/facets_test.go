package api_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/api"
	"github.com/acrawler/acrawler/internal/crawl"
)

// manyYears is a backend whose searches count one page for each year
// 1990-2025, a year no search can filter for (9999, from a PDF's
// creation date), unknown years (0), and a long host name.
type manyYears struct{ api.Backend }

const longHostKey = "https://library.department-of-computational-linguistics.northfield-university.test"

func (manyYears) Search(ctx context.Context, r crawl.SearchRequest) (crawl.SearchResult, error) {
	f := crawl.Facets{Year: map[int]int{0: 7, 9999: 1}, Host: map[string]int{longHostKey: 36}, Type: map[string]int{"article": 36}}
	for y := 1990; y <= 2025; y++ {
		f.Year[y] = 1
	}
	return crawl.SearchResult{Total: 36, Hits: []crawl.SearchHit{{URL: longHostKey + "/a", Title: "A", Host: longHostKey}}, Facets: f}, nil
}

// The year facet shows every year the backend counted, newest first, but
// for one no search can filter for (TestFacetLinksAreAccepted). Host names
// are shown whole.
func TestFacetsShowEveryYearAndWholeHosts(t *testing.T) {
	s, _ := newServerFor(t, manyYears{api.StoreBackend(collection(t), 0)})
	body := get(t, s, "/?q=x").Body.String()
	start := strings.Index(body, `data-facet="year"`)
	end := strings.Index(body, `data-facet="host"`)
	if start < 0 || end < start {
		t.Fatalf("no year facet before the host facet:\n%s", body)
	}
	var got []string
	for _, m := range regexp.MustCompile(`<span class="v">(\d+)</span>`).FindAllStringSubmatch(body[start:end], -1) {
		got = append(got, m[1])
	}
	var want []string
	for y := 2025; y >= 1990; y-- {
		want = append(want, fmt.Sprint(y))
	}
	if !slices.Equal(got, want) {
		t.Errorf("year facet shows %v, want %v", got, want)
	}
	if !strings.Contains(body, "year_from=1990&amp;year_to=1990") {
		t.Errorf("year 1990 has no link:\n%s", body[start:end])
	}
	if !strings.Contains(body, `<span class="v">library.department-of-computational-linguistics.northfield-university.test</span>`) {
		t.Errorf("the host facet does not show the host name whole:\n%s", body[end:])
	}
}
