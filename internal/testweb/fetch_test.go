package testweb

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding/charmap"
)

// serve sends one GET for rawURL (in proxy form) straight to w.
func serve(t testing.TB, w *Web, rawURL string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, rawURL, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	w.ServeHTTP(rec, req)
	return rec
}

// slowURL reports the endpoints tests must not fetch casually.
func slowURL(u string) bool {
	for _, s := range []string{"faults.test/slow", "faults.test/drip", "faults.test/bomb", "faults.test/huge", "faults.test/files/archive.zip"} {
		if strings.HasSuffix(u, s) {
			return true
		}
	}
	return false
}

// decodeBody returns an HTML body as UTF-8, using the charset the ground
// truth gives.
func decodeBody(t testing.TB, body []byte, charset string) []byte {
	t.Helper()
	var cm *charmap.Charmap
	switch charset {
	case "windows-1254":
		cm = charmap.Windows1254
	case "iso-8859-9":
		cm = charmap.ISO8859_9
	default:
		return bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	}
	out, err := cm.NewDecoder().Bytes(body)
	if err != nil {
		t.Fatalf("decode %s: %v", charset, err)
	}
	return out
}

// pageLinks returns the absolute targets of a, link, script, img and
// iframe elements of an HTML page at pageURL, honouring <base href>, and
// the non-http(s) ones (mailto:, tel:) left out.
func pageLinks(t testing.TB, pageURL string, body []byte) []string {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse %s: %v", pageURL, err)
	}
	base, err := url.Parse(pageURL)
	if err != nil {
		t.Fatalf("parse %s: %v", pageURL, err)
	}
	var refs []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				switch {
				case n.Data == "base" && a.Key == "href":
					if b, err := base.Parse(strings.TrimSpace(a.Val)); err == nil {
						base = b
					}
				case a.Key == "href" && (n.Data == "a" || n.Data == "link"),
					a.Key == "src" && (n.Data == "script" || n.Data == "img" || n.Data == "iframe"):
					refs = append(refs, strings.TrimSpace(a.Val))
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	var out []string
	for _, ref := range refs {
		if ref == "" || strings.HasPrefix(ref, "#") {
			continue
		}
		u, err := base.Parse(ref)
		if err != nil {
			t.Errorf("%s: bad link %q: %v", pageURL, ref, err)
			continue
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			continue
		}
		u.Fragment = ""
		out = append(out, u.String())
	}
	return out
}

// isHTML reports whether a Content-Type is HTML.
func isHTML(ctype string) bool { return strings.HasPrefix(ctype, "text/html") }

// hostOf returns the host of an absolute URL.
func hostOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return u.Host
}
