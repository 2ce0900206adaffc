package testweb

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// UniformConfig shapes a uniform web: every host has the same number of
// pages, every page the same size and the same number of links. It is the
// web of the throughput benchmark, where the crawler's cost per page is
// measured against a bare fetch-and-parse loop, so nothing in it varies but
// the words and the link targets.
type UniformConfig struct {
	// Seed selects the words and the link targets.
	Seed int64
	// Hosts is the number of hosts (default 100), named host-000.test,
	// host-001.test and so on.
	Hosts int
	// Pages is the number of pages per host (default 200): / and /p/1 to
	// /p/{Pages-1}.
	Pages int
	// PageBytes is the size of every page's HTML (default 10,240).
	PageBytes int
	// SameHost and CrossHost are the links to pages drawn at random on the
	// same host (default 20) and on other hosts (default 8). Besides them,
	// every page links to the next page of its host (a chain through the
	// host) and to the page of the same number on the next host (a ring
	// through the hosts), so that every page is reachable from any one.
	SameHost, CrossHost int
}

// Uniform is a uniform web. It is safe for concurrent use and keeps no
// pages in memory: each is rendered from its number when asked for.
type Uniform struct {
	cfg UniformConfig
}

// NewUniform returns the uniform web cfg describes.
func NewUniform(cfg UniformConfig) *Uniform {
	if cfg.Hosts <= 0 {
		cfg.Hosts = 100
	}
	if cfg.Pages <= 0 {
		cfg.Pages = 200
	}
	if cfg.PageBytes <= 0 {
		cfg.PageBytes = 10 << 10
	}
	if cfg.SameHost <= 0 {
		cfg.SameHost = 20
	}
	if cfg.CrossHost <= 0 {
		cfg.CrossHost = 8
	}
	return &Uniform{cfg: cfg}
}

// Config returns the web's configuration, defaults filled in.
func (u *Uniform) Config() UniformConfig { return u.cfg }

func (u *Uniform) host(h int) string { return fmt.Sprintf("host-%03d.test", h) }

func (u *Uniform) path(i int) string {
	if i == 0 {
		return "/"
	}
	return "/p/" + strconv.Itoa(i)
}

// URL returns the URL of page i of host h.
func (u *Uniform) URL(h, i int) string { return "http://" + u.host(h) + u.path(i) }

// Seeds returns the home page of every host.
func (u *Uniform) Seeds() []string {
	out := make([]string, u.cfg.Hosts)
	for h := range out {
		out[h] = u.URL(h, 0)
	}
	return out
}

// URLs returns every page of the web, host by host.
func (u *Uniform) URLs() []string {
	out := make([]string, 0, u.cfg.Hosts*u.cfg.Pages)
	for h := 0; h < u.cfg.Hosts; h++ {
		for i := 0; i < u.cfg.Pages; i++ {
			out = append(out, u.URL(h, i))
		}
	}
	return out
}

