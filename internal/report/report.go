// Package report computes the figures of a crawl from its store: the
// frontier, the crawl list's measures over time, per-host outcomes and
// trap suspects. `acrawler stats` prints it; `acrawler serve` shows it.
package report

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// Report is what `acrawler stats` shows, and its --json form.
type Report struct {
	Counters crawl.Counters     `json:"counters"`
	Figures  Figures            `json:"figures"`
	Series   []Interval         `json:"series"`
	Hosts    []HostRow          `json:"hosts"`
	Traps    []HostRow          `json:"trap_suspects"`
	Runs     []crawl.RunStats   `json:"recrawl_runs"`
	Changes  []crawl.ChangeStat `json:"change_history"`
	Sources  []SourceError      `json:"source_errors"`
}

// Figures are the crawl list's measures over the whole crawl.
type Figures struct {
	Fetched          int64   `json:"fetched"`
	Useful           int64   `json:"useful"`
	DiscoveryRate    float64 `json:"discovery_rate"`     // new URLs admitted per fetched page
	DuplicateRate    float64 `json:"duplicate_rate"`     // share of offered URLs already known
	BytesPerUseful   float64 `json:"bytes_per_useful"`   // bytes downloaded per useful page
	ContentDupRate   float64 `json:"content_dup_rate"`   // share of fetched pages that repeat content
	SoftBlocks       int64   `json:"soft_blocks"`        // 200 pages that were refusals
	Errors           int64   `json:"errors"`             // failures and 5xx answers
	RecentDiscovery  float64 `json:"recent_discovery"`   // discovery rate over the last recorded interval
	PagesReserved    int64   `json:"pages_reserved"`     // counted against the page budget
	BytesBudgetSpent int64   `json:"bytes_budget_spent"` // counted against the byte budget
}

// Interval is one point of the series over time (all processes summed).
type Interval struct {
	At            time.Time `json:"at"`
	Fetched       int64     `json:"fetched"`
	Useful        int64     `json:"useful"`
	New           int64     `json:"new"`
	Known         int64     `json:"known"`
	Discovered    int64     `json:"discovered"`
	Duplicates    int64     `json:"duplicates"`
	Blocked       int64     `json:"blocked"`
	Errors        int64     `json:"errors"`
	Bytes         int64     `json:"bytes"`
	Frontier      int64     `json:"frontier"`
	DiscoveryRate float64   `json:"discovery_rate"`
}

// HostRow is one host's outcomes.
type HostRow struct {
	Host          string           `json:"host"`
	Fetched       int64            `json:"fetched"`
	Queued        int64            `json:"queued"`
	Admitted      int64            `json:"admitted"`
	Bytes         int64            `json:"bytes"`
	Status2xx     int64            `json:"status_2xx"`
	Status3xx     int64            `json:"status_3xx"`
	Status4xx     int64            `json:"status_4xx"`
	Status5xx     int64            `json:"status_5xx"`
	Errors        map[string]int64 `json:"errors,omitempty"`
	Duplicates    int64            `json:"duplicates"`
	SoftBlocks    int64            `json:"soft_blocks"`
	DiscoveryRate float64          `json:"discovery_rate"`
	Robots        int              `json:"robots_status"`
	Trap          string           `json:"trap,omitempty"`
	// Value is what the host is worth to a crawl after research, as the
	// store learned it from the host's recorded pages; ValueReason says
	// why ("" for a host not valued yet).
	Value       int    `json:"value"`
	ValueReason string `json:"value_reason,omitempty"`
	// MirrorOf is the host this one is recorded as a mirror of (its pages
	// are copies of that host's pages): Value is then at most
	// crawl.MirrorValue, and ValueReason says so first.
	MirrorOf string `json:"mirror_of,omitempty"`
}

// Store is what the report reads from a store: counters, metrics,
// per-host outcomes and source errors (crawl.StatsStore), recrawl runs and
// the revisit history (crawl.RecrawlStore). Every crawl.Store has it.
type Store interface {
	Counters(ctx context.Context) (crawl.Counters, error)
	Metrics(ctx context.Context, since time.Time) ([]crawl.Metrics, error)
	HostStats(ctx context.Context, limit int) ([]crawl.HostStats, error)
	SourceErrors(ctx context.Context, limit int) ([]crawl.SourceError, error)
	Runs(ctx context.Context) ([]crawl.RunStats, error)
	ChangeStats(ctx context.Context) ([]crawl.ChangeStat, error)
}

