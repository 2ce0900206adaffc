package app

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/engine"
)

// progressPrinter shows a crawl's progress: a live line rewritten in place
// on a terminal, plain periodic lines otherwise.
type progressPrinter struct {
	w     io.Writer
	live  bool
	off   bool
	every time.Duration
	mu    sync.Mutex
	width int
}

func newProgressPrinter(w io.Writer, mode string) *progressPrinter {
	p := &progressPrinter{w: w, every: 10 * time.Second}
	tty := false
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		tty = true
	}
	switch mode {
	case "off":
		p.off = true
	case "line":
		p.live, p.every = true, time.Second
	case "auto":
		if tty {
			p.live, p.every = true, time.Second
		}
	}
	return p
}

func (p *progressPrinter) print(pr engine.Progress) {
	if p.off || pr.Final {
		return
	}
	line := formatProgress(pr)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live {
		pad := ""
		if n := p.width - len(line); n > 0 {
			pad = strings.Repeat(" ", n)
		}
		fmt.Fprintf(p.w, "\r%s%s", line, pad)
		p.width = len(line)
		return
	}
	fmt.Fprintln(p.w, line)
}

func (p *progressPrinter) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live && p.width > 0 {
		fmt.Fprintln(p.w)
		p.width = 0
	}
}

func formatProgress(pr engine.Progress) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %d pages, %.0f pages/s, frontier %d, %.1f new URLs/page, %d errors, %s",
		pr.Elapsed.Round(time.Second), pr.Fetched, pr.PagesPerSec, pr.Frontier, pr.NewPerPage, pr.Errors, humanBytes(pr.Bytes))
	if pr.MaxPages > 0 {
		fmt.Fprintf(&b, ", pages %d/%d", pr.BudgetPages, pr.MaxPages)
	}
	if pr.MaxBytes > 0 {
		fmt.Fprintf(&b, ", bytes %s/%s", humanBytes(pr.StoreBytes), humanBytes(pr.MaxBytes))
	}
	if pr.BudgetHit != "" {
		fmt.Fprintf(&b, " — %s", pr.BudgetHit)
	}
	return b.String()
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for v := n / unit; v >= unit; v /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

func printSummary(w io.Writer, s engine.Summary, cfg Config) {
	c := s.Counters
	fmt.Fprintf(w, "crawl stopped: %s after %s\n", s.Reason, s.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "  this run:  %d pages fetched (%.0f pages/s, %s), %d robots.txt (%s)\n",
		s.Fetched, s.PagesPerSec, humanBytes(s.Bytes), s.Robots, humanBytes(s.RobotsBytes))
	fmt.Fprintf(w, "  status:    %d 2xx, %d 3xx, %d 4xx, %d 5xx; %d failed, %d retries scheduled, %d disallowed by robots.txt, %d skipped\n",
		s.Status2xx, s.Status3xx, s.Status4xx, s.Status5xx, s.Failed, s.Retried, s.Disallowed, s.Skipped)
	fmt.Fprintf(w, "  links:     %d offered, %d new URLs queued, %d already known, %d out of scope, %d excluded, %d over depth %d, %d over the per-host budget\n",
		s.Discovered, s.Added, s.Known, s.OutOfScope, s.Excluded, s.OverDepth, cfg.MaxDepth, s.OverHostCap)
	if s.HostsCapped > 0 {
		fmt.Fprintf(w, "  budget:    %d host(s) reached --max-pages-per-host %d\n", s.HostsCapped, cfg.MaxPagesPerHost)
	}
	if s.HostsOverShare > 0 {
		fmt.Fprintf(w, "  budget:    %d host(s) spent their byte share (--max-host-share); their queued URLs were skipped\n", s.HostsOverShare)
	}
	if s.Duplicates > 0 || s.ParseErrors > 0 {
		fmt.Fprintf(w, "  content:   %d duplicate pages, %d parse errors\n", s.Duplicates, s.ParseErrors)
	}
	fmt.Fprintf(w, "  database:  %d pages, %d links, %d hosts; frontier %d queued, %d done, %d failed, %d disallowed\n",
		c.Pages, c.Links, c.Hosts, c.Queued, c.Done, c.Failed, c.Disallowed)
}

func printRun(w io.Writer, r crawl.RunStats) {
	share := 0.0
	if r.Revisits > 0 {
		share = 100 * float64(r.NotModified) / float64(r.Revisits)
	}
	fmt.Fprintf(w, "recrawl run %d: %d pages revisited: %d not modified (304, %.0f%%), %d unchanged, %d changed, %d removed, %d became inactive; %d new pages\n",
		r.Run, r.Revisits, r.NotModified, share, r.Unchanged, r.Changed, r.Removed, r.Inactive, r.New)
	fmt.Fprintf(w, "  bytes: %s downloaded, %s saved by conditional requests; %d pages due and not yet visited\n",
		humanBytes(r.Bytes), humanBytes(r.BytesSaved), r.DueLeft)
}
