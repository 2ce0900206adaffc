package crawl

// HostValueWindow is how many of a host's most recently recorded pages
// its value (what it is worth to a crawl after research) is learned from.
const HostValueWindow = 200

// HostValueStale reports whether a host whose value was learned when it
// had recorded valued fetches is to be valued again now that it has
// recorded fetched: once its fetches doubled (at least one, a window at
// most), or went back. Its value is thus learned from at least half the
// fetches it would be learned from now, and a crawl values each page
// about once and a third in all, not at every refill of its host
// (valuing reads the host's last HostValueWindow pages: at a refill of 24
// URLs, a 200-page host was valued 9 times, five pages read for each
// fetched; valued as its fetches grew by half, 13 times, two pages read
// for each). A host never valued is valued at its first fetch. Both
// stores follow it.
func HostValueStale(valued, fetched int64) bool {
	return fetched < valued || fetched-valued >= max(1, min(valued, HostValueWindow))
}

// MirrorValue is the most a host recorded as a mirror of another (its
// pages are copies of the other's) is worth to a crawl, whatever the
// store learns from its pages: what it learns of a host whose pages are
// all copies, from a dozen pages ((−24·12 − 6·12) / 16 = −22). Both
// stores cap a mirror's value to it.
const MirrorValue = -22
