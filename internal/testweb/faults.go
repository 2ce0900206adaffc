package testweb

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The faults host: everything that goes wrong on the web, one URL each.

const (
	hugeSize  = 6 << 20 // body of /huge
	bombUnits = 1023    // MiB of spaces after the first MiB in /bomb
	dripBytes = 10000   // bytes /drip sends, one per Slow/10
	zipSize   = 16 << 20
)

func (w *Web) buildFaults() *site {
	s := newSite(w, "faults.test", "Faults", "faults", false)
	s.notes = "redirect chain (301, 302, 307), loop, cross-host 308, 404, 410, 500, flaky 503s, 429 with Retry-After, slow, drip, 6 MiB page, gzip bomb, non-HTML files, no Content-Type, malformed HTML, meta refresh; robots.txt redirects to /robots-real.txt; an unlinked space of duplicates at /headlines?refresh=N"
	s.text = enNews
	home := s.add(&page{key: "/", kind: "home", title: "Faults", render: renderFaultsHome})
	s.home = home
	redirect := func(key string, status int, loc, title, note string) {
		s.add(&page{key: key, kind: "redirect", status: status, title: title, loc: loc, serve: serveRedirect, note: note})
	}
	redirect("/redirect/1", 301, "http://faults.test/redirect/2", "Redirect chain", "redirect chain: 301 (absolute Location) → /redirect/2")
	redirect("/redirect/2", 302, "/redirect/3", "Redirect chain, step 2", "redirect chain: 302 (root-relative Location) → /redirect/3")
	redirect("/redirect/3", 307, "../landing", "Redirect chain, step 3", "redirect chain: 307 (relative Location ../landing) → /landing")
	redirect("/loop/a", 301, "/loop/b", "Redirect loop", "redirect loop: /loop/a → /loop/b → /loop/a")
	redirect("/loop/b", 302, "/loop/a", "Redirect loop, other end", "redirect loop: /loop/b → /loop/a")
	redirect("/elsewhere", 308, "http://www.northfield-university.test/about", "Moved to another host", "308 to another host")
	s.add(&page{key: "/landing", kind: "page", title: "Landing page", render: renderStatic})
	status := func(key string, code int, title string) {
		s.add(&page{key: key, kind: "fault", status: code, title: title, render: renderStatus, note: "answers " + itoa(code)})
	}
	status("/missing", 404, "Page not found")
	status("/gone", 410, "Gone")
	status("/error", 500, "Internal server error")
	s.add(&page{key: "/flaky", kind: "fault", title: "Flaky page", render: renderStatic, serve: serveFlaky,
		note: "503 for the first 2 requests to this web, then 200"})
	s.add(&page{key: "/busy", kind: "fault", title: "Busy page", render: renderStatic, serve: serveBusy,
		note: "429 with Retry-After: 1 for the first request to this web, then 200"})
	if !w.cfg.NoFaults {
		s.add(&page{key: "/slow", kind: "fault", title: "Slow page", render: renderStatic, serve: serveSlow,
			note: "answers after Config.Slow"})
		s.add(&page{key: "/drip", kind: "fault", title: "Drip", ctype: "text/html; charset=utf-8", serve: serveDrip,
			note: "200, then one byte every Config.Slow/10, " + itoa(dripBytes) + " bytes"})
		s.add(&page{key: "/huge", kind: "fault", title: "Huge page", ctype: "text/html; charset=utf-8", serve: serveHuge,
			note: "a 6 MiB HTML page"})
		s.add(&page{key: "/bomb", kind: "fault", title: "Gzip bomb", ctype: "text/html; charset=utf-8", serve: serveBomb,
			note: "Content-Encoding: gzip, about 1 GiB of spaces once decompressed"})
	}
	s.add(&page{key: "/images/photo.jpg", kind: "file", title: "Photo", ctype: "image/jpeg", serve: servePhoto})
	s.add(&page{key: "/files/archive.zip", kind: "file", title: "Archive", ctype: "application/zip", serve: serveZip,
		note: "a 16 MiB zip file"})
	s.add(&page{key: "/feed.xml", kind: "feed", title: "Faults feed", ctype: "application/rss+xml", render: renderFeed})
	s.add(&page{key: "/no-content-type", kind: "fault", title: "No Content-Type", serve: serveNoType,
		note: "an HTML page without a Content-Type header"})
	s.add(&page{key: "/malformed", kind: "fault", title: "Malformed", ctype: "text/html; charset=utf-8", serve: serveBytes([]byte(malformedHTML)),
		note: "unclosed tags, unquoted attributes, invalid UTF-8 and NUL bytes"})
	s.add(&page{key: "/refresh", kind: "redirect", title: "Refresh", loc: "/landing", render: renderRefresh,
		note: "200 with <meta http-equiv=refresh content=\"0; url=/landing\">"})
	s.add(&page{key: "/forbidden/page", kind: "page", title: "Forbidden by robots.txt", render: renderStatic})
	s.nav = []navLink{{label: "Landing", href: "/landing"}, {label: "Feed", href: "/feed.xml"}}
	s.footer = []navLink{{label: "Landing", href: "/landing"}}
	s.addAssets()
	real := newRobots("redirect", "faults.test: the real robots.txt", []robotsGroup{
		{agents: []string{"*"}, rules: []robotsRule{{pattern: "/forbidden/"}}},
	}, nil)
	real.status = http.StatusMovedPermanently
	real.loc = "/robots-real.txt"
	s.addRobots(real)
	s.dynamic = dynHeadlines
	return s
}

