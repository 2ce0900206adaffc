package testweb

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"testing"
)

var hrefRe = regexp.MustCompile(`href="([^"]+)"`)

// TestUniformPages checks the shape every page promises: its size, its
// links (those Links lists, each once, resolved against the page) and
// that the chain and ring links reach every page from one seed.
func TestUniformPages(t *testing.T) {
	u := NewUniform(UniformConfig{Seed: 3, Hosts: 7, Pages: 23, PageBytes: 4000, SameHost: 5, CrossHost: 3})
	srv := httptest.NewServer(u)
	defer srv.Close()
	proxy, _ := url.Parse(srv.URL)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}
	get := func(raw string) (int, []byte) {
		t.Helper()
		resp, err := client.Get(raw)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}
	seen := map[string]bool{u.URL(0, 0): true}
	queue := []string{u.URL(0, 0)}
	links := 0
	for len(queue) > 0 {
		page := queue[0]
		queue = queue[1:]
		status, body := get(page)
		if status != 200 {
			t.Fatalf("GET %s: %d", page, status)
		}
		if len(body) < 4000 || len(body) > 4100 {
			t.Errorf("GET %s: %d bytes, want about 4000", page, len(body))
		}
		base, _ := url.Parse(page)
		got := map[string]bool{}
		for _, m := range hrefRe.FindAllSubmatch(body, -1) {
			ref, err := base.Parse(string(m[1]))
			if err != nil {
				t.Fatal(err)
			}
			if got[ref.String()] {
				t.Errorf("%s links to %s twice", page, ref)
			}
			got[ref.String()] = true
		}
		h, _ := u.hostNumber(base.Hostname())
		i := 0
		if base.Path != "/" {
			i = atoiTail(base.Path)
		}
		want := u.Links(h, i)
		if len(got) != len(want) {
			t.Errorf("%s has %d links, want %d", page, len(got), len(want))
		}
		for _, l := range want {
			if !got[u.URL(l[0], l[1])] {
				t.Errorf("%s does not link to %s", page, u.URL(l[0], l[1]))
			}
		}
		links += len(got)
		for ref := range got {
			if !seen[ref] {
				seen[ref] = true
				queue = append(queue, ref)
			}
		}
	}
	if len(seen) != 7*23 {
		t.Errorf("reached %d pages from one seed, want %d", len(seen), 7*23)
	}
	if links != u.LinkCount() {
		t.Errorf("pages hold %d links, LinkCount says %d", links, u.LinkCount())
	}
	for _, c := range []struct {
		url  string
		want int
	}{
		{"http://host-003.test/robots.txt", 200},
		{"http://host-003.test/sitemap.xml", 404},
		{"http://host-003.test/p/23", 404},
		{"http://host-003.test/p/01", 404},
		{"http://host-007.test/", 502},
		{"http://other.test/", 502},
	} {
		if status, _ := get(c.url); status != c.want {
			t.Errorf("GET %s: %d, want %d", c.url, status, c.want)
		}
	}
}

func atoiTail(p string) int {
	n := 0
	for _, c := range p[len("/p/"):] {
		n = n*10 + int(c-'0')
	}
	return n
}
