package crawl

import (
	"context"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
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
	// ByWork asks for one hit per work: the best-ranked matching copy of
	// each work, and each matching page that is no copy of a work. Limit
	// and Offset then count such results, Total and Facets count them too
	// (a facet value counts the results a search filtered by it would
	// give). An index that cannot group leaves SearchResult.ByWork false
	// and answers pages.
	ByWork bool
}

// SearchHit is one result. Its texts are plain text: Snippet is a passage
// of the page (or its title, when only the title matches) and Marks the
// byte ranges of the matching words in it, in order, not overlapping;
// TitleMarks are those of Title, from indexes that highlight titles.
// Whoever shows a hit renders the marks (the HTTP API as <mark>).
type SearchHit struct {
	ID         ID        `json:"-"`
	URL        string    `json:"url"`
	Title      string    `json:"title"`
	TitleMarks [][2]int  `json:"title_marks,omitempty"`
	Snippet    string    `json:"snippet_text"`
	Marks      [][2]int  `json:"marks"`
	Score      float64   `json:"score"`
	Host       string    `json:"host"`
	Type       string    `json:"type"`
	DOI        string    `json:"doi"`
	Authors    []string  `json:"authors"`
	Year       int       `json:"year"`
	Lang       string    `json:"lang"`
	FetchedAt  time.Time `json:"fetched_at"`
}

// Marked returns the marked words of a text: text[m[0]:m[1]] for each
// mark, leaving out marks that are not ranges of text.
func Marked(text string, marks [][2]int) []string {
	var out []string
	for _, m := range marks {
		if 0 <= m[0] && m[0] < m[1] && m[1] <= len(text) {
			out = append(out, text[m[0]:m[1]])
		}
	}
	return out
}

// Highlighted reads a text whose matching words stand between the markers
// open and close (as full-text engines write snippets): it returns the
// text without the markers, its runs of white space joined into single
// spaces and trimmed, and the byte ranges of the matches in it. Empty and
// unclosed matches are left out, a marker inside a match is dropped, and
// adjacent matches stay apart.
func Highlighted(s, open, close string) (string, [][2]int) {
	var b strings.Builder
	b.Grow(len(s))
	var marks [][2]int
	start := -1    // start of the open match, or -1
	space := false // white space is pending
	for s != "" {
		switch {
		case strings.HasPrefix(s, open):
			s = s[len(open):]
			if start < 0 {
				start = b.Len()
			}
			continue
		case strings.HasPrefix(s, close):
			s = s[len(close):]
			if start >= 0 && b.Len() > start {
				marks = append(marks, [2]int{start, b.Len()})
			}
			start = -1
			continue
		}
		r, n := utf8.DecodeRuneInString(s)
		if unicode.IsSpace(r) {
			space = true
		} else {
			if space && b.Len() > 0 {
				if start == b.Len() {
					start++ // the match begins after the space
				}
				b.WriteByte(' ')
			}
			space = false
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String(), marks
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
	// ByWork is set when the hits, Total and Facets are by work, as
	// SearchRequest.ByWork asked.
	ByWork bool `json:"-"`
}

// Searcher answers searches: the store's embedded full-text index, or an
// external index.
type Searcher interface {
	// Search returns a page of results for r. An r.Query that holds no
	// word gives an empty result; one too broad to answer
	// (query.Query.Check) an error matching query.ErrTooBroad.
	Search(ctx context.Context, r SearchRequest) (SearchResult, error)
}

// Document is a page as a search index keeps it: what the outbox sends
// to an external index.
type Document struct {
	// ID is the content hash (hex): the same content crawled twice is one
	// document.
	ID                                      string
	URL, Title, Text, Host, Lang, Type, DOI string
	Authors                                 []string
	// Year is the publication year, 0 when unknown.
	Year int
	// Anchors holds the anchor texts of inbound links, searched as a field
	// of its own.
	Anchors []string
	// PageRank boosts the document at query time; <= 0 means none.
	PageRank  float64
	FetchedAt time.Time
}

// Index is a search index that is written document by document: an
// external index, fed by the outbox. (The stores' embedded indexes are
// Searchers written in the transaction that records a page.)
type Index interface {
	Searcher
	// Upsert adds the documents, replacing those with the same ID.
	Upsert(ctx context.Context, docs []Document) error
	// Delete removes the documents with these IDs; an ID that is not in
	// the index is not an error.
	Delete(ctx context.Context, ids []string) error
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
	return IndexableWith(p, p.Text != "")
}

// IndexableWith is Indexable for a page whose text a store holds apart
// (hasText: whether it has one).
func IndexableWith(p *Page, hasText bool) bool {
	if p.Status < 200 || p.Status > 299 || p.NoIndex || p.Blocked || p.DuplicateOf != 0 || p.NearDuplicateOf != 0 || p.Gone != Active {
		return false
	}
	if IsAlias(p) {
		return false
	}
	switch p.ContentType {
	case "text/html", "application/xhtml+xml", "application/pdf":
		return hasText || p.Title != ""
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
