package testweb

import "strconv"

// rng is a SplitMix64 generator kept by value, so that rendering a page
// allocates nothing for its randomness. Same state, same sequence, on every
// platform and Go version (math/rand makes no such promise across versions).
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a value in [0, n); n must be positive.
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// between returns a value in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// chance reports true pct times out of 100.
func (r *rng) chance(pct int) bool { return r.intn(100) < pct }

func (r *rng) pick(list []string) string { return list[r.intn(len(list))] }

// FNV-1a, 64 bits: the hash behind per-page seeds and dates.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// mix scrambles a 64-bit value (the SplitMix64 finalizer).
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// seedFor derives the generator state for one purpose on one host, e.g. the
// rendering of one page: seed + host + key + epoch.
func seedFor(seed uint64, host, key string, epoch int) rng {
	h := fnvString(fnvOffset, host)
	h = fnvString(h^0xff, key)
	return rng{s: mix(seed ^ h ^ uint64(epoch)*0x9e3779b97f4a7c15)}
}

// smallInts holds "0".."999" so that rendering numbers allocates nothing.
var smallInts = func() []string {
	s := make([]string, 1000)
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

func itoa(n int) string {
	if n >= 0 && n < len(smallInts) {
		return smallInts[n]
	}
	return strconv.Itoa(n)
}
