package engine

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/acrawler/acrawler/internal/crawl"
)

// TrapPolicy is what happens to a host suspected of generating URLs
// without end.
type TrapPolicy string

// Trap policies.
const (
	TrapWarn     TrapPolicy = "warn"     // report it, change nothing
	TrapThrottle TrapPolicy = "throttle" // fetch what is known, admit nothing new from its pages
	TrapStop     TrapPolicy = "stop"     // fetch nothing more from it
)

// ParseTrapPolicy validates a policy name.
func ParseTrapPolicy(s string) (TrapPolicy, error) {
	switch p := TrapPolicy(strings.ToLower(s)); p {
	case TrapWarn, TrapThrottle, TrapStop:
		return p, nil
	}
	return "", fmt.Errorf("engine: unknown trap policy %q (want warn, throttle or stop)", s)
}

// Trap detection settings.
const (
	trapWindow     = 25   // pages per discovery-rate window
	trapWindows    = 4    // windows compared
	trapMinRate    = 1.0  // new URLs per page that still counts as growing
	dupMinPages    = 30   // pages before the duplicate rate is judged
	dupMaxRate     = 0.5  // share of duplicate pages that marks an auto-generated space
	blockSlowAfter = 3    // consecutive soft blocks before the host is slowed
	blockStopAfter = 10   // soft blocks in all before the host is left alone
	patternsShown  = 3    // growing URL patterns named in a report
	textSamples    = 20   // page text lengths kept per host for the soft-block size test
	shortFraction  = 0.15 // a 200 page this much shorter than the host's median is suspect
)

// hostWatch is what the trap detector knows of one host.
type hostWatch struct {
	pages      int // pages fetched (2xx HTML)
	windowNew  int // new URLs in the current window
	windowPage int // pages in the current window
	rates      []float64
	patterns   map[string]int // URL pattern → new URLs, current windows
	dups       int
	dupPages   int
	blockRun   int // consecutive soft blocks
	blocks     int
	textLens   []int
	trap       string // set once flagged
	reported   bool   // the flag was handed to the store
	stopped    bool
}

// trapWatch watches discovery rate, duplicate rate and soft blocks per host.
type trapWatch struct {
	mu    sync.Mutex
	hosts map[crawl.ID]*hostWatch
}

func newTrapWatch() *trapWatch { return &trapWatch{hosts: map[crawl.ID]*hostWatch{}} }

func (w *trapWatch) host(id crawl.ID) *hostWatch {
	h := w.hosts[id]
	if h == nil {
		h = &hostWatch{patterns: map[string]int{}}
		w.hosts[id] = h
	}
	return h
}

// pageDiscovered records a fetched page of a host and the new URLs (not
// seen before by this process) found on it. It returns a trap description
// the first time the host's discovery rate stops falling.
func (w *trapWatch) pageDiscovered(host crawl.ID, newURLs []crawl.NewURL) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	h := w.host(host)
	h.pages++
	h.windowPage++
	for _, u := range newURLs {
		if u.HostID == host {
			h.windowNew++
			h.patterns[urlPattern(u.URL)]++
		}
	}
	if h.windowPage < trapWindow {
		return ""
	}
	h.rates = append(h.rates, float64(h.windowNew)/float64(h.windowPage))
	h.windowNew, h.windowPage = 0, 0
	if len(h.rates) > trapWindows {
		h.rates = h.rates[1:]
		// Keep pattern counts to the recent windows.
		for k, v := range h.patterns {
			if v /= 2; v == 0 {
				delete(h.patterns, k)
			} else {
				h.patterns[k] = v
			}
		}
	}
	if h.trap != "" || len(h.rates) < trapWindows {
		return ""
	}
	// On a bounded site the rate falls toward zero; a trap keeps it flat
	// or rising.
	for i := 1; i < len(h.rates); i++ {
		if h.rates[i] < 0.8*h.rates[i-1] {
			return ""
		}
	}
	last := h.rates[len(h.rates)-1]
	if last < trapMinRate {
		return ""
	}
	h.trap = fmt.Sprintf("discovery rate not falling (%.1f new URLs/page over %d pages); growing: %s",
		last, trapWindow*trapWindows, topPatterns(h.patterns))
	return h.trap
}

// pageCommitted records a committed page's duplicate status. It returns a
// description the first time the host's duplicate rate marks it as an
// auto-generated space.
func (w *trapWatch) pageCommitted(host crawl.ID, duplicate bool) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	h := w.host(host)
	h.dupPages++
	if duplicate {
		h.dups++
	}
	if h.trap != "" || h.dupPages < dupMinPages {
		return ""
	}
	if rate := float64(h.dups) / float64(h.dupPages); rate >= dupMaxRate {
		h.trap = fmt.Sprintf("duplicate content: %.0f%% of %d pages repeat earlier content", 100*rate, h.dupPages)
		return h.trap
	}
	return ""
}

