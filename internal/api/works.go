package api

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
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
		var buf bytes.Buffer
		if err := workPage.Execute(&buf, wk); err != nil {
			return fmt.Errorf("api: work %d: %w", id, err)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(buf.Bytes())
		return nil
	}
	return writeCitations(w, format, []cite.Work{CiteWork(wk)})
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

var workPage = template.Must(template.New("work").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<link rel="stylesheet" href="` + cssPath + `"></head><body>
<main class="work">
<h1>{{.Title}}</h1>
<p class="authors">{{range $i, $a := .Authors}}{{if $i}}, {{end}}{{$a}}{{end}}</p>
<p class="venue">{{with .Venue}}<em>{{.}}</em>{{end}}{{with .Year}} ({{.}}){{end}}{{with .DOI}} · DOI <a href="https://doi.org/{{.}}">{{.}}</a>{{end}}</p>
{{with .Abstract}}<p class="abstract">{{.}}</p>{{end}}
{{with .Keywords}}<p class="keywords">{{range $i, $k := .}}{{if $i}}; {{end}}{{$k}}{{end}}</p>{{end}}
<h2>Copies</h2>
<ul class="copies">{{range .Copies}}
<li><a href="{{.URL}}">{{.URL}}</a> — {{.Kind}}{{if .OpenAccess}}, open access{{end}} (metadata: {{.Source}})</li>{{end}}
</ul>
<h2>Sources</h2>
<ul class="fields">{{range $f, $src := .Fields}}
<li>{{$f}}: {{$src.Source}} of {{$src.URL}}</li>{{end}}
</ul>
<p class="export">Cite: <a href="?format=bibtex">BibTeX</a> · <a href="?format=ris">RIS</a> · <a href="?format=csl-json">CSL-JSON</a> · <a href="?format=json">JSON</a></p>
</main></body></html>
`))

// workRef is a search result's work: the work of the page found, with
// every copy (the other copies found on the same page of results are
// left out of the results: they are here).
type workRef struct {
	ID         int64            `json:"id"`
	Title      string           `json:"title"`
	Year       int              `json:"year,omitempty"`
	DOI        string           `json:"doi,omitempty"`
	OpenAccess bool             `json:"open_access"`
	Copies     []crawl.WorkCopy `json:"copies"`
}

// groupByWork gives each hit that is a copy of a work its work, and
// leaves out a hit whose work an earlier hit of the same results has:
// one result per work. Hits of no work stay as they are. group is the
// request's group parameter: "work" (the default) or "page" (no
// grouping). Total and facets still count pages.
//
// With format=bibtex, ris or csl-json, the answer is instead the works of
// the results as citations (whatever group says), and done is true.
func (s *Server) groupByWork(w http.ResponseWriter, r *http.Request, v url.Values, hits []jsonHit) (_ []jsonHit, done bool, _ error) {
	group, format := v.Get("group"), v.Get("format")
	switch group {
	case "", "work":
	case "page":
	default:
		return nil, false, &paramError{"group", "must be work or page"}
	}
	switch format {
	case "", "json", "bibtex", "ris", "csl-json":
	default:
		return nil, false, &paramError{"format", "must be json, bibtex, ris or csl-json"}
	}
	cites := format == "bibtex" || format == "ris" || format == "csl-json"
	if group == "page" && !cites {
		return hits, false, nil
	}
	ws, ok := s.workStore()
	var works []cite.Work
	seen := map[int64]bool{}
	out := hits[:0]
	if ok && len(hits) > 0 {
		release, err := s.acquire(r.Context(), false)
		if err != nil {
			return nil, false, fmt.Errorf("api: works of results: %w", err)
		}
		defer release()
		for _, h := range hits {
			wk, err := ws.WorkOf(r.Context(), h.ID)
			if errors.Is(err, crawl.ErrNotFound) {
				out = append(out, h)
				continue
			}
			if err != nil {
				return nil, false, fmt.Errorf("api: work of %s: %w", h.URL, err)
			}
			if seen[wk.ID] {
				continue
			}
			seen[wk.ID] = true
			works = append(works, CiteWork(wk))
			h.Work = &workRef{ID: wk.ID, Title: wk.Title, Year: wk.Year, DOI: wk.DOI, OpenAccess: wk.OpenAccess, Copies: wk.Copies}
			out = append(out, h)
		}
	} else {
		out = hits
	}
	if cites {
		return nil, true, writeCitations(w, format, works)
	}
	return out, false, nil
}

// writeCitations answers with works as BibTeX, RIS or CSL-JSON.
func writeCitations(w http.ResponseWriter, format string, works []cite.Work) error {
	var buf bytes.Buffer
	var err error
	ctype := ""
	switch format {
	case "bibtex":
		ctype = "application/x-bibtex; charset=utf-8"
		err = cite.WriteBibTeX(&buf, works)
	case "ris":
		ctype = "application/x-research-info-systems; charset=utf-8"
		err = cite.WriteRIS(&buf, works)
	case "csl-json":
		ctype = "application/vnd.citationstyles.csl+json; charset=utf-8"
		err = cite.WriteCSLJSON(&buf, works)
	}
	if err != nil {
		return fmt.Errorf("api: %s: %w", format, err)
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-store")
	w.Write(buf.Bytes())
	return nil
}
