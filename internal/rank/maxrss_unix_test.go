//go:build unix

package rank

import (
	"runtime"
	"syscall"
)

// maxRSS returns the process's peak resident set size in bytes, or 0 if it
// is not known.
func maxRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return ru.Maxrss // bytes there, kilobytes elsewhere
	}
	return ru.Maxrss << 10
}
