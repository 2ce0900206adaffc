package api

import (
	"html"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"
)

func TestRenderMarks(t *testing.T) {
	tests := []struct {
		text  string
		marks [][2]int
		want  string
	}{
		{"", nil, ""},
		{"plain text", nil, "plain text"},
		{"a b c", [][2]int{{2, 3}}, "a <mark>b</mark> c"},
		{`Tom & Jerry <3 "q" 's'`, [][2]int{{0, 3}}, "<mark>Tom</mark> &amp; Jerry &lt;3 &#34;q&#34; &#39;s&#39;"},
		{"x <mark>y", nil, "x &lt;mark&gt;y"}, // tags in the text stay text
		{"Zoë Müller", [][2]int{{0, 4}, {5, 12}}, "<mark>Zoë</mark> <mark>Müller</mark>"},
		{"ab", [][2]int{{0, 1}, {1, 2}}, "<mark>a</mark><mark>b</mark>"},
		{"abc", [][2]int{{1, 3}, {0, 2}}, "a<mark>bc</mark>"}, // overlapping: left out
		{"abc", [][2]int{{2, 9}, {-1, 1}, {2, 2}}, "abc"},     // out of bounds, empty
		{"Zoë", [][2]int{{0, 3}}, "Zoë"},                      // inside a character
		{"<script>x</script>", [][2]int{{8, 9}}, "&lt;script&gt;<mark>x</mark>&lt;/script&gt;"},
	}
	for _, tc := range tests {
		if got := renderMarks(tc.text, tc.marks); got != tc.want {
			t.Errorf("renderMarks(%q, %v) = %q, want %q", tc.text, tc.marks, got, tc.want)
		}
	}
}

// FuzzRenderMarks checks that renderMarks's output holds no element but
// mark, never nested and always closed, and that its text is the input's.
func FuzzRenderMarks(f *testing.F) {
	for _, s := range []string{"a <mark>b</mark>", "<script>x</script>", "&amp;&lt;&#x3c;", "Zoë", "\x00\r\n"} {
		f.Add(s, 0, 2, 1, 5)
	}
	f.Fuzz(func(t *testing.T, s string, a, b, c, d int) {
		marks := [][2]int{{a, b}, {c, d}}
		out := renderMarks(s, marks)
		z := xhtml.NewTokenizer(strings.NewReader(out))
		open := false
		for {
			tt := z.Next()
			if tt == xhtml.ErrorToken {
				break
			}
			name, _ := z.TagName()
			switch tt {
			case xhtml.TextToken:
				if strings.ContainsAny(string(z.Raw()), "<>") {
					t.Fatalf("renderMarks(%q, %v) = %q: raw < or > in text", s, marks, out)
				}
			case xhtml.StartTagToken:
				if string(name) != "mark" || open || string(z.Raw()) != "<mark>" {
					t.Fatalf("renderMarks(%q, %v) = %q: unexpected %s", s, marks, out, z.Raw())
				}
				open = true
			case xhtml.EndTagToken:
				if string(name) != "mark" || !open {
					t.Fatalf("renderMarks(%q, %v) = %q: unexpected %s", s, marks, out, z.Raw())
				}
				open = false
			default:
				t.Fatalf("renderMarks(%q, %v) = %q: unexpected token %v", s, marks, out, tt)
			}
		}
		if open {
			t.Fatalf("renderMarks(%q, %v) = %q: a mark is left open", s, marks, out)
		}
		if text := html.UnescapeString(strings.NewReplacer("<mark>", "", "</mark>", "").Replace(out)); text != html.UnescapeString(html.EscapeString(s)) {
			t.Fatalf("renderMarks(%q, %v) = %q: the text changed", s, marks, out)
		}
	})
}

func BenchmarkRenderMarks(b *testing.B) {
	s := "…the focused crawling of research pages & repositories, with a frontier ordered by priority and politeness delays…"
	marks := [][2]int{{7, 14}, {15, 23}}
	for b.Loop() {
		renderMarks(s, marks)
	}
}
