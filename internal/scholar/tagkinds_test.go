package scholar

import (
	"testing"

	"golang.org/x/net/html/atom"
)

// TestTagKinds checks that tagKinds answers as voidTags and pClosers do for
// every element the tokenizer names by an atom, and that every name of
// those sets is an atom's, so that a tag without one is in neither.
func TestTagKinds(t *testing.T) {
	for kind, set := range map[uint8]map[string]bool{kindVoid: voidTags, kindPCloser: pClosers} {
		for name := range set {
			if a := atom.Lookup([]byte(name)); a == 0 || a.String() != name {
				t.Errorf("%q is not an atom's name", name)
			}
		}
		for a := atom.Atom(1); a < 1<<24; a++ {
			name := a.String()
			if name == "" || atom.Lookup([]byte(name)) != a {
				continue
			}
			if got := tagKinds[a]&kind != 0; got != set[name] {
				t.Errorf("tagKinds[%s] kind %b = %v, the set says %v", name, kind, got, set[name])
			}
		}
	}
}
