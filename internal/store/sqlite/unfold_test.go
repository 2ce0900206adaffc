package sqlite

import (
	"testing"

	"github.com/acrawler/acrawler/internal/query"
)

func TestUnfold(t *testing.T) {
	orig := "Şehir: İSTANBUL'da İzmir \xff ve istanbul."
	folded := query.Fold(orig)
	if folded != "Şehir: iSTANBUL'da izmir \xff ve istanbul." {
		t.Fatalf("Fold(%q) = %q", orig, folded)
	}
	for _, tt := range []struct{ snip, want string }{
		{"Şehir: \x01iSTANBUL\x02'da izmir…", "Şehir: \x01İSTANBUL\x02'da İzmir…"},
		{"…\x01izmir\x02 \xff ve \x01istanbul\x02.", "…\x01İzmir\x02 \xff ve \x01istanbul\x02."},
		{"…'da \x01izmir\x02…", "…'da \x01İzmir\x02…"},
		{"not a fragment", "not a fragment"},
		{"", ""},
	} {
		if got := unfold(tt.snip, folded, orig); got != tt.want {
			t.Errorf("unfold(%q) = %q, want %q", tt.snip, got, tt.want)
		}
	}
}
