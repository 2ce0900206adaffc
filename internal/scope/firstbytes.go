package scope

import (
	"encoding/binary"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(b byte)      { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }

// Limits of a lead: how many bytes of a match's start it follows, how
// many sets of the pattern's states it tells apart, and how many of the
// pattern's instructions one set may hold (so that building it stays
// cheap for a large pattern).
const (
	maxLead       = 8
	maxLeadStates = 512
	maxLeadInsts  = 256
)

// lead is the start of a pattern's matches as a small automaton over
// ASCII bytes: the first bytes a match can begin with (first, the bytes
// with a way out of state 0), and the states that follow, up to maxLead
// bytes into a match. A text is run through it from each place a match
// could begin, and the pattern is run only if one of them gets through
// (mayMatch).
//
// Runes beyond ASCII are not followed: a byte from 0x80 met on the way
// makes the place a candidate, so that case folding (the Kelvin sign
// matches (?i)k), other UTF-8 and invalid bytes (read as U+FFFD) need no
// care. Assertions are taken to hold, except $ (end of text), after
// which nothing can be read.
type lead struct {
	first byteSet
	next  [][utf8.RuneSelf]int32 // by state and byte: the state after it, or -1
	done  []uint8                // by state: leadMatch, leadMatchAtEnd, leadDeep
	start bool                   // a match starts at the text's first byte only (^)
}

const (
	leadMatch      = 1 << iota // a match can end here
	leadMatchAtEnd             // a match can end here if the text does
	leadDeep                   // maxLead bytes in, or too many states: a candidate
)

// newLead builds pattern's lead, or nil when there is none: a pattern
// that can match the empty string, or that does not parse.
func newLead(pattern string) *lead {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	prog, err := syntax.Compile(re)
	if err != nil {
		return nil
	}
	l := &lead{start: startAnchored(re)}
	index := map[string]int32{}
	type state struct {
		pcs   []uint32
		depth int
	}
	var states []state
	// add returns the state of the instructions reached from pcs.
	add := func(pcs []uint32, depth int) int32 {
		runes, flags := follow(prog, pcs)
		key := []byte{flags, byte(min(depth, maxLead))}
		for _, pc := range runes {
			key = binary.AppendUvarint(key, uint64(pc))
		}
		if i, ok := index[string(key)]; ok {
			return i
		}
		i := int32(len(states))
		index[string(key)] = i
		if depth >= maxLead || len(states) >= maxLeadStates || len(runes) > maxLeadInsts {
			flags |= leadDeep
		}
		states = append(states, state{pcs: runes, depth: depth})
		l.done = append(l.done, flags)
		var none [utf8.RuneSelf]int32
		for b := range none {
			none[b] = -1
		}
		l.next = append(l.next, none)
		return i
	}
	if add([]uint32{uint32(prog.Start)}, 0); l.done[0] != 0 {
		return nil // it can match the empty string, or is too large to follow
	}
	for i := 0; i < len(states); i++ {
		if l.done[i]&leadDeep != 0 {
			continue
		}
		s := states[i]
		for b := range rune(utf8.RuneSelf) {
			var to []uint32
			for _, pc := range s.pcs {
				if in := &prog.Inst[pc]; reads(in, b) {
					to = append(to, in.Out)
				}
			}
			if len(to) > 0 {
				l.next[i][b] = add(to, s.depth+1)
			}
		}
	}
	for b := range byte(utf8.RuneSelf) {
		if l.next[0][b] >= 0 {
			l.first.add(b)
		}
	}
	return l
}

// reads reports whether in reads the ASCII rune b.
func reads(in *syntax.Inst, b rune) bool {
	switch in.Op {
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return b != '\n'
	case syntax.InstRune, syntax.InstRune1:
		return in.MatchRune(b)
	}
	return false
}

// follow is the instructions that read a rune reached from pcs without
// reading one, sorted, and whether a match is reached (leadMatch, or
// leadMatchAtEnd past a $). Nothing is read past a $.
func follow(prog *syntax.Prog, pcs []uint32) ([]uint32, uint8) {
	var out []uint32
	var flags uint8
	type at struct {
		pc  uint32
		end bool // past a $
	}
	stack := make([]at, 0, len(pcs))
	for _, pc := range pcs {
		stack = append(stack, at{pc: pc})
	}
	seen := map[at]bool{}
	for len(stack) > 0 {
		a := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[a] {
			continue
		}
		seen[a] = true
		switch in := &prog.Inst[a.pc]; in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, at{in.Out, a.end}, at{in.Arg, a.end})
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, at{in.Out, a.end})
		case syntax.InstEmptyWidth:
			stack = append(stack, at{in.Out, a.end || syntax.EmptyOp(in.Arg)&syntax.EmptyEndText != 0})
		case syntax.InstMatch:
			if a.end {
				flags |= leadMatchAtEnd
			} else {
				flags |= leadMatch
			}
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			if !a.end {
				out = append(out, a.pc)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), flags
}

// mayMatch reports whether the pattern of l can match text, as far as l
// tells: whether a match may begin at one of text's bytes.
func (l *lead) mayMatch(text string) bool {
	end := len(text)
	if l.start {
		end = min(end, 1)
	}
	for i := range end {
		if !l.first.has(text[i]) {
			if text[i] >= utf8.RuneSelf {
				return true
			}
			continue
		}
		for s, j := int32(0), i; ; j++ {
			done := l.done[s]
			if done&(leadMatch|leadDeep) != 0 || done&leadMatchAtEnd != 0 && j == len(text) {
				return true
			}
			if j == len(text) {
				break
			}
			c := text[j]
			if c >= utf8.RuneSelf {
				return true
			}
			if s = l.next[s][c]; s < 0 {
				break
			}
		}
	}
	return false
}

// startAnchored reports whether every match of re starts at the text's
// start (it begins with ^, not under (?m)).
func startAnchored(re *syntax.Regexp) bool {
	for re.Op == syntax.OpConcat || re.Op == syntax.OpCapture {
		if len(re.Sub) == 0 {
			return false
		}
		re = re.Sub[0]
	}
	return re.Op == syntax.OpBeginText
}
