package scope

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(b byte)      { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }

// meets reports whether s and o have a byte in common.
func (s *byteSet) meets(o *byteSet) bool { return s[0]&o[0]|s[1]&o[1]|s[2]&o[2]|s[3]&o[3] != 0 }

func (s *byteSet) union(o byteSet) {
	s[0], s[1], s[2], s[3] = s[0]|o[0], s[1]|o[1], s[2]|o[2], s[3]|o[3]
}

// addRange adds the bytes from lo to hi.
func (s *byteSet) addRange(lo, hi int) {
	for b := lo; b <= hi; b++ {
		s.add(byte(b))
	}
}

// addBytes adds the bytes of text.
func (s *byteSet) addBytes(text string) {
	for i := range len(text) {
		s.add(text[i])
	}
}

// addRune adds the bytes a match of r may start with. Any rune beyond
// ASCII stands for every byte from 0x80: its UTF-8 lead bytes, and the
// bytes of invalid UTF-8, which a regexp reads as U+FFFD.
func (s *byteSet) addRune(r rune) {
	if r < utf8.RuneSelf {
		s.add(byte(r))
		return
	}
	s.addRange(utf8.RuneSelf, 0xff)
}

// firstBytes is the set of bytes a match of pattern can start with, and
// whether there is one: a pattern that can match the empty string (or
// fails to parse) has none, and is always to be run.
func firstBytes(pattern string) (byteSet, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return byteSet{}, false
	}
	set, empty := first(re.Simplify())
	return set, !empty
}

// startAnchored reports whether every match of pattern starts at the
// text's start (it begins with ^, not under (?m)).
func startAnchored(pattern string) bool {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return false
	}
	re = re.Simplify()
	for re.Op == syntax.OpConcat || re.Op == syntax.OpCapture {
		if len(re.Sub) == 0 {
			return false
		}
		re = re.Sub[0]
	}
	return re.Op == syntax.OpBeginText
}

// first is the set of bytes a match of re can start with, and whether re
// can match without consuming a byte (then the set is only of some of
// its matches).
func first(re *syntax.Regexp) (set byteSet, empty bool) {
	switch re.Op {
	case syntax.OpNoMatch:
		return set, false
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return set, true
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return set, true
		}
		r := re.Rune[0]
		set.addRune(r)
		if re.Flags&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				set.addRune(f)
			}
		}
		return set, false
	case syntax.OpCharClass:
		// The parser has folded the class already under (?i).
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if hi >= utf8.RuneSelf {
				set.addRange(utf8.RuneSelf, 0xff)
				hi = utf8.RuneSelf - 1
			}
			if lo <= hi {
				set.addRange(int(lo), int(hi))
			}
		}
		return set, false
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		set.addRange(0, 0xff)
		return set, false
	case syntax.OpCapture, syntax.OpPlus:
		return first(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		set, _ = first(re.Sub[0])
		return set, true
	case syntax.OpRepeat:
		set, empty = first(re.Sub[0])
		return set, empty || re.Min == 0
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			s, e := first(sub)
			set.union(s)
			if !e {
				return set, false
			}
		}
		return set, true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			s, e := first(sub)
			set.union(s)
			empty = empty || e
		}
		return set, empty
	}
	// An operator not known here: any byte, and maybe none.
	set.addRange(0, 0xff)
	return set, true
}
