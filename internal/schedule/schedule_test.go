package schedule

import (
	"testing"
	"time"
)

const day = 24 * time.Hour

func TestInitial(t *testing.T) {
	p := DefaultPolicy()
	for _, tc := range []struct {
		pg   Page
		want time.Duration
	}{
		{Page{Depth: 0, Path: "/"}, day},
		{Page{Depth: 2, Path: "/publications/", Type: "listing"}, day},
		{Page{Depth: 3, Path: "/publications/x", Type: "article"}, 14 * day},
		{Page{Depth: 3, Path: "/about", Type: "other"}, 3 * day},
		{Page{Depth: 3, Path: "/x", Type: "article", ChangeFreq: "daily"}, day},
		{Page{Depth: 3, Path: "/x", ChangeFreq: "hourly"}, time.Hour},
		{Page{Depth: 3, Path: "/x", ChangeFreq: "yearly"}, 30 * day}, // capped at Max
		{Page{Depth: 3, Path: "/x", ChangeFreq: "sometimes"}, 3 * day},
	} {
		if got := p.Initial(tc.pg); got != tc.want {
			t.Errorf("Initial(%+v) = %v, want %v", tc.pg, got, tc.want)
		}
	}
}

func TestAdaptive(t *testing.T) {
	p := DefaultPolicy()
	iv := 3 * day
	for range 10 {
		iv = p.Next(iv, false)
	}
	if iv != p.Max {
		t.Errorf("after 10 unchanged visits interval = %v, want the maximum %v", iv, p.Max)
	}
	for range 20 {
		iv = p.Next(iv, true)
	}
	if iv != p.Min {
		t.Errorf("after 20 changes interval = %v, want the minimum %v", iv, p.Min)
	}
	if got := p.Next(2*time.Hour, false); got != 4*time.Hour {
		t.Errorf("Next(2h, unchanged) = %v", got)
	}
	if got := p.Next(4*time.Hour, true); got != 2*time.Hour {
		t.Errorf("Next(4h, changed) = %v", got)
	}
}

func TestMissing(t *testing.T) {
	p := DefaultPolicy()
	m, g := p.Missing(410, 0)
	if g != Removed || m != 1 {
		t.Errorf("410: %d %v, want removed at once", m, g)
	}
	misses := 0
	for i := 1; i <= 3; i++ {
		misses, g = p.Missing(404, misses)
		if want := Active; i == 3 {
			if g != Removed {
				t.Errorf("404 #%d: %v, want removed", i, g)
			}
		} else if g != want {
			t.Errorf("404 #%d: %v, want still active", i, g)
		}
	}
	if m, g := p.Missing(200, 2); m != 0 || g != Active {
		t.Errorf("200 after misses: %d %v, want reset", m, g)
	}
}

func TestDueNow(t *testing.T) {
	f := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	if !DueNow(f.Add(time.Hour), f) || DueNow(f.Add(-time.Hour), f) || DueNow(time.Time{}, f) {
		t.Error("DueNow wrong")
	}
}

func TestValidate(t *testing.T) {
	p := DefaultPolicy()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	p.Max = time.Minute
	if p.Validate() == nil {
		t.Error("max < min accepted")
	}
}
