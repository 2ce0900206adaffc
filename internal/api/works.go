package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/acrawler/acrawler/internal/cite"
	"github.com/acrawler/acrawler/internal/crawl"
)

// workStore returns the backend's works, if it keeps them.
func (s *Server) workStore() (crawl.WorkStore, bool) {
	var b any = s.backend
	if sb, ok := s.backend.(storeBackend); ok {
		b = sb.Store
	}
	ws, ok := b.(crawl.WorkStore)
	return ws, ok
}

// handleWork answers GET /works/{id}: the work as JSON (the default, or
// format=json), as a web page (format=html, or a browser asking for
// HTML), or as a citation (format=bibtex, ris or csl-json).
func (s *Server) handleWork(w http.ResponseWriter, r *http.Request) error {
	v, err := queryParams(r)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(r.URL.Path, "/works/"), 10, 64)
	if err != nil || id <= 0 {
		return errNoPage
	}
	format := v.Get("format")
	if format == "" && strings.Contains(r.Header.Get("Accept"), "text/html") {
		format = "html"
	}
	switch format {
	case "", "json", "html", "bibtex", "ris", "csl-json":
	default:
		return &paramError{"format", "must be json, html, bibtex, ris or csl-json"}
	}
	ws, ok := s.workStore()
	if !ok {
		return errNoPage
	}
	release, err := s.acquire(r.Context(), false)
	if err != nil {
		return fmt.Errorf("api: work: %w", err)
	}
	wk, err := ws.Work(r.Context(), id)
	release()
	if errors.Is(err, crawl.ErrNotFound) {
		return errNoPage
	}
	if err != nil {
		return fmt.Errorf("api: work %d: %w", id, err)
	}
	switch format {
	case "", "json":
		s.writeJSON(w, http.StatusOK, wk)
		return nil
	case "html":
		return s.render(w, http.StatusOK, "work", workPageView{base: base{Title: wk.Title, Nav: "search", Box: true}, Work: workViewOf(wk)})
	}
	return writeCitations(w, r, format, "work-"+strconv.FormatInt(wk.ID, 10), []cite.Work{CiteWork(wk)})
}

// citeWork is a work as the citation writers take it.
func CiteWork(w *crawl.Work) cite.Work {
	c := cite.Work{
		ID: strconv.FormatInt(w.ID, 10), Type: cite.Type(w.Type).Normalize(), Title: w.Title, Year: w.Year, Date: w.Date,
		ContainerTitle: w.Venue, Volume: w.Volume, Issue: w.Issue, FirstPage: w.FirstPage, LastPage: w.LastPage,
		Publisher: w.Publisher, DOI: w.DOI, URL: w.URL, PDFURL: w.PDFURL, Abstract: w.Abstract, Keywords: w.Keywords,
	}
	for _, a := range w.Authors {
		if n := cite.ParseName(a); !n.IsZero() {
			c.Authors = append(c.Authors, n)
		}
	}
	return c
}

// workRef is a search result's work: the work of the page found, with
// every copy.
type workRef struct {
	ID         int64            `json:"id"`
	Title      string           `json:"title"`
	Year       int              `json:"year,omitempty"`
	DOI        string           `json:"doi,omitempty"`
	OpenAccess bool             `json:"open_access"`
	Copies     []crawl.WorkCopy `json:"copies"`
}

func refOf(w *crawl.Work) *workRef {
	if w == nil {
		return nil
	}
	return &workRef{ID: w.ID, Title: w.Title, Year: w.Year, DOI: w.DOI, OpenAccess: w.OpenAccess, Copies: w.Copies}
}

// groupParam reads the group parameter of a search: "work" (the
// default) or "page".
func groupParam(v url.Values) (byWork bool, err error) {
	switch v.Get("group") {
	case "", "work":
		return true, nil
	case "page":
		return false, nil
	}
	return false, &paramError{"group", "must be work or page"}
}

// citeFormat reads the format parameter of a search: "" or "json" (no
// citations), else "bibtex", "ris" or "csl-json".
func citeFormat(v url.Values) (string, error) {
	switch f := v.Get("format"); f {
	case "", "json":
		return "", nil
	case "bibtex", "ris", "csl-json":
		return f, nil
	}
	return "", &paramError{"format", "must be json, bibtex, ris or csl-json"}
}

// found is a page of search results, each with the work it is a copy of
// (nil: none, or the backend keeps no works).
type found struct {
	crawl.SearchResult
	Works []*crawl.Work
}

// searchWorks runs a search and finds the work of each result. By work
// (req.ByWork), an index that groups answers a page of works; one that
// cannot (OpenSearch) is read in rounds by groupPages. Page by page, the
// works are looked up only with works set (for citations).
func (s *Server) searchWorks(ctx context.Context, req crawl.SearchRequest, works bool) (found, error) {
	res, err := s.search(ctx, req)
	if err != nil {
		return found{}, err
	}
	if req.ByWork && !res.ByWork {
		if _, ok := s.workStore(); ok {
			return s.groupPages(ctx, req, res)
		}
	}
	f := found{SearchResult: res}
	if req.ByWork || works {
		f.Works, err = s.worksOf(ctx, res.Hits)
	}
	return f, err
}

