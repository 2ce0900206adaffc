package passage

import (
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/query"
)

// TestWindow: a long text gives the stretch where the most distinct terms
// meet, not where the first term first appears; prefixes and phrase words
// count; a short text is kept whole.
func TestWindow(t *testing.T) {
	filler := strings.Repeat("alpha beta gamma delta ", 1000) // 23 KB
	ft := "okapi first " + filler + "the okapi and the giraffe meet here " + filler + " giraffe last"
	w, before, after := Window(query.Parse("okapi giraffe"), ft)
	if !strings.Contains(w, "the okapi and the giraffe meet here") || !before || !after {
		t.Errorf("window = %q (cut %v, %v), want the meeting, cut on both sides", w, before, after)
	}
	if n := len(strings.Fields(w)); n > Words+2*margin {
		t.Errorf("window of %d words, want at most %d", n, Words+2*margin)
	}
	w, _, _ = Window(query.Parse(`"meet here" gir*`), ft)
	if !strings.Contains(w, "giraffe meet here") {
		t.Errorf("window for a phrase and a prefix = %q, want the meeting", w)
	}
	if w, before, after := Window(query.Parse("okapi"), "short okapi text"); w != "short okapi text" || before || after {
		t.Errorf("window of a short text = %q (cut %v, %v), want it whole", w, before, after)
	}
	// No term at all: the text's start.
	if w, before, after := Window(query.Parse("zebra"), ft); !strings.HasPrefix(ft, w) || len(w) > WholeBytes || before || !after {
		t.Errorf("window without the term = %d bytes (cut %v, %v), want the first %d", len(w), before, after, WholeBytes)
	}
	// Excluded terms do not choose the window.
	w, _, _ = Window(query.Parse("giraffe -okapi"), ft)
	if !strings.Contains(w, "giraffe") {
		t.Errorf("window for giraffe -okapi = %q, want a giraffe", w)
	}
}

// FuzzWindow: any text and query give a part of the text, the text itself
// when it is short, at most Words+2·margin tokens otherwise.
func FuzzWindow(f *testing.F) {
	f.Add("zoe", "Zoë met "+strings.Repeat("x ", WholeBytes/2)+"zoe")
	f.Add(`"a b" c*`, strings.Repeat("a b c ", WholeBytes/6+1))
	f.Add("é", strings.Repeat("\xff\xfeé", WholeBytes/4+1))
	f.Add("okapi", "the okapi")
	f.Fuzz(func(t *testing.T, q, text string) {
		ft := query.Fold(text)
		w, _, _ := Window(query.Parse(q), ft)
		if !strings.Contains(ft, w) {
			t.Fatalf("window %q is not part of the text", w)
		}
		if len(ft) <= WholeBytes && w != ft {
			t.Fatalf("window of a short text = %q, want it whole", w)
		}
		if len(ft) > WholeBytes && len(w) > WholeBytes && len(strings.Fields(w)) > Words+2*margin {
			t.Fatalf("window of %d bytes, %d fields", len(w), len(strings.Fields(w)))
		}
	})
}
