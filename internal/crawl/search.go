package crawl

import (
	"context"
	"time"
)

// SearchRequest is a user's search. Query is the raw text the user typed:
// indexes parse it (phrases in quotes, -exclusion, prefix*) and treat any
// other character as text.
type SearchRequest struct {
	Query          string
	Limit, Offset  int
	Host, Type     string // filters: exact host key ("https://www.example.edu") and page type
	Lang           string
	YearFrom       int // 0: no bound
	YearTo         int
	PageRankWeight float64 // how much link-graph rank moves the score (0: none)
}

// SearchHit is one result.
type SearchHit struct {
	ID        ID        `json:"-"`
	URL       string    `json:"url"`
	Title     string    `json:"title"`
	Snippet   string    `json:"snippet"` // HTML: escaped text with the matching words in <mark>
	Score     float64   `json:"score"`
	Host      string    `json:"host"`
	Type      string    `json:"type"`
	DOI       string    `json:"doi"`
	Authors   []string  `json:"authors"`
	Year      int       `json:"year"`
	Lang      string    `json:"lang"`
	FetchedAt time.Time `json:"fetched_at"`
}

// Facets count the matching documents per host, type and year.
type Facets struct {
	Host map[string]int `json:"host"`
	Type map[string]int `json:"type"`
	Year map[int]int    `json:"year"`
}

// SearchResult is a page of results.
type SearchResult struct {
	Total int `json:"total"`
	// Estimated is set when Total and the facet counts are estimates (or,
	// from OpenSearch, lower bounds) rather than exact counts: an index
	// may count only part of a very large set of matches.
	Estimated bool          `json:"total_estimated"`
	Hits      []SearchHit   `json:"results"`
	Facets    Facets        `json:"facets"`
	Took      time.Duration `json:"-"`
}

// Searcher answers searches: the store's embedded full-text index, or an
// external index.
type Searcher interface {
	Search(ctx context.Context, r SearchRequest) (SearchResult, error)
}

// Inlink is a link to a page, seen from the target.
type Inlink struct {
	Source   ID     `json:"-"`
	URL      string `json:"url"`
	Anchor   string `json:"anchor"`
	NoFollow bool   `json:"nofollow,omitempty"`
}

// IsAlias reports whether a page names another URL as its canonical one:
// it is recorded as an alias, is not indexed, and does not own its content
// (the canonical page does, even when fetched after it).
func IsAlias(p *Page) bool {
	return p.Canonical != "" && p.Canonical != p.URL
}

// Indexable reports whether a recorded page is a search result of its
// own: a successful HTML or PDF answer that is not noindex, a soft block, a
// duplicate, a near-duplicate or an alias of another canonical URL.
func Indexable(p *Page) bool {
	if p.Status < 200 || p.Status > 299 || p.NoIndex || p.Blocked || p.DuplicateOf != 0 || p.NearDuplicateOf != 0 || p.Gone != Active {
		return false
	}
	if IsAlias(p) {
		return false
	}
	switch p.ContentType {
	case "text/html", "application/xhtml+xml", "application/pdf":
		return p.Text != "" || p.Title != ""
	}
	return false
}

// ChangeStat is how often the pages of one host and type changed when
// revisited.
type ChangeStat struct {
	Host      string `json:"host"`
	Type      string `json:"type"`
	Checks    int64  `json:"checks"`
	Changed   int64  `json:"changed"`
	Unchanged int64  `json:"unchanged"` // 304 or the same content
	Missing   int64  `json:"missing"`   // 404/410
}

// OutboxItem is one pending operation on the external index: index a
// document (keyed by its content hash) or delete one.
type OutboxItem struct {
	ID       int64
	Op       string // "upsert" or "delete"
	Key      string // document key: the content hash in hex
	Page     *Page  // for upserts: the page as recorded
	Host     string
	Anchors  string // anchor texts of links to the page
	PageRank float64
}
