package score

import "unicode/utf8"

// Groups of path patterns, as bits: a matcher tells which groups have a
// pattern in a text.
const (
	groupPattern uint8 = 1 << iota // Patterns: the pattern bonus
	groupAvoid                     // Avoid: the avoid penalty
	groupFile                      // Files: the file penalty
)

// matcher finds folded patterns of several groups in a text in one pass
// rather than one pass a pattern: a trie of the patterns' bytes is walked
// from each byte of the text where a pattern may begin, over the text
// folded from there (foldUnit), so that "ş" in a pattern matches "ş", "Ş"
// and "%C5%9F" in a text. A pattern matches where the walk reaches its
// end after a whole folded character.
type matcher struct {
	nodes []trieNode // nodes[0] is the root
	// starts tells, by a text's byte, whether a pattern may begin there:
	// an ASCII byte that folds to a first byte of a pattern, or a byte
	// that foldUnit decodes ('%' and bytes from 0x80).
	starts [256]bool
	groups uint8 // the groups that have a pattern
}

// trieNode is a node of the trie: the node after each byte from lo, as an
// index in matcher.nodes (0 for none: the root follows no byte), and the
// groups of the patterns that end here.
type trieNode struct {
	lo   byte
	ends uint8
	next []int32
}

// newMatcher returns a matcher of no pattern.
func newMatcher() *matcher {
	m := &matcher{nodes: []trieNode{{}}}
	m.starts['%'] = true
	for c := utf8.RuneSelf; c < 256; c++ {
		m.starts[c] = true
	}
	return m
}

// add adds a folded, non-empty pattern of group g.
func (m *matcher) add(pat string, g uint8) {
	n := int32(0)
	for i := 0; i < len(pat); i++ {
		n = m.child(n, pat[i])
	}
	m.nodes[n].ends |= g
	m.groups |= g
	m.starts[pat[0]] = true
	if b := pat[0]; 'a' <= b && b <= 'z' {
		m.starts[b-'a'+'A'] = true
	}
}

// child returns the node after byte b from node n, adding it if need be.
func (m *matcher) child(n int32, b byte) int32 {
	if c := m.step(n, b); c != 0 {
		return c
	}
	c := int32(len(m.nodes))
	m.nodes = append(m.nodes, trieNode{})
	nd := &m.nodes[n]
	switch {
	case len(nd.next) == 0:
		nd.lo = b
		nd.next = []int32{0}
	case b < nd.lo:
		grown := make([]int32, int(nd.lo-b)+len(nd.next))
		copy(grown[nd.lo-b:], nd.next)
		nd.lo, nd.next = b, grown
	case int(b-nd.lo) >= len(nd.next):
		nd.next = append(nd.next, make([]int32, int(b-nd.lo)+1-len(nd.next))...)
	}
	nd.next[b-nd.lo] = c
	return c
}

// step returns the node after byte b from node n, or 0.
func (m *matcher) step(n int32, b byte) int32 {
	nd := &m.nodes[n]
	if i := int(b) - int(nd.lo); 0 <= i && i < len(nd.next) {
		return nd.next[i]
	}
	return 0
}

// find returns the groups among want that have a pattern in s, folded as
// fold does and with percent-encoded non-ASCII characters decoded. It
// does not allocate.
func (m *matcher) find(s string, want uint8) uint8 {
	want &= m.groups
	var found uint8
	var u [utf8.UTFMax]byte
	for i := 0; i < len(s) && found != want; i++ {
		if m.starts[s[i]] {
			found |= m.at(s, i, &u) & want
		}
	}
	return found
}

// at returns the groups of the patterns that match s from index i.
func (m *matcher) at(s string, i int, u *[utf8.UTFMax]byte) uint8 {
	var found uint8
	n := int32(0)
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf && c != '%' { // the common case
			if n = m.step(n, lower(c)); n == 0 {
				return found
			}
			i++
		} else {
			k, next := foldUnit(s, i, u)
			for _, b := range u[:k] {
				if n = m.step(n, b); n == 0 {
					return found
				}
			}
			i = next
		}
		found |= m.nodes[n].ends
	}
	return found
}
