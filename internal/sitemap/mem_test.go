package sitemap

import "runtime"

// runtimeMem is a snapshot of the bytes allocated so far.
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}
