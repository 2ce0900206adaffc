package maintext

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/htmlx"
	"github.com/acrawler/acrawler/internal/testweb"
)

// hostResolver resolves absolute http(s) references only: enough for
// htmlx.Parse to run.
type hostResolver struct{}

func (hostResolver) Resolve(base, ref string) (string, error) {
	if strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://") {
		return ref, nil
	}
	return "", os.ErrInvalid
}

// extractShared extracts the main text as the crawl does: a Builder given
// the tokens of a page (in UTF-8) by htmlx.Parse.
func extractShared(t testing.TB, body []byte, contentLanguage string) (Result, error) {
	t.Helper()
	b := NewBuilder(len(body))
	if _, err := htmlx.Parse(body, "https://example.org/", htmlx.Options{Resolver: hostResolver{}, Visitors: []htmlx.Visitor{b}}); err != nil {
		t.Fatal(err)
	}
	return b.Result(contentLanguage)
}

// TestShared checks that the main text read in htmlx.Parse's pass is the
// one Extract reads in its own, on the golden pages and on the pages of
// the synthetic web.
func TestShared(t *testing.T) {
	var bodies [][]byte
	pages, _ := filepath.Glob("../scholar/testdata/*.html")
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b, []byte(landmarks.Replace(string(b))))
	}
	w := testweb.New(testweb.Config{Seed: 1})
	for _, p := range w.Pages() {
		if p.Status != 200 || !strings.HasPrefix(p.ContentType, "text/html") || p.Kind == "slow" {
			continue
		}
		if len(bodies) > 200 {
			break
		}
		rec := httptest.NewRecorder()
		w.ServeHTTP(rec, httptest.NewRequest("GET", p.URL, nil))
		b, _, err := htmlx.Decode(rec.Body.Bytes(), rec.Header().Get("Content-Type"))
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	for _, body := range bodies {
		want, werr := Extract(body, "https://example.org/", "en")
		got, gerr := extractShared(t, body, "en")
		if got != want || (werr == nil) != (gerr == nil) {
			t.Errorf("shared pass gives %.80q, %v; Extract %.80q, %v", got.Text, gerr, want.Text, werr)
		}
		if want.Text == "" {
			t.Errorf("no main text in %.200q", body)
		}
	}
}

// blogPage is a page laid out as before HTML5: divs with classes and ids,
// no landmark elements, no ARIA roles, so that only the scoring of blocks
// (and the classes of the boilerplate) can find the content.
const blogPage = `<!DOCTYPE html><html lang="en"><head><title>Notes</title></head><body>
<div id="top"><div class="logo"><a href="/">Field Notes</a></div>
<div class="menu"><a href="/">Home</a> <a href="/archive">Archive</a> <a href="/about">About</a> <a href="/contact">Contact</a></div></div>
<div id="wrap">
 <div id="left">
  <div class="widget"><h3>Categories</h3><ul><li><a href="/c/1">Crawling</a></li><li><a href="/c/2">Archives</a></li><li><a href="/c/3">Metadata</a></li></ul></div>
  <div class="widget"><h3>About me</h3><p>I write about web archives, crawlers and the people who keep old university pages alive, mostly on weekends.</p></div>
 </div>
 <div id="content">
  <h1>Why repositories forget their own pages</h1>
  <div class="meta">Posted by Ada on 3 May 2024 in <a href="/c/2">Archives</a></div>
  <p>Institutional repositories are built to keep things, yet the pages around the records change, move and vanish, and the links, citations and bookmarks pointing at them break with every redesign.</p>
  <p>We looked at forty repositories over eighteen months, and found that a third of their landing pages changed address at least once, usually when the software was upgraded.</p>
  <p>Short.</p>
  <p>The fix is boring but effective: keep redirects for every address a record ever had, and tell the crawlers, through sitemaps, when a page really changed.</p>
  <div class="share"><a href="/s/t">Tweet</a> <a href="/s/m">Mastodon</a> <a href="/s/e">E-mail</a></div>
 </div>
</div>
<div class="comments"><h3>3 comments</h3><p>Great post, I have seen the same thing at our library, where every upgrade broke half of the handle links for months.</p></div>
<div id="bottom"><p>All content on this site is licensed under a Creative Commons licence, unless a page says otherwise, and may be reused freely.</p><a href="/imprint">Imprint</a></div>
</body></html>`

func TestScoredContent(t *testing.T) {
	res, err := Extract([]byte(blogPage), "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Institutional repositories are built to keep things",
		"We looked at forty repositories over eighteen months",
		"The fix is boring but effective",
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("main text lacks %q:\n%s", want, res.Text)
		}
	}
	for _, boiler := range []string{"Categories", "I write about web archives", "Great post", "Creative Commons", "Tweet", "Archive Home", "Imprint"} {
		if strings.Contains(res.Text, boiler) {
			t.Errorf("main text has boilerplate %q:\n%s", boiler, res.Text)
		}
	}
	// Paragraphs stay apart.
	if !strings.Contains(res.Text, "with every redesign.\n\nWe looked") {
		t.Errorf("paragraphs not separated by a blank line:\n%s", res.Text)
	}
}

