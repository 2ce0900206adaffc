package testweb

import (
	"net/url"
	"sort"
)

// Paper is the ground truth about one scholarly work of the web: every
// enumerable URL that presents it. A paper's copies are its landing page,
// its PDF, aliases, mirrors and print versions of it, the library's and
// the repository's deposits of it (landing page and PDF) and its preprint
// (landing page and PDF); a look-alike on the preprint server (the same
// title by another first author, another subtitle, four years later) is a
// paper of its own.
type Paper struct {
	ID    string // the URL of its landing page
	Title string
	DOI   string // its DOI as published, "" if none
	Year  int
	URLs  []string // sorted
}

// Papers returns every paper of the web's current epoch, ordered by ID.
// Tests measure a clustering of recorded pages into works against it.
func (w *Web) Papers() []Paper {
	w.mu.RLock()
	defer w.mu.RUnlock()
	byRoot := map[*pubData]*Paper{}
	var out []*Paper
	for _, s := range w.sites {
		for _, p := range s.order {
			if p.pub == nil || p.hidden || p.dead() {
				continue
			}
			root := p.pub
			for root.of != nil {
				root = root.of
			}
			pp := byRoot[root]
			if pp == nil {
				pp = &Paper{Title: root.title, DOI: root.doi, Year: root.year}
				if root.preprint != nil {
					pp.DOI = ""
				}
				byRoot[root] = pp
				out = append(out, pp)
			}
			u := s.origin + escapeKey(p.key)
			if p == root.main {
				pp.ID = u
			}
			pp.URLs = append(pp.URLs, u)
		}
	}
	res := make([]Paper, 0, len(out))
	for _, pp := range out {
		if pp.ID == "" {
			pp.ID = pp.URLs[0] // its landing page is gone
		}
		sort.Strings(pp.URLs)
		res = append(res, *pp)
	}
	sort.Slice(res, func(i, j int) bool { return res[i].ID < res[j].ID })
	return res
}

// pubAt returns the publication record of the page at an absolute URL of
// the web, nil if there is none.
func (w *Web) pubAt(rawURL string) *pubData {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil
	}
	s := w.byHost[u.Hostname()]
	if s == nil {
		return nil
	}
	if p := s.pages[u.Path]; p != nil {
		return p.pub
	}
	return nil
}
