// Package apitest drives a real browser, headless Chromium, through the web
// pages of `acrawler serve`, for this module's tests: the api package's own
// and end-to-end tests over a real crawl.
//
// A test that has no Chromium is skipped with a message, unless the
// environment sets ACRAWLER_REQUIRE_BROWSER (CI does), in which case it
// fails. ACRAWLER_CHROMIUM names the browser binary when it is not on PATH.
// Screenshots go to the directory ACRAWLER_ARTIFACTS names, else to the
// test's temp dir; their paths are logged.
package apitest

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"golang.org/x/net/html"
)

// Timeout bounds a whole Browse, and each Screenshot.
const Timeout = 90 * time.Second

// Chromium returns the browser binary: $ACRAWLER_CHROMIUM when set, else
// the first of chromium, chromium-browser, google-chrome and
// google-chrome-stable found on PATH; "" when there is none.
func Chromium() string {
	names := []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}
	if p := os.Getenv("ACRAWLER_CHROMIUM"); p != "" {
		names = []string{p}
	}
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// ArtifactDir is where a test saves what a person may want to look at:
// $ACRAWLER_ARTIFACTS (created if needed), else the test's temp dir.
func ArtifactDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("ACRAWLER_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("apitest: artifacts: %v", err)
	}
	return dir
}

// Browser is a headless Chromium for one test, with a fresh profile. It
// records what the pages write to the console, so that a test can fail on
// script errors and Content-Security-Policy violations.
type Browser struct {
	t   testing.TB
	ctx context.Context
	log *consoleLog
}

// consoleLog is what the pages of one browser wrote to the console.
type consoleLog struct {
	mu       sync.Mutex
	messages []string
}

// NewBrowser starts Chromium for t, or skips t when there is none (fails it
// when ACRAWLER_REQUIRE_BROWSER is set). The browser stops when t ends.
func NewBrowser(t testing.TB) *Browser {
	t.Helper()
	path := Chromium()
	if path == "" {
		if os.Getenv("ACRAWLER_REQUIRE_BROWSER") != "" {
			t.Fatal("apitest: no Chromium found (install Debian's chromium, or set ACRAWLER_CHROMIUM) and ACRAWLER_REQUIRE_BROWSER is set")
		}
		t.Skip("apitest: no Chromium found: install Debian's chromium (or set ACRAWLER_CHROMIUM) to run the browser test")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		// Scrollbars are drawn, as a person sees them: a page that only
		// fits without them does not fit.
		chromedp.Flag("hide-scrollbars", false),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	b := &Browser{t: t, ctx: ctx, log: &consoleLog{}}
	messages := chromedp.Console(ctx)
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		cancel()
		cancelAlloc()
		t.Fatalf("apitest: start %s: %v", path, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			b.log.mu.Lock()
			b.log.messages = append(b.log.messages, m.String()+" ("+m.Source+" "+m.URL+")")
			b.log.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		<-done
	})
	return b
}

// For returns the browser as a subtest t of the test that started it
// uses it: the same browser (one at a time), with t's failures and
// artifacts.
func (b *Browser) For(t testing.TB) *Browser {
	return &Browser{t: t, ctx: b.ctx, log: b.log}
}

// Console returns the messages the pages wrote to the console so far.
func (b *Browser) Console() []string {
	b.log.mu.Lock()
	defer b.log.mu.Unlock()
	return append([]string(nil), b.log.messages...)
}

// CheckConsole fails the test when a page logged an error or a warning: a
// script error, a resource that failed to load, a Content-Security-Policy
// violation.
func (b *Browser) CheckConsole() {
	b.t.Helper()
	for _, m := range b.Console() {
		if strings.HasPrefix(m, "error:") || strings.HasPrefix(m, "exception:") || strings.HasPrefix(m, "warning:") {
			b.t.Errorf("apitest: the page logged %s", m)
		}
	}
}

// do runs actions under Timeout.
func (b *Browser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, Timeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		loc, _ := chromedp.Run(b.ctx, chromedp.Location())
		b.t.Fatalf("apitest: %s (at %s): %v", what, loc, err)
	}
}