func TestMainOrScore(t *testing.T) {
	para := func(s string) string {
		return "<p>" + s + " " + strings.Repeat("This sentence is here to make the paragraph long enough, with a comma. ", 3) + "</p>"
	}
	// A <main> with most of the text is the content, whatever the scores.
	page := `<body><div class="sidebar-free">` + para("Outside one.") + `</div><main><h1>T</h1>` + para("Inside one.") + para("Inside two.") + `</main></body>`
	res, _ := Extract([]byte(page), "", "")
	if !strings.Contains(res.Text, "Inside one.") || !strings.Contains(res.Text, "Inside two.") || strings.Contains(res.Text, "Outside one.") {
		t.Errorf("page with a main: main text %q", res.Text)
	}
	// A <main> with a small part of the text (a skip target around the
	// title, say) is not: the text is found by scoring.
	page = `<body><main><h1>Title</h1></main><div class="article-body">` + para("Body one.") + para("Body two.") + para("Body three.") + `</div></body>`
	res, _ = Extract([]byte(page), "", "")
	if !strings.Contains(res.Text, "Body one.") || !strings.Contains(res.Text, "Body three.") {
		t.Errorf("page with a small main: main text %q", res.Text)
	}
}

func TestLinkBlocks(t *testing.T) {
	long := strings.Repeat("The archive keeps every version of the page, with the date it was fetched. ", 4)
	// A list of links inside the content (a table of contents, tags) is
	// left out; a paragraph with a few links in it is not.
	page := `<main><h1>Title</h1><ul><li><a href="#a">Introduction</a></li><li><a href="#b">Method</a></li><li><a href="#c">Results</a></li></ul>
<p>` + long + `</p><p>See <a href="/x">one</a>, <a href="/y">two</a> and <a href="/z">three</a> for the details of the method and its results.</p>
<div><a href="/t/1">crawling</a> <a href="/t/2">archives</a> <a href="/t/3">metadata</a></div></main>`
	res, err := Extract([]byte(page), "", "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Text, "Introduction") || strings.Contains(res.Text, "crawling") {
		t.Errorf("link lists kept in %q", res.Text)
	}
	if !strings.Contains(res.Text, "See one, two and three for the details") || !strings.Contains(res.Text, "The archive keeps") {
		t.Errorf("content lost in %q", res.Text)
	}
	// A list of linked titles that is most of the page is the content.
	page = `<main><h1>News</h1><ul><li><a href="/n/1">The library opens a new reading room for the archives</a></li>
<li><a href="/n/2">Three doctoral students win the crawling challenge this year</a></li>
<li><a href="/n/3">A grant for keeping the university's old web pages</a></li></ul></main>`
	res, _ = Extract([]byte(page), "", "")
	if !strings.Contains(res.Text, "Three doctoral students win") {
		t.Errorf("listing lost: %q", res.Text)
	}
}

// TestSectionIDs checks that the sections of a document whose ids are the
// slugs of their headings, as Pandoc, Quarto, Sphinx and Markdown
// renderers write them ("related-work", "data-sharing"), are not taken
// for the related-posts lists and share bars that such words name in
// classes.
func TestSectionIDs(t *testing.T) {
	page := `<!DOCTYPE html><html lang="en"><body>
<nav class="navbar"><a href="/">Home</a> <a href="/papers">Papers</a></nav>
<main class="content" id="quarto-document-content">
<header id="title-block-header"><h1 class="title">Adaptive revisits for repositories</h1></header>
<section id="introduction" class="level2"><h2>Introduction</h2>
<p>Repositories are where universities keep the theses, reports and accepted manuscripts of their staff, and a crawler must decide how often to come back.</p></section>
<section id="related-work" class="level2"><h2>Related work</h2>
<p>Cho and Garcia-Molina studied the freshness of web pages and showed that uniform revisits are better than proportional ones when the budget is small.</p></section>
<div id="social-impact" class="section level2"><h2>Social impact</h2>
<p>Keeping the academic web archived protects the scholarly record, which matters for researchers and the public alike, long after the pages are gone.</p></div>
<h2 id="data-sharing">Data sharing</h2>
<p>The crawl logs and the change histories of all records are available from the university repository under a CC BY licence, with the scripts.</p>
<section id="skip-lists" class="level2"><h2>Skip lists</h2>
<p>The frontier keeps the hosts in a skip list ordered by the time of their next visit, so that the next host to visit is found in logarithmic time.</p></section>
<div class="share-buttons"><a href="/s/t">Share on Mastodon</a> <a href="/s/e">Share by e-mail</a></div>
<div class="related-posts"><h2>Related posts</h2><p>Why repositories forget their own pages, and what crawlers can do about it, in three short lessons.</p></div>
<section id="comments"><h2>2 comments</h2><p>Great post, I have seen the same thing at our library, where every upgrade broke half of the handle links.</p></section>
<section id="cookie-notice"><p>This site uses cookies to measure its audience; by continuing to browse you accept their use.</p></section>
</main>
</body></html>`
	res, err := Extract([]byte(page), "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Related work", "Cho and Garcia-Molina studied", "Social impact", "Keeping the academic web archived",
		"Data sharing", "The crawl logs", "Skip lists", "The frontier keeps the hosts"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("main text lacks %q:\n%s", want, res.Text)
		}
	}
	for _, boiler := range []string{"Share on", "Related posts", "Why repositories forget", "comments", "Great post", "uses cookies"} {
		if strings.Contains(res.Text, boiler) {
			t.Errorf("main text has boilerplate %q:\n%s", boiler, res.Text)
		}
	}
}

