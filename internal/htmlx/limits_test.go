package htmlx

import (
	"fmt"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/cputime"
)

// attrBomb returns a <div> with n attributes: distinct keys, the same key
// again and again, or MaxAttrs-1 distinct keys and then the last again and
// again. With decode, the first value holds a character reference, so that
// the tokenizer decodes the attributes.
func attrBomb(kind string, n int, decode bool) string {
	var b strings.Builder
	b.WriteString("<div")
	if decode {
		b.WriteString(` title="a&amp;b"`)
	}
	for i := range n {
		switch kind {
		case "distinct":
			fmt.Fprintf(&b, " a%d=%d", i, i)
		case "same":
			b.WriteString(" a=1")
		case "cap":
			fmt.Fprintf(&b, " a%d", min(i, MaxAttrs-2))
		}
	}
	b.WriteString(">text</div>")
	return b.String()
}

// attrCounter is a Visitor that reads every tag's attributes and adds up
// the work Attrs did.
type attrCounter struct {
	probes, attrs int
	first         string
}

func (c *attrCounter) VisitToken(t *Token) {
	as := t.Attrs()
	c.probes += t.probes
	c.attrs += len(as)
	if len(as) > 0 && c.first == "" {
		c.first = string(as[0].Key) + "=" + string(as[0].Val)
	}
}

// TestAttrsLinear checks that Attrs compares or looks up each key of a tag
// a bounded number of times, however many attributes the tag has, and
// keeps at most MaxAttrs of them.
func TestAttrsLinear(t *testing.T) {
	for _, kind := range []string{"distinct", "same", "cap"} {
		for _, n := range []int{100, 10000, 50000} {
			for _, decode := range []bool{false, true} {
				name := fmt.Sprintf("%s/%d/decode=%v", kind, n, decode)
				t.Run(name, func(t *testing.T) {
					body := attrBomb(kind, n, decode)
					c := &attrCounter{}
					Tokens([]byte(body), c)
					if max := n + linearAttrs*linearAttrs; c.probes > max {
						t.Errorf("Attrs made %d key comparisons for %d attributes, more than %d", c.probes, n, max)
					}
					want := min(n, MaxAttrs)
					switch kind {
					case "same":
						want = 1
					case "cap":
						want = min(n, MaxAttrs-1)
					}
					if decode {
						want = min(want+1, MaxAttrs)
					}
					if c.attrs != want {
						t.Errorf("Attrs gave %d attributes, want %d", c.attrs, want)
					}
					if decode && c.first != "title=a&b" {
						t.Errorf("first attribute %q, want %q", c.first, "title=a&b")
					}
					// Parse reads the same attributes.
					doc := mustParse(t, body, Options{Visitors: []Visitor{&attrCounter{}}})
					if doc.Text != "text" {
						t.Errorf("Text = %q, want %q", doc.Text, "text")
					}
				})
			}
		}
	}
}

// TestAttrsMax checks that the attributes after the first MaxAttrs distinct
// ones are ignored, by Parse as by Attrs.
func TestAttrsMax(t *testing.T) {
	many := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, " data-x%d=y", i)
		}
		return b.String()
	}
	tests := []struct {
		body  string
		links int
		text  string
	}{
		{`<a href=/first` + many(MaxAttrs-1) + ` >x</a>`, 1, "x"},
		{`<a` + many(MaxAttrs-1) + ` href=/last>x</a>`, 1, "x"},
		{`<a` + many(MaxAttrs-1) + ` href="/last?a&amp;b">x</a>`, 1, "x"},
		{`<a` + many(MaxAttrs) + ` href=/after>x</a>`, 0, "x"},
		{`<a` + many(MaxAttrs) + ` href="/after?a&amp;b">x</a>`, 0, "x"},
		{`<a href=/a` + strings.Repeat(" href=/b", 2*MaxAttrs) + `>x</a>`, 1, "x"},
		{`<div` + many(MaxAttrs-1) + ` hidden>h</div>v`, 0, "v"},
		{`<div` + many(MaxAttrs) + ` hidden>h</div>v`, 0, "h\nv"},
	}
	for i, tt := range tests {
		doc := mustParse(t, tt.body, Options{})
		if len(doc.Links) != tt.links || doc.Text != tt.text {
			t.Errorf("test %d: Parse gives %d links, text %q; want %d, %q", i, len(doc.Links), doc.Text, tt.links, tt.text)
		}
		r := &recorder{}
		Tokens([]byte(tt.body), r)
		if want := reference([]byte(tt.body)); r.toks[0] != want[0] {
			t.Errorf("test %d: Attrs gives %.200s..., want %.200s...", i, r.toks[0], want[0])
		}
	}
}

