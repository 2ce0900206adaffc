package chart

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Point is one value of a line chart.
type Point struct{ X, Y float64 }

// Line is a line chart of one series, with a Y axis that includes zero.
type Line struct {
	Title         string  // accessible name, also drawn above the plot
	HideTitle     bool    // leave the title out of the drawing (a caption shows it)
	XTime         bool    // X values are Unix seconds; ticks are labeled as UTC times
	Width, Height int     // size; 0: 400×200
	Points        []Point // in any order; points with a NaN are dropped
}

// SVG draws the chart as an svg element.
func (c Line) SVG() string {
	w, h := float64(c.Width), float64(c.Height)
	if w <= 0 || w > 4000 {
		w = defaultWidth
	}
	if h <= 0 || h > 4000 {
		h = defaultHeight
	}
	pts := make([]Point, 0, len(c.Points))
	for _, p := range c.Points {
		x, okX := finite(p.X)
		y, okY := finite(p.Y)
		if okX && okY {
			pts = append(pts, Point{x, y})
		}
	}
	slices.SortStableFunc(pts, func(a, b Point) int {
		switch {
		case a.X < b.X:
			return -1
		case a.X > b.X:
			return 1
		}
		return 0
	})
	pts = thin(pts, maxLinePoints)

	var b strings.Builder
	frame(&b, "line-chart", c.Title, c.HideTitle, w, h)
	top, bottom := 30.0, h-24
	if c.HideTitle {
		top = 10
	}

	// Y axis: from zero (or below) to the largest value, on round ticks.
	ylo, yhi := 0.0, 0.0
	for _, p := range pts {
		ylo, yhi = math.Min(ylo, p.Y), math.Max(yhi, p.Y)
	}
	yt, ylo, yhi := niceTicks(ylo, yhi, 4)
	ystep := 1.0
	if len(yt) > 1 {
		ystep = yt[1] - yt[0]
	}
	labels := make([]string, len(yt))
	left := 24.0
	for i, v := range yt {
		labels[i] = number(v, ystep)
		left = math.Max(left, float64(len(labels[i]))*charWidth+10)
	}
	right := w - 12
	if right-left < 20 {
		left = right - 20
	}
	sy := func(v float64) float64 { return bottom - (v-ylo)/(yhi-ylo)*(bottom-top) }
	for i, v := range yt {
		y := sy(v)
		fmt.Fprintf(&b, `<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s" stroke="#d0d4da" stroke-width="1"/>`, f(left), f(y), f(right), f(y))
		fmt.Fprintf(&b, `<text class="tick" x="%s" y="%s" text-anchor="end" dominant-baseline="middle" fill="currentColor">%s</text>`,
			f(left-6), f(y), esc(labels[i]))
	}
	fmt.Fprintf(&b, `<line class="axis" x1="%s" y1="%s" x2="%s" y2="%s" stroke="currentColor" stroke-width="1"/>`, f(left), f(bottom), f(right), f(bottom))

	if len(pts) == 0 {
		noData(&b, (left+right)/2, (top+bottom)/2)
		b.WriteString(`</svg>`)
		return b.String()
	}

	// X axis: the data's span (a single point sits in the middle).
	xlo, xhi := pts[0].X, pts[len(pts)-1].X
	var xt []float64
	var xfmt func(float64) string
	if c.XTime {
		if xhi-xlo < 1 {
			xlo, xhi = xlo-60, xhi+60
		}
		xt, xfmt = timeTicks(xlo, xhi)
	} else {
		if xhi <= xlo {
			xlo, xhi = xlo-1, xhi+1
		}
		xt, xlo, xhi = niceTicks(xlo, xhi, 5)
		step := 1.0
		if len(xt) > 1 {
			step = xt[1] - xt[0]
		}
		xfmt = func(v float64) string { return number(v, step) }
	}
	sx := func(v float64) float64 { return left + (v-xlo)/(xhi-xlo)*(right-left) }
	// Drop every other label until they fit side by side.
	widest := 0.0
	for _, v := range xt {
		widest = math.Max(widest, float64(len(xfmt(v)))*charWidth)
	}
	every := 1
	for len(xt) > 1 && float64(every)*(sx(xt[1])-sx(xt[0])) < widest+8 && every < len(xt) {
		every++
	}
	for i, v := range xt {
		x := sx(v)
		fmt.Fprintf(&b, `<line class="tick" x1="%s" y1="%s" x2="%s" y2="%s" stroke="currentColor" stroke-width="1"/>`, f(x), f(bottom), f(x), f(bottom+4))
		if i%every != 0 {
			continue
		}
		label := xfmt(v)
		anchor := "middle"
		if half := float64(len(label)) * charWidth / 2; x-half < 0 {
			anchor = "start"
		} else if x+half > w {
			anchor = "end"
		}
		fmt.Fprintf(&b, `<text class="tick" x="%s" y="%s" text-anchor="%s" fill="currentColor">%s</text>`, f(x), f(bottom+17), anchor, esc(label))
	}

	// The line, the area under it, and dots on the values when they are few.
	var line strings.Builder
	for i, p := range pts {
		if i > 0 {
			line.WriteByte(' ')
		}
		line.WriteString(f(sx(p.X)) + "," + f(sy(p.Y)))
	}
	base := sy(math.Max(ylo, math.Min(0, yhi)))
	if len(pts) > 1 {
		fmt.Fprintf(&b, `<polygon class="area" points="%s,%s %s %s,%s" fill="#1565c0" fill-opacity="0.12" stroke="none"/>`,
			f(sx(pts[0].X)), f(base), line.String(), f(sx(pts[len(pts)-1].X)), f(base))
		fmt.Fprintf(&b, `<polyline class="line" points="%s" fill="none" stroke="#1565c0" stroke-width="2" stroke-linejoin="round" stroke-linecap="round"/>`, line.String())
	}
	if len(pts) <= 60 {
		for _, p := range pts {
			label := number(p.Y, ystep/100)
			if c.XTime {
				label = time.Unix(int64(p.X), 0).UTC().Format("2006-01-02 15:04:05") + ": " + label
			} else {
				label = number(p.X, 0) + ": " + label
			}
			fmt.Fprintf(&b, `<circle class="dot" cx="%s" cy="%s" r="3" fill="#1565c0"><title>%s</title></circle>`, f(sx(p.X)), f(sy(p.Y)), esc(label))
		}
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// thin keeps at most n points of a sorted series: evenly spaced ones, and
// the last.
func thin(pts []Point, n int) []Point {
	if len(pts) <= n {
		return pts
	}
	k := (len(pts) + n - 1) / n
	out := make([]Point, 0, n+1)
	for i := 0; i < len(pts); i += k {
		out = append(out, pts[i])
	}
	if last := pts[len(pts)-1]; out[len(out)-1] != last {
		out = append(out, last)
	}
	return out
}

const day = 86400

// timeSteps are the tick intervals of a time axis, in seconds.
var timeSteps = []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 2 * 3600, 3 * 3600, 6 * 3600, 12 * 3600,
	day, 2 * day, 7 * day, 14 * day, 30 * day, 91 * day, 182 * day, 365 * day}

// timeTicks chooses about five round times between lo and hi (Unix seconds)
// and how to label them.
func timeTicks(lo, hi float64) ([]float64, func(float64) string) {
	span := hi - lo
	step := 0.0
	for _, s := range timeSteps {
		if span/s <= 6 {
			step = s
			break
		}
	}
	if step == 0 {
		step = math.Max(1, niceStep(span/(365*day), 5)) * 365 * day
	}
	layout := "15:04"
	switch {
	case step < 60:
		layout = "15:04:05"
	case step < day && span > day:
		layout = "Jan 2 15:04"
	case step >= 365*day:
		layout = "2006"
	case step >= day && span > 365*day:
		layout = "2006-01-02"
	case step >= day:
		layout = "Jan 2"
	}
	var ticks []float64
	for k := math.Ceil(lo / step); k*step <= hi && len(ticks) < 12; k++ {
		ticks = append(ticks, k*step)
	}
	if len(ticks) == 0 {
		ticks = append(ticks, lo)
	}
	return ticks, func(v float64) string { return time.Unix(int64(v), 0).UTC().Format(layout) }
}
