package outlinks

import (
	"errors"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

func TestRoundTrip(t *testing.T) {
	in := []Link{
		{Target: 42, Anchor: "second"},
		{Target: math.MinInt64, Anchor: "lowest", NoFollow: true},
		{Target: -7, Anchor: "Ærø Œuvre"},
		{Target: 42, Anchor: "a later link to 42 is dropped", NoFollow: true},
		{Target: math.MaxInt64},
		{Target: 0, Anchor: strings.Repeat("x", 300), NoFollow: true},
	}
	b := Encode(nil, in)
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	want := []Link{
		{Target: math.MinInt64, Anchor: "lowest", NoFollow: true},
		{Target: -7, Anchor: "Ærø Œuvre"},
		{Target: 0, Anchor: strings.Repeat("x", 300), NoFollow: true},
		{Target: 42, Anchor: "second"},
		{Target: math.MaxInt64},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Decode(Encode) = %+v\nwant %+v", got, want)
	}
	if in[0].Target != 42 || in[1].Target != math.MinInt64 {
		t.Fatal("Encode reordered its argument")
	}
	ts, err := Targets(nil, b)
	if err != nil || !slices.Equal(ts, []int64{math.MinInt64, -7, 0, 42, math.MaxInt64}) {
		t.Fatalf("Targets = %v, %v", ts, err)
	}
	if n, err := Count(b); n != 5 || err != nil {
		t.Fatalf("Count = %d, %v", n, err)
	}
	for _, w := range want {
		a, nf, ok, err := Find(b, w.Target)
		if err != nil || !ok || string(a) != w.Anchor || nf != w.NoFollow {
			t.Errorf("Find(%d) = %q, %v, %v, %v; want %+v", w.Target, a, nf, ok, err, w)
		}
	}
	for _, absent := range []int64{1, -8, math.MaxInt64 - 1} {
		if _, _, ok, err := Find(b, absent); ok || err != nil {
			t.Errorf("Find(%d) = %v, %v; want not found", absent, ok, err)
		}
	}
	empty := Encode(nil, nil)
	if ls, err := Decode(empty); err != nil || len(ls) != 0 {
		t.Fatalf("Decode(Encode(nil)) = %v, %v", ls, err)
	}
}

// Same-host targets (shared high bits) take a few bytes each.
func TestCompact(t *testing.T) {
	var links []Link
	host := int64(0x5a5) << 52
	for i := range 30 {
		links = append(links, Link{Target: host | int64(i)*1_000_003})
	}
	if b := Encode(nil, links); len(b) > 10+30*4+4+30 {
		t.Fatalf("30 same-host links without anchors take %d bytes", len(b))
	}
}

func TestMalformed(t *testing.T) {
	good := Encode(nil, []Link{{Target: 1, Anchor: "ab"}, {Target: 5, Anchor: "c", NoFollow: true}})
	for name, b := range map[string][]byte{
		"empty":          {},
		"version":        {2, 0},
		"count too big":  {1, 100, 1},
		"truncated":      good[:len(good)-1],
		"trailing":       append(slices.Clone(good), 0),
		"not increasing": {1, 2, 3, 0, 0, 0, 0},
		"overflow":       {1, 2, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x05, 0, 0, 0},
		"stray bits":     {1, 1, 3, 2, 0},
		"anchor past":    {1, 1, 3, 0, 9, 'a'},
		"overlong count": {1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
	} {
		if _, err := Decode(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: Decode(%v) = %v; want ErrMalformed", name, b, err)
		}
	}
}

// FuzzDecode: any input decodes or fails with ErrMalformed, without
// panicking; what decodes encodes again to the same links, and Targets,
// Count and Find agree with Decode.
func FuzzDecode(f *testing.F) {
	f.Add(Encode(nil, []Link{{Target: 3, Anchor: "x"}, {Target: -9, NoFollow: true}}))
	f.Add(Encode(nil, nil))
	f.Add([]byte{1, 1, 3, 2, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		links, err := Decode(b)
		if _, werr := Walk(b, nil, func(int64, []byte, bool) {}); (werr == nil) != (err == nil) {
			t.Fatalf("Walk error %v, Decode error %v", werr, err)
		}
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("Decode error %v is not ErrMalformed", err)
			}
			return
		}
		again, err := Decode(Encode(nil, links))
		if err != nil || !reflect.DeepEqual(again, links) && len(links) > 0 {
			t.Fatalf("round trip: %+v, %v; want %+v", again, err, links)
		}
		ts, err := Targets(nil, b)
		if err != nil || len(ts) != len(links) {
			t.Fatalf("Targets = %v, %v for %d links", ts, err, len(links))
		}
		if n, err := Count(b); err != nil || n != len(links) {
			t.Fatalf("Count = %d, %v for %d links", n, err, len(links))
		}
		var walked []Link
		if _, err := Walk(b, nil, func(t int64, a []byte, nf bool) { walked = append(walked, Link{t, string(a), nf}) }); err != nil ||
			len(walked) != len(links) || len(links) > 0 && !reflect.DeepEqual(walked, links) {
			t.Fatalf("Walk = %+v, %v; Decode %+v", walked, err, links)
		}
		for i, l := range links {
			if ts[i] != l.Target {
				t.Fatalf("Targets[%d] = %d, Decode %d", i, ts[i], l.Target)
			}
			a, nf, ok, err := Find(b, l.Target)
			if err != nil || !ok || string(a) != l.Anchor || nf != l.NoFollow {
				t.Fatalf("Find(%d) = %q, %v, %v, %v; want %+v", l.Target, a, nf, ok, err, l)
			}
		}
	})
}

