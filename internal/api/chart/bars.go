package chart

import (
	"fmt"
	"math"
	"strings"
)

// Bars is a horizontal stacked bar chart: one bar per row, one segment per
// series, with a legend and a value axis.
type Bars struct {
	Title     string   // accessible name, also drawn above the legend
	HideTitle bool     // leave the title out of the drawing (a caption shows it)
	Series    []string // segment names, in stacking order (at most 12 are drawn)
	Colors    []string // "#rrggbb" per series; a missing or invalid one: green, blue, amber, red, then others
	Rows      []Row    // drawn top to bottom (at most 200); a long label loses its middle, kept in its tooltip
	Width     int      // 0: 400. The height follows the rows.
	// Compact puts each label above its bar, for narrow screens; else
	// labels stand left of the bars.
	Compact bool
}

// Row is one bar: a label and a value per series. Negative and NaN values
// count as zero.
type Row struct {
	Label  string
	Values []float64
}

// SVG draws the chart as an svg element.
func (c Bars) SVG() string {
	w := float64(c.Width)
	if w <= 0 || w > 4000 {
		w = defaultWidth
	}
	series := c.Series
	if len(series) > maxSeries {
		series = series[:maxSeries]
	}
	rows := c.Rows
	if len(rows) > maxRows {
		rows = rows[:maxRows]
	}
	// Labels left of the bars may take up to half the width.
	rowH, barH, labelChars := 26.0, 16.0, max(maxLabel, int((w/2-16)/charWidth))
	if c.Compact {
		rowH, barH, labelChars = 40, 14, max(8, int(w/charWidth)-1)
	}
	y := 0.0
	if !c.HideTitle {
		y = 24
	}

	// Values: clamped, and the largest total sets the scale.
	vals := make([][]float64, len(rows))
	labels := make([]string, len(rows))
	total, labelW := 0.0, 0.0
	for i, r := range rows {
		vals[i] = make([]float64, len(series))
		sum := 0.0
		for j := range series {
			if j < len(r.Values) {
				v, _ := finite(r.Values[j])
				vals[i][j] = math.Max(0, v)
				sum += vals[i][j]
			}
		}
		total = math.Max(total, sum)
		labels[i] = clean(r.Label)
		labelW = math.Max(labelW, float64(len([]rune(truncateMiddle(labels[i], labelChars))))*charWidth)
	}

	// The legend wraps when it is wider than the chart.
	type item struct {
		x, y  float64
		label string
	}
	var legend []item
	x := 0.0
	if len(series) > 0 {
		y += 16
	}
	for _, s := range series {
		label := truncate(clean(s), 24)
		iw := 16 + float64(len([]rune(label)))*charWidth + 14
		if x > 0 && x+iw > w {
			x, y = 0, y+20
		}
		legend = append(legend, item{x, y, label})
		x += iw
	}
	top := y + 14
	if len(series) == 0 {
		top = y + 4
	}
	h := top + float64(max(len(rows), 2))*rowH + 24

	var b strings.Builder
	frame(&b, "bar-chart", c.Title, c.HideTitle, w, h)
	for i, it := range legend {
		fmt.Fprintf(&b, `<rect class="s%d" x="%s" y="%s" width="12" height="12" rx="2" fill="%s"/>`, i, f(it.x), f(it.y-10), c.color(i))
		fmt.Fprintf(&b, `<text class="legend" x="%s" y="%s" fill="currentColor">%s</text>`, f(it.x+16), f(it.y), esc(it.label))
	}

	left := math.Min(labelW+10, w/2)
	if c.Compact {
		left = 0
	}
	right := w - 14
	bottom := h - 24
	ticks, _, hi := niceTicks(0, math.Max(total, 1), 4)
	step := 1.0
	if len(ticks) > 1 {
		step = ticks[1] - ticks[0]
	}
	sx := func(v float64) float64 { return left + v/hi*(right-left) }
	for _, v := range ticks {
		xx := sx(v)
		anchor := "middle"
		if xx-left < 8 {
			anchor = "start"
		}
		fmt.Fprintf(&b, `<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#d0d4da" stroke-width="1"/>`, f(xx), f(top-4), f(xx), f(bottom))
		fmt.Fprintf(&b, `<text class="tick" x="%s" y="%s" text-anchor="%s" fill="currentColor">%s</text>`, f(xx), f(bottom+17), anchor, esc(number(v, step)))
	}
	if len(rows) == 0 {
		noData(&b, (left+right)/2, (top+bottom)/2)
	}
	for i := range rows {
		y := top + float64(i)*rowH
		barY := y + (rowH-barH)/2
		fmt.Fprintf(&b, `<g class="row"><title>%s</title>`, esc(labels[i]+": "+summary(series, vals[i])))
		if c.Compact {
			barY = y + rowH - barH - 6
			fmt.Fprintf(&b, `<text class="label" x="0" y="%s" fill="currentColor">%s</text>`, f(barY-5), esc(truncateMiddle(labels[i], labelChars)))
		} else {
			fmt.Fprintf(&b, `<text class="label" x="%s" y="%s" text-anchor="end" dominant-baseline="middle" fill="currentColor">%s</text>`,
				f(left-6), f(y+rowH/2), esc(truncateMiddle(labels[i], labelChars)))
		}
		acc := 0.0
		for j, v := range vals[i] {
			if v <= 0 {
				continue
			}
			x0, x1 := sx(acc), sx(acc+v)
			acc += v
			fmt.Fprintf(&b, `<rect class="s%d" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s</title></rect>`,
				j, f(x0), f(barY), f(math.Max(x1-x0, 0.5)), f(barH), c.color(j),
				esc(fmt.Sprintf("%s, %s: %s", labels[i], clean(series[j]), number(v, 0.01))))
		}
		b.WriteString(`</g>`)
	}
	fmt.Fprintf(&b, `<line class="axis" x1="%s" y1="%s" x2="%s" y2="%s" stroke="currentColor" stroke-width="1"/>`, f(left), f(top-4), f(left), f(bottom))
	b.WriteString(`</svg>`)
	return b.String()
}

// color is series i's fill: the caller's when it is a #rrggbb color.
func (c Bars) color(i int) string {
	if i < len(c.Colors) && isHexColor(c.Colors[i]) {
		return c.Colors[i]
	}
	return defaultColors[i%len(defaultColors)]
}

func isHexColor(s string) bool {
	if len(s) != 7 || s[0] != '#' {
		return false
	}
	for _, c := range []byte(s[1:]) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// summary lists a row's values by series: "2xx 120, 4xx 3".
func summary(series []string, vals []float64) string {
	var parts []string
	for j, v := range vals {
		if v > 0 {
			parts = append(parts, clean(series[j])+" "+number(v, 0.01))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
