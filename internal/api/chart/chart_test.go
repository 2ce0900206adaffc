package chart

import (
	"encoding/binary"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
)

// checkSVG fails unless s is one well-formed svg element with no
// non-finite numbers and no markup of its own beyond SVG.
func checkSVG(t *testing.T, s string) {
	t.Helper()
	if !strings.HasPrefix(s, "<svg ") || !strings.HasSuffix(s, "</svg>") {
		t.Fatalf("not an svg element: %.200q", s)
	}
	d := xml.NewDecoder(strings.NewReader(s))
	depth, roots := 0, 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("malformed SVG: %v\n%.500s", err, s)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
			}
			depth++
			switch tok.Name.Local {
			case "svg", "title", "text", "line", "rect", "polyline", "polygon", "circle", "g":
			default:
				t.Fatalf("unexpected element <%s> in %.300s", tok.Name.Local, s)
			}
			for _, a := range tok.Attr {
				if strings.HasPrefix(a.Name.Local, "on") || a.Name.Local == "style" || a.Name.Local == "href" {
					t.Fatalf("unexpected attribute %s", a.Name.Local)
				}
				if strings.Contains(a.Value, "NaN") || strings.Contains(a.Value, "Inf") {
					t.Fatalf("non-finite value in %s=%q", a.Name.Local, a.Value)
				}
			}
		case xml.EndElement:
			depth--
		}
	}
	if roots != 1 {
		t.Fatalf("%d root elements, want 1", roots)
	}
}

func TestLine(t *testing.T) {
	tests := []struct {
		name   string
		chart  Line
		want   []string
		absent []string
	}{
		{"empty", Line{Title: "Frontier"}, []string{"No data yet", "Frontier"}, []string{"<polyline"}},
		{"single point", Line{Title: "one", XTime: true, Points: []Point{{1_800_000_000, 42}}},
			[]string{"<circle", "42"}, []string{"No data yet", "<polyline"}},
		{"series", Line{Title: "rate", Points: []Point{{0, 0.5}, {1, 1.5}, {2, 0.25}}},
			[]string{"<polyline", "<polygon", "1.5", "0.5"}, []string{"No data yet"}},
		{"time axis over hours", Line{XTime: true, Points: []Point{{1_800_000_000, 1}, {1_800_000_000 + 6*3600, 2000}}},
			[]string{">2k<", ":00<"}, nil},
		{"time axis over days", Line{XTime: true, Points: []Point{{1_800_000_000, 1}, {1_800_000_000 + 20*day, 2}}},
			[]string{"Jan", "<polyline"}, nil},
		{"non-finite points dropped", Line{Points: []Point{{math.NaN(), 1}, {1, math.Inf(1)}, {2, 3}}},
			[]string{"<circle"}, []string{"NaN", "Inf"}},
		{"hostile title", Line{Title: `<script>alert(1)</script>`}, []string{"&lt;script&gt;"}, []string{"<script"}},
		{"hidden title", Line{Title: "Frontier", HideTitle: true}, []string{"<title>Frontier</title>", `aria-label="Frontier"`}, []string{`class="title"`}},
		{"unsorted", Line{Points: []Point{{3, 1}, {1, 2}, {2, 3}}}, []string{"<polyline"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.chart.SVG()
			checkSVG(t, got)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("Line.SVG() lacks %q:\n%s", w, got)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(got, a) {
					t.Errorf("Line.SVG() contains %q:\n%s", a, got)
				}
			}
		})
	}
}

func TestLineThinsLongSeries(t *testing.T) {
	pts := make([]Point, 10_000)
	for i := range pts {
		pts[i] = Point{float64(1_800_000_000 + 10*i), float64(i)}
	}
	got := Line{XTime: true, Points: pts}.SVG()
	checkSVG(t, got)
	if n := strings.Count(strings.SplitN(strings.SplitN(got, `<polyline`, 2)[1], `"`, 3)[1], ","); n > maxLinePoints+1 {
		t.Errorf("polyline has %d points, want at most %d", n, maxLinePoints+1)
	}
}

func TestBars(t *testing.T) {
	series := []string{"2xx", "3xx", "4xx", "5xx"}
	tests := []struct {
		name   string
		chart  Bars
		want   []string
		absent []string
	}{
		{"empty", Bars{Title: "Outcomes", Series: series}, []string{"No data yet", "2xx"}, []string{`<g class="row"`}},
		{"rows", Bars{Series: series, Rows: []Row{
			{"https://a.example.edu", []float64{120, 3, 7, 0}},
			{"https://b.example.org", []float64{10, 0, 0, 2}},
		}}, []string{"https://a.example.edu", "a.example.edu, 2xx: 120", "2xx 120, 3xx 3, 4xx 7", `class="s3"`}, []string{"No data yet"}},
		{"long label loses its middle, full in tooltip", Bars{Series: series, Rows: []Row{{"department." + strings.Repeat("x", 60) + ".example.edu", []float64{1}}}},
			[]string{">department.xx", "x…x", "xx.example.edu<", "<title>department." + strings.Repeat("x", 60) + ".example.edu"}, nil},
		{"a wide chart draws whole host names", Bars{Width: 900, Series: series, Rows: []Row{{"library.northfield-university.test", []float64{1}}}},
			[]string{">library.northfield-university.test<"}, []string{"…"}},
		{"bad values", Bars{Series: series, Rows: []Row{{"h", []float64{math.NaN(), -5, math.Inf(1), 1}}}}, []string{`class="s2"`}, []string{"NaN", "Inf"}},
		{"more values than series", Bars{Series: []string{"a"}, Rows: []Row{{"h", []float64{1, 2, 3}}}}, []string{`class="s0"`}, []string{`class="s1" x`}},
		{"custom and invalid colors", Bars{Series: []string{"a", "b"}, Colors: []string{"#abcdef", `red" onload="x`}, Rows: []Row{{"h", []float64{1, 1}}}},
			[]string{`fill="#abcdef"`, `fill="` + defaultColors[1] + `"`}, []string{"onload"}},
		{"compact", Bars{Title: "T", HideTitle: true, Compact: true, Width: 300, Series: series, Rows: []Row{{strings.Repeat("h", 60), []float64{1, 2}}}},
			[]string{`<text class="label" x="0"`, "h…h"}, []string{`class="title"`}},
		{"legend wraps", Bars{Width: 120, Series: []string{"first series", "second series"}, Rows: []Row{{"h", []float64{1, 2}}}},
			[]string{`<text class="legend" x="16.0" y="40.0"`, `<text class="legend" x="16.0" y="60.0"`}, nil},
		{"hostile labels", Bars{Series: []string{"<b>"}, Rows: []Row{{"</svg><script>", []float64{1}}}},
			[]string{"&lt;/svg&gt;&lt;script&gt;"}, []string{"<script", "<b>"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.chart.SVG()
			checkSVG(t, got)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("Bars.SVG() lacks %q:\n%s", w, got)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(got, a) {
					t.Errorf("Bars.SVG() contains %q:\n%s", a, got)
				}
			}
		})
	}
}

func TestNiceTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		want   []float64
	}{
		{0, 1, []float64{0, 0.25, 0.5, 0.75, 1}},
		{0, 97, []float64{0, 25, 50, 75, 100}},
		{0, 1234, []float64{0, 500, 1000, 1500}},
		{0, 0, []float64{0, 0.25, 0.5, 0.75, 1}},
		{-3, 7, []float64{-5, -2.5, 0, 2.5, 5, 7.5}},
	}
	for _, tc := range tests {
		got, _, _ := niceTicks(tc.lo, tc.hi, 4)
		if len(got) != len(tc.want) {
			t.Errorf("niceTicks(%v, %v) = %v, want %v", tc.lo, tc.hi, got, tc.want)
			continue
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-9 {
				t.Errorf("niceTicks(%v, %v) = %v, want %v", tc.lo, tc.hi, got, tc.want)
				break
			}
		}
	}
}

func TestNumber(t *testing.T) {
	tests := []struct {
		v, step float64
		want    string
	}{
		{0, 1, "0"},
		{25, 25, "25"},
		{1500, 500, "1.5k"},
		{2_000_000, 500_000, "2M"},
		{0.25, 0.25, "0.25"},
		{0.5, 0.25, "0.5"},
		{3e9, 1e9, "3G"},
		{-1000, 1000, "-1k"},
	}
	for _, tc := range tests {
		if got := number(tc.v, tc.step); got != tc.want {
			t.Errorf("number(%v, %v) = %q, want %q", tc.v, tc.step, got, tc.want)
		}
	}
}

// floats reads float64 values from fuzz bytes, 8 at a time.
func floats(b []byte) []float64 {
	var out []float64
	for len(b) >= 8 && len(out) < 2000 {
		out = append(out, math.Float64frombits(binary.LittleEndian.Uint64(b)))
		b = b[8:]
	}
	return out
}

// FuzzLine checks that any title and values give one well-formed SVG
// element, without non-finite coordinates and with the title escaped.
func FuzzLine(f *testing.F) {
	f.Add("Frontier", true, []byte{})
	f.Add("<script>", false, binary.LittleEndian.AppendUint64(nil, math.Float64bits(math.NaN())))
	f.Add("a\x00b\xff", true, binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, math.Float64bits(1.8e9)), math.Float64bits(-1e300)))
	f.Fuzz(func(t *testing.T, title string, xtime bool, data []byte) {
		vs := floats(data)
		var pts []Point
		for i := 0; i+1 < len(vs); i += 2 {
			pts = append(pts, Point{vs[i], vs[i+1]})
		}
		got := Line{Title: title, XTime: xtime, Points: pts}.SVG()
		checkSVG(t, got)
		if strings.Contains(got, "<script") {
			t.Fatalf("Line.SVG() holds an unescaped script tag")
		}
	})
}

// FuzzBars checks the same of bar charts.
func FuzzBars(f *testing.F) {
	f.Add("Outcomes", "2xx,3xx,4xx,5xx", "https://a.edu", false, []byte{})
	f.Add("<b>", "", "", true, binary.LittleEndian.AppendUint64(nil, math.Float64bits(math.Inf(-1))))
	f.Fuzz(func(t *testing.T, title, series, label string, compact bool, data []byte) {
		vs := floats(data)
		var rows []Row
		for i := 0; i < len(vs); i += 3 {
			rows = append(rows, Row{Label: label + string(rune('a'+i%26)), Values: vs[i:min(i+3, len(vs))]})
		}
		got := Bars{Title: title, Series: strings.Split(series, ","), Rows: rows, Compact: compact}.SVG()
		checkSVG(t, got)
		if strings.Contains(got, "<script") {
			t.Fatalf("Bars.SVG() holds an unescaped script tag")
		}
	})
}

func BenchmarkLine(b *testing.B) {
	pts := make([]Point, 2000)
	for i := range pts {
		pts[i] = Point{float64(1_800_000_000 + 10*i), float64(i * i)}
	}
	for b.Loop() {
		_ = Line{XTime: true, Points: pts}.SVG()
	}
}
