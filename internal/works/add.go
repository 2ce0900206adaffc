package works

import (
	"reflect"
	"sort"
)

// Store is what Add needs of a store's works, within one transaction. A
// work is identified by an ID the store allocates (NewWork); a copy by its
// page's ID.
type Store interface {
	// CopyWork returns the work a page is a copy of and the copy as
	// recorded; found is false when the page is no copy.
	CopyWork(page int64) (work int64, c Copy, found bool, err error)
	// KeyWorks returns the works that have a copy recorded under one of
	// the keys, in ascending order, without repeats.
	KeyWorks(keys []string) ([]int64, error)
	// Copies returns a work's copies.
	Copies(work int64) ([]Copy, error)
	// NewWork allocates the ID of a new work, never one given before.
	NewWork() (int64, error)
	// PutCopy records c as a copy of work under keys; DeleteCopy forgets
	// a page's copy and keys.
	PutCopy(work int64, c Copy, keys []string) error
	DeleteCopy(page int64) error
	// MoveCopies makes every copy of from a copy of to.
	MoveCopies(from, to int64) error
	// PutWork records a work's merged record (w.ID is set), replacing
	// the earlier one; DeleteWork forgets one.
	PutWork(w Work) error
	DeleteWork(id int64) error
}

// Add records what a page is in st as its page is committed: a copy joins
// the works it Joins (those that are Compatible become one, under the
// oldest ID; one that is not stays apart) or starts a new work, and its
// work's record is merged again. A page committed again with the same
// copy costs one lookup; with other metadata that matching does not read
// (an abstract, keywords), its copy is replaced and its work merged
// again; with another DOI, title, first author, year or PDF, or when it
// is no longer a copy, it leaves its work first (see leave) and joins the
// work it now belongs to. Add returns the page's work, 0 when it is none.
// A harvested record's copy (AddRecord) that happens to have the page's
// ID is left alone.
func Add(st Store, p Page) (int64, error) {
	c, ok := CopyOf(p)
	return set(st, p.ID, c, ok, false)
}

// set records that the page or record id is copy c (ok) or no copy.
func set(st Store, id int64, c Copy, ok, record bool) (int64, error) {
	oldWork, old, found, err := st.CopyWork(id)
	if err != nil {
		return 0, err
	}
	if found {
		if !record && old.Record != "" {
			return 0, nil
		}
		if ok && reflect.DeepEqual(old, c) {
			return oldWork, nil
		}
		if ok && sameIdentity(&old, &c) {
			// It matches and conflicts as before: it stays, and its work
			// is merged again.
			if err := st.PutCopy(oldWork, c, Keys(c)); err != nil {
				return 0, err
			}
			return oldWork, remerge(st, oldWork, nil)
		}
		if err := st.DeleteCopy(id); err != nil {
			return 0, err
		}
		if err := leave(st, oldWork); err != nil {
			return 0, err
		}
	}
	if !ok {
		return 0, nil
	}
	return join(st, c)
}

// sameIdentity reports whether two copies of one page have everything
// Match, Conflict and Keys read in common, so that they match and
// conflict with the same copies.
func sameIdentity(a, b *Copy) bool {
	if a.URL != b.URL || a.Kind != b.Kind || a.DOI != b.DOI || a.Title != b.Title || a.Year != b.Year || a.PDFURL != b.PDFURL ||
		len(a.Authors) > 0 != (len(b.Authors) > 0) {
		return false
	}
	return len(a.Authors) == 0 || a.Authors[0] == b.Authors[0]
}

// leave settles a work a copy has left: deleted when it has no copy left;
// split when the copies left are no longer one work (the copy that left
// joined them), each part a work of its own, the largest keeping the ID;
// else merged again from the copies left.
func leave(st Store, id int64) error {
	copies, err := st.Copies(id)
	if err != nil {
		return err
	}
	if len(copies) < 2 {
		return remerge(st, id, copies)
	}
	parts := Cluster(copies)
	if len(parts) == 1 {
		return remerge(st, id, copies)
	}
	// The largest part keeps the ID; of equal parts, the one with the
	// oldest copy.
	sort.SliceStable(parts, func(i, j int) bool { return len(parts[i]) > len(parts[j]) })
	for i, part := range parts {
		cs := make([]Copy, len(part))
		for k, at := range part {
			cs[k] = copies[at]
		}
		w := id
		if i > 0 {
			if w, err = st.NewWork(); err != nil {
				return err
			}
			for _, c := range cs {
				if err := st.PutCopy(w, c, Keys(c)); err != nil {
					return err
				}
			}
		}
		if err := remerge(st, w, cs); err != nil {
			return err
		}
	}
	return nil
}

