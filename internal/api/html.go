package api

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/acrawler/acrawler/internal/api/chart"
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/report"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/style.css
var styleCSS []byte

// cssPath is where the stylesheet is served.
const cssPath = "/static/style.css"

// Page limits of the web views.
const (
	maxFacetValues = 10 // values shown per facet
	maxPageLinks   = 9  // page numbers shown around the current one
	maxAuthors     = 6
	maxHostBars    = 25
	maxHostRows    = 50
)

var funcs = template.FuncMap{
	"num": func(v any) string {
		switch n := v.(type) {
		case int:
			return formatInt(int64(n))
		case int64:
			return formatInt(n)
		}
		return fmt.Sprint(v)
	},
	"pct":      func(f float64) string { return strconv.FormatFloat(f*100, 'f', 1, 64) + "%" },
	"dec":      func(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) },
	"bytes":    formatBytes,
	"when":     formatTime,
	"hostname": hostname,
	"doc":      docLink,
	"doi":      doiLink,
	"authors":  authorList,
}

// parseTemplates parses each page with the layout.
func parseTemplates() (map[string]*template.Template, error) {
	pages := map[string]*template.Template{}
	for _, name := range []string{"search", "doc", "dashboard", "error", "work"} {
		t, err := template.New(name).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}

// base is what the layout of every page reads.
type base struct {
	Title string // the page's title, before the site name
	Nav   string // the current section: "search" or "dashboard"
	Query string // the text of the header's search box
	Box   bool   // show a search box in the header
}

// render executes a page template into a buffer and sends it: a template
// failure is a clean 500, never half a page.
func (s *Server) render(w http.ResponseWriter, status int, page string, data any) error {
	var buf bytes.Buffer
	if err := s.pages[page].ExecuteTemplate(&buf, "layout", data); err != nil {
		return fmt.Errorf("api: render %s: %w", page, err)
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
	return nil
}

// errorView is a friendly error page.
type errorView struct {
	base
	Status  int
	Heading string
	Message string
}

func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, status int, msg string) {
	v := errorView{base: base{Title: http.StatusText(status), Box: true}, Status: status, Heading: http.StatusText(status), Message: sentence(msg)}
	switch status {
	case http.StatusNotFound:
		v.Heading = "Not found"
	case http.StatusBadRequest:
		v.Heading = "That request cannot be answered"
	case http.StatusInternalServerError:
		v.Heading = "Something went wrong"
		v.Message = "The server could not answer. The error has been logged; please try again later."
	}
	if err := s.render(w, status, "error", v); err != nil {
		s.log.Error("api: error page", "err", err)
		http.Error(w, http.StatusText(status), status)
	}
}

func (s *Server) handleStatic(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("Content-Type", "text/css; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=3600")
	w.Write(styleCSS)
	return nil
}

// searchView is the search page: the landing state, or a page of results.
type searchView struct {
	base
	Error      string // why the search was refused
	Searched   bool   // a query was given
	Total      int
	Estimated  bool // Total is an estimate
	Took       string
	From, To   int
	Hits       []hitView
	Chips      []link // current filters; each link removes its filter
	Facets     []facetGroup
	Hidden     []field // filters the search box keeps
	Prev, Next string
	Pages      []pageLink
	// ByWork: a result is a work or a page of no work; CountsWorks: the
	// total and the facets count such results (else pages).
	ByWork, CountsWorks bool
	Regroup             string // the same search by page, or by work
	Export              []link // the page's works as citations
}

type hitView struct {
	crawl.SearchHit
	TitleHTML template.HTML // text and <mark> elements only (renderMarks)
	Snippet   template.HTML // text and <mark> elements only (renderMarks)
	Authors   string
	Doc       string    // the document view
	Work      *workView // the work it is a copy of, by work
}

type link struct {
	Label string
	URL   string
}

type field struct{ Name, Value string }

type facetGroup struct {
	Name   string // parameter name: host, type, year
	Label  string
	Values []facetValue
}

type facetValue struct {
	Label    string
	Count    int
	URL      string // adds the filter, or removes it when Selected
	Selected bool
}

type pageLink struct {
	Number  int
	URL     string
	Current bool
}

func (s *Server) handleHome(w http.ResponseWriter, r *http.Request) error {
	params, err := queryParams(r)
	req := crawl.SearchRequest{}
	if err == nil {
		req, err = parseSearch(params)
	}
	if pe, ok := badRequest(err); ok {
		return s.badSearch(w, params.Get("q"), pe)
	}
	v := searchView{base: base{Nav: "search", Query: req.Query}}
	if strings.TrimSpace(req.Query) == "" {
		return s.render(w, http.StatusOK, "search", v)
	}
	f, err := s.searchWorks(r.Context(), req, false)
	if pe, ok := badRequest(err); ok {
		return s.badSearch(w, req.Query, pe)
	}
	if err != nil {
		return err
	}
	v.Title, v.Searched, v.Total, v.Estimated, v.Took = req.Query, true, f.Total, f.Estimated, formatDuration(f.Took)
	v.ByWork, v.CountsWorks = req.ByWork, f.ByWork
	v.From, v.To = req.Offset+1, req.Offset+len(f.Hits)
	for i, h := range f.Hits {
		if h.Title == "" {
			h.Title = h.URL
		}
		hv := hitView{SearchHit: h, TitleHTML: template.HTML(renderMarks(h.Title, h.TitleMarks)),
			Snippet: template.HTML(renderMarks(h.Snippet, h.Marks)), Authors: authorList(h.Authors), Doc: docLink(h.URL)}
		if f.Works != nil && f.Works[i] != nil {
			hv.Work = workViewOf(f.Works[i])
		}
		v.Hits = append(v.Hits, hv)
	}
	v.Chips, v.Hidden = filterChips(req)
	v.Facets = facets(req, f.Facets)
	v.Prev, v.Next, v.Pages = pagination(req, f.Total)
	other := req
	other.ByWork, other.Offset = !req.ByWork, 0
	v.Regroup = searchLink(other)
	if req.ByWork && slices.ContainsFunc(f.Works, func(w *crawl.Work) bool { return w != nil }) {
		v.Export = citeLinks(searchExport(req))
	}
	return s.render(w, http.StatusOK, "search", v)
}

// badSearch answers a search the client must change: the search page
// again, with the problem above the box.
func (s *Server) badSearch(w http.ResponseWriter, q string, pe *paramError) error {
	v := searchView{base: base{Title: "Bad request", Nav: "search", Query: q},
		Error: sentence(fmt.Sprintf("the parameter %q %s", pe.param, pe.msg))}
	return s.render(w, http.StatusBadRequest, "search", v)
}

// searchLink is the search page's URL for a request.
func searchLink(r crawl.SearchRequest) string {
	q := searchQuery(r).Encode()
	if q == "" {
		return "/"
	}
	return "/?" + q
}

// filterChips lists a search's filters, each with a link that removes it,
// and the hidden fields that keep them when the query is edited.
func filterChips(req crawl.SearchRequest) (chips []link, hidden []field) {
	base := req
	base.Offset = 0
	add := func(label string, clear func(*crawl.SearchRequest)) {
		r := base
		clear(&r)
		chips = append(chips, link{label, searchLink(r)})
	}
	if req.Host != "" {
		add("Host: "+hostname(req.Host), func(r *crawl.SearchRequest) { r.Host = "" })
	}
	if req.Type != "" {
		add("Type: "+req.Type, func(r *crawl.SearchRequest) { r.Type = "" })
	}
	if req.Lang != "" {
		add("Language: "+req.Lang, func(r *crawl.SearchRequest) { r.Lang = "" })
	}
	switch from, to := req.YearFrom, req.YearTo; {
	case from != 0 && from == to:
		add("Year: "+strconv.Itoa(from), func(r *crawl.SearchRequest) { r.YearFrom, r.YearTo = 0, 0 })
	case from != 0 && to != 0:
		add(fmt.Sprintf("Years: %d–%d", from, to), func(r *crawl.SearchRequest) { r.YearFrom, r.YearTo = 0, 0 })
	case from != 0:
		add(fmt.Sprintf("Since %d", from), func(r *crawl.SearchRequest) { r.YearFrom = 0 })
	case to != 0:
		add(fmt.Sprintf("Until %d", to), func(r *crawl.SearchRequest) { r.YearTo = 0 })
	}
	for k, vs := range searchQuery(base) {
		if k != "q" {
			hidden = append(hidden, field{k, vs[0]})
		}
	}
	slices.SortFunc(hidden, func(a, b field) int { return strings.Compare(a.Name, b.Name) })
	return chips, hidden
}

// facets builds the facet links of a search: each value adds its filter
// (back to the first page), a selected value removes it.
func facets(req crawl.SearchRequest, f crawl.Facets) []facetGroup {
	req.Offset = 0
	type kv struct {
		key   string
		count int
	}
	group := func(name, label string, m []kv, limit int, selected func(string) bool, set func(*crawl.SearchRequest, string), show func(string) string) facetGroup {
		g := facetGroup{Name: name, Label: label}
		for _, e := range m[:min(len(m), limit)] {
			r := req
			sel := selected(e.key)
			if sel {
				set(&r, "")
			} else {
				set(&r, e.key)
			}
			g.Values = append(g.Values, facetValue{Label: show(e.key), Count: e.count, URL: searchLink(r), Selected: sel})
		}
		return g
	}
	byCount := func(m map[string]int) []kv {
		out := make([]kv, 0, len(m))
		for k, n := range m {
			if k != "" {
				out = append(out, kv{k, n})
			}
		}
		slices.SortFunc(out, func(a, b kv) int {
			if a.count != b.count {
				return b.count - a.count
			}
			return strings.Compare(a.key, b.key)
		})
		return out
	}
	// Every year the backend counted that a search can filter for, newest
	// first: a backend may count any year a page gave (a PDF's creation
	// date says 1 to 9999), and a link to year_from=9999 would be refused.
	var years []kv
	for y, n := range f.Year {
		if y >= MinYear && y <= MaxYear {
			years = append(years, kv{strconv.Itoa(y), n})
		}
	}
	slices.SortFunc(years, func(a, b kv) int { return strings.Compare(b.key, a.key) }) // newest first (all four digits)
	same := func(s string) string { return s }
	isType := func(k string) bool { return k == req.Type }
	single := req.YearFrom != 0 && req.YearFrom == req.YearTo
	isYear := func(k string) bool { return single && k == strconv.Itoa(req.YearFrom) }
	isHost := func(k string) bool { return k == req.Host }
	setType := func(r *crawl.SearchRequest, k string) { r.Type = k }
	setYear := func(r *crawl.SearchRequest, k string) { y, _ := strconv.Atoi(k); r.YearFrom, r.YearTo = y, y }
	setHost := func(r *crawl.SearchRequest, k string) { r.Host = k }
	var out []facetGroup
	for _, g := range []facetGroup{
		group("type", "Type", byCount(f.Type), maxFacetValues, isType, setType, same),
		group("year", "Year", years, len(years), isYear, setYear, same), // all of them: years are short
		group("host", "Host", byCount(f.Host), maxFacetValues, isHost, setHost, hostname),
	} {
		if len(g.Values) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// pagination links the previous and next pages and up to maxPageLinks
// page numbers around the current one, within MaxOffset.
func pagination(req crawl.SearchRequest, total int) (prev, next string, pages []pageLink) {
	per := req.Limit
	last := min(total, MaxOffset+per) // results reachable
	if last <= per && req.Offset == 0 {
		return "", "", nil
	}
	at := func(off int) string {
		r := req
		r.Offset = off
		return searchLink(r)
	}
	if req.Offset > 0 {
		prev = at(max(0, req.Offset-per))
	}
	if req.Offset+per < last && req.Offset+per <= MaxOffset {
		next = at(req.Offset + per)
	}
	cur := req.Offset/per + 1
	n := (last + per - 1) / per
	first := max(1, cur-maxPageLinks/2)
	end := min(n, first+maxPageLinks-1)
	first = max(1, end-maxPageLinks+1)
	for p := first; p <= end; p++ {
		if off := (p - 1) * per; off <= MaxOffset {
			pages = append(pages, pageLink{Number: p, URL: at(off), Current: p == cur && req.Offset%per == 0})
		}
	}
	return prev, next, pages
}

// docView is the document page.
type docView struct {
	base
	Doc        *document
	Paragraphs []string
	Authors    string
}

func (s *Server) handleDocPage(w http.ResponseWriter, r *http.Request) error {
	params, err := queryParams(r)
	if err != nil {
		return err
	}
	u, err := documentURL(params)
	if err != nil {
		return err
	}
	d, err := s.loadDocument(r.Context(), u)
	if err != nil {
		return err
	}
	v := docView{base: base{Title: d.Title, Nav: "search", Box: true}, Doc: d}
	if v.Title == "" {
		v.Title = d.URL
	}
	for p := range strings.SplitSeq(d.MainText, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			v.Paragraphs = append(v.Paragraphs, p)
		}
	}
	if d.Metadata != nil {
		v.Authors = strings.Join(d.Metadata.Authors, "; ")
	}
	return s.render(w, http.StatusOK, "doc", v)
}

// dashboardView is the crawl dashboard.
type dashboardView struct {
	base
	Report        *report.Report
	Figures       []figure
	Frontier      template.HTML
	Discovery     template.HTML
	Outcomes      template.HTML // labels left of the bars, for wide screens
	OutcomesPhone template.HTML // labels above the bars
	Hosts         []report.HostRow
	MoreHosts     int
	Since, Latest time.Time
}

type figure struct {
	Label, Value, Hint string
}

func (s *Server) handleDashboard(w http.ResponseWriter, r *http.Request) error {
	rep, err := s.report(r.Context())
	if err != nil {
		return err
	}
	v := dashboardView{base: base{Title: "Crawl dashboard", Nav: "dashboard", Box: true}, Report: rep}
	c, f := rep.Counters, rep.Figures
	v.Figures = []figure{
		{"Pages recorded", formatInt(c.Pages), "responses stored, any status"},
		{"Useful pages", formatInt(f.Useful), "HTML and PDF answers that are neither duplicates nor soft blocks"},
		{"Frontier", formatInt(c.Queued), "URLs waiting to be fetched"},
		{"Hosts", formatInt(c.Hosts), "origins seen"},
		{"Links", formatInt(c.Links), "outlinks recorded"},
		{"Failed", formatInt(c.Failed), "URLs given up after retries"},
		{"Discovery rate", strconv.FormatFloat(f.DiscoveryRate, 'f', 2, 64), "new URLs admitted per fetched page"},
		{"Recent discovery", strconv.FormatFloat(f.RecentDiscovery, 'f', 2, 64), "the same, over the last interval"},
		{"Duplicate URLs", strconv.FormatFloat(f.DuplicateRate*100, 'f', 1, 64) + "%", "share of offered URLs already known"},
		{"Duplicate content", strconv.FormatFloat(f.ContentDupRate*100, 'f', 1, 64) + "%", "share of fetched pages repeating another's text"},
		{"Bytes per useful page", formatBytes(int64(f.BytesPerUseful)), "downloaded bytes over useful pages"},
		{"Soft blocks", formatInt(f.SoftBlocks), "200 answers that were refusals"},
		{"Errors", formatInt(f.Errors), "failures and 5xx answers"},
		{"Downloaded", formatBytes(c.Bytes), "response bytes, whole crawl"},
	}
	var frontier, discovery []chart.Point
	for _, iv := range rep.Series {
		x := float64(iv.At.Unix())
		frontier = append(frontier, chart.Point{X: x, Y: float64(iv.Frontier)})
		if iv.Fetched > 0 {
			discovery = append(discovery, chart.Point{X: x, Y: iv.DiscoveryRate})
		}
	}
	if n := len(rep.Series); n > 0 {
		v.Since, v.Latest = rep.Series[0].At, rep.Series[n-1].At
	}
	// The chart package escapes every label and emits SVG elements only.
	v.Frontier = template.HTML(chart.Line{Title: "Frontier size (URLs queued)", HideTitle: true, XTime: true, Points: frontier}.SVG())
	v.Discovery = template.HTML(chart.Line{Title: "Discovery rate (new URLs per fetched page)", HideTitle: true, XTime: true, Points: discovery}.SVG())
	bars := chart.Bars{Title: "Responses per host by status class", HideTitle: true, Series: []string{"2xx", "3xx", "4xx", "5xx"}, Width: 900}
	for _, h := range rep.Hosts[:min(len(rep.Hosts), maxHostBars)] {
		bars.Rows = append(bars.Rows, chart.Row{Label: hostname(h.Host),
			Values: []float64{float64(h.Status2xx), float64(h.Status3xx), float64(h.Status4xx), float64(h.Status5xx)}})
	}
	v.Outcomes = template.HTML(bars.SVG())
	bars.Width, bars.Compact = 360, true
	v.OutcomesPhone = template.HTML(bars.SVG())
	v.Hosts = rep.Hosts[:min(len(rep.Hosts), maxHostRows)]
	v.MoreHosts = len(rep.Hosts) - len(v.Hosts)
	return s.render(w, http.StatusOK, "dashboard", v)
}

// sentence capitalizes msg and ends it with a period.
func sentence(msg string) string {
	if msg == "" {
		return msg
	}
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	r, n := utf8.DecodeRuneInString(msg)
	return string(unicode.ToUpper(r)) + msg[n:]
}

// formatInt writes n with thousands separators: 12,345.
func formatInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// formatBytes writes a byte count in binary units: 1.5 MiB.
func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	f, i := float64(n), -1
	for f >= unit && i < 5 {
		f /= unit
		i++
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + " " + string("KMGTPE"[i]) + "iB"
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func formatDuration(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + " ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + " s"
}

// hostname strips the scheme of a host key or URL for display.
func hostname(s string) string {
	if _, rest, ok := strings.Cut(s, "://"); ok {
		return rest
	}
	return s
}

// docLink is the document view of a URL.
func docLink(u string) string { return "/doc?" + url.Values{"url": {u}}.Encode() }

// doiLink resolves a DOI at doi.org.
func doiLink(doi string) string { return "https://doi.org/" + (&url.URL{Path: doi}).EscapedPath() }

// authorList names the first authors: "A; B; C et al.".
func authorList(as []string) string {
	if len(as) > maxAuthors {
		return strings.Join(as[:maxAuthors], "; ") + " et al."
	}
	return strings.Join(as, "; ")
}