// dynHeadlines answers /headlines and /headlines?refresh=N for any N: an
// auto-generated space of duplicates. Every URL serves the same text, and
// its "refresh" links carry the next numbers, so the URLs never run out.
// No page links to it: a crawl meets it only when seeded with it.
func dynHeadlines(s *site, path string, q []param) *page {
	if path != "/headlines" || len(q) > 1 {
		return nil
	}
	n := 0
	if len(q) == 1 {
		var ok bool
		if n, ok = atoiSmall(q[0].value); !ok || q[0].name != "refresh" {
			return nil
		}
	}
	return &page{kind: "trap", title: "Latest headlines", num: n, render: renderHeadlines,
		note: "duplicate space: every /headlines?refresh=N serves the same text and links to refresh=N+1 and N+2"}
}

func renderHeadlines(d *doc) {
	// The same text whatever the URL: the generator is seeded by the path
	// alone, not by the page key (which holds the query).
	d.r = seedFor(d.w.seed, d.s.host, "/headlines", 0)
	d.str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Latest headlines</title></head>\n<body><h1>Latest headlines</h1>\n")
	d.s.text.paragraphs(d.b, &d.r, 6)
	for i := 1; i <= 2; i++ {
		d.str("<p><a href=\"/headlines?refresh=")
		d.str(itoa(d.p.num + i))
		d.str("\">Refresh</a></p>\n")
	}
	d.str("</body></html>\n")
}

func renderFaultsHome(d *doc) {
	d.head("Faults")
	d.body()
	d.str("<h1>Everything that goes wrong</h1>\n<ul>\n")
	for _, p := range d.s.order {
		switch p.kind {
		case "home", "asset", "robots":
			continue
		}
		if p.key == "/landing" {
			continue
		}
		d.li(p.key, p.title)
	}
	d.str("</ul>\n")
	d.end()
}

// serveGenerated serves p through its render function, ignoring p.serve.
func (w *Web) serveGenerated(rw http.ResponseWriter, r *http.Request, s *site, p *page) {
	q := *p
	q.serve = nil
	w.servePage(rw, r, s, &q)
}

func serveFlaky(w *Web, s *site, p *page, rw http.ResponseWriter, r *http.Request) {
	if w.flaky.Add(1) <= 2 {
		http.Error(rw, "503 Service Unavailable: try again", http.StatusServiceUnavailable)
		return
	}
	w.serveGenerated(rw, r, s, p)
}

func serveBusy(w *Web, s *site, p *page, rw http.ResponseWriter, r *http.Request) {
	if w.busy.Add(1) == 1 {
		rw.Header().Set("Retry-After", "1")
		http.Error(rw, "429 Too Many Requests", http.StatusTooManyRequests)
		return
	}
	w.serveGenerated(rw, r, s, p)
}

func serveSlow(w *Web, s *site, p *page, rw http.ResponseWriter, r *http.Request) {
	t := time.NewTimer(w.cfg.Slow)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		return
	case <-t.C:
	}
	w.serveGenerated(rw, r, s, p)
}

