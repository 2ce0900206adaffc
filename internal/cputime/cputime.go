// Package cputime measures the CPU time a process uses, for benchmarks:
// on a shared, busy machine CPU time per operation is a steadier figure
// than wall-clock time.
package cputime

import (
	"testing"
	"time"
)

// Process returns the CPU time the process has used, user and system (0
// where it is not measured).
func Process() time.Duration { return process() }

// ReportPerOp reports, as the benchmark metric cpu-µs/op, the CPU time
// used since start (a Process value) per iteration of b.
func ReportPerOp(b *testing.B, start time.Duration) {
	if d := Process() - start; d > 0 && b.N > 0 {
		b.ReportMetric(float64(d.Microseconds())/float64(b.N), "cpu-µs/op")
	}
}