// Viewport sets the page size in CSS pixels; a width under 600 emulates a
// phone (mobile layout, the viewport meta tag honored, device scale 2).
func (b *Browser) Viewport(width, height int) {
	b.t.Helper()
	if width < 600 {
		b.do("emulate a phone", chromedp.EmulateViewport(int64(width), int64(height), chromedp.EmulateMobile, chromedp.EmulateScale(2)))
		return
	}
	b.do("set the viewport", chromedp.EmulateViewport(int64(width), int64(height)))
}

// Screenshot loads pageURL at a width×height viewport, waits for sel to be
// visible (e.g. "main"), and saves a full-page PNG named name in the
// artifact directory. It returns the file's path.
func (b *Browser) Screenshot(pageURL, sel, name string, width, height int) string {
	b.t.Helper()
	b.Viewport(width, height)
	b.do("load "+pageURL, chromedp.Navigate(pageURL), chromedp.WaitVisible(chromedp.CSS(sel)))
	return b.save(name)
}

// Width is how wide the page loaded in a Browser is, in CSS pixels.
type Width struct {
	Window int `json:"window"` // window.innerWidth: the viewport, scrollbar included
	Client int `json:"client"` // document.documentElement.clientWidth: the viewport less a vertical scrollbar
	Scroll int `json:"scroll"` // document.documentElement.scrollWidth: the page's content
	// Outside lists the deepest elements that reach past the right edge
	// of the viewport (tag, class and a bit of text), at most 10: what
	// makes the page scroll sideways, or what is cut off by it.
	Outside []string `json:"outside"`
	// Cut lists elements that hide part of their own content (overflow
	// hidden, an ellipsis): a host name or URL cut off. Visually hidden
	// text for screen readers (class sr) is not counted. At most 10.
	Cut []string `json:"cut"`
}

// Fits says whether the page can be read without scrolling sideways.
func (w Width) Fits() bool {
	return w.Scroll <= w.Window && w.Scroll <= w.Client && len(w.Outside) == 0
}

// widthJS measures the page. An element counts as outside when its box
// ends right of the viewport and no ancestor clips it in a box of its own
// (a scroll container inside the page, or overflow hidden) that fits, and
// it is not hidden itself.
const widthJS = `(() => {
  const root = document.documentElement, vw = root.clientWidth;
  const clipped = el => {
    for (let a = el.parentElement; a && a !== root && a !== document.body; a = a.parentElement) {
      const ox = getComputedStyle(a).overflowX;
      if (ox !== "visible" && a.getBoundingClientRect().right <= vw + 0.5) return true;
    }
    return false;
  };
  const name = el => {
    const cls = el.getAttribute("class");
    return el.tagName.toLowerCase() + (cls ? "." + cls.split(/\s+/).join(".") : "");
  };
  const cut = [];
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest(".sr") || el.scrollWidth <= el.clientWidth + 1) continue;
    const ox = getComputedStyle(el).overflowX;
    if (ox !== "hidden" && ox !== "clip") continue;
    cut.push(name(el) + " (shows " + el.clientWidth + " of " + el.scrollWidth + " px): " + (el.textContent || "").trim().slice(0, 60));
    if (cut.length === 10) break;
  }
  const out = [];
  for (const el of document.body.querySelectorAll("*")) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= vw + 0.5 || clipped(el)) continue;
    if ([...el.children].some(c => c.getBoundingClientRect().right > vw + 0.5)) continue;
    out.push(name(el) + " (right " + Math.round(r.right) + "): " + (el.textContent || "").trim().slice(0, 60));
    if (out.length === 10) break;
  }
  return {window: window.innerWidth, client: vw, scroll: root.scrollWidth, outside: out, cut: cut};
})()`

// MeasureWidth measures the current page.
func (b *Browser) MeasureWidth() Width {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, Timeout)
	defer cancel()
	w, err := chromedp.Run(ctx, chromedp.Evaluate[Width](widthJS))
	if err != nil {
		b.t.Fatalf("apitest: measure the page: %v", err)
	}
	return w
}