var _ Store = crawl.Store(nil)

// Build reads a crawl's figures from its store.
func Build(ctx context.Context, st Store, hosts int) (*Report, error) {
	c, err := st.Counters(ctx)
	if err != nil {
		return nil, err
	}
	ms, err := st.Metrics(ctx, time.Time{})
	if err != nil {
		return nil, err
	}
	hs, err := st.HostStats(ctx, 0)
	if err != nil {
		return nil, err
	}
	runs, err := st.Runs(ctx)
	if err != nil {
		return nil, err
	}
	changes, err := st.ChangeStats(ctx)
	if err != nil {
		return nil, err
	}
	srcs, err := st.SourceErrors(ctx, maxSourceErrors)
	if err != nil {
		return nil, err
	}
	r := &Report{Counters: c, Runs: runs, Changes: changes, Sources: []SourceError{},
		Series: []Interval{}, Hosts: []HostRow{}, Traps: []HostRow{}}
	for _, e := range srcs {
		r.Sources = append(r.Sources, SourceError(e))
	}
	// Sum the processes' rows per round. Each process records every
	// interval at its own offset, a row covering the interval that ends at
	// its time: a row joins the current point (labelled by its latest row)
	// unless its process is in it already or its interval began after the
	// point's end. Rows of the same second are always summed.
	rows := slices.Clone(ms)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].At.Before(rows[j].At) })
	f := &r.Figures
	var discovered, known, added, bytes, dups int64
	var iv *Interval
	var end time.Time
	owners := map[string]bool{}
	for _, m := range rows {
		at := m.At.Truncate(time.Second)
		if iv == nil || !at.Equal(iv.At) && (owners[m.Owner] || !m.At.Add(-m.Interval).Before(end)) {
			r.Series = append(r.Series, Interval{})
			iv = &r.Series[len(r.Series)-1]
			clear(owners)
		}
		owners[m.Owner] = true
		iv.At, end = at, m.At
		iv.Fetched += m.Fetched
		iv.Useful += m.Useful
		iv.New += m.New
		iv.Known += m.Known
		iv.Discovered += m.Discovered
		iv.Duplicates += m.Duplicates
		iv.Blocked += m.Blocked
		iv.Errors += m.Errors
		iv.Bytes += m.Bytes
		iv.Frontier = m.Frontier // a whole-crawl total: the latest row's
		f.Fetched += m.Fetched
		f.Useful += m.Useful
		f.SoftBlocks += m.Blocked
		f.Errors += m.Errors
		discovered += m.Discovered
		known += m.Known
		added += m.New
		bytes += m.Bytes
		dups += m.Duplicates
	}
	for i := range r.Series {
		r.Series[i].DiscoveryRate = ratio(r.Series[i].New, r.Series[i].Fetched)
	}
	f.DiscoveryRate = ratio(added, f.Fetched)
	// Offered URLs are those pages offered (Discovered), but sitemap
	// entries reach the frontier as new or known URLs without being counted
	// there: the offered URLs are at least the new plus the known ones.
	f.DuplicateRate = ratio(known, max(discovered, added+known))
	f.BytesPerUseful = ratio(bytes, f.Useful)
	f.ContentDupRate = ratio(dups, f.Fetched)
	for i := len(r.Series) - 1; i >= 0; i-- {
		if r.Series[i].Fetched > 0 {
			f.RecentDiscovery = r.Series[i].DiscoveryRate
			break
		}
	}
	f.PagesReserved, f.BytesBudgetSpent = c.Reserved, c.Bytes
	for _, h := range hs {
		row := HostRow{Host: h.Key, Fetched: h.Fetched, Queued: h.Queued, Admitted: h.Admitted, Bytes: h.Bytes,
			Status2xx: h.Status[2], Status3xx: h.Status[3], Status4xx: h.Status[4], Status5xx: h.Status[5],
			Errors: h.Errors, Duplicates: h.Duplicates, SoftBlocks: h.Blocked, DiscoveryRate: ratio(h.Discovered, h.Fetched),
			Robots: h.Robots, Trap: h.Trap,
			Value: h.Value, ValueReason: ValueReason(h.Value, h.ValuePages, h.ValueResearch, h.ValueRelated, h.ValueCopies)}
		if h.MirrorOf != "" {
			row.MirrorOf, row.Value = h.MirrorOf, min(h.Value, crawl.MirrorValue)
			row.ValueReason = MirrorReason(h.MirrorOf, h.ValuePages, h.ValueResearch, h.ValueRelated, h.ValueCopies)
		}
		if h.Trap != "" {
			r.Traps = append(r.Traps, row)
		}
		if hosts <= 0 || len(r.Hosts) < hosts {
			r.Hosts = append(r.Hosts, row)
		}
	}
	return r, nil
}