// serveDrip sends the status at once, then one byte every Slow/10 until
// dripBytes are out or the client goes away.
func serveDrip(w *Web, s *site, p *page, rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("Content-Type", p.ctype)
	rw.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(rw)
	rc.Flush()
	const text = "<!DOCTYPE html><html><head><title>Drip</title></head><body><p>This page arrives one byte at a time. "
	interval := max(w.cfg.Slow/10, time.Millisecond)
	t := time.NewTicker(interval)
	defer t.Stop()
	var one [1]byte
	for i := 0; i < dripBytes; i++ {
		select {
		case <-r.Context().Done():
			return
		case <-t.C:
		}
		one[0] = ' '
		if i < len(text) {
			one[0] = text[i]
		}
		if _, err := rw.Write(one[:]); err != nil {
			return
		}
		if rc.Flush() != nil {
			return
		}
	}
}

// serveHuge streams a 6 MiB HTML page from a precomputed 64 KiB block.
func serveHuge(w *Web, s *site, p *page, rw http.ResponseWriter, r *http.Request) {
	const head = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Huge page</title></head><body>\n<h1>Huge page</h1>\n<p><a href=\"/landing\">Landing</a></p>\n"
	const tail = "\n<p><a href=\"/\">Back</a></p></body></html>\n"
	block := w.lazyBody("huge", func() []byte {
		var b bytes.Buffer
		r := rng{s: w.seed}
		for b.Len() < 64<<10 {
			b.WriteString("<p>")
			enNews.paragraph(&b, &r, 6)
			b.WriteString("</p>\n")
		}
		return b.Bytes()[:64<<10]
	})
	rw.Header().Set("Content-Type", p.ctype)
	rw.Header().Set("Content-Length", strconv.Itoa(hugeSize))
	rw.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	if _, err := rw.Write([]byte(head)); err != nil {
		return
	}
	left := hugeSize - len(head) - len(tail)
	for left > 0 {
		n := min(left, len(block))
		// Whole paragraphs would not fit exactly: pad the last block with
		// spaces rather than cut a tag in half.
		chunk := block[:n]
		if n < len(block) {
			chunk = bytes.Repeat([]byte{' '}, n)
		}
		if _, err := rw.Write(chunk); err != nil {
			return
		}
		left -= n
	}
	rw.Write([]byte(tail))
}

// bombStream is a gzip member of about 1 GiB of spaces: head (header, an
// HTML prefix and 1 MiB of spaces), units copies of unit (1 MiB of spaces
// each, back-references only into the spaces before it) and tail (the
// final block, CRC-32 and size).
type bombStream struct {
	head, unit, tail []byte
	units            int
}

func (b *bombStream) size() int64 {
	return int64(len(b.head)) + int64(b.units)*int64(len(b.unit)) + int64(len(b.tail))
}

const bombPrefix = "<!DOCTYPE html><html><head><title>Bomb</title></head><body>"

func newBomb(units int) *bombStream {
	spaces := bytes.Repeat([]byte{' '}, 1<<20)
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	zw.Write([]byte(bombPrefix))
	zw.Write(spaces)
	zw.Flush()
	head := append([]byte(nil), z.Bytes()...)
	z.Reset()
	zw.Write(spaces)
	zw.Flush()
	unit := append([]byte(nil), z.Bytes()...)
	z.Reset()
	zw.Close()
	tail := append([]byte(nil), z.Bytes()[:z.Len()-8]...)
	crc := crc32.ChecksumIEEE([]byte(bombPrefix))
	for i := 0; i < units+1; i++ {
		crc = crc32.Update(crc, crc32.IEEETable, spaces)
	}
	size := uint32(len(bombPrefix) + (units+1)<<20) // mod 2^32, as gzip stores it
	tail = binary.LittleEndian.AppendUint32(tail, crc)
	tail = binary.LittleEndian.AppendUint32(tail, size)
	return &bombStream{head: head, unit: unit, tail: tail, units: units}
}

func (w *Web) bomb() *bombStream {
	w.lazyMu.Lock()
	defer w.lazyMu.Unlock()
	if w.bombs == nil {
		w.bombs = newBomb(bombUnits)
	}
	return w.bombs
}

