package pdf

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCleanLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"  plain   text\t", "plain text"},
		{"\uFB01nd the \uFB02ow, e\uFB03cient, \uFB00, \uFB04, \uFB05, \uFB06", "find the flow, efficient, ff, ffl, st, st"},
		{"a\x00b\x01c\x7fd\u0085e", "abcd e"},
		{"soft\u00ADhyphen\uFEFF zero\u200Bwidth", "softhyphen zerowidth"},
		{"bad \xff\xfe utf8", "bad utf8"},
		{"u\u0308ber", "über"},
		{"ç ğ ı ö ş ü İ", "ç ğ ı ö ş ü İ"},
		{"hyphen\uFFFEmark", "hyphen\uFFFEmark"},
		{"line\r\nbreak\u2028", "line break"},
		{"\u00A0nbsp\u2003em ", "nbsp em"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := cleanLine(tt.in); got != tt.want {
				t.Errorf("cleanLine(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// col returns lines of a column at x, size 10, 12 points apart from y
// downwards; a leading ">" indents a line by 15 points.
func col(x, y float64, texts ...string) []line {
	var ls []line
	for _, s := range texts {
		x0 := x
		if t, ok := strings.CutPrefix(s, ">"); ok {
			s, x0 = t, x+15
		}
		ls = append(ls, line{text: s, x0: x0, y0: y, x1: x + 200, y1: y, size: 10, geo: true})
		y -= 12
	}
	return ls
}

func TestLayoutPage(t *testing.T) {
	tests := []struct {
		name  string
		lines []line
		want  []string
	}{
		{"empty", nil, nil},
		{"one paragraph", col(50, 700, "The first line", "and the second."), []string{"The first line and the second."}},
		{"indent", col(50, 700, ">First paragraph", "ends here.", ">Second one", "too."),
			[]string{"First paragraph ends here.", "Second one too."}},
		{"gap", append(col(50, 700, "Heading"), col(50, 670, "Body text", "goes on.")...),
			[]string{"Heading", "Body text goes on."}},
		{"font size", append(col(50, 700, "Big title"), line{text: "small text", x0: 50, y0: 688, x1: 250, y1: 688, size: 8, geo: true}),
			[]string{"Big title", "small text"}},
		{"column change continues", append(col(50, 700, ">A paragraph that", "continues in"), col(300, 700, "the next column.", "More of it.")...),
			[]string{"A paragraph that continues in the next column. More of it."}},
		{"column change indented", append(col(50, 700, ">A paragraph that", "ends here."), col(300, 700, ">New one", "at the top.")...),
			[]string{"A paragraph that ends here.", "New one at the top."}},
		{"hyphen mark", col(50, 700, "po\uFFFEliteness and hy\uFFFE", "phenation"), []string{"politeness and hyphenation"}},
		{"trailing hyphen mark", col(50, 700, "split across pa\uFFFE"), []string{"split across pa-"}},
		{"hyphen and lower case", col(50, 700, "labora-", "tories"), []string{"laboratories"}},
		{"hyphen and upper case", col(50, 700, "Franco-", "German"), []string{"Franco- German"}},
		{"dash", col(50, 700, "a list -", "continued"), []string{"a list - continued"}},
		{"page number", append(col(50, 700, "Text."), col(300, 100, "12")...), []string{"Text."}},
		{"only a number", col(50, 700, "12"), []string{"12"}},
		{"list item", col(50, 700, "• an item that", ">wraps", "• another"), []string{"• an item that wraps", "• another"}},
		{"numbered item", col(50, 700, "1. an item that", ">wraps"), []string{"1. an item that wraps"}},
		{"no positions", []line{{text: "one"}, {text: "two"}}, []string{"one", "two"}},
		{"blank lines", append(col(50, 700, "a", " \t "), col(50, 688, "b")...), []string{"a b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := layoutPage(tt.lines); !slices.Equal(got, tt.want) {
				t.Errorf("layoutPage(%s) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}

func TestSplitLines(t *testing.T) {
	tests := []struct {
		in     string
		lines  []string
		starts []int
	}{
		{"", nil, nil},
		{"one", []string{"one"}, []int{0}},
		{"one\r\ntwo\r\n", []string{"one", "two"}, []int{0, 5}},
		{"a\U0001D400b\r\nç\nd", []string{"a\U0001D400b", "ç", "d"}, []int{0, 6, 8}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			lines, starts := splitLines(tt.in)
			if !slices.Equal(lines, tt.lines) || !slices.Equal(starts, tt.starts) {
				t.Errorf("splitLines(%q) = %q, %v; want %q, %v", tt.in, lines, starts, tt.lines, tt.starts)
			}
		})
	}
}

func TestParseDate(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"D:20240312110000Z", time.Date(2024, 3, 12, 11, 0, 0, 0, time.UTC), true},
		{"D:20240312110000Z00'00'", time.Date(2024, 3, 12, 11, 0, 0, 0, time.UTC), true},
		{"D:20240312110000+05'30'", time.Date(2024, 3, 12, 11, 0, 0, 0, time.FixedZone("", 5*3600+30*60)), true},
		{"D:20240312110000-08'00", time.Date(2024, 3, 12, 11, 0, 0, 0, time.FixedZone("", -8*3600)), true},
		{"D:20240312110000+0100", time.Date(2024, 3, 12, 11, 0, 0, 0, time.FixedZone("", 3600)), true},
		{"20240312", time.Date(2024, 3, 12, 0, 0, 0, 0, time.UTC), true},
		{"D:2024", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{" D:199912312359 ", time.Date(1999, 12, 31, 23, 59, 0, 0, time.UTC), true},
		{"D:20240230", time.Time{}, false},
		{"D:20241301", time.Time{}, false},
		{"D:2024031225", time.Time{}, false},
		{"D:20240312110000X", time.Time{}, false},
		{"D:202", time.Time{}, false},
		{"", time.Time{}, false},
		{"Tue Mar 12 11:00:00 2024", time.Time{}, false},
		// ISO 8601 dates, which some producers write, are no PDF dates:
		// their "-" is not a time zone.
		{"D:2024-03-12", time.Time{}, false},
		{"2024-03-12T11:00:00Z", time.Time{}, false},
		{"2024-03-12T11:00:00+01:00", time.Time{}, false},
		{"D:20240312110000+05:30", time.Date(2024, 3, 12, 11, 0, 0, 0, time.FixedZone("", 5*3600+30*60)), true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := parseDate(tt.in)
			if !got.Equal(tt.want) || ok != tt.ok {
				t.Errorf("parseDate(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abc", 2, "ab"},
		{"çç", 3, "ç"},
		{"çç", 1, ""},
		{"ç", 0, ""},
	}
	for _, tt := range tests {
		if got := truncate(tt.in, tt.n); got != tt.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// sized returns a line of text at y in a font of size points.
func sized(text string, y, size float64) line {
	return line{text: text, x0: 72, y0: y, x1: 500, y1: y, size: size, geo: true}
}

func TestHeading(t *testing.T) {
	body := col(72, 600, "Body text of the page, set in the usual size of the document,",
		"and more of it, so that this is the size most characters have.",
		"A third line of body text.")
	stamp := line{text: "arXiv:2101.00001v1 [cs.LG] 1 Jan 2021", x0: 20, y0: 200, x1: 30, y1: 600, size: 20, geo: true}
	tests := []struct {
		name  string
		lines []line
		want  string
	}{
		{"none", nil, ""},
		{"all one size", body, ""},
		{"two-line title", append([]line{sized("Journal of Examples 12 (2024) 1-10", 780, 8),
			sized("Efficient crawling of", 740, 18), sized("scholarly web sites", 718, 18),
			sized("Ada Lovelace, Alan Turing", 690, 12)}, body...),
			"Efficient crawling of scholarly web sites"},
		{"hyphenated title", append([]line{sized("Self-super-", 740, 18), sized("vised learning", 718, 18)}, body...),
			"Self-supervised learning"},
		{"arXiv stamp in the margin", append([]line{stamp, sized("Quantum codes", 740, 16)}, body...), "Quantum codes"},
		{"a big page number is no heading", append([]line{sized("12", 760, 30), sized("Quantum codes", 740, 16)}, body...), "Quantum codes"},
		{"far apart lines are two headings", append([]line{sized("Part one", 760, 16), sized("Chapter two", 600, 16)}, col(72, 500, "Body text of the page, set in the usual size.", "And more body text of the page.")...), "Part one"},
		{"no positions", []line{{text: "Title"}, {text: "body"}}, ""},
		{"at most four lines", append([]line{sized("a b", 760, 16), sized("c d", 742, 16), sized("e f", 724, 16), sized("g h", 706, 16), sized("i j", 688, 16)}, body...), "a b c d e f g h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := heading(tt.lines); got != tt.want {
				t.Errorf("heading(%s) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}
