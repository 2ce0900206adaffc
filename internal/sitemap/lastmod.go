package sitemap

import (
	"strconv"
	"time"
)

// parseLastMod reads a W3C datetime (https://www.w3.org/TR/NOTE-datetime) as
// sitemaps write it: YYYY, YYYY-MM, YYYY-MM-DD, or YYYY-MM-DDThh:mm with
// optional seconds and fraction, then a time zone designator ("Z", "+hh:mm",
// "+hhmm", "+hh") or none (UTC). 't', 'z' and a space for the T are
// accepted. The result is in UTC.
func parseLastMod(s []byte) (time.Time, bool) {
	p := dateParser{s: s, ok: true}
	year := p.digits(4)
	month, day := 1, 1
	if p.done() {
		return mkDate(year, month, day, 0, 0, 0, 0, 0, p.ok)
	}
	p.expect('-')
	month = p.digits(2)
	if p.done() {
		return mkDate(year, month, day, 0, 0, 0, 0, 0, p.ok)
	}
	p.expect('-')
	day = p.digits(2)
	if p.done() {
		return mkDate(year, month, day, 0, 0, 0, 0, 0, p.ok)
	}
	if c := p.next(); c != 'T' && c != 't' && c != ' ' {
		p.ok = false
	}
	hour := p.digits(2)
	p.expect(':')
	minute := p.digits(2)
	sec, nsec := 0, 0
	if p.peek() == ':' {
		p.next()
		sec = p.digits(2)
		if c := p.peek(); c == '.' || c == ',' {
			p.next()
			nsec = p.fraction()
		}
	}
	offset := 0 // seconds east of UTC
	if p.done() {
		// No designator: UTC.
		return mkDate(year, month, day, hour, minute, sec, nsec, offset, p.ok && hour <= 23 && minute <= 59 && sec <= 59)
	}
	switch c := p.next(); c {
	case 'Z', 'z':
	case '+', '-':
		oh := p.digits(2)
		om := 0
		if p.peek() == ':' {
			p.next()
			om = p.digits(2)
		} else if !p.done() {
			om = p.digits(2)
		}
		if oh > 23 || om > 59 {
			p.ok = false
		}
		offset = (oh*60 + om) * 60
		if c == '-' {
			offset = -offset
		}
	default:
		p.ok = false
	}
	if !p.done() || hour > 23 || minute > 59 || sec > 59 {
		p.ok = false
	}
	return mkDate(year, month, day, hour, minute, sec, nsec, offset, p.ok)
}

// mkDate builds the UTC time for a local date and time at offset seconds
// east of UTC, if ok and the date exists.
func mkDate(year, month, day, hour, minute, sec, nsec, offset int, ok bool) (time.Time, bool) {
	if !ok || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	return t.Add(-time.Duration(offset) * time.Second), true
}

// daysIn returns the number of days in a month of the proleptic Gregorian
// calendar.
func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// dateParser reads s from the start; ok turns false at the first byte that
// does not fit, and stays false.
type dateParser struct {
	s  []byte
	i  int
	ok bool
}

func (p *dateParser) done() bool { return p.i == len(p.s) }

// peek returns the next byte, or 0 at the end.
func (p *dateParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// next consumes and returns the next byte, or 0 at the end.
func (p *dateParser) next() byte {
	c := p.peek()
	if p.i < len(p.s) {
		p.i++
	}
	return c
}

func (p *dateParser) expect(c byte) {
	if p.next() != c {
		p.ok = false
	}
}

// digits reads exactly n decimal digits.
func (p *dateParser) digits(n int) int {
	v := 0
	for range n {
		c := p.next()
		if c < '0' || c > '9' {
			p.ok = false
			return 0
		}
		v = v*10 + int(c-'0')
	}
	return v
}

// fraction reads one or more digits after a decimal point as nanoseconds;
// digits beyond the ninth are ignored.
func (p *dateParser) fraction() int {
	v, n := 0, 0
	for c := p.peek(); '0' <= c && c <= '9'; c = p.peek() {
		p.next()
		if n < 9 {
			v = v*10 + int(c-'0')
		}
		n++
	}
	if n == 0 {
		p.ok = false
	}
	for ; n < 9; n++ {
		v *= 10
	}
	return v
}

// parsePriority reads a priority: a decimal number between 0 and 1 written
// as digits with an optional fraction ("0.8", "1", ".5", "1.0"). Anything
// else gives -1.
func parsePriority(v []byte) float64 {
	digits, dot := 0, false
	for _, c := range v {
		switch {
		case '0' <= c && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return -1
		}
	}
	if digits == 0 {
		return -1
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || f < 0 || f > 1 {
		return -1
	}
	return f
}