// Links returns the distinct links of page i of host h, as (host, page)
// pairs, in the order the page lists them, self-links left out.
func (u *Uniform) Links(h, i int) [][2]int {
	c := u.cfg
	r := u.rng(h, i, 1)
	out := make([][2]int, 0, c.SameHost+c.CrossHost+2)
	seen := make(map[[2]int]bool, cap(out))
	add := func(l [2]int) {
		if l != [2]int{h, i} && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	add([2]int{h, (i + 1) % c.Pages})
	add([2]int{(h + 1) % c.Hosts, i})
	for range c.SameHost {
		add([2]int{h, r.intn(c.Pages)})
	}
	for range c.CrossHost {
		if c.Hosts > 1 {
			add([2]int{(h + 1 + r.intn(c.Hosts-1)) % c.Hosts, r.intn(c.Pages)})
		}
	}
	return out
}

// LinkCount returns the number of distinct links in the whole web.
func (u *Uniform) LinkCount() int {
	n := 0
	for h := 0; h < u.cfg.Hosts; h++ {
		for i := 0; i < u.cfg.Pages; i++ {
			n += len(u.Links(h, i))
		}
	}
	return n
}

func (u *Uniform) rng(h, i, salt int) rng {
	return rng{s: uint64(u.cfg.Seed)*0x9e3779b97f4a7c15 ^ uint64(h)<<40 ^ uint64(i)<<8 ^ uint64(salt)}
}

// uniformWords is the vocabulary of the pages' text.
var uniformWords = strings.Fields(`crawler archive frontier politeness robots sitemap
	index search ranking anchor text boilerplate extraction parser tokenizer
	citation journal article abstract author library university laboratory
	research dataset measurement experiment result method analysis survey
	network protocol latency bandwidth storage database transaction segment
	replica cluster partition shard queue scheduler worker thread process
	memory cache buffer compression checksum record header payload response
	request server client proxy resolver domain host path query fragment
	document section paragraph heading figure table appendix reference note
	theory model evidence hypothesis sample estimate variance bias error
	history language culture economy policy science engineering physics
	chemistry biology geology astronomy mathematics statistics computing`)

// Page returns the HTML of page i of host h, cfg.PageBytes long (or a few
// bytes longer when its links alone are longer).
func (u *Uniform) Page(h, i int) []byte {
	c := u.cfg
	r := u.rng(h, i, 2)
	var b strings.Builder
	b.Grow(c.PageBytes + 256)
	title := fmt.Sprintf("%s %s, page %d of %s", titleCase(r.pick(uniformWords)), r.pick(uniformWords), i, u.host(h))
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
	b.WriteString(title)
	b.WriteString("</title>\n<meta name=\"description\" content=\"A page of the uniform test web.\"></head>\n<body>\n<nav><ul>\n")
	links := u.Links(h, i)
	// The same-host links in the navigation, the others in the article.
	var cross [][2]int
	for _, l := range links {
		if l[0] != h {
			cross = append(cross, l)
			continue
		}
		fmt.Fprintf(&b, "<li><a href=\"%s\">%s %d</a></li>\n", u.path(l[1]), r.pick(uniformWords), l[1])
	}
	b.WriteString("</ul></nav>\n<article>\n<h1>")
	b.WriteString(title)
	b.WriteString("</h1>\n")
	const closing = "</article>\n</body></html>\n"
	placed := 0 // cross-host links written, one per paragraph
	for b.Len()+len(closing) < c.PageBytes {
		b.WriteString("<p>")
		for w := 0; w < 40 && b.Len()+len(closing)+8 < c.PageBytes; w++ {
			if w > 0 {
				b.WriteByte(' ')
			}
			if w == 20 && placed < len(cross) {
				l := cross[placed]
				placed++
				fmt.Fprintf(&b, "<a href=\"%s\">%s</a>", u.URL(l[0], l[1]), r.pick(uniformWords))
				continue
			}
			b.WriteString(r.pick(uniformWords))
		}
		b.WriteString(".</p>\n")
	}
	// The links a page too small for one per paragraph has left.
	for _, l := range cross[placed:] {
		fmt.Fprintf(&b, "<a href=\"%s\">more</a>\n", u.URL(l[0], l[1]))
	}
	b.WriteString(closing)
	return []byte(b.String())
}

// ServeHTTP serves the web, in proxy form (absolute URI) or by the Host
// header. Every host allows everything in its robots.txt and has no
// sitemap; unknown hosts answer 502 in proxy form, unknown paths 404.
func (u *Uniform) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	hostport := r.Host
	if r.URL.IsAbs() {
		hostport = r.URL.Host
	}
	host, _ := splitHostPort(hostport)
	h, ok := u.hostNumber(host)
	if !ok {
		http.Error(rw, "uniform web: no such host "+host, http.StatusBadGateway)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		rw.Header().Set("Allow", "GET, HEAD")
		http.Error(rw, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p := r.URL.Path
	if p == "/robots.txt" {
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		rw.Write([]byte("User-agent: *\nAllow: /\n"))
		return
	}
	i := -1
	if p == "/" {
		i = 0
	} else if s, ok := strings.CutPrefix(p, "/p/"); ok {
		if n, err := strconv.Atoi(s); err == nil && n > 0 && n < u.cfg.Pages && strconv.Itoa(n) == s {
			i = n
		}
	}
	if i < 0 {
		http.NotFound(rw, r)
		return
	}
	body := u.Page(h, i)
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	rw.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodGet {
		rw.Write(body)
	}
}

func (u *Uniform) hostNumber(host string) (int, bool) {
	s, ok := strings.CutPrefix(host, "host-")
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, ".test")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n >= u.cfg.Hosts || u.host(n) != host {
		return 0, false
	}
	return n, true
}
