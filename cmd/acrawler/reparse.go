package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/extract"
	"github.com/acrawler/acrawler/internal/htmlx"
	"github.com/acrawler/acrawler/internal/robots"
	"github.com/acrawler/acrawler/internal/warc"
)

func runReparse(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, _, err := parseArgs("reparse", args, stderr)
	if err != nil {
		return err
	}
	if !isPostgres(cfg.DB) {
		if _, err := os.Stat(cfg.DB); err != nil {
			return usagef("reparse: %v", err) // not created empty
		}
	}
	log, err := newLogger(stderr, cfg.LogLevel, cfg.LogFormat)
	if err != nil {
		return err
	}
	st, err := openStoreWith(ctx, cfg.DB, cfg.Reparse.Workers+2, false, cfg.NearDistance)
	if err != nil {
		return err
	}
	defer st.Close()
	// Links, main text, URL spelling and the robots token as the crawl
	// recorded them, unless overridden.
	unrecorded, err := applyRecorded(ctx, st, &cfg)
	if err != nil {
		return err
	}
	if unrecorded && cfg.OverrideRecorded {
		if err := recordSettings(ctx, st, &cfg); err != nil {
			return err
		}
	}
	dir, err := recordedArchiveDir(ctx, st, cfg.WARC, cfg.DB)
	if err != nil {
		return err
	}
	if _, err := os.Stat(dir); err != nil {
		return usagef("reparse: archive %s: %v", dir, err)
	}
	norm, err := cfg.normalizer()
	if err != nil {
		return err
	}
	var pdfs *lazyPDF
	opts := extract.Options{Resolver: norm, MaxLinks: cfg.MaxLinks, Token: robots.ProductToken(cfg.UserAgent), MainText: cfg.MainText}
	if !cfg.NoPDF {
		pdfs = newLazyPDF(log)
		defer pdfs.Close()
		opts.PDF = pdfs
	}
	x := extract.New(opts, func() htmlx.Resolver { return norm.PageResolver() })
	start := time.Now()
	// The pages are read in one pass and extracted by the workers; the
	// store serializes the writes as it must.
	var done, skipped, failed atomic.Int64
	pages := make(chan *crawl.Page, cfg.Reparse.Workers)
	var wg sync.WaitGroup
	for range cfg.Reparse.Workers {
		wg.Go(func() {
			for p := range pages {
				if err := reparsePage(ctx, st, x, dir, p); err != nil {
					if n := failed.Add(1); n <= 5 {
						log.Warn("reparse", "url", p.URL, "err", err)
					}
					continue
				}
				done.Add(1)
			}
		})
	}
	var readErr error
	for p, err := range st.Pages(ctx) {
		if err != nil {
			readErr = fmt.Errorf("reparse: %w", err)
			break
		}
		if ctx.Err() != nil {
			break
		}
		if p.WARC.File == "" || p.Status < 200 || p.Status > 299 || !extract.IsHTML(p.ContentType) && !extract.IsPDF(p.ContentType) {
			skipped.Add(1)
			continue
		}
		pages <- p
	}
	close(pages)
	wg.Wait()
	if readErr != nil {
		return readErr
	}
	el := time.Since(start)
	fmt.Fprintf(stdout, "reparsed %d pages from %s in %s (%.0f pages/s); %d skipped (no archived 2xx HTML/PDF), %d failed\n",
		done.Load(), dir, el.Round(time.Millisecond), float64(done.Load())/max(el.Seconds(), 1e-9), skipped.Load(), failed.Load())
	if n := failed.Load(); n > 0 {
		return fmt.Errorf("reparse: %d pages could not be reparsed", n)
	}
	return ctx.Err()
}

