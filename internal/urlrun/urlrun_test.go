package urlrun

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/s2"
)

// sample is a run as a frontier holds one: paths of one host sharing
// their beginnings, in the order they arrived, some with a sitemap's
// fields or a parent.
func sample(n int) []Entry {
	es := make([]Entry, n)
	for i := range es {
		es[i] = Entry{
			Path:       fmt.Sprintf("/publications/%d/article-%04d?lang=en", 2000+i%7, i*37%1000),
			Priority:   int64(10 - i%5),
			Depth:      int64(1 + i%3),
			Kind:       uint8(i % 2),
			Via:        uint8(1 + i%4),
			Discovered: 1_800_000_000_000 + int64(i)*13,
		}
		if i%5 == 0 {
			es[i].LastMod, es[i].ChangeFreq = 1_700_000_000_000-int64(i), 3
		}
		if i%7 == 0 {
			es[i].Parent = -int64(i) * 0x0123456789
		}
		if i%3 == 0 {
			es[i].Inlinks = int64(1 + i%11)
		}
		if i%4 != 1 {
			es[i].Seq = 900_000 + int64(i*5%97)
		}
	}
	return es
}

// TestRoundTrip: a run decodes to the entries it was encoded from, for
// one entry, many, the extremes of every field, and paths that share
// nothing, everything, or are empty.
func TestRoundTrip(t *testing.T) {
	extreme := []Entry{
		{Path: "", Priority: math.MinInt64, Depth: math.MaxInt64, Kind: 255, Via: 255, Discovered: math.MaxInt64, LastMod: math.MinInt64, ChangeFreq: 255, Parent: math.MinInt64, Inlinks: math.MaxInt64, Seq: math.MinInt64},
		{Path: "", Discovered: math.MinInt64, LastMod: math.MaxInt64, Parent: -1, Inlinks: math.MinInt64, Seq: math.MaxInt64},
		{Path: strings.Repeat("é", MaxPath/2)},
		{Path: strings.Repeat("é", MaxPath/2)},
		{Path: "?q=1"},
		{Path: "!https://other.test/x"},
	}
	for name, es := range map[string][]Entry{"one": sample(1), "many": sample(MaxEntries), "extremes": extreme} {
		b, err := Encode([]byte("prefix"), es)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.HasPrefix(b, []byte("prefix")) {
			t.Fatalf("%s: Encode did not append", name)
		}
		got, err := Decode(b[len("prefix"):])
		if err != nil || !reflect.DeepEqual(got, es) {
			t.Fatalf("%s: Decode = %v (%v), want the entries encoded", name, err, len(got))
		}
		if n, err := Len(b[len("prefix"):]); n != len(es) || err != nil {
			t.Errorf("%s: Len = %d, %v; want %d", name, n, err, len(es))
		}
	}
}

// TestFirstVersion: a run the package's first version wrote, which held
// each entry's fields together and compressed only the texts, decodes
// to the entries it was written from.
func TestFirstVersion(t *testing.T) {
	b, err := hex.DecodeString("01031b0001140280c0e285e368ff9fb787e9050302c0ee6d00010212041a10000310061a144659ac00272f7075626c69636174696f6e732f323030302f61727469636c652d303030303f6c616e673d656e1116311d1804333715000200321500032437343f6c616e673d656e")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if want := sample(3); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Decode = %v (%v), want %v", got, err, want)
	}
	if n, err := Len(b); n != 3 || err != nil {
		t.Errorf("Len = %d, %v; want 3", n, err)
	}
	for i := range b {
		if _, err := Decode(b[:i]); !errors.Is(err, ErrCorrupt) {
			t.Errorf("cut at %d: Decode = %v, want ErrCorrupt", i, err)
		}
	}
	if _, err := Decode(append(b[:len(b):len(b)], 0)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("trailing byte: Decode = %v, want ErrCorrupt", err)
	}
}