// Fit is Screenshot with a check that the page fits its window: it fails
// the test when the page scrolls sideways (its scrollWidth is larger than
// window.innerWidth, or than the width a vertical scrollbar leaves) or
// when an element reaches past the viewport's right edge or cuts off its
// own text, naming them.
func (b *Browser) Fit(pageURL, sel, name string, width, height int) Width {
	b.t.Helper()
	b.Viewport(width, height)
	b.do("load "+pageURL, chromedp.Navigate(pageURL), chromedp.WaitVisible(chromedp.CSS(sel)))
	w := b.MeasureWidth() // before the full-page screenshot, which resizes the view
	path := b.save(name)
	if !w.Fits() {
		b.t.Errorf("apitest: %s at %d px is %d px wide (window %d, less scrollbar %d); see %s; sticking out:\n\t%s\ncut off:\n\t%s",
			pageURL, width, w.Scroll, w.Window, w.Client, path, strings.Join(w.Outside, "\n\t"), strings.Join(w.Cut, "\n\t"))
	}
	return w
}

// save writes a full-page screenshot of the current page.
func (b *Browser) save(name string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, Timeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("apitest: screenshot %s: %v", name, err)
	}
	path := filepath.Join(ArtifactDir(b.t), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatalf("apitest: screenshot: %v", err)
	}
	b.t.Logf("apitest: screenshot %s", path)
	return path
}

// Search is what Browse does on the search page.
type Search struct {
	// Query is typed into the search box.
	Query string
	// Want is a URL the results must hold; "": any result will do.
	Want string
	// Facet is the facet whose first value Browse clicks: "type" (the
	// default), "year" or "host".
	Facet string
	// Screenshot names the PNG saved after the facet click; "": search.png.
	Screenshot string
	// Width and Height are the viewport; 0: 1280×900. A width under 600
	// emulates a phone.
	Width, Height int
}

// Browsed is what Browse saw.
type Browsed struct {
	Results    []string // result URLs of the search
	Facet      string   // the facet value clicked
	Filtered   []string // result URLs once filtered
	Screenshot string   // the PNG's path
}

// Browse does what a person does on the search page at baseURL: types
// s.Query in the search box and presses Enter, checks that the results
// hold s.Want, clicks the first value of a facet, checks that every result
// shown then has that value and that the filter is shown as a removable
// chip, and saves a screenshot. Any failure, including an error or warning
// in the browser console, fails t.
func Browse(t testing.TB, baseURL string, s Search) Browsed {
	t.Helper()
	if s.Facet == "" {
		s.Facet = "type"
	}
	if s.Screenshot == "" {
		s.Screenshot = "search.png"
	}
	if s.Width == 0 {
		s.Width, s.Height = 1280, 900
	}
	b := NewBrowser(t)
	b.Viewport(s.Width, s.Height)
	var out Browsed

	box := chromedp.CSS(`main form[role=search] input[name=q]`)
	b.do("load the search page", chromedp.Navigate(strings.TrimSuffix(baseURL, "/")+"/"), chromedp.WaitVisible(box))
	b.do("type the query", chromedp.SendKeys(box, s.Query+kb.Enter), chromedp.WaitVisible(chromedp.CSS(`#total`)))
	page := b.main()
	if got := attr(find(page, "input", "name", "q"), "value"); got != s.Query {
		t.Errorf("apitest: the search box holds %q after the search, want %q", got, s.Query)
	}
	out.Results = hitURLs(page)
	if len(out.Results) == 0 {
		t.Fatalf("apitest: no results for %q:\n%s", s.Query, text(page))
	}
	if s.Want != "" && !contains(out.Results, s.Want) {
		t.Errorf("apitest: results for %q = %v, want %s among them", s.Query, out.Results, s.Want)
	}

	// The first facet value not selected yet: its link names the filter.
	link := find(page, "a", "data-facet", s.Facet)
	if link == nil {
		t.Fatalf("apitest: no %q facet on the results page", s.Facet)
	}
	href, err := url.Parse(attr(link, "href"))
	if err != nil {
		t.Fatalf("apitest: facet link: %v", err)
	}
	param := s.Facet
	if param == "year" {
		param = "year_from"
	}
	want := href.Query().Get(param)
	out.Facet = want
	b.do("click the "+s.Facet+" facet "+want,
		chromedp.Click(chromedp.CSS(`a[data-facet="`+s.Facet+`"]:not(.selected)`)),
		chromedp.WaitVisible(chromedp.CSS(`ul.chips`)))
	page = b.main()
	if loc, _ := chromedp.Run(b.ctx, chromedp.Location()); !strings.Contains(loc, param+"=") {
		t.Errorf("apitest: after the facet click the page is %s, without %s", loc, param)
	}
	out.Filtered = hitURLs(page)
	if len(out.Filtered) == 0 {
		t.Errorf("apitest: no results once filtered by %s=%s", s.Facet, want)
	}
	for _, h := range findAll(page, "li", "class", "hit") {
		if got := attr(h, "data-"+s.Facet); got != want {
			t.Errorf("apitest: result %s has %s %q, want %q", attr(h, "data-url"), s.Facet, got, want)
		}
	}
	if chips := text(find(page, "ul", "class", "chips")); !strings.Contains(chips, strings.TrimPrefix(strings.TrimPrefix(want, "https://"), "http://")) {
		t.Errorf("apitest: the filter chips %q do not show %s", chips, want)
	}
	out.Screenshot = b.save(s.Screenshot)
	b.CheckConsole()
	return out
}