// worksOf looks up the work of each hit (nil: none), in one slot of the
// requests that read the store.
func (s *Server) worksOf(ctx context.Context, hits []crawl.SearchHit) ([]*crawl.Work, error) {
	out := make([]*crawl.Work, len(hits))
	ws, ok := s.workStore()
	if !ok || len(hits) == 0 {
		return out, nil
	}
	release, err := s.acquire(ctx, false)
	if err != nil {
		return nil, fmt.Errorf("api: works of results: %w", err)
	}
	defer release()
	for i, h := range hits {
		wk, err := ws.WorkOf(ctx, h.ID)
		if errors.Is(err, crawl.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("api: work of %s: %w", h.URL, err)
		}
		out[i] = wk
	}
	return out, nil
}

// Rounds of a search by work on an index that cannot group: groupPages
// reads the page hits from the first, groupRound at a time, in at most
// groupRounds rounds (1,000 page hits, each with its work looked up).
const (
	groupRound  = MaxLimit
	groupRounds = 10
)

// groupPages answers a search by work from an index that answers pages
// (first is its answer to req): it reads the page hits from the first in
// rounds, keeps the first hit of each work (and every hit of no work),
// and returns those from req.Offset, up to req.Limit. Paging is
// consistent (each result comes once) as long as the index ranks the
// same way; works past the first groupRounds×groupRound page hits are
// not reached. The total and the facets are the index's: pages.
func (s *Server) groupPages(ctx context.Context, req crawl.SearchRequest, first crawl.SearchResult) (found, error) {
	need := req.Offset + req.Limit
	f := found{SearchResult: first}
	f.Hits = nil
	seen := map[int64]bool{}
	r := req
	r.ByWork, r.Offset, r.Limit = false, 0, groupRound
	var hits []crawl.SearchHit
	var works []*crawl.Work
	for range groupRounds {
		res, err := s.search(ctx, r)
		if err != nil {
			return found{}, err
		}
		ws, err := s.worksOf(ctx, res.Hits)
		if err != nil {
			return found{}, err
		}
		for i, h := range res.Hits {
			if w := ws[i]; w != nil {
				if seen[w.ID] {
					continue
				}
				seen[w.ID] = true
			}
			hits, works = append(hits, h), append(works, ws[i])
		}
		if len(hits) >= need || len(res.Hits) < r.Limit {
			break
		}
		r.Offset += r.Limit
	}
	if req.Offset < len(hits) {
		end := min(len(hits), need)
		f.Hits, f.Works = hits[req.Offset:end], works[req.Offset:end]
	}
	if f.Hits == nil {
		f.Hits = []crawl.SearchHit{}
	}
	return f, nil
}

// citesOf is the works of a page of results, each once, as the citation
// writers take them.
func citesOf(works []*crawl.Work) []cite.Work {
	var out []cite.Work
	seen := map[int64]bool{}
	for _, w := range works {
		if w != nil && !seen[w.ID] {
			seen[w.ID] = true
			out = append(out, CiteWork(w))
		}
	}
	return out
}

// writeCitations answers with works as BibTeX, RIS or CSL-JSON, named
// name (with the format's extension) for a client that saves them. A
// browser (that asks for HTML) gets them as plain text, which it shows:
// it would save a file of the citation types.
func writeCitations(w http.ResponseWriter, r *http.Request, format, name string, works []cite.Work) error {
	var buf bytes.Buffer
	var err error
	ctype, ext := "", ""
	switch format {
	case "bibtex":
		ctype, ext = "application/x-bibtex; charset=utf-8", ".bib"
		err = cite.WriteBibTeX(&buf, works)
	case "ris":
		ctype, ext = "application/x-research-info-systems; charset=utf-8", ".ris"
		err = cite.WriteRIS(&buf, works)
	case "csl-json":
		ctype, ext = "application/vnd.citationstyles.csl+json; charset=utf-8", ".json"
		err = cite.WriteCSLJSON(&buf, works)
	}
	if err != nil {
		return fmt.Errorf("api: %s: %w", format, err)
	}
	if strings.Contains(r.Header.Get("Accept"), "text/html") {
		ctype = "text/plain; charset=utf-8"
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Disposition", `inline; filename="`+name+ext+`"`)
	h.Set("Cache-Control", "no-store")
	w.Write(buf.Bytes())
	return nil
}

// workPageView is the page of a work.
type workPageView struct {
	base
	Work *workView
}

// workView is a work as the web pages show it: its copies, each with
// its kind, and links to cite it.
type workView struct {
	*crawl.Work
	Link   string // its page
	Copies []copyView
	Cite   []link
}

type copyView struct {
	URL, Kind, Label string
	OpenAccess       bool
}

// kindLabels name the kinds of copies (works.Kind).
var kindLabels = map[string]string{
	"landing": "landing page", "pdf": "PDF", "repository": "repository record", "preprint": "preprint", "other": "other",
}

func workViewOf(w *crawl.Work) *workView {
	link := "/works/" + strconv.FormatInt(w.ID, 10)
	v := &workView{Work: w, Link: link, Cite: citeLinks(link + "?")}
	for _, c := range w.Copies {
		label := kindLabels[c.Kind]
		if label == "" {
			label = "other"
		}
		v.Copies = append(v.Copies, copyView{URL: c.URL, Kind: c.Kind, Label: label, OpenAccess: c.OpenAccess})
	}
	return v
}

// citeLinks are the links to a work, or works, as citations: base is the
// URL up to and including its "?" or "&".
func citeLinks(base string) []link {
	return []link{{"BibTeX", base + "format=bibtex"}, {"RIS", base + "format=ris"}, {"CSL-JSON", base + "format=csl-json"}}
}

// searchExport is the /search URL of a search's page of results, ready
// for a format parameter.
func searchExport(r crawl.SearchRequest) string {
	return "/search?" + searchQuery(r).Encode() + "&"
}
