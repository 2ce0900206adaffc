package testweb

import (
	"net/http"
	"strings"
	"testing"
)

func TestPapers(t *testing.T) {
	w := New(Config{Seed: 3, PagesPerSite: 20})
	papers := w.Papers()
	owner := map[string]string{}
	full, lookalikes := 0, 0
	for _, p := range papers {
		hosts := map[string]bool{}
		for _, u := range p.URLs {
			if prev, ok := owner[u]; ok {
				t.Errorf("%s belongs to %s and %s", u, prev, p.ID)
			}
			owner[u] = p.ID
			info, ok := w.Lookup(u)
			if !ok || info.Status != http.StatusOK {
				t.Errorf("paper %s: %s: Lookup %v, status %d", p.ID, u, ok, info.Status)
			}
			hosts[strings.SplitN(u, "/", 4)[2]] = true
		}
		if p.Title == "" || p.ID == "" {
			t.Errorf("paper %+v without title or ID", p)
		}
		if hosts[RepositoryHost] && hosts[PreprintHost] && len(p.URLs) >= 6 {
			full++
		}
		if strings.Contains(p.ID, PreprintHost) {
			lookalikes++
		}
	}
	if full == 0 || lookalikes == 0 {
		t.Errorf("%d papers with landing page, PDF, repository copy and preprint; %d found only on the preprint server", full, lookalikes)
	}
	// Every publication and PDF of the web is a copy of some paper.
	for _, p := range w.Pages() {
		if (p.Kind == "publication" || p.Kind == "pdf") && owner[p.URL] == "" {
			t.Errorf("%s (%s) is in no paper", p.URL, p.Kind)
		}
	}
	// Deposits belong to the paper they deposit.
	for _, rec := range NewRepository(w).Records() {
		if rec.Original != "" && owner[rec.Landing] != owner[rec.Original] {
			t.Errorf("repository record %s is in %s, its original %s in %s", rec.Landing, owner[rec.Landing], rec.Original, owner[rec.Original])
		}
	}
}
