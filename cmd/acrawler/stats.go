package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/sqlite"
)

// openStoreReadOnly opens a store for reading while a crawl may write it.
func openStoreReadOnly(ctx context.Context, db string) (crawl.Store, error) {
	if isPostgres(db) {
		return postgres.Open(ctx, db, postgres.Options{ReadOnly: true, MaxConns: 4})
	}
	return sqlite.Open(ctx, db, sqlite.Options{ReadOnly: true})
}

// Report is what `acrawler stats` shows, and its --json form.
type Report struct {
	Counters crawl.Counters `json:"counters"`
	Figures  Figures        `json:"figures"`
	Series   []Interval     `json:"series"`
	Hosts    []HostRow      `json:"hosts"`
	Traps    []HostRow      `json:"trap_suspects"`
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
}

// BuildReport reads a crawl's figures from its store.
func BuildReport(ctx context.Context, st crawl.Store, hosts int) (*Report, error) {
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
	r := &Report{Counters: c}
	// Sum the processes' rows per recorded time, rounded to the interval.
	byAt := map[int64]*Interval{}
	var order []int64
	f := &r.Figures
	var discovered, known, bytes, dups int64
	for _, m := range ms {
		key := m.At.Truncate(time.Second).Unix()
		iv := byAt[key]
		if iv == nil {
			iv = &Interval{At: m.At.Truncate(time.Second)}
			byAt[key] = iv
			order = append(order, key)
		}
		iv.Fetched += m.Fetched
		iv.Useful += m.Useful
		iv.New += m.New
		iv.Known += m.Known
		iv.Discovered += m.Discovered
		iv.Duplicates += m.Duplicates
		iv.Blocked += m.Blocked
		iv.Errors += m.Errors
		iv.Bytes += m.Bytes
		iv.Frontier = max(iv.Frontier, m.Frontier)
		f.Fetched += m.Fetched
		f.Useful += m.Useful
		f.SoftBlocks += m.Blocked
		f.Errors += m.Errors
		discovered += m.Discovered
		known += m.Known
		bytes += m.Bytes
		dups += m.Duplicates
	}
	sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
	for _, k := range order {
		iv := byAt[k]
		iv.DiscoveryRate = ratio(iv.New, iv.Fetched)
		r.Series = append(r.Series, *iv)
	}
	var added int64
	for _, iv := range r.Series {
		added += iv.New
	}
	f.DiscoveryRate = ratio(added, f.Fetched)
	f.DuplicateRate = ratio(known, discovered)
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
			Robots: h.Robots, Trap: h.Trap}
		if h.Trap != "" {
			r.Traps = append(r.Traps, row)
		}
		if hosts <= 0 || len(r.Hosts) < hosts {
			r.Hosts = append(r.Hosts, row)
		}
	}
	return r, nil
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func runStats(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("acrawler stats", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := dbFlag(fs)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	hosts := fs.Int("hosts", 20, "hosts listed (0: all)")
	points := fs.Int("points", 12, "intervals of the series shown (0: all)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("stats takes no arguments, got %q", fs.Args())
	}
	st, err := openStoreReadOnly(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	r, err := BuildReport(ctx, st, *hosts)
	if err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	printReport(stdout, redactDB(*db), r, *points)
	return nil
}

func printReport(w io.Writer, db string, r *Report, points int) {
	c, f := r.Counters, r.Figures
	fmt.Fprintf(w, "crawl in %s\n", db)
	fmt.Fprintf(w, "  frontier:    %d queued, %d in flight; %d done, %d failed, %d disallowed by robots.txt, %d skipped\n",
		c.Queued, c.InFlight, c.Done, c.Failed, c.Disallowed, c.Skipped)
	fmt.Fprintf(w, "  stored:      %d pages, %d links, %d hosts, %d duplicate pages\n", c.Pages, c.Links, c.Hosts, c.Duplicates)
	fmt.Fprintf(w, "  budgets:     %d pages counted against --max-pages, %s against --max-bytes\n", f.PagesReserved, humanBytes(f.BytesBudgetSpent))
	fmt.Fprintf(w, "  figures:     %d fetched, %d useful; discovery rate %.2f new URLs/page (last interval %.2f);\n",
		f.Fetched, f.Useful, f.DiscoveryRate, f.RecentDiscovery)
	fmt.Fprintf(w, "               duplicate rate %.0f%% of offered URLs already known; %.1f%% of pages repeat content;\n",
		100*f.DuplicateRate, 100*f.ContentDupRate)
	fmt.Fprintf(w, "               %s per useful page; %d soft blocks; %d errors\n", humanBytes(int64(f.BytesPerUseful)), f.SoftBlocks, f.Errors)
	if len(r.Series) > 0 {
		series := r.Series
		if points > 0 && len(series) > points {
			series = series[len(series)-points:]
		}
		fmt.Fprintf(w, "\nover time (last %d of %d intervals):\n", len(series), len(r.Series))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "time\tfetched\tuseful\tnew\tnew/page\tknown\tdup pages\tblocked\terrors\tbytes\tfrontier\t")
		for _, iv := range series {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.2f\t%d\t%d\t%d\t%d\t%s\t%d\t\n", iv.At.Local().Format("15:04:05"), iv.Fetched,
				iv.Useful, iv.New, iv.DiscoveryRate, iv.Known, iv.Duplicates, iv.Blocked, iv.Errors, humanBytes(iv.Bytes), iv.Frontier)
		}
		tw.Flush()
	}
	if len(r.Hosts) > 0 {
		fmt.Fprintf(w, "\nhosts (most fetched first):\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "host\tfetched\tqueued\t2xx\t3xx\t4xx\t5xx\terrors\tdup\tblocked\tnew/page\trobots\ttrap")
		for _, h := range r.Hosts {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%d\t%d\t%.2f\t%s\t%s\n", h.Host, h.Fetched, h.Queued, h.Status2xx,
				h.Status3xx, h.Status4xx, h.Status5xx, errorsCell(h.Errors), h.Duplicates, h.SoftBlocks, h.DiscoveryRate,
				robotsCell(h.Robots), yesNo(h.Trap != ""))
		}
		tw.Flush()
	}
	if len(r.Traps) > 0 {
		fmt.Fprintf(w, "\ntrap suspects:\n")
		for _, h := range r.Traps {
			fmt.Fprintf(w, "  %s: %s\n", h.Host, h.Trap)
		}
	}
}

func errorsCell(m map[string]int64) string {
	if len(m) == 0 {
		return "0"
	}
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s:%d", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func robotsCell(status int) string {
	if status == 0 {
		return "-"
	}
	return fmt.Sprint(status)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return ""
}