// reparsePage re-runs extraction on one page's archived response.
func reparsePage(ctx context.Context, st crawl.Store, x *extract.Extractor, dir string, p *crawl.Page) error {
	rec, err := warc.ReadAt(dir, warc.Location{File: p.WARC.File, Offset: p.WARC.Offset, Length: p.WARC.Length})
	if err != nil {
		return err
	}
	var res extract.Result
	if extract.IsPDF(p.ContentType) {
		res = x.PDF(ctx, rec.Body, p.URL, rec.Header)
	} else {
		res = x.HTML(rec.Body, rec.Header.Get("Content-Type"), p.URL, rec.Header)
	}
	np := *p
	np.Error, np.ErrorKind = "", ""
	res.Apply(&np)
	np.Canonical = ""
	if res.Canonical != "" && res.Canonical != p.URL {
		np.Canonical = res.Canonical
	}
	links := make([]crawl.Link, 0, len(res.Links)+1)
	if res.Refresh != "" && res.Refresh != p.URL {
		links = append(links, crawl.Link{TargetID: crawl.URLID(res.Refresh), Target: res.Refresh})
	}
	for _, l := range res.Links {
		if l.URL != p.URL {
			links = append(links, crawl.Link{TargetID: crawl.URLID(l.URL), Target: l.URL, Anchor: l.Anchor, NoFollow: l.NoFollow})
		}
	}
	return st.Reparse(ctx, &np, links)
}

// ExportRecord is one document of `acrawler export --format jsonl`.
type ExportRecord struct {
	URL             string          `json:"url"`
	Canonical       string          `json:"canonical,omitempty"`
	Status          int             `json:"status"`
	ContentType     string          `json:"content_type"`
	Title           string          `json:"title"`
	MainText        string          `json:"main_text"`
	Text            string          `json:"text,omitempty"`
	Lang            string          `json:"lang,omitempty"`
	Type            string          `json:"type,omitempty"`
	TypeRule        string          `json:"type_rule,omitempty"`
	Metadata        *crawl.Metadata `json:"metadata,omitempty"`
	FetchedAt       time.Time       `json:"fetched_at"`
	ContentHash     string          `json:"content_hash,omitempty"`
	DuplicateOf     string          `json:"duplicate_of,omitempty"`
	NearDuplicateOf string          `json:"near_duplicate_of,omitempty"`
	NoIndex         bool            `json:"noindex,omitempty"`
}

func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, _, err := parseArgs("export", args, stderr)
	if err != nil {
		return err
	}
	st, err := openStoreReadOnly(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer st.Close()
	w := stdout
	var f *os.File
	if cfg.Export.Out != "" {
		if f, err = os.Create(cfg.Export.Out); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	urlOf := func(id crawl.ID) string {
		if id == 0 {
			return ""
		}
		if r, err := st.URL(ctx, id); err == nil {
			return r.URL
		}
		return fmt.Sprint(int64(id))
	}
	n := 0
	for p, err := range st.Pages(ctx) {
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		if !cfg.Export.All && (p.Status < 200 || p.Status > 299 || !extract.IsHTML(p.ContentType) && !extract.IsPDF(p.ContentType)) {
			continue
		}
		rec := ExportRecord{URL: p.URL, Canonical: p.Canonical, Status: p.Status, ContentType: p.ContentType,
			Title: p.Title, MainText: p.MainText, Lang: p.Lang, Metadata: p.Meta, FetchedAt: p.FetchedAt.UTC(),
			DuplicateOf: urlOf(p.DuplicateOf), NearDuplicateOf: urlOf(p.NearDuplicateOf), NoIndex: p.NoIndex}
		if rec.MainText == "" {
			rec.MainText = p.Text
		}
		if cfg.Export.Text {
			rec.Text = p.Text
		}
		if p.Meta != nil {
			rec.Type, rec.TypeRule = p.Meta.Type, p.Meta.TypeRule
		}
		if len(p.ContentHash) > 0 {
			rec.ContentHash = hex.EncodeToString(p.ContentHash)
		}
		if err := enc.Encode(&rec); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		n++
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if cfg.Export.Out != "" {
		fmt.Fprintf(stderr, "exported %d documents to %s\n", n, cfg.Export.Out)
	}
	return nil
}
