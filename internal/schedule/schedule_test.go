package schedule

import (
	"math"
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

// A maximum above half of time.Duration's range (max_interval accepts up
// to about 292 years) must not make doubling wrap around to a negative
// interval, which the lower bound then turned into the minimum: an
// unchanged page at the maximum was revisited every hour.
func TestNextNoOverflow(t *testing.T) {
	p := DefaultPolicy()
	p.Max = 2_000_000 * time.Hour // about 228 years, a valid max_interval
	if got := p.Next(p.Max, false); got != p.Max {
		t.Errorf("Next(max %v, unchanged) = %v, want the maximum", p.Max, got)
	}
	if got := p.Next(math.MaxInt64, false); got != p.Max {
		t.Errorf("Next(MaxInt64, unchanged) = %v, want the maximum %v", got, p.Max)
	}
	d := DefaultPolicy()
	if got := d.Next(200*365*day, false); got != d.Max {
		t.Errorf("default Next(200 years, unchanged) = %v, want the maximum %v", got, d.Max)
	}
}

// FuzzNext: for a valid policy the next interval stays within bounds, an
// unchanged page never gets a shorter interval than a changed one, and
// nothing panics.
func FuzzNext(f *testing.F) {
	f.Add(int64(time.Hour), int64(30*day), int64(3*day))
	f.Add(int64(time.Hour), int64(2_000_000*time.Hour), int64(2_000_000*time.Hour))
	f.Add(int64(1), int64(math.MaxInt64), int64(math.MaxInt64))
	f.Add(int64(1), int64(1), int64(math.MinInt64))
	f.Add(int64(time.Hour), int64(30*day), int64(0))
	f.Fuzz(func(t *testing.T, lo, hi, iv int64) {
		p := DefaultPolicy()
		p.Min, p.Max = time.Duration(lo), time.Duration(hi)
		if p.Validate() != nil {
			return
		}
		up, down := p.Next(time.Duration(iv), false), p.Next(time.Duration(iv), true)
		if up < p.Min || up > p.Max || down < p.Min || down > p.Max {
			t.Fatalf("Next(%v) = %v unchanged, %v changed: outside %v..%v", time.Duration(iv), up, down, p.Min, p.Max)
		}
		if up < down {
			t.Fatalf("Next(%v): unchanged %v shorter than changed %v", time.Duration(iv), up, down)
		}
		if in := time.Duration(iv); in >= p.Min && in <= p.Max && (up < in || down > in) {
			t.Fatalf("Next(%v) = %v unchanged, %v changed: wrong direction", in, up, down)
		}
	})
}
