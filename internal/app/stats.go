package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/report"
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

// Stats prints the crawl report: frontier, figures over time, hosts,
// recrawl runs, source errors, trap suspects and the recorded settings.
func Stats(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	var err error
	st, err := openStoreReadOnly(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer st.Close()
	r, err := report.Build(ctx, st, cfg.Stats.Hosts)
	if err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	settings, err := crawlSettings(ctx, st)
	if err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	if cfg.Stats.JSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			*report.Report
			Settings map[string]string `json:"settings,omitempty"`
		}{r, settings})
	}
	printReport(stdout, redactDB(cfg.DB), r, cfg.Stats.Points)
	printSettings(stdout, settings)
	return nil
}

// crawlSettings are the settings the crawl recorded, by key.
func crawlSettings(ctx context.Context, st crawl.Store) (map[string]string, error) {
	out := map[string]string{}
	keys := []string{settingRobotsToken, settingWARCDir}
	for _, s := range recordedSettings {
		keys = append(keys, s.key)
	}
	for _, k := range keys {
		v, err := st.Setting(ctx, k)
		switch {
		case errors.Is(err, crawl.ErrNotFound):
		case err != nil:
			return nil, err
		default:
			out[k] = v
		}
	}
	return out, nil
}

func printSettings(w io.Writer, settings map[string]string) {
	if len(settings) == 0 {
		return
	}
	fmt.Fprintf(w, "\nsettings the crawl recorded (recrawl, reparse, serve and reindex use them):\n")
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %-19s %s\n", k, showSetting(settings[k]))
	}
}

func printReport(w io.Writer, db string, r *report.Report, points int) {
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
		fmt.Fprintln(tw, "host\tfetched\tqueued\t2xx\t3xx\t4xx\t5xx\terrors\tdup\tblocked\tnew/page\trobots\ttrap\tvalue\twhy")
		for _, h := range r.Hosts {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%d\t%d\t%.2f\t%s\t%s\t%d\t%s\n", h.Host, h.Fetched, h.Queued, h.Status2xx,
				h.Status3xx, h.Status4xx, h.Status5xx, errorsCell(h.Errors), h.Duplicates, h.SoftBlocks, h.DiscoveryRate,
				robotsCell(h.Robots), yesNo(h.Trap != ""), h.Value, cmp.Or(h.ValueReason, "-"))
		}
		tw.Flush()
	}
	if len(r.Runs) > 0 {
		fmt.Fprintf(w, "\nrecrawl runs:\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "run\tstarted\trevisits\t304\tunchanged\tchanged\tremoved\tinactive\tnew\tbytes\tsaved\tdue left\t")
		for _, x := range r.Runs {
			fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%d\t\n", x.Run, x.Started.Local().Format("2006-01-02 15:04"),
				x.Revisits, x.NotModified, x.Unchanged, x.Changed, x.Removed, x.Inactive, x.New, humanBytes(x.Bytes),
				humanBytes(x.BytesSaved), x.DueLeft)
		}
		tw.Flush()
	}
	if len(r.Changes) > 0 {
		fmt.Fprintf(w, "\nhow often pages change, per host and type (revisits):\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "host\ttype\tchecks\tchanged\tunchanged\tmissing\tchange rate")
		for _, c := range r.Changes {
			typ := c.Type
			if typ == "" {
				typ = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%.0f%%\n", c.Host, typ, c.Checks, c.Changed, c.Unchanged, c.Missing,
				100*float64(c.Changed)/float64(max(c.Checks, 1)))
		}
		tw.Flush()
	}
	if len(r.Sources) > 0 {
		fmt.Fprintf(w, "\nsource errors (newest first):\n")
		for _, e := range r.Sources {
			fmt.Fprintf(w, "  %s %s %s (%s): %s; %d URLs kept\n", e.At.Local().Format("2006-01-02 15:04"), e.Kind, e.Source,
				e.URL, e.Error, e.URLs)
		}
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
