package score

// The scoring code as it was before its matching was reworked for speed,
// kept as the reference the fuzz tests compare the package against. It
// must not change with the package: a refPolicy scores by the code below
// only.

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// refPolicy is a Policy scored the reference way.
type refPolicy struct {
	cfg      Config
	words    map[string]int
	patterns []string
	avoid    []string
	anchors  []string
	files    []string
}

// newRefPolicy builds the reference policy of a configuration New accepts.
func newRefPolicy(cfg Config) *refPolicy {
	if cfg.Order == "" {
		cfg.Order = OrderPriority
	}
	p := &refPolicy{cfg: cfg, words: map[string]int{}}
	for _, w := range cfg.Words {
		if f := refFold(w); f != "" {
			if _, dup := p.words[f]; !dup {
				p.words[f] = len(p.words)
			}
		}
	}
	for _, pat := range cfg.Patterns {
		p.patterns = append(p.patterns, refFold(pat))
	}
	for _, pat := range cfg.Avoid {
		p.avoid = append(p.avoid, refFold(pat))
	}
	for _, a := range cfg.AvoidAnchors {
		p.anchors = append(p.anchors, refAnchorKey(a))
	}
	for _, pat := range cfg.Files {
		p.files = append(p.files, refFold(pat))
	}
	return p
}

// refSuffixes, refMaxWord and refMaxAvoidedAnchor are suffixes, maxWord and
// maxAvoidedAnchor.
var refSuffixes = []string{"s", "es", "lar", "ler", "lari", "leri", "si", "i"}

const (
	refMaxWord          = 64
	refMaxAvoidedAnchor = 32
)

func refContainsFolded(s, pat string) bool {
	if pat == "" {
		return true
	}
	// A pattern starting with ASCII punctuation ("/", ".") can only match
	// where s has that very byte: folding yields it from nothing else.
	p0 := pat[0]
	punct := p0 < utf8.RuneSelf && !('a' <= p0 && p0 <= 'z' || '0' <= p0 && p0 <= '9')
	var u [utf8.UTFMax]byte
	for start := 0; start < len(s); start++ {
		if punct {
			i := strings.IndexByte(s[start:], p0)
			if i < 0 {
				return false
			}
			start += i
		} else if c := s[start]; c < utf8.RuneSelf && c != '%' && refLower(c) != p0 {
			continue // the common case, decided by one byte
		}
		k, j := 0, start
		for k < len(pat) && j < len(s) {
			if c := s[j]; c < utf8.RuneSelf && c != '%' { // fast path
				if refLower(c) != pat[k] {
					break
				}
				k, j = k+1, j+1
				continue
			}
			n, next := refFoldUnit(s, j, &u)
			if len(pat)-k < n || pat[k:k+n] != string(u[:n]) {
				break
			}
			k, j = k+n, next
		}
		if k == len(pat) {
			return true
		}
	}
	return false
}

func refLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func refFoldUnit(s string, i int, u *[utf8.UTFMax]byte) (n, next int) {
	c := s[i]
	if c >= utf8.RuneSelf {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			u[0] = c
			return 1, i + 1
		}
		return refFoldTo(r, u), i + size
	}
	if c == '%' {
		if r, size := refDecodePercent(s[i:]); size > 0 && r >= utf8.RuneSelf {
			return refFoldTo(r, u), i + size
		}
	}
	u[0] = refLower(c)
	return 1, i + 1
}

func refFoldTo(r rune, u *[utf8.UTFMax]byte) int {
	if f := refFoldRune(r); f != 0 {
		u[0] = f
		return 1
	}
	return utf8.EncodeRune(u[:], unicode.ToLower(r))
}

func refDecodePercent(s string) (rune, int) {
	var b [4]byte
	n := 0
	i := 0
	for n < 4 && i+2 < len(s) && s[i] == '%' {
		hi, ok1 := refUnhex(s[i+1])
		lo, ok2 := refUnhex(s[i+2])
		if !ok1 || !ok2 {
			break
		}
		b[n] = hi<<4 | lo
		n++
		i += 3
		if utf8.FullRune(b[:n]) {
			r, size := utf8.DecodeRune(b[:n])
			if r == utf8.RuneError || size != n {
				return 0, 0
			}
			return r, i
		}
	}
	return 0, 0
}

func refUnhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func refFoldRune(r rune) byte {
	switch {
	case 'a' <= r && r <= 'z' || '0' <= r && r <= '9':
		return byte(r)
	case 'A' <= r && r <= 'Z':
		return byte(r) + 'a' - 'A'
	}
	switch r {
	case 'ş', 'Ş':
		return 's'
	case 'ı', 'İ', 'î', 'Î':
		return 'i'
	case 'ğ', 'Ğ':
		return 'g'
	case 'ü', 'Ü', 'û', 'Û':
		return 'u'
	case 'ö', 'Ö':
		return 'o'
	case 'ç', 'Ç':
		return 'c'
	case 'â', 'Â':
		return 'a'
	}
	return 0
}

