package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/engine"
	"github.com/acrawler/acrawler/internal/extract"
	"github.com/acrawler/acrawler/internal/htmlx"
	"github.com/acrawler/acrawler/internal/robots"
	"github.com/acrawler/acrawler/internal/warc"
)

// Reparse re-runs extraction on every archived 2xx HTML or PDF response,
// without the network, with the settings the crawl recorded; the links
// follow the engine's rules (engine.PageLinks).
func Reparse(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	var err error
	if !isPostgres(cfg.DB) {
		if _, err := os.Stat(cfg.DB); err != nil {
			return usagef("reparse: %v", err) // not created empty
		}
	}
	log, err := newLogger(stderr, cfg.LogLevel, cfg.LogFormat)
	if err != nil {
		return err
	}
	st, err := openStoreWith(ctx, cfg.DB, storeOptions{pgConns: cfg.Reparse.Workers + 2, nearDistance: cfg.NearDistance, log: log})
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
	links := engine.PageLinks(&np, &res)
	return st.Reparse(ctx, &np, links)
}