// TestRefused: Encode refuses what a run cannot hold, and Decode bytes
// that are not a run: cut short, with bytes after it, with an unknown
// flag or version, naming an optional field and holding it as none, or
// a body that is not what it says.
func TestRefused(t *testing.T) {
	for _, es := range [][]Entry{nil, sample(MaxEntries + 1), {{Path: strings.Repeat("x", MaxPath+1)}}} {
		if _, err := Encode(nil, es); err == nil {
			t.Errorf("Encode of %d entries (a path of %d bytes) succeeded", len(es), len(es[0:min(1, len(es))]))
		}
	}
	good, err := Encode(nil, sample(3))
	if err != nil {
		t.Fatal(err)
	}
	// run is the record of n entries whose body (uncompressed) is body.
	run := func(n int, body []byte) []byte {
		return append([]byte{version, byte(n)}, s2.Encode(nil, body)...)
	}
	// one is the body of a run of the single entry e, with the byte at
	// i (the first of an optional field's) set to c, after checking it
	// is was.
	one := func(e Entry, i int, was, c byte) []byte {
		b := appendBody(nil, []Entry{e})
		if b[i] != was {
			t.Fatalf("byte %d of %+v's body is %d, want %d", i, e, b[i], was)
		}
		b[i] = c
		return run(1, b)
	}
	body := appendBody(nil, sample(3))
	bad := map[string][]byte{
		"empty":        nil,
		"version":      append([]byte{version + 1}, good[1:]...),
		"no entries":   {version, 0},
		"trailing":     append(good[:len(good):len(good)], 0),
		"unknown flag": run(3, append([]byte{32}, body[1:]...)),
		"short body":   run(3, body[:len(body)-1]),
		"long body":    run(3, append(body[:len(body):len(body)], 'x')),
		"fewer":        run(2, body),
		"not s2":       append([]byte{version, 3}, body...),
		// Flags, kind, way, priority, depth, the time found (5), then
		// LastMod's delta: -4 (7), set to -5 (9), which gives 0.
		"lastmod none": one(Entry{Path: "/a", Discovered: 5, LastMod: 1}, 6, 7, 9),
		// Flags, kind, way, priority, depth, the time found (0), then
		// Inlinks: 3 (6), set to 0; then Seq's delta.
		"inlinks none": one(Entry{Path: "/a", Inlinks: 3}, 6, 6, 0),
		"seq none":     one(Entry{Path: "/a", Seq: 3}, 6, 6, 0),
	}
	for i := range good {
		bad[fmt.Sprintf("cut at %d", i)] = good[:i]
	}
	for name, b := range bad {
		if _, err := Decode(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Decode = %v, want ErrCorrupt", name, err)
		}
	}
}

// FuzzDecode: bytes that decode are a run whose entries encode again
// to a run that decodes to the same entries; others are refused with
// ErrCorrupt, without a panic.
func FuzzDecode(f *testing.F) {
	for _, n := range []int{1, 5, 40} {
		b, _ := Encode(nil, sample(n))
		f.Add(b)
	}
	f.Add([]byte{version, 1, 0, 0, 0, 0, 0, 0, 1, 0})
	f.Add([]byte{versionRows, 1, 0, 0, 0, 0, 0, 0, 1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		es, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Decode: %v, want ErrCorrupt", err)
			}
			return
		}
		again, err := Encode(nil, es)
		if err != nil {
			t.Fatalf("entries decoded do not encode: %v", err)
		}
		back, err := Decode(again)
		if err != nil || !reflect.DeepEqual(back, es) {
			t.Fatalf("entries encoded again decode to %v (%v), want %v", back, err, es)
		}
	})
}

// FuzzRoundTrip: any entries a run can hold decode as they were encoded.
func FuzzRoundTrip(f *testing.F) {
	f.Add("/a/b", "/a/c?x", int64(3), int64(1_800_000_000_000), int64(0), uint8(2), int64(7), int64(4))
	f.Fuzz(func(t *testing.T, p1, p2 string, prio, found, lastMod int64, freq uint8, parent, inlinks int64) {
		if len(p1) > MaxPath || len(p2) > MaxPath {
			return
		}
		es := []Entry{
			{Path: p1, Priority: prio, Depth: -prio, Discovered: found, LastMod: lastMod, ChangeFreq: freq, Parent: parent, Kind: freq, Via: uint8(prio)},
			{Path: p2, Priority: -prio, Discovered: found - lastMod, Parent: ^parent, Inlinks: inlinks, Seq: lastMod},
			{Path: p1 + p2, LastMod: parent, Inlinks: -inlinks, Seq: found},
		}
		b, err := Encode(nil, es)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(b)
		if err != nil || !reflect.DeepEqual(got, es) {
			t.Fatalf("Decode = %v (%v), want %v", got, err, es)
		}
	})
}

// BenchmarkRun encodes and decodes runs of 64 URLs of one host, and
// reports the bytes a URL takes.
func BenchmarkRun(b *testing.B) {
	es := sample(64)
	enc, _ := Encode(nil, es)
	b.Run("encode", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf, _ = Encode(buf[:0], es)
		}
		b.ReportMetric(float64(len(enc))/float64(len(es)), "B/URL")
	})
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			if _, err := Decode(enc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
