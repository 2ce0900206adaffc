package htmlx

import (
	"slices"
	"strings"
	"testing"
)

// TestForeignContent checks that in SVG and MathML a <title>, <style>,
// <script>, <textarea> and the like are elements with markup for content,
// not raw text that runs to their end tag (and, self-closed, to the end of
// the page), while in an integration point they are HTML again.
func TestForeignContent(t *testing.T) {
	tests := []struct {
		name, in string
		text     string
		title    string
		links    []string
	}{
		{"svg self-closed title", `<svg><title/></svg><p>long text</p><a href=/x>x</a>`, "long text\nx", "", []string{"/x"}},
		{"svg title is not the page title", `<svg><title>Icon</title></svg><p>body</p>`, "body", "", nil},
		{"page title before svg", `<title>Page</title><svg><title>Icon</title></svg><p>body</p>`, "body", "Page", nil},
		{"page title after svg", `<svg><title>Icon</title></svg><title>Page</title><p>body</p>`, "body", "Page", nil},
		{"svg title with markup", `<svg><title>a<a href=/in>b</a></title></svg>c`, "c", "", []string{"/in"}},
		{"svg style", `<svg><style/></svg>after <a href=/a>a</a>`, "after a", "", []string{"/a"}},
		{"svg script", `<svg><script/></svg>after`, "after", "", nil},
		{"svg textarea", `<svg><textarea/></svg>after`, "after", "", nil},
		{"svg noscript", `<svg><noscript/></svg>after`, "after", "", nil},
		{"svg plaintext", `<svg><plaintext/></svg><p>after</p>`, "after", "", nil},
		{"svg xmp iframe noembed noframes", `<svg><xmp/><iframe/><noembed/><noframes/></svg>after`, "after", "", nil},
		{"svg upper case", `<SVG><TITLE/></SVG>after`, "after", "", nil},
		{"nested svg", `<svg><g><svg><title/></svg></g></svg>after`, "after", "", nil},
		{"math title", `<math><mi>x</mi><title/></math>after`, "x after", "", nil},
		// In an integration point the content is HTML: a <style> there
		// is raw text.
		{"svg desc", `<svg><desc><style>a<b>c</style></desc></svg>after`, "after", "", nil},
		{"svg foreignObject", `<svg><foreignObject><style>a<b>c</style><p>in</p></foreignObject></svg>after`, "after", "", nil},
		{"math mi", `<math><mi><style>a<b>c</style></mi></math>after`, "after", "", nil},
		{"math annotation-xml html", `<math><annotation-xml encoding="Text/HTML"><style>a<b>c</style></annotation-xml></math>after`, "after", "", nil},
		{"math annotation-xml svg", `<math><annotation-xml><svg><title/></svg></annotation-xml></math>after`, "after", "", nil},
		// A breakout element leaves SVG up to the integration point.
		{"breakout in foreignObject", `<svg><foreignObject><svg><g><p>x</p><title>t</title></foreignObject></svg>after`, "after", "", nil},
		// CDATA is text in foreign content only.
		{"math cdata", `<math><mi>a</mi><![CDATA[b<c>]]></math>d`, "ab<c> d", "", nil},
		{"html cdata", `a<![CDATA[b<c>]]>d`, "a]]>d", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := mustParse(t, tt.in, Options{})
			var links []string
			for _, l := range doc.Links {
				links = append(links, strings.TrimPrefix(l.URL, "https://www.uni.example"))
			}
			if doc.Text != tt.text || doc.Title != tt.title || !slices.Equal(links, tt.links) {
				t.Errorf("Parse(%q): Text %q, Title %q, links %q; want %q, %q, %q", tt.in, doc.Text, doc.Title, links, tt.text, tt.title, tt.links)
			}
			checkVisitor(t, []byte(tt.in))
		})
	}
}

// TestTokensForeign checks that visitors run by Tokens see the tokens after
// an SVG <title/>.
func TestTokensForeign(t *testing.T) {
	r := &recorder{}
	Tokens([]byte(`<svg><title/></svg><p>long text</p>`), r)
	if !slices.Contains(r.toks, `Text "long text"`) {
		t.Errorf("Tokens: no text after an SVG <title/>: %q", r.toks)
	}
}