func refFold(s string) string {
	var b strings.Builder
	for _, r := range s {
		if f := refFoldRune(r); f != 0 {
			b.WriteByte(f)
		} else {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

func refHasDate(path string) bool {
	for i := 0; i+9 <= len(path); i++ {
		if path[i] != '/' {
			continue
		}
		d := path[i+1 : i+9] // YYYY/MM/
		if d[4] != '/' || d[7] != '/' || !refDigits(d[:4]) || !refDigits(d[5:7]) {
			continue
		}
		y := d[:4]
		if (y[:2] == "19" && y[2] == '9' || y[:2] == "20") && (d[5] == '0' && d[6] != '0' || d[5:7] == "10" || d[5:7] == "11" || d[5:7] == "12") {
			return true
		}
	}
	return false
}

func refDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func refPathOf(url string) string {
	if i := strings.Index(url, "://"); i >= 0 {
		if j := strings.IndexByte(url[i+3:], '/'); j >= 0 {
			return url[i+3+j:]
		}
		return "/"
	}
	return url
}

func refAnchorKey(s string) string { return string(refAppendAnchorKey(nil, s)) }

func refAppendAnchorKey(b []byte, s string) []byte {
	gap := false
	for _, r := range s {
		f := refFoldRune(r)
		var u [utf8.UTFMax]byte
		n := 0
		switch {
		case f != 0:
			u[0], n = f, 1
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			n = utf8.EncodeRune(u[:], unicode.ToLower(r))
		default:
			gap = true
			continue
		}
		if gap && len(b) > 0 {
			b = append(b, ' ')
		}
		gap = false
		b = append(b, u[:n]...)
	}
	return b
}

func (p *refPolicy) refScore(url, anchor string, depth int) int {
	switch p.cfg.Order {
	case OrderBFS:
		return -depth
	case OrderDFS:
		return depth
	}
	s := -p.cfg.DepthPenalty * depth
	path := refPathOf(url)
	s += p.cfg.URLWeight * p.refHits(url)
	s += p.cfg.AnchorWeight * p.refHits(anchor)
	for _, pat := range p.patterns {
		if refContainsFolded(path, pat) {
			s += p.cfg.PatternBonus
			break
		}
	}
	if p.cfg.AvoidPenalty != 0 && (p.refAvoided(path) || p.refAvoidedAnchor(anchor)) {
		s -= p.cfg.AvoidPenalty
	}
	if p.cfg.FilePenalty != 0 {
		for _, pat := range p.files {
			if refContainsFolded(path, pat) {
				s -= p.cfg.FilePenalty
				break
			}
		}
	}
	return s
}

func (p *refPolicy) refContext(pageURL string) int {
	if p.cfg.Order != OrderPriority {
		return 0
	}
	path := refPathOf(pageURL)
	c := 0
	for _, pat := range p.patterns {
		if refContainsFolded(path, pat) {
			c += p.cfg.PatternBonus / 2
			break
		}
	}
	if p.refAvoided(path) {
		c -= p.cfg.AvoidPenalty / 2
	}
	return c
}

func (p *refPolicy) refAcademicSignals(url, anchor string) bool {
	if p.refHits(url) > 0 || p.refHits(anchor) > 0 {
		return true
	}
	for _, pat := range p.patterns {
		if refContainsFolded(url, pat) {
			return true
		}
	}
	return false
}

func (p *refPolicy) refAvoided(path string) bool {
	if refHasDate(path) {
		return true
	}
	for _, pat := range p.avoid {
		if refContainsFolded(path, pat) {
			return true
		}
	}
	return false
}

func (p *refPolicy) refAvoidedAnchor(anchor string) bool {
	if anchor == "" || len(anchor) > refMaxAvoidedAnchor || len(p.anchors) == 0 {
		return false
	}
	var buf [2 * refMaxAvoidedAnchor]byte
	k := refAppendAnchorKey(buf[:0], anchor)
	for _, a := range p.anchors {
		if string(k) == a {
			return true
		}
	}
	return false
}

func (p *refPolicy) refHits(s string) int {
	if s == "" {
		return 0
	}
	var seen uint64
	n := 0
	var buf [2 * refMaxWord]byte
	tok := buf[:0]
	long := false // the token outgrew buf: it matches no word
	push := func(b byte) {
		if len(tok) < len(buf) {
			tok = append(tok, b)
		} else {
			long = true
		}
	}
	flush := func() {
		if len(tok) > 0 && !long {
			if i, ok := p.refMatch(tok); ok && seen&(1<<i) == 0 {
				seen |= 1 << i
				n++
			}
		}
		tok, long = tok[:0], false
	}
	for i := 0; i < len(s); {
		c := s[i]
		r, size := rune(c), 1
		switch {
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			push(c)
			i++
			continue
		case 'A' <= c && c <= 'Z':
			push(c + 'a' - 'A')
			i++
			continue
		case c == '%':
			// Percent-encoded UTF-8 in URLs: decode Turkish letters, and
			// separators such as %20, whose hex refDigits are no letters.
			if d, dsize := refDecodePercent(s[i:]); dsize > 0 {
				r, size = d, dsize
			}
		case c >= utf8.RuneSelf:
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		if f := refFoldRune(r); f != 0 {
			push(f)
		} else if r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			// Other letters stay in the token, lowercased as refFold does.
			var u [utf8.UTFMax]byte
			for _, b := range u[:utf8.EncodeRune(u[:], unicode.ToLower(r))] {
				push(b)
			}
		} else {
			flush()
		}
	}
	flush()
	return min(n, p.cfg.MaxWordHits)
}

func (p *refPolicy) refMatch(tok []byte) (int, bool) {
	if i, ok := p.words[string(tok)]; ok {
		return i, true
	}
	for _, suf := range refSuffixes {
		if len(tok) > len(suf) && string(tok[len(tok)-len(suf):]) == suf {
			if i, ok := p.words[string(tok[:len(tok)-len(suf)])]; ok {
				return i, true
			}
		}
	}
	return 0, false
}
