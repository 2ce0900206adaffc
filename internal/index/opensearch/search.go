package opensearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
)

// Search limits.
const (
	// DefaultLimit is the page size when SearchRequest.Limit is 0.
	DefaultLimit = 10
	// MaxLimit caps SearchRequest.Limit.
	MaxLimit = 100
	// MaxWindow is OpenSearch's default index.max_result_window: hits past
	// Offset+Limit > MaxWindow are not returned.
	MaxWindow = 10000
	// facetSize is the number of buckets asked for per host and type
	// facet; yearFacetSize covers every year a search can filter for, so
	// the year facet lists every year that has results, as the embedded
	// stores do.
	facetSize     = 20
	yearFacetSize = 1101
	// snippetSize is the length of a snippet, in characters.
	snippetSize = 200
)

// Search runs r: r.Query is parsed (query.Parse) into a bool query. A
// query too broad to answer (query.Query.Check) is an error matching
// query.ErrTooBroad, before any request; one with nothing positive to
// match returns an empty result without a request. A page past MaxWindow
// returns the total and facets without hits. Hits' snippets and titles
// are plain text, the matched words given as byte offsets. Other errors
// are *Error values, or the context's error when ctx ended;
// errors.Is(err, ErrUnavailable) tells whether to retry.
func (c *Client) Search(ctx context.Context, r crawl.SearchRequest) (crawl.SearchResult, error) {
	const op = "search"
	q := query.Parse(r.Query)
	if err := q.Check(); err != nil {
		return crawl.SearchResult{}, fmt.Errorf("opensearch: %s: %w", op, err)
	}
	if q.IsEmpty() {
		return crawl.SearchResult{}, nil
	}
	body, err := json.Marshal(searchBody(q, r))
	if err != nil {
		return crawl.SearchResult{}, &Error{Op: op, Err: err}
	}
	req := &opensearchapi.SearchReq{Indices: []string{c.index}, Body: bytes.NewReader(body)}
	_, resp, err := c.do(ctx, op, http.MethodPost, req)
	if err != nil {
		return crawl.SearchResult{}, err
	}
	res, err := parseSearch(resp)
	if err != nil {
		return crawl.SearchResult{}, &Error{Op: op, Status: http.StatusOK, Reason: "unreadable response: " + err.Error()}
	}
	return res, nil
}

// obj is a JSON object of the query DSL.
type obj = map[string]any

// Fields searched for positive words and phrases, with their boosts: each
// text field in its three analyses.
var (
	matchFields = []string{
		"title^3", "title.en^3", "title.tr^3",
		"anchors^2", "anchors.en^2", "anchors.tr^2",
		"text", "text.en", "text.tr",
	}
	// exactFields are the unstemmed fields: for prefixes (stemming a
	// partial word makes no sense) and exclusions.
	exactFields = []string{"title^3", "anchors^2", "text"}
)

// termClause returns the clause matching one term of a query.
func termClause(t query.Term) obj {
	mm := obj{"query": strings.Join(t.Words, " ")}
	switch {
	case t.Prefix:
		// The last word is a prefix: of a single word, or of a phrase.
		mm["type"] = "phrase_prefix"
		mm["fields"] = exactFields
	case t.Exclude:
		mm["type"] = "phrase"
		mm["fields"] = exactFields
	case t.Phrase:
		mm["type"] = "phrase"
		mm["fields"] = matchFields
	default:
		// The same text analyzed three ways: most_fields adds the scores
		// of the analyses that match.
		mm["type"] = "most_fields"
		mm["fields"] = matchFields
	}
	return obj{"multi_match": mm}
}

// searchBody returns the _search request body for r, its query parsed
// as q.
func searchBody(q query.Query, r crawl.SearchRequest) obj {
	var must, mustNot []any
	for _, t := range q.Terms {
		if t.Exclude {
			mustNot = append(mustNot, termClause(t))
		} else {
			must = append(must, termClause(t))
		}
	}
	var filter []any
	for _, f := range [...]struct{ field, value string }{{"host", r.Host}, {"type", r.Type}, {"lang", r.Lang}} {
		if f.value != "" {
			filter = append(filter, obj{"term": obj{f.field: f.value}})
		}
	}
	if r.YearFrom != 0 || r.YearTo != 0 {
		rng := obj{}
		if r.YearFrom != 0 {
			rng["gte"] = r.YearFrom
		}
		if r.YearTo != 0 {
			rng["lte"] = r.YearTo
		}
		filter = append(filter, obj{"range": obj{"year": rng}})
	}
	boolQ := obj{"must": must}
	if len(mustNot) > 0 {
		boolQ["must_not"] = mustNot
	}
	if len(filter) > 0 {
		boolQ["filter"] = filter
	}
	if w := r.PageRankWeight; w > 0 && !math.IsInf(w, 0) {
		boolQ["should"] = []any{obj{"rank_feature": obj{"field": "pagerank", "saturation": obj{}, "boost": w}}}
	}

	limit := r.Limit
	switch {
	case limit <= 0:
		limit = DefaultLimit
	case limit > MaxLimit:
		limit = MaxLimit
	}
	offset := max(r.Offset, 0)
	if offset >= MaxWindow {
		offset, limit = 0, 0 // past the window: count and facets only
	} else {
		limit = min(limit, MaxWindow-offset)
	}

	return obj{
		"from":    offset,
		"size":    limit,
		"query":   obj{"bool": boolQ},
		"_source": obj{"excludes": []string{"text", "anchors"}},
		"highlight": obj{
			"pre_tags":  []string{"<mark>"},
			"post_tags": []string{"</mark>"},
			"encoder":   "html",
			// Highlight with the positive clauses only, in any field, so
			// that a stemmed match (text.en) marks the word in text.
			"highlight_query":     obj{"bool": obj{"should": must}},
			"require_field_match": false,
			"fields": obj{
				"title": obj{"number_of_fragments": 0},
				"text": obj{
					"fragment_size":       snippetSize,
					"number_of_fragments": 1,
					"no_match_size":       snippetSize,
				},
			},
		},
		"aggs": obj{
			"host": obj{"terms": obj{"field": "host", "size": facetSize}},
			"type": obj{"terms": obj{"field": "type", "size": facetSize}},
			"year": obj{"terms": obj{"field": "year", "size": yearFacetSize}},
		},
	}
}

