package api

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func TestMarkOnly(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain text", "plain text"},
		{"a <mark>b</mark> c", "a <mark>b</mark> c"},
		{"Tom &amp; Jerry &lt;3 &#34;q&#34; &#39;s&#39;", "Tom &amp; Jerry &lt;3 &#34;q&#34; &#39;s&#39;"},
		{"x &lt;mark&gt;y", "x &lt;mark&gt;y"}, // escaped tags stay text
		{"<mark>open", "<mark>open</mark>"},
		{"close</mark> x", "close x"},
		{"<mark><mark>nested</mark></mark>", "<mark>nested</mark>"},
		{"<MARK class=x>upper</MARK>", "<mark>upper</mark>"},
		{`<img src=x onerror=alert(1)>after`, "after"},
		{"<script>alert(1)</script>", "alert(1)"},
		{"<b>bold</b> <a href='javascript:x'>link</a>", "bold link"},
		{"a <!-- comment --> b", "a  b"},
		{"1 < 2 & 3 > 2", "1 &lt; 2 &amp; 3 &gt; 2"},
		{"…<mark>crawling</mark>…", "…<mark>crawling</mark>…"},
		{"<style>x{}</style>y", "x{}y"},
	}
	for _, tc := range tests {
		if got := markOnly(tc.in); got != tc.want {
			t.Errorf("markOnly(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzMarkOnly checks that markOnly's output holds no element but mark,
// never nested and always closed, and that it is idempotent.
func FuzzMarkOnly(f *testing.F) {
	for _, s := range []string{"a <mark>b</mark>", "<script>x</script>", "&amp;&lt;&#x3c;", "<plaintext><mark>", "<textarea>&lt;</textarea>",
		"\x00<mark>\r\n", "<mark/>", "<!DOCTYPE html><mark a='>'>x", "<svg><mark>x</mark></svg>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := markOnly(s)
		z := html.NewTokenizer(strings.NewReader(out))
		open := false
		for {
			tt := z.Next()
			if tt == html.ErrorToken {
				break
			}
			name, _ := z.TagName()
			switch tt {
			case html.TextToken:
				if strings.ContainsAny(string(z.Raw()), "<>") {
					t.Fatalf("markOnly(%q) = %q: raw < or > in text", s, out)
				}
			case html.StartTagToken:
				if string(name) != "mark" || open || string(z.Raw()) != "<mark>" {
					t.Fatalf("markOnly(%q) = %q: unexpected %s", s, out, z.Raw())
				}
				open = true
			case html.EndTagToken:
				if string(name) != "mark" || !open {
					t.Fatalf("markOnly(%q) = %q: unexpected %s", s, out, z.Raw())
				}
				open = false
			default:
				t.Fatalf("markOnly(%q) = %q: unexpected token %v", s, out, tt)
			}
		}
		if open {
			t.Fatalf("markOnly(%q) = %q: a mark is left open", s, out)
		}
		if again := markOnly(out); again != out {
			t.Fatalf("markOnly is not idempotent: %q → %q → %q", s, out, again)
		}
	})
}

func BenchmarkMarkOnly(b *testing.B) {
	s := "…the <mark>focused</mark> <mark>crawling</mark> of research pages &amp; repositories, with a frontier ordered by priority and politeness delays…"
	for b.Loop() {
		markOnly(s)
	}
}