func serveBomb(w *Web, s *site, p *page, rw http.ResponseWriter, r *http.Request) {
	b := w.bomb()
	h := rw.Header()
	h.Set("Content-Type", p.ctype)
	h.Set("Content-Encoding", "gzip")
	h.Set("Content-Length", strconv.FormatInt(b.size(), 10))
	rw.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	if _, err := rw.Write(b.head); err != nil {
		return
	}
	for i := 0; i < b.units; i++ {
		if _, err := rw.Write(b.unit); err != nil {
			return
		}
	}
	rw.Write(b.tail)
}

func servePhoto(w *Web, s *site, p *page, rw http.ResponseWriter, r *http.Request) {
	body := w.lazyBody("photo", func() []byte {
		img := image.NewRGBA(image.Rect(0, 0, 64, 48))
		for y := 0; y < 48; y++ {
			for x := 0; x < 64; x++ {
				img.Set(x, y, color.RGBA{uint8(x * 4), uint8(y * 5), 160, 255})
			}
		}
		var b bytes.Buffer
		jpeg.Encode(&b, img, &jpeg.Options{Quality: 80})
		return b.Bytes()
	})
	serveBytes(body)(w, s, p, rw, r)
}

// serveZip streams a zip file holding one 16 MiB stored entry.
func serveZip(w *Web, s *site, p *page, rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("Content-Type", p.ctype)
	rw.Header().Set("Content-Disposition", `attachment; filename="archive.zip"`)
	rw.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	zw := zip.NewWriter(rw)
	f, err := zw.CreateHeader(&zip.FileHeader{Name: "data/measurements.bin", Method: zip.Store, Modified: w.base})
	if err != nil {
		return
	}
	var chunk [32 << 10]byte
	g := rng{s: w.seed}
	for n := 0; n < zipSize; n += len(chunk) {
		for i := 0; i < len(chunk); i += 8 {
			binary.LittleEndian.PutUint64(chunk[i:], g.next())
		}
		if _, err := f.Write(chunk[:]); err != nil {
			return
		}
	}
	zw.Close()
}

func serveNoType(w *Web, s *site, p *page, rw http.ResponseWriter, r *http.Request) {
	// A nil value keeps net/http from sniffing a Content-Type.
	rw.Header()["Content-Type"] = nil
	rw.WriteHeader(http.StatusOK)
	rw.Write([]byte("<!DOCTYPE html>\n<html><head><title>No Content-Type</title></head><body><h1>No Content-Type</h1><p>This page was served without a Content-Type header. <a href=\"/landing\">Landing</a></p></body></html>\n"))
}

const malformedHTML = "<!DOCTYPE html>\n<html><head><title>Malformed page</title>\n<body><div><p>Unclosed paragraph <b>bold <i>italic\n" +
	"<a href=/landing>unquoted link</a> <a href='/missing'>single quotes</a> <A HREF=\"/gone\">upper case</A>\n" +
	"<table><tr><td>cell<td>cell</table></div></div></div>\n" +
	"garbage: \xff\xfe\x00\x01\xc3\x28 \xe2\x82 end of garbage\n" +
	"<a href=\"/redirect/1\" <a href=\"/error\">broken tag</a>\n" +
	"<p>attribute soup <img src=/images/photo.jpg alt=photo width=64 height=48 </p>\n" +
	"<!-- unterminated comment <a href=\"/forbidden/page\">hidden</a> -- >\n" +
	"<script>document.write('<a href=\"/refresh\">written by script</a>')</script>\n"

func renderRefresh(d *doc) {
	d.head("Redirecting")
	d.str("<meta http-equiv=\"refresh\" content=\"0; url=/landing\">\n")
	d.body()
	d.str("<p>If you are not redirected, follow <a href=\"/landing\">this link</a>.</p>\n")
	d.end()
}

func renderFeed(d *doc) {
	d.str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel><title>Faults</title><link>http://faults.test/</link><description>Things that go wrong</description>\n")
	for _, key := range []string{"/landing", "/redirect/1", "/missing"} {
		d.str("<item><title>")
		d.str(strings.TrimPrefix(key, "/"))
		d.str("</title><link>http://faults.test")
		d.str(key)
		d.str("</link><pubDate>")
		d.str(d.w.base.Format(time.RFC1123Z))
		d.str("</pubDate></item>\n")
	}
	d.str("<item><title>Northfield</title><link>http://www.northfield-university.test/news/</link></item>\n</channel></rss>\n")
}