// TestParseWorkLinear checks that the searches of the stack of open
// elements take a bounded number of steps per token, however deep the
// nesting: a few steps, or at worst maxDepth when an element is open but
// out of scope.
func TestParseWorkLinear(t *testing.T) {
	tests := []struct {
		name     string
		page     func(n int) string
		perToken int
	}{
		{"div", func(n int) string { return strings.Repeat("<div>", n) + strings.Repeat("</div>", n) }, 2},
		{"span", func(n int) string { return strings.Repeat("<span>x", n) + strings.Repeat("</span>", n) }, 2},
		{"list", func(n int) string { return strings.Repeat("<ul><li>", n) }, 2},
		{"li", func(n int) string { return "<ul>" + strings.Repeat("<li><b>", n) }, 2},
		{"stray end tags", func(n int) string { return strings.Repeat("<b>", n) + strings.Repeat("</i>", n) }, 2},
		{"table", func(n int) string { return strings.Repeat("<table><tr><td>", n) }, 4},
		{"headings", func(n int) string { return strings.Repeat("<h1><div>", n) + strings.Repeat("</h2>", n) }, 2},
		{"svg", func(n int) string { return "<svg>" + strings.Repeat("<g>", n) + strings.Repeat("</x>", n) }, 2},
		// A p out of scope is searched for on every block.
		{"p out of scope", func(n int) string {
			return "<p><button>" + strings.Repeat("<span>", maxDepth) + strings.Repeat("<div>", n)
		}, maxDepth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := parseForTest(t, tt.page(20000), Options{})
			if max := tt.perToken * p.tokens; p.steps > max {
				t.Errorf("%d steps for %d tokens, more than %d", p.steps, p.tokens, max)
			}
		})
	}
}

// parseForTest parses body as Parse does and returns the parser.
func parseForTest(t testing.TB, body string, opts Options) *parser {
	t.Helper()
	opts.Resolver = newResolver()
	p := &parser{}
	if err := parse(p, []byte(body), pageURL, opts, false); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMaxTokens(t *testing.T) {
	body := "<p>one</p><noscript><a href=/n>n</a><a href=/m>m</a></noscript><p>two</p><a href=/x>x</a>"
	tests := []struct {
		max       int
		text      string
		links     int
		truncated bool
	}{
		{0, "one\ntwo\nx", 3, false},
		{100, "one\ntwo\nx", 3, false},
		{3, "one", 0, true},
		{6, "one", 1, true},
		{13, "one", 2, true},
		{14, "one\ntwo", 2, true},
	}
	for _, tt := range tests {
		doc := mustParse(t, body, Options{MaxTokens: tt.max})
		if doc.Text != tt.text || len(doc.Links) != tt.links || doc.Truncated != tt.truncated {
			t.Errorf("Parse with MaxTokens %d: Text %q, %d links, Truncated %v; want %q, %d, %v",
				tt.max, doc.Text, len(doc.Links), doc.Truncated, tt.text, tt.links, tt.truncated)
		}
	}
	if _, err := Parse([]byte(body), pageURL, Options{Resolver: newResolver(), MaxTokens: -1}); err == nil {
		t.Error("Parse with MaxTokens -1: no error")
	}
	if Tokens([]byte(body)) {
		t.Error("Tokens: truncated")
	}
}

// BenchmarkManyAttrs parses a page of one <div> with n attributes, with a
// visitor that reads them: the time per attribute is the same at every n.
func BenchmarkManyAttrs(b *testing.B) {
	for _, n := range []int{25000, 50000, 100000} {
		body := []byte(attrBomb("distinct", n, false))
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			opts := Options{Resolver: hostResolver{}, Visitors: []Visitor{&attrCounter{}}}
			b.SetBytes(int64(len(body)))
			cpu := cputime.Process()
			for b.Loop() {
				if _, err := Parse(body, pageURL, opts); err != nil {
					b.Fatal(err)
				}
			}
			cputime.ReportPerOp(b, cpu)
		})
	}
}

// BenchmarkDeep parses a page of n nested <div><span>.
func BenchmarkDeep(b *testing.B) {
	for _, n := range []int{25000, 100000} {
		body := []byte(strings.Repeat("<div><span>", n))
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			opts := Options{Resolver: hostResolver{}}
			b.SetBytes(int64(len(body)))
			cpu := cputime.Process()
			for b.Loop() {
				if _, err := Parse(body, pageURL, opts); err != nil {
					b.Fatal(err)
				}
			}
			cputime.ReportPerOp(b, cpu)
		})
	}
}