// main returns the parsed main element of the current page.
func (b *Browser) main() *html.Node {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, Timeout)
	defer cancel()
	src, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("main")))
	if err != nil {
		b.t.Fatalf("apitest: read the page: %v", err)
	}
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		b.t.Fatalf("apitest: parse the page: %v", err)
	}
	return doc
}

// hitURLs lists the results of a search page, from their data-url.
func hitURLs(n *html.Node) []string {
	var out []string
	for _, h := range findAll(n, "li", "class", "hit") {
		out = append(out, attr(h, "data-url"))
	}
	return out
}

func find(n *html.Node, tag, key, val string) *html.Node {
	if all := findAll(n, tag, key, val); len(all) > 0 {
		return all[0]
	}
	return nil
}

// findAll lists the tag elements, in document order, whose attribute key
// is val (for class: one of its classes).
func findAll(n *html.Node, tag, key, val string) []*html.Node {
	var out []*html.Node
	for d := range n.Descendants() {
		if d.Type != html.ElementNode || d.Data != tag {
			continue
		}
		v := attr(d, key)
		if v == val || key == "class" && contains(strings.Fields(v), val) {
			out = append(out, d)
		}
	}
	return out
}

func attr(n *html.Node, key string) string {
	if n == nil {
		return ""
	}
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func text(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Load loads pageURL and waits for sel to be visible.
func (b *Browser) Load(pageURL, sel string) {
	b.t.Helper()
	b.do("load "+pageURL, chromedp.Navigate(pageURL), chromedp.WaitVisible(chromedp.CSS(sel)))
}

// Main returns the parsed main element of the current page.
func (b *Browser) Main() *html.Node {
	b.t.Helper()
	return b.main()
}

// Follow clicks the elements sels of the current page one after another,
// each once it is visible (a menu's summary, then a link in it), waits
// for the page to change to another, and returns the text it shows.
func (b *Browser) Follow(sels ...string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, Timeout)
	defer cancel()
	before, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		b.t.Fatalf("apitest: location: %v", err)
	}
	for _, sel := range sels {
		b.do("click "+sel, chromedp.WaitVisible(chromedp.CSS(sel)), chromedp.Click(chromedp.CSS(sel)))
	}
	for range 300 { // at most 30 s
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err == nil && loc != before {
			b.do("wait for the page", chromedp.WaitReady(chromedp.CSS("body")))
			text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
			if err != nil {
				b.t.Fatalf("apitest: read %s: %v", loc, err)
			}
			return text
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.t.Fatalf("apitest: clicking %v left the page at %s", sels, before)
	return ""
}

// Find lists the tag elements of n whose attribute key is val (for
// class: one of its classes), in document order; Attr reads an
// attribute, Text the text of an element, its white space collapsed.
func Find(n *html.Node, tag, key, val string) []*html.Node { return findAll(n, tag, key, val) }
func Attr(n *html.Node, key string) string                 { return attr(n, key) }
func Text(n *html.Node) string                             { return text(n) }