// join records c as a copy of the works it joins, or of a new work.
func join(st Store, c Copy) (int64, error) {
	keys := Keys(c)
	cands, err := st.KeyWorks(keys)
	if err != nil {
		return 0, err
	}
	var target int64
	var members []Copy
	for _, g := range cands {
		cs, err := st.Copies(g)
		if err != nil {
			return 0, err
		}
		if !Joins(cs, c) {
			continue
		}
		if target == 0 {
			target, members = g, cs
			continue
		}
		if !Compatible(members, cs) {
			continue
		}
		if err := st.MoveCopies(g, target); err != nil {
			return 0, err
		}
		if err := st.DeleteWork(g); err != nil {
			return 0, err
		}
		members = append(members, cs...)
	}
	if target == 0 {
		if target, err = st.NewWork(); err != nil {
			return 0, err
		}
	}
	if err := st.PutCopy(target, c, keys); err != nil {
		return 0, err
	}
	return target, remerge(st, target, append(members, c))
}

// remerge records work id merged from its copies (read from st when nil),
// or deletes it when it has none.
func remerge(st Store, id int64, copies []Copy) error {
	if copies == nil {
		var err error
		if copies, err = st.Copies(id); err != nil {
			return err
		}
	}
	if len(copies) == 0 {
		return st.DeleteWork(id)
	}
	w := Merge(copies)
	w.ID = id
	return st.PutWork(w)
}

// Memory is a Store in memory: the reference the stores' works are tested
// against (see Cluster), and a store for a single process.
type Memory struct {
	next   int64
	works  map[int64]Work
	copies map[int64]Copy  // page → copy
	workOf map[int64]int64 // page → work
	keys   map[string]map[int64]bool
	keysOf map[int64][]string
}

// NewMemory returns an empty Memory.
func NewMemory() *Memory {
	return &Memory{works: map[int64]Work{}, copies: map[int64]Copy{}, workOf: map[int64]int64{},
		keys: map[string]map[int64]bool{}, keysOf: map[int64][]string{}}
}

func (m *Memory) CopyWork(page int64) (int64, Copy, bool, error) {
	c, ok := m.copies[page]
	return m.workOf[page], c, ok, nil
}

func (m *Memory) KeyWorks(keys []string) ([]int64, error) {
	seen := map[int64]bool{}
	var out []int64
	for _, k := range keys {
		for p := range m.keys[k] {
			if w := m.workOf[p]; !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

func (m *Memory) Copies(work int64) ([]Copy, error) {
	var out []Copy
	for p, w := range m.workOf {
		if w == work {
			out = append(out, m.copies[p])
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PageID < out[j].PageID })
	return out, nil
}

func (m *Memory) NewWork() (int64, error) {
	m.next++
	return m.next, nil
}

func (m *Memory) PutCopy(work int64, c Copy, keys []string) error {
	m.copies[c.PageID], m.workOf[c.PageID], m.keysOf[c.PageID] = c, work, keys
	for _, k := range keys {
		if m.keys[k] == nil {
			m.keys[k] = map[int64]bool{}
		}
		m.keys[k][c.PageID] = true
	}
	return nil
}

func (m *Memory) DeleteCopy(page int64) error {
	for _, k := range m.keysOf[page] {
		delete(m.keys[k], page)
	}
	delete(m.copies, page)
	delete(m.workOf, page)
	delete(m.keysOf, page)
	return nil
}

func (m *Memory) MoveCopies(from, to int64) error {
	for p, w := range m.workOf {
		if w == from {
			m.workOf[p] = to
		}
	}
	return nil
}

func (m *Memory) PutWork(w Work) error {
	m.works[w.ID] = w
	return nil
}

func (m *Memory) DeleteWork(id int64) error {
	delete(m.works, id)
	return nil
}

// Works returns the works recorded, by ID.
func (m *Memory) Works() []Work {
	out := make([]Work, 0, len(m.works))
	for _, w := range m.works {
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Cluster groups copies into works as Add does, one at a time in the
// order given (each copy's PageID must be distinct and not 0). It returns
// the works as lists of indexes into copies, each ascending, in order of
// their first copy.
func Cluster(copies []Copy) [][]int {
	m := NewMemory()
	at := map[int64]int{}
	for i, c := range copies {
		at[c.PageID] = i
		join(m, c)
	}
	var out [][]int
	for _, w := range m.Works() {
		var g []int
		for _, cr := range w.Copies {
			g = append(g, at[cr.PageID])
		}
		sort.Ints(g)
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}
