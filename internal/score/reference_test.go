package score

// The path matching and tokenizing of Score, Context and AcademicSignals
// as they were before they were reworked for speed, kept as the reference
// the fuzz tests compare the package against: each path pattern a scan
// of the text of its own, tokens collected by closures.

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// refPolicy is a Policy scored the reference way: with its words,
// anchors and configuration, and its path patterns folded in lists.
type refPolicy struct {
	*Policy
	patterns []string
	avoid    []string
	files    []string
}

// newRefPolicy returns the reference of p, built from cfg.
func newRefPolicy(p *Policy, cfg Config) *refPolicy {
	r := &refPolicy{Policy: p}
	for _, pat := range cfg.Patterns {
		r.patterns = append(r.patterns, fold(pat))
	}
	for _, pat := range cfg.Avoid {
		r.avoid = append(r.avoid, fold(pat))
	}
	for _, pat := range cfg.Files {
		r.files = append(r.files, fold(pat))
	}
	return r
}

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
		} else if c := s[start]; c < utf8.RuneSelf && c != '%' && lower(c) != p0 {
			continue // the common case, decided by one byte
		}
		k, j := 0, start
		for k < len(pat) && j < len(s) {
			if c := s[j]; c < utf8.RuneSelf && c != '%' { // fast path
				if lower(c) != pat[k] {
					break
				}
				k, j = k+1, j+1
				continue
			}
			n, next := foldUnit(s, j, &u)
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

func (p *refPolicy) refScore(url, anchor string, depth int) int {
	switch p.cfg.Order {
	case OrderBFS:
		return -depth
	case OrderDFS:
		return depth
	}
	s := -p.cfg.DepthPenalty * depth
	path := pathOf(url)
	s += p.cfg.URLWeight * p.refHits(url)
	s += p.cfg.AnchorWeight * p.refHits(anchor)
	for _, pat := range p.patterns {
		if refContainsFolded(path, pat) {
			s += p.cfg.PatternBonus
			break
		}
	}
	if p.cfg.AvoidPenalty != 0 && (p.refAvoided(path) || p.avoidedAnchor(anchor)) {
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
	path := pathOf(pageURL)
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
	if hasDate(path) {
		return true
	}
	for _, pat := range p.avoid {
		if refContainsFolded(path, pat) {
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
	var buf [2 * maxWord]byte
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
			// separators such as %20, whose hex digits are no letters.
			if d, dsize := decodePercent(s[i:]); dsize > 0 {
				r, size = d, dsize
			}
		case c >= utf8.RuneSelf:
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		if f := foldRune(r); f != 0 {
			push(f)
		} else if r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			// Other letters stay in the token, lowercased as fold does.
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
	for _, suf := range suffixes {
		if len(tok) > len(suf) && string(tok[len(tok)-len(suf):]) == suf {
			if i, ok := p.words[string(tok[:len(tok)-len(suf)])]; ok {
				return i, true
			}
		}
	}
	return 0, false
}
