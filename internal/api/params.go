package api

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
)

// Bounds of the search parameters.
const (
	DefaultLimit = 10     // results per page when limit is not given
	MaxLimit     = 100    // the most results per page
	MaxOffset    = 10_000 // the deepest a search pages
	MinYear      = 1000   // the earliest year bound
	MaxYear      = 2100   // the latest year bound
	maxHostLen   = 300    // a host key: scheme, a 253-byte name and a port
	maxTypeLen   = 40
	maxLangLen   = 35 // the longest BCP 47 tags in use
	maxURLLen    = 8 << 10
	maxParamName = 40 // of a badly encoded parameter named in an error
)

// queryParams reads the parameters of a request's URL. Go's parser drops a
// pair it cannot decode (a stray %, a ; separator) and carries on, which
// would answer "q=100%" as an empty search and "type=%G1" unfiltered: such
// a query string is a *paramError naming the first bad pair's parameter.
func queryParams(r *http.Request) (url.Values, error) {
	v, err := url.ParseQuery(r.URL.RawQuery)
	if err == nil {
		return v, nil
	}
	name := ""
	for pair := range strings.SplitSeq(r.URL.RawQuery, "&") {
		if _, err := url.ParseQuery(pair); err != nil {
			name, _, _ = strings.Cut(pair, "=")
			name, _, _ = strings.Cut(name, ";")
			if n, err := url.QueryUnescape(name); err == nil {
				name = n
			}
			break
		}
	}
	if len(name) > maxParamName {
		name = name[:maxParamName]
	}
	return v, &paramError{strings.ToValidUTF8(name, "\uFFFD"), "is not URL-encoded correctly: write % as %25 and ; as %3B"}
}

// parseSearch reads a search's parameters: q, limit, offset, host, type,
// lang, year_from, year_to and group (work, the default, or page). Missing ones take their defaults; a value
// out of bounds is a *paramError naming it. q may hold any text up to
// query.MaxLength bytes.
func parseSearch(v url.Values) (crawl.SearchRequest, error) {
	r := crawl.SearchRequest{Query: v.Get("q"), Limit: DefaultLimit}
	if len(r.Query) > query.MaxLength {
		return r, &paramError{"q", fmt.Sprintf("is longer than %d bytes", query.MaxLength)}
	}
	var err error
	if r.Limit, err = intParam(v, "limit", DefaultLimit, 1, MaxLimit); err != nil {
		return r, err
	}
	if r.Offset, err = intParam(v, "offset", 0, 0, MaxOffset); err != nil {
		return r, err
	}
	for _, p := range []struct {
		name string
		max  int
		dst  *string
	}{{"host", maxHostLen, &r.Host}, {"type", maxTypeLen, &r.Type}, {"lang", maxLangLen, &r.Lang}} {
		*p.dst = v.Get(p.name)
		if len(*p.dst) > p.max {
			return r, &paramError{p.name, fmt.Sprintf("is longer than %d bytes", p.max)}
		}
	}
	if r.YearFrom, err = yearParam(v, "year_from"); err != nil {
		return r, err
	}
	if r.YearTo, err = yearParam(v, "year_to"); err != nil {
		return r, err
	}
	if r.YearFrom != 0 && r.YearTo != 0 && r.YearFrom > r.YearTo {
		return r, &paramError{"year_from", fmt.Sprintf("is after year_to (%d > %d)", r.YearFrom, r.YearTo)}
	}
	if r.ByWork, err = groupParam(v); err != nil {
		return r, err
	}
	return r, nil
}

// intParam reads a whole number in [lo, hi]; def when the parameter is
// missing or empty.
func intParam(v url.Values, name string, def, lo, hi int) (int, error) {
	s := v.Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, &paramError{name, fmt.Sprintf("must be a whole number from %d to %d", lo, hi)}
	}
	return n, nil
}

// yearParam reads a year bound: empty or 0 for none, else MinYear..MaxYear.
func yearParam(v url.Values, name string) (int, error) {
	s := v.Get(name)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n != 0 && (n < MinYear || n > MaxYear) {
		return 0, &paramError{name, fmt.Sprintf("must be a year from %d to %d (or 0 for none)", MinYear, MaxYear)}
	}
	return n, nil
}

// searchQuery writes a search back as URL parameters, leaving out
// defaults, so that links to variations of a search stay short.
func searchQuery(r crawl.SearchRequest) url.Values {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	set("q", r.Query)
	set("host", r.Host)
	set("type", r.Type)
	set("lang", r.Lang)
	if r.YearFrom != 0 {
		v.Set("year_from", strconv.Itoa(r.YearFrom))
	}
	if r.YearTo != 0 {
		v.Set("year_to", strconv.Itoa(r.YearTo))
	}
	if r.Limit != 0 && r.Limit != DefaultLimit {
		v.Set("limit", strconv.Itoa(r.Limit))
	}
	if r.Offset != 0 {
		v.Set("offset", strconv.Itoa(r.Offset))
	}
	if !r.ByWork {
		v.Set("group", "page")
	}
	return v
}

// documentURL reads the url parameter of /documents and /doc.
func documentURL(v url.Values) (string, error) {
	u := v.Get("url")
	switch {
	case u == "":
		return "", &paramError{"url", "is missing: give the document's URL"}
	case len(u) > maxURLLen:
		return "", &paramError{"url", fmt.Sprintf("is longer than %d bytes", maxURLLen)}
	}
	return u, nil
}