// searchResponse is the part of a _search response that Search reads.
type searchResponse struct {
	Took int64 `json:"took"`
	Hits struct {
		Total struct {
			Value    int    `json:"value"`
			Relation string `json:"relation"` // "eq", or "gte" for a lower bound
		} `json:"total"`
		Hits []struct {
			ID        string              `json:"_id"`
			Score     *float64            `json:"_score"`
			Source    hitSource           `json:"_source"`
			Highlight map[string][]string `json:"highlight"`
		} `json:"hits"`
	} `json:"hits"`
	Aggregations map[string]struct {
		Buckets []struct {
			Key      json.RawMessage `json:"key"`
			DocCount int             `json:"doc_count"`
		} `json:"buckets"`
	} `json:"aggregations"`
}

// hitSource is the returned part of a document's _source.
type hitSource struct {
	URL       string   `json:"url"`
	Title     string   `json:"title"`
	Host      string   `json:"host"`
	Type      string   `json:"type"`
	Lang      string   `json:"lang"`
	DOI       string   `json:"doi"`
	Authors   []string `json:"authors"`
	Year      int      `json:"year"`
	FetchedAt string   `json:"fetched_at"`
}

// parseSearch reads a _search response.
func parseSearch(body []byte) (crawl.SearchResult, error) {
	var r searchResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return crawl.SearchResult{}, err
	}
	res := crawl.SearchResult{
		Total:     r.Hits.Total.Value,
		Estimated: r.Hits.Total.Relation == "gte",
		Took:      time.Duration(r.Took) * time.Millisecond,
		Facets: crawl.Facets{
			Host: stringBuckets(r, "host"),
			Type: stringBuckets(r, "type"),
			Year: map[int]int{},
		},
	}
	for _, b := range r.Aggregations["year"].Buckets {
		var y float64
		if json.Unmarshal(b.Key, &y) == nil && y == math.Trunc(y) && math.Abs(y) < 1e6 {
			res.Facets.Year[int(y)] = b.DocCount
		}
	}
	for _, h := range r.Hits.Hits {
		hit := crawl.SearchHit{
			ID: crawl.URLID(h.Source.URL), URL: h.Source.URL, Title: h.Source.Title,
			Host: h.Source.Host, Type: h.Source.Type, DOI: h.Source.DOI,
			Lang: h.Source.Lang, Authors: h.Source.Authors, Year: h.Source.Year,
		}
		hit.Snippet, hit.Marks = highlighted(first(h.Highlight["text"]))
		// The whole title highlighted (number_of_fragments 0): its marks
		// are kept when it reads as the title does.
		title, marks := highlighted(first(h.Highlight["title"]))
		if len(marks) > 0 && title == strings.Join(strings.Fields(hit.Title), " ") {
			hit.Title, hit.TitleMarks = title, marks
		}
		// The text's best passage, or the title when only the title
		// matches, as the embedded indexes give.
		if len(hit.Marks) == 0 && len(marks) > 0 || hit.Snippet == "" {
			hit.Snippet, hit.Marks = title, marks
		}
		if h.Score != nil {
			hit.Score = *h.Score
		}
		if h.Source.FetchedAt != "" {
			hit.FetchedAt, _ = time.Parse(time.RFC3339Nano, h.Source.FetchedAt)
		}
		res.Hits = append(res.Hits, hit)
	}
	return res, nil
}

// stringBuckets returns the counts of a terms aggregation on a keyword.
func stringBuckets(r searchResponse, name string) map[string]int {
	m := map[string]int{}
	for _, b := range r.Aggregations[name].Buckets {
		var k string
		if json.Unmarshal(b.Key, &k) == nil {
			m[k] = b.DocCount
		}
	}
	return m
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// Markers of matches while a highlighted fragment is read.
const (
	markOpen  = "\x01"
	markClose = "\x02"
)

// highlighted reads a fragment of the highlighter (html encoder, <mark>
// tags) as plain text and the byte offsets of its marked words: the text
// between tags is unescaped, any other tag is text, marks are never
// nested, an unclosed one ends with the fragment.
func highlighted(s string) (string, [][2]int) {
	var b strings.Builder
	b.Grow(len(s))
	text := func(t string) {
		t = html.UnescapeString(t)
		b.WriteString(strings.NewReplacer(markOpen, "", markClose, "").Replace(t))
	}
	open := false
	for s != "" {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			text(s)
			break
		}
		text(s[:i])
		s = s[i:]
		switch {
		case strings.HasPrefix(s, "<mark>"):
			if !open {
				b.WriteString(markOpen)
				open = true
			}
			s = s[len("<mark>"):]
		case strings.HasPrefix(s, "</mark>"):
			if open {
				b.WriteString(markClose)
				open = false
			}
			s = s[len("</mark>"):]
		default:
			b.WriteByte('<')
			s = s[1:]
		}
	}
	if open {
		b.WriteString(markClose)
	}
	return crawl.Highlighted(b.String(), markOpen, markClose)
}
