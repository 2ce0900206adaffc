package testweb

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestVariedWebsDiffer checks that varied webs of different seeds differ
// in their mix of sites and URL vocabularies, and that every page a
// varied web lists answers as its ground truth says.
func TestVariedWebsDiffer(t *testing.T) {
	mixes := map[string]bool{}
	styles := map[string]bool{}
	for seed := int64(1); seed <= 6; seed++ {
		w := New(Config{Seed: seed, Varied: true, Sites: 30, PagesPerSite: 20, NoFaults: true})
		count := map[string]int{}
		for _, s := range w.Sites() {
			count[s.Kind]++
		}
		if len(w.Sites()) != 30 {
			t.Errorf("seed %d: %d sites, want 30", seed, len(w.Sites()))
		}
		if count["university"] < 2 || count["blog"] < 1 {
			t.Errorf("seed %d: mix %v lacks universities or blogs", seed, count)
		}
		mixes[fmtCounts(count)] = true
		for _, p := range w.Pages() {
			if p.Kind != "publication" {
				continue
			}
			for _, st := range []string{"/node/", "/handle/", "/record/", "/eprint/", "/publikationen/", "/yayinlar/"} {
				if strings.Contains(p.URL, st) {
					styles[st] = true
				}
			}
		}
		kindOf := map[string]string{}
		for _, s := range w.Sites() {
			kindOf[s.Origin+"/"] = s.Kind
		}
		blogs := 0
		for _, u := range w.Seeds() {
			switch kindOf[u] {
			case "blog":
				blogs++
			case "university":
			default:
				t.Errorf("seed %d: seed %s is a %q site, want universities and blogs only", seed, u, kindOf[u])
			}
		}
		if blogs != count["blog"] {
			t.Errorf("seed %d: %d blogs among the seeds, want all %d", seed, blogs, count["blog"])
		}
	}
	if len(mixes) < 4 {
		t.Errorf("6 seeds gave %d different site mixes, want ≥ 4", len(mixes))
	}
	if len(styles) < 4 {
		t.Errorf("URL styles seen: %v, want ≥ 4 of them", styles)
	}
}

func fmtCounts(m map[string]int) string {
	var b strings.Builder
	for _, k := range []string{"university", "journal", "lab", "blog", "shop", "mirror", "news"} {
		b.WriteString(k + "=" + itoa(m[k]) + " ")
	}
	return b.String()
}

// TestVariedWebServes fetches every listed page of a varied web and checks
// its status, and that mirrors' copies name the original as canonical and
// posts link research on other hosts.
func TestVariedWebServes(t *testing.T) {
	mirrored, cited := 0, 0
	for seed := int64(1); seed <= 3; seed++ {
		variedServes(t, New(Config{Seed: seed, Varied: true, Sites: 24, PagesPerSite: 15, NoFaults: true}), &mirrored, &cited)
	}
	if mirrored == 0 {
		t.Error("no mirror copy names another host's page as canonical")
	}
	if cited == 0 {
		t.Error("no blog post links a publication of another host")
	}
}

func variedServes(t *testing.T, w *Web, mirrored, cited *int) {
	for _, p := range w.Pages() {
		rec := httptest.NewRecorder()
		w.ServeHTTP(rec, httptest.NewRequest("GET", p.URL, nil))
		if rec.Code != p.Status {
			t.Errorf("GET %s = %d, want %d", p.URL, rec.Code, p.Status)
		}
	}
	for _, p := range w.Pages() {
		if p.Kind == "duplicate" && !strings.HasPrefix(p.Canonical, originOf(p.URL)) {
			*mirrored++
		}
		if p.Kind != "post" || p.Status != 200 {
			continue
		}
		req := httptest.NewRequest("GET", p.URL, nil)
		rec := httptest.NewRecorder()
		w.ServeHTTP(rec, req)
		body, _ := io.ReadAll(rec.Result().Body)
		if rec.Code != 200 {
			t.Fatalf("GET %s = %d, want 200", p.URL, rec.Code)
		}
		for _, q := range w.Pages() {
			if q.Kind == "publication" && originOf(q.URL) != originOf(p.URL) && strings.Contains(string(body), `href="`+q.URL+`"`) {
				*cited++
				break
			}
		}
	}
}

func originOf(u string) string {
	i := strings.Index(u, "://")
	j := strings.IndexByte(u[i+3:], '/')
	if j < 0 {
		return u
	}
	return u[:i+3+j]
}

// TestVariedMirrorsCopyText: a mirror's copy of a page shows the text of
// its original (every paragraph of the original's <article> is in the
// copy's), in its own template, as a mirror serves the same pages: a
// crawler can tell it by its content.
func TestVariedMirrorsCopyText(t *testing.T) {
	w := New(Config{Seed: 2, Varied: true, Sites: 24, PagesPerSite: 15, NoFaults: true})
	body := func(u string) string {
		rec := httptest.NewRecorder()
		w.ServeHTTP(rec, httptest.NewRequest("GET", u, nil))
		b, _ := io.ReadAll(rec.Result().Body)
		return string(b)
	}
	copies := 0
	for _, p := range w.Pages() {
		if p.Kind != "duplicate" || strings.HasPrefix(p.Canonical, originOf(p.URL)) || p.Status != 200 {
			continue
		}
		article := func(b string) string {
			_, b, _ = strings.Cut(b, "<article")
			b, _, _ = strings.Cut(b, "</article>")
			return b
		}
		orig, cp := article(body(p.Canonical)), article(body(p.URL))
		paras := 0
		for _, part := range strings.Split(orig, "<p>")[1:] {
			para, _, _ := strings.Cut(part, "</p>")
			if len(para) < 80 {
				continue
			}
			paras++
			if !strings.Contains(cp, para) {
				t.Errorf("%s, a copy of %s, lacks its paragraph %.60q…", p.URL, p.Canonical, para)
				break
			}
		}
		if paras > 0 {
			copies++
		}
	}
	if copies == 0 {
		t.Fatal("no mirror copy with paragraphs to compare")
	}
}
