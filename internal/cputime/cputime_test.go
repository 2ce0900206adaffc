package cputime

import "testing"

// TestProcessAdvances: work done shows in the process's CPU time.
func TestProcessAdvances(t *testing.T) {
	start := Process()
	if start <= 0 {
		t.Skip("CPU time is not measured on this system")
	}
	x := 0
	for i := 0; Process() == start && i < 1e9; i++ {
		x += i
	}
	if Process() <= start {
		t.Errorf("CPU time did not advance (%d)", x)
	}
}
