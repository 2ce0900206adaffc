package pdf

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// FuzzLayout checks that layoutPage keeps every letter and digit of the
// cleaned lines in order (only spaces, hyphens and a page number may go)
// and returns clean paragraphs, and that the heading is clean text of the
// lines.
func FuzzLayout(f *testing.F) {
	f.Add("First line\nsecond po\uFFFEliteness-\nthird \uFB01nd\n12", []byte{0, 10, 0, 200, 1, 5, 100, 7, 2, 40})
	f.Add("• item\nwraps\n• next", []byte{3, 3, 3, 3, 3, 3})
	f.Add("a\r\n\x00b\xff", []byte{})
	f.Fuzz(func(t *testing.T, text string, geo []byte) {
		var lines []line
		y := 700.0
		for i, s := range strings.Split(text, "\n") {
			l := line{text: s}
			if len(geo) > 0 {
				g := func(k int) float64 { return float64(geo[(3*i+k)%len(geo)]) }
				y -= g(0) / 8
				l.x0, l.y0 = g(1), y
				l.x1, l.y1 = l.x0+g(2), y
				l.size = g(0)/16 + 1
				l.geo = g(2) != 0
			}
			lines = append(lines, l)
		}
		got := layoutPage(lines)

		var cleaned []string
		for _, l := range lines {
			if c := cleanLine(l.text); c != "" {
				cleaned = append(cleaned, c)
			}
		}
		if n := len(cleaned); n > 1 && isPageNumber(cleaned[n-1]) {
			cleaned = cleaned[:n-1]
		}
		if a, b := alnum(strings.Join(cleaned, " ")), alnum(strings.Join(got, " ")); a != b {
			t.Errorf("layoutPage(%q) = %q: letters %q, want %q", text, got, b, a)
		}
		// The heading is text of the page's lines, cleaned like a paragraph.
		if h := heading(lines); h != "" {
			var all []string
			for _, l := range lines {
				all = append(all, cleanLine(l.text))
			}
			if !strings.Contains(alnum(strings.Join(all, " ")), alnum(h)) || alnum(h) == "" || len(h) > headingBytes ||
				h != strings.TrimSpace(h) || !utf8.ValidString(h) || strings.ContainsRune(h, hyphenMark) {
				t.Errorf("heading(%q) = %q, not clean text of the lines", text, h)
			}
		}
		for _, p := range got {
			if p == "" || p != strings.TrimSpace(p) || strings.Contains(p, "  ") || !utf8.ValidString(p) {
				t.Errorf("layoutPage(%q) has paragraph %q", text, p)
			}
			for _, r := range p {
				if unicode.IsControl(r) || r == hyphenMark || r == '\uFB01' {
					t.Errorf("layoutPage(%q) has %U in %q", text, r, p)
				}
			}
		}
	})
}

func alnum(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, s)
}

// FuzzParseDate checks that a parsed date prints back to a PDF date that
// parses to the same instant.
func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"D:20240312110000Z", "D:20240312110000+05'30'", "2024", "D:1999123123-01", "D:20240229"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := parseDate(s)
		if !ok {
			if !d.IsZero() {
				t.Errorf("parseDate(%q) = %v, false; want the zero time", s, d)
			}
			return
		}
		_, off := d.Zone()
		sign := "+"
		if off < 0 {
			sign, off = "-", -off
		}
		back := d.Format("D:20060102150405") + sign + time.Unix(int64(off), 0).UTC().Format("15'04'")
		d2, ok := parseDate(back)
		if !ok || !d2.Equal(d) {
			t.Errorf("parseDate(%q) = %v; parseDate(%q) = %v, %v", s, d, back, d2, ok)
		}
	})
}

// FuzzExtract checks that Extract always answers, with clean text within
// MaxText or one of the documented errors.
func FuzzExtract(f *testing.F) {
	for _, name := range []string{"twocolumn.pdf", "turkish.pdf", "truncated.pdf", "html.pdf"} {
		f.Add(readTestdata(f, name))
	}
	f.Add(buildPDF([][]byte{textPage("Hello (world)", "second line")}, false))
	f.Add(buildPDF([][]byte{textPage("deflated")}, true))
	e := sharedExtractor(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := e.Extract(context.Background(), data)
		if err != nil {
			if !errors.Is(err, ErrBroken) && !errors.Is(err, ErrEncrypted) && !errors.Is(err, ErrTooLarge) {
				t.Errorf("Extract = %v, want a documented error", err)
			}
			return
		}
		checkText(t, d.Text)
		if len(d.Text) > DefaultMaxText || d.Pages < 0 {
			t.Errorf("Extract = %d bytes of text, %d pages", len(d.Text), d.Pages)
		}
		for _, s := range []string{d.Title, d.Author, d.Subject, d.Keywords, d.Creator, d.Producer} {
			if !utf8.ValidString(s) || len(s) > maxField || strings.ContainsAny(s, "\n\r\x00") {
				t.Errorf("Extract has metadata %q", s)
			}
		}
	})
}