// TestLayoutTable checks a page laid out as in the 1990s, still common on
// departmental sites: a table whose first cell is the menu, links divided
// by <br>, and whose second cell is the text.
func TestLayoutTable(t *testing.T) {
	page := `<html><body>
<table width="100%"><tr>
<td width="200" valign="top"><a href="/">Ana Sayfa</a><br><a href="/h">Hakkımızda</a><br><a href="/a">Akademik Kadro</a><br><a href="/d">Duyurular</a><br><a href="/i">İletişim</a></td>
<td valign="top"><b>Bölüm Hakkında</b><br><br>
Bilgisayar Mühendisliği Bölümü 1995 yılında kurulmuştur. Bölümümüzde lisans, yüksek lisans ve doktora programları yürütülmektedir.<br>
Bölümümüzde 20 öğretim üyesi görev yapmaktadır ve her yıl yaklaşık 100 öğrenci mezun olmaktadır.<br><br>
Araştırma alanlarımız arasında yapay zeka, bilgisayar ağları, veri tabanları ve yazılım mühendisliği bulunmaktadır.
</td></tr></table>
<center><font size="1">Copyright 2010 Karadeniz Üniversitesi</font></center>
</body></html>`
	res, err := Extract([]byte(page), "", "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Text, "Bölüm Hakkında\nBilgisayar Mühendisliği") || !strings.Contains(res.Text, "yazılım mühendisliği bulunmaktadır.") {
		t.Errorf("content lost:\n%s", res.Text)
	}
	if strings.Contains(res.Text, "Akademik Kadro") {
		t.Errorf("menu kept:\n%s", res.Text)
	}
	// A cell of linked authors, in a table of publications, is not a menu.
	page = `<main><h1>Publications</h1><table>
<tr><td><a href="/p/1">Adaptive revisit policies for institutional repositories</a></td><td><a href="/m">M. Lindqvist</a>, <a href="/c">C. Okonkwo</a>, <a href="/v">P. van Aalst</a></td><td>2023</td></tr>
<tr><td><a href="/p/2">Sampling the long tail of university websites</a></td><td><a href="/m">M. Lindqvist</a>, <a href="/b">E. Brandt</a>, <a href="/o">A. Okafor</a></td><td>2021</td></tr>
<tr><td><a href="/p/3">What a crawl misses: measuring coverage of academic web archives</a></td><td><a href="/m">M. Lindqvist</a></td><td>2019</td></tr>
</table></main>`
	res, err = Extract([]byte(page), "", "")
	if err != nil || !strings.Contains(res.Text, "Adaptive revisit policies for institutional repositories | M. Lindqvist, C. Okonkwo, P. van Aalst | 2023") {
		t.Errorf("authors lost: %q, %v", res.Text, err)
	}
}

// TestShortContentLongFooter checks a page laid out with divs whose content
// (a short news item) is shorter than its footer: the footer's columns,
// which carry no class of their own, must not outscore the content.
func TestShortContentLongFooter(t *testing.T) {
	page := `<!DOCTYPE html><html lang="en"><body>
<div id="top"><a href="/">Eastmarch University</a> <a href="/news">News</a> <a href="/events">Events</a></div>
<div id="news-detail">
<h1>Library opening hours extended</h1>
<p>The university library will open until midnight during the examination period, the rector said.</p>
</div>
<div id="footer">
<div class="col"><p>University of Eastmarch, Norwich Road, Eastmarch EM4 7TJ, United Kingdom. Telephone +44 1632 960 000, fax +44 1632 960 001.</p></div>
<div class="col"><p>The University of Eastmarch is a registered charity, number 1234567, and a member of the Russell Group, the Eastern Universities Alliance and the European University Association.</p></div>
</div>
</body></html>`
	res, err := Extract([]byte(page), "", "")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Library opening hours extended\n\nThe university library will open until midnight during the examination period, the rector said."; res.Text != want {
		t.Errorf("main text:\n%s\nwant:\n%s", res.Text, want)
	}
}
