// Package chart draws small SVG charts for server-rendered pages: a line
// chart over numbers or times, and a horizontal stacked bar chart.
//
// It is a pure leaf: values in, SVG text out, no I/O. Every label is
// escaped and cleaned to valid XML text, non-finite values are dropped and
// huge ones clamped, so any input gives a well-formed SVG element. The SVG
// uses presentation attributes and CSS classes only (no style attributes
// or elements, no scripts), so it shows under a strict
// Content-Security-Policy and pages can restyle it. Empty data draws a
// frame with a "No data yet" note; a single point draws a dot.
package chart

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Chart geometry, in viewBox units (the SVG scales to its container).
const (
	defaultWidth  = 400
	defaultHeight = 200
	fontSize      = 13
	charWidth     = 7.2 // average advance of a fontSize sans-serif character
	maxValue      = 1e15
	maxLabel      = 28 // characters of a bar label drawn at least; the rest is in its tooltip
	maxRows       = 200
	maxSeries     = 12
	maxLinePoints = 600
)

// defaultColors are the series colors used when Bars.Colors does not give
// a valid one: green, blue, amber, red, then neutral tones.
var defaultColors = [...]string{"#2e7d32", "#1565c0", "#f9a825", "#c62828", "#6a1b9a", "#00838f", "#757575", "#ad1457"}

// clean makes s valid XML text: valid UTF-8 without control characters.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return ' '
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0xfffe || r == 0xffff:
			return -1
		}
		return r
	}, s)
}

// esc escapes text for an SVG text node or attribute value.
func esc(s string) string { return html.EscapeString(clean(s)) }

// truncate shortens s to n characters, marking the cut with an ellipsis.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// truncateMiddle cuts s to n runes by leaving out its middle, so that
// both ends of a host name (a department and its university's domain)
// stay readable.
func truncateMiddle(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	head := (n - 1) / 2
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}

// finite clamps v into the drawable range; ok is false for NaN.
func finite(v float64) (float64, bool) {
	if math.IsNaN(v) {
		return 0, false
	}
	return math.Max(-maxValue, math.Min(maxValue, v)), true
}

// f formats a coordinate.
func f(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// niceStep is a round step (1, 2, 2.5 or 5 times a power of ten) that cuts
// span into about n parts.
func niceStep(span float64, n int) float64 {
	if !(span > 0) {
		return 1
	}
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	switch r := raw / mag; {
	case r <= 1:
		return mag
	case r <= 2:
		return 2 * mag
	case r <= 2.5:
		return 2.5 * mag
	case r <= 5:
		return 5 * mag
	}
	return 10 * mag
}

// niceTicks widens [lo, hi] to multiples of a round step and returns the
// ticks, at most about n+2 of them.
func niceTicks(lo, hi float64, n int) (ticks []float64, nlo, nhi float64) {
	if hi <= lo {
		hi = lo + 1
	}
	step := niceStep(hi-lo, n)
	a, b := math.Floor(lo/step), math.Ceil(hi/step)
	if b-a > float64(2*n+2) { // float rounding at extreme magnitudes
		return []float64{lo, hi}, lo, hi
	}
	for k := a; k <= b; k++ {
		ticks = append(ticks, k*step)
	}
	return ticks, a * step, b * step
}

// number formats a tick value compactly (1.5k, 20M), with as many decimals
// as the tick step needs.
func number(v, step float64) string {
	if v == 0 {
		return "0"
	}
	for _, u := range []struct {
		div    float64
		suffix string
	}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if math.Abs(v) >= u.div {
			return decimal(v/u.div, step/u.div) + u.suffix
		}
	}
	return decimal(v, step)
}

func decimal(v, step float64) string {
	dec := 0
	if step > 0 && step < 1 {
		dec = min(int(math.Ceil(-math.Log10(step)+1e-9)), 6)
		if s := step * math.Pow(10, float64(dec)); math.Abs(s-math.Round(s)) > 1e-6 {
			dec++ // 2.5 × 10^-k needs one more
		}
	}
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// frame opens an svg element of the given size with an accessible name,
// and draws the title unless hidden.
func frame(b *strings.Builder, class, title string, hide bool, w, h float64) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart %s" width="%s" height="%s" viewBox="0 0 %s %s" role="img" aria-label="%s" font-size="%d" font-family="system-ui, sans-serif">`,
		class, f(w), f(h), f(w), f(h), esc(title), fontSize)
	fmt.Fprintf(b, `<title>%s</title>`, esc(title))
	if !hide {
		fmt.Fprintf(b, `<text class="title" x="0" y="14" font-weight="600" fill="currentColor">%s</text>`, esc(title))
	}
}

func noData(b *strings.Builder, x, y float64) {
	fmt.Fprintf(b, `<text class="empty" x="%s" y="%s" text-anchor="middle" fill="#757575">No data yet</text>`, f(x), f(y))
}