// SourceError is a failed source of URLs (a web archive's CDX server).
type SourceError struct {
	At     time.Time `json:"at"`
	Kind   string    `json:"kind"`
	Source string    `json:"source"`
	URL    string    `json:"url"`
	Error  string    `json:"error"`
	URLs   int       `json:"urls"`
}

// maxSourceErrors bounds the source errors a report shows (newest first).
const maxSourceErrors = 50

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// ValueReason says why a host has the value the store learned for it
// (see the stores' ValueHosts), from what it was learned from: the host's
// recent pages, the research among them (publications: articles,
// preprints, theses, proceedings, books, data sets), the people and
// publication lists, the copies of other hosts' pages (a mirror's), and
// the pages citing research on other hosts (a blog's posts linking to
// papers), which the store does not keep apart: they are what the value
// holds beyond the other counts (see citingRange). It is "" for a host
// not valued yet.
func ValueReason(value int, pages, research, related, copies int64) string {
	if pages == 0 {
		return ""
	}
	lo, hi := citingRange(value, pages, research, related, copies)
	var why string
	switch {
	case copies*2 >= pages:
		why = "mostly copies of other hosts' pages"
	case research*2 >= pages:
		why = "mostly research"
	case lo*2 >= pages:
		why = "cites research on other hosts"
	case research+related == 0 && hi == 0:
		why = "no research"
	case value > 0:
		why = "research above the expected quarter"
	default:
		why = "little research"
	}
	citing := fmt.Sprint(lo)
	if hi > lo {
		citing = fmt.Sprintf("%d to %d", lo, hi)
	}
	return fmt.Sprintf("%s: %s, %s citing research on other hosts", why, pageCounts(pages, research, related, copies), citing)
}

// pageCounts says what a host's last pages were, as the store counted
// them when it valued the host.
func pageCounts(pages, research, related, copies int64) string {
	return fmt.Sprintf("%d of its last %d pages research, %d people or publication lists, %d copies of other hosts' pages",
		research, pages, related, copies)
}

// MirrorReason says why a host recorded as a mirror of original has its
// value, then what its last pages were (nothing for a host not valued
// yet). The store keeps a mirror's value capped, so the pages citing
// research, which ValueReason tells from the value, are not told.
func MirrorReason(original string, pages, research, related, copies int64) string {
	why := fmt.Sprintf("mirror of %s: its pages are copies of that host's, worth at most %d", original, crawl.MirrorValue)
	if pages > 0 {
		why += "; " + pageCounts(pages, research, related, copies)
	}
	return why
}

// citingRange bounds the pages citing research on other hosts among a
// host's last pages, from its value: the stores compute it as
// (24·research + 12·related + 12·citing − 24·copies − 6·pages) / (pages
// + 4), the division truncated toward zero, so the citing pages are the
// counts between the bounds that give the value (one count when pages <
// 8, a few for more pages).
func citingRange(value int, pages, research, related, copies int64) (lo, hi int64) {
	d := pages + 4
	base := 24*research + 12*related - 24*copies - 6*pages
	// The numerators whose quotient truncates to value.
	nlo, nhi := int64(value)*d, int64(value)*d+d-1
	switch {
	case value < 0:
		nlo, nhi = int64(value)*d-d+1, int64(value)*d
	case value == 0:
		nlo = -d + 1
	}
	most := max(pages-research-related-copies, 0)
	lo = min(max(ceilDiv(nlo-base, 12), 0), most)
	hi = max(min(floorDiv(nhi-base, 12), most), lo)
	return lo, hi
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }
