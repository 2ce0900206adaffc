//go:build !unix

package rank

// maxRSS is not measured on this system.
func maxRSS() int64 { return 0 }
