package frontier

// heap is an indexed binary heap of hosts. A host is in at most one of
// the frontier's two heaps at a time, so one index field serves both.
type heap struct {
	items []*host
	less  func(a, b *host) bool
}

func byReadyAt(a, b *host) bool {
	if da, db := a.due(), b.due(); !da.Equal(db) {
		return da.Before(db)
	}
	return a.ID < b.ID
}

func byRank(a, b *host) bool {
	if a.rank != b.rank {
		return a.rank > b.rank
	}
	return byReadyAt(a, b)
}

func (q *heap) Len() int { return len(q.items) }

func (q *heap) top() *host { return q.items[0] }

func (q *heap) swap(i, j int) {
	q.items[i], q.items[j] = q.items[j], q.items[i]
	q.items[i].heapIndex = i
	q.items[j].heapIndex = j
}

func (q *heap) has(h *host) bool {
	i := h.heapIndex
	return i >= 0 && i < len(q.items) && q.items[i] == h
}

func (q *heap) push(h *host) {
	if q.has(h) {
		q.fix(h)
		return
	}
	h.heapIndex = len(q.items)
	q.items = append(q.items, h)
	q.up(h.heapIndex)
}

func (q *heap) pop() *host {
	h := q.items[0]
	q.remove(h)
	return h
}

func (q *heap) remove(h *host) {
	if !q.has(h) {
		return
	}
	i, n := h.heapIndex, len(q.items)-1
	if i != n {
		q.swap(i, n)
	}
	q.items[n] = nil
	q.items = q.items[:n]
	h.heapIndex = -1
	if i != n && !q.down(i) {
		q.up(i)
	}
}

func (q *heap) fix(h *host) {
	if q.has(h) && !q.down(h.heapIndex) {
		q.up(h.heapIndex)
	}
}

func (q *heap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !q.less(q.items[j], q.items[i]) {
			break
		}
		q.swap(i, j)
		j = i
	}
}

func (q *heap) down(i0 int) bool {
	i, n := i0, len(q.items)
	for {
		j := 2*i + 1
		if j >= n {
			break
		}
		if j2 := j + 1; j2 < n && q.less(q.items[j2], q.items[j]) {
			j = j2
		}
		if !q.less(q.items[j], q.items[i]) {
			break
		}
		q.swap(i, j)
		i = j
	}
	return i > i0
}