// FuzzRoundTrip: links built from the input, with repeated targets,
// decode to the first link of each target, in target order.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("\x01\x02\x03abc"), int64(5))
	f.Add([]byte{0xff, 0, 0xff, 0}, int64(math.MinInt64))
	f.Fuzz(func(t *testing.T, seed []byte, base int64) {
		var in []Link
		for i, c := range seed {
			in = append(in, Link{Target: base + int64(c%17)*int64(i%3+1)<<(c%60), Anchor: string(seed[i:min(len(seed), i+int(c%5))]), NoFollow: c&1 == 1})
		}
		got, err := Decode(Encode(nil, in))
		if err != nil {
			t.Fatal(err)
		}
		first := map[int64]Link{}
		var want []Link
		for _, l := range in {
			if _, seen := first[l.Target]; !seen {
				first[l.Target] = l
				want = append(want, l)
			}
		}
		slices.SortFunc(want, func(a, b Link) int {
			if a.Target < b.Target {
				return -1
			}
			if a.Target > b.Target {
				return 1
			}
			return 0
		})
		if len(got) != len(want) || len(want) > 0 && !reflect.DeepEqual(got, want) {
			t.Fatalf("Decode(Encode(%+v)) = %+v; want %+v", in, got, want)
		}
	})
}

// Decoding is one pass: a value of many links decodes in work and memory
// proportional to its size (a count that its bytes cannot hold is refused
// before anything is allocated for it). Memory is counted in bytes, not
// allocations: the race detector's runtime adds allocations of its own.
func TestLinear(t *testing.T) {
	var links []Link
	for i := range 100_000 {
		links = append(links, Link{Target: int64(i) * 3, Anchor: "a"})
	}
	b := Encode(nil, links)
	slice := uint64(len(links)) * uint64(unsafe.Sizeof(Link{}))
	if got := allocBytes(func() { Decode(b) }); got > slice+slice/4 {
		t.Errorf("Decode of %d links: %d bytes allocated; want about the links slice alone (%d)", len(links), got, slice)
	}
	huge := []byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f}
	if _, err := Decode(huge); !errors.Is(err, ErrMalformed) {
		t.Errorf("Decode of a claimed 4G links in 6 bytes: %v", err)
	}
	if got := allocBytes(func() { Decode(huge) }); got > 2048 {
		t.Errorf("Decode of a claimed 4G links in 6 bytes: %d bytes allocated; want the error's alone", got)
	}
}

// allocBytes returns the bytes allocated by a call of f, the least of a
// few runs (anything else the process allocates meanwhile counts too).
func allocBytes(f func()) uint64 {
	best := uint64(math.MaxUint64)
	var before, after runtime.MemStats
	for range 5 {
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		best = min(best, after.TotalAlloc-before.TotalAlloc)
	}
	return best
}