// softBlock records whether a 200 page was a soft block and says what to
// do with the host: slow it down, or (once, when paused reports it) stop
// fetching from it.
func (w *trapWatch) softBlock(host crawl.ID, blocked bool) (slow, paused bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	h := w.host(host)
	if !blocked {
		h.blockRun = 0
		return false, false
	}
	h.blocks++
	h.blockRun++
	if h.blocks >= blockStopAfter && !h.stopped {
		h.stopped, paused = true, true
		// The pause is recorded as the host's flag (unless it already has
		// one), so that stats reports it and a restart or another process
		// leaves the host alone too.
		if h.trap == "" {
			h.trap = fmt.Sprintf("%s: %d pages refused the crawler; paused", softBlockTrap, h.blocks)
		}
	}
	return h.blockRun >= blockSlowAfter, paused
}

// softBlockTrap starts the flag of a host paused for soft-blocking.
const softBlockTrap = "soft blocks"

// shortPage reports whether a page's text is far shorter than the host's
// usual page, and remembers its length.
func (w *trapWatch) shortPage(host crawl.ID, n int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	h := w.host(host)
	short := false
	if len(h.textLens) >= textSamples/2 {
		s := append([]int(nil), h.textLens...)
		sort.Ints(s)
		short = float64(n) < shortFraction*float64(s[len(s)/2])
	}
	if !short {
		if len(h.textLens) >= textSamples {
			h.textLens = h.textLens[1:]
		}
		h.textLens = append(h.textLens, n)
	}
	return short
}

// seed flags a host with the trap description recorded in the store (by
// this or another process, earlier), so that the policy applies at once.
// It reports whether the host was not flagged yet.
func (w *trapWatch) seed(host crawl.ID, trap string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	h := w.host(host)
	if h.trap != "" {
		return false
	}
	h.trap, h.reported = trap, true
	h.stopped = strings.HasPrefix(trap, softBlockTrap+":")
	return true
}

// flagged reports a host's trap description and whether it still has to be
// written to the store (it is handed out once).
func (w *trapWatch) flagged(host crawl.ID) (trap string, report bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	h := w.hosts[host]
	if h == nil || h.trap == "" {
		return "", false
	}
	report = !h.reported
	h.reported = true
	return h.trap, report
}

// trapOf returns a host's trap description, if it is flagged, without
// touching what flagged hands to the store.
func (w *trapWatch) trapOf(host crawl.ID) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if h := w.hosts[host]; h != nil {
		return h.trap
	}
	return ""
}

// stopped reports whether a host was left alone for soft-blocking.
func (w *trapWatch) stopped(host crawl.ID) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	h := w.hosts[host]
	return h != nil && h.stopped
}

// unreported returns the flags not handed to the store yet, and counts
// them as handed.
func (w *trapWatch) unreported() map[crawl.ID]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[crawl.ID]string{}
	for id, h := range w.hosts {
		if h.trap != "" && !h.reported {
			out[id] = h.trap
			h.reported = true
		}
	}
	return out
}

// suspects returns the flagged hosts' descriptions.
func (w *trapWatch) suspects() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, h := range w.hosts {
		if h.trap != "" {
			n++
		}
	}
	return n
}

// urlPattern generalizes a URL into the pattern that grows in a trap:
// digits become N, query values are dropped, long paths keep their shape.
func urlPattern(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
			u = u[i+3+j:]
		} else {
			return "/"
		}
	}
	var b strings.Builder
	inValue, digits := false, false
	for i := 0; i < len(u) && b.Len() < 80; i++ {
		c := u[i]
		switch {
		case c == '?' || c == '&':
			inValue, digits = false, false
			b.WriteByte(c)
		case c == '=':
			inValue = true
			b.WriteString("=…")
		case inValue:
		case c >= '0' && c <= '9':
			if !digits {
				b.WriteByte('N')
			}
			digits = true
		default:
			digits = false
			b.WriteByte(c)
		}
	}
	return b.String()
}

func topPatterns(m map[string]int) string {
	type pc struct {
		p string
		n int
	}
	var ps []pc
	for p, n := range m {
		ps = append(ps, pc{p, n})
	}
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].n != ps[j].n {
			return ps[i].n > ps[j].n
		}
		return ps[i].p < ps[j].p
	})
	var out []string
	for i := 0; i < len(ps) && i < patternsShown; i++ {
		out = append(out, fmt.Sprintf("%s (%d)", ps[i].p, ps[i].n))
	}
	return strings.Join(out, ", ")
}
