package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/extract"
	"github.com/acrawler/acrawler/internal/htmlx"
	"github.com/acrawler/acrawler/internal/urlnorm"
	"github.com/acrawler/acrawler/internal/warc"
)

func runReparse(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("acrawler reparse", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := dbFlag(fs)
	warcFlag := fs.String("warc", "auto", "`directory` of the WARC archive (auto: beside the database)")
	mainText := fs.Bool("main-text", true, "extract the main text of pages")
	noPDF := fs.Bool("no-pdf", false, "leave PDFs as they are")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "pages extracted at the same time")
	near := fs.Int("near-distance", crawl.DefaultNearDistance, "SimHash distance (bits, 0 to 3) of a near-duplicate; 0: none")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("reparse takes no arguments, got %q", fs.Args())
	}
	if *workers < 1 {
		return usagef("reparse: --workers must be at least 1")
	}
	if *warcFlag == "off" || *warcFlag == "" {
		return usagef("reparse needs the WARC archive (--warc DIR)")
	}
	if !isPostgres(*db) {
		if _, err := os.Stat(*db); err != nil {
			return usagef("reparse: %v", err) // not created empty
		}
	}
	log, _ := newLogger(stderr, "info", "text")
	st, err := openStoreWith(ctx, *db, *workers+2, false, *near)
	if err != nil {
		return err
	}
	defer st.Close()
	dir, err := recordedArchiveDir(ctx, st, *warcFlag, *db)
	if err != nil {
		return err
	}
	if _, err := os.Stat(dir); err != nil {
		return usagef("reparse: archive %s: %v", dir, err)
	}
	norm, err := urlnorm.New(urlnorm.DefaultOptions())
	if err != nil {
		return err
	}
	var pdfs *lazyPDF
	opts := extract.Options{Resolver: norm, MaxLinks: 1000, Token: "acrawler", MainText: *mainText}
	if !*noPDF {
		pdfs = newLazyPDF(log)
		defer pdfs.Close()
		opts.PDF = pdfs
	}
	x := extract.New(opts, func() htmlx.Resolver { return norm.PageResolver() })
	start := time.Now()
	// The pages are read in one pass and extracted by the workers; the
	// store serializes the writes as it must.
	var done, skipped, failed atomic.Int64
	pages := make(chan *crawl.Page, *workers)
	var wg sync.WaitGroup
	for range *workers {
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
	fs := flag.NewFlagSet("acrawler export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := dbFlag(fs)
	format := fs.String("format", "jsonl", "output format (jsonl)")
	out := fs.String("out", "", "write to this `file` instead of standard output")
	all := fs.Bool("all", false, "every recorded page, not only 2xx HTML and PDF documents")
	withText := fs.Bool("text", false, "include the full visible text beside the main text")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *format != "jsonl" {
		return usagef("export: unknown format %q (want jsonl)", *format)
	}
	st, err := openStoreReadOnly(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	w := stdout
	var f *os.File
	if *out != "" {
		if f, err = os.Create(*out); err != nil {
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
		if !*all && (p.Status < 200 || p.Status > 299 || !extract.IsHTML(p.ContentType) && !extract.IsPDF(p.ContentType)) {
			continue
		}
		rec := ExportRecord{URL: p.URL, Canonical: p.Canonical, Status: p.Status, ContentType: p.ContentType,
			Title: p.Title, MainText: p.MainText, Lang: p.Lang, Metadata: p.Meta, FetchedAt: p.FetchedAt.UTC(),
			DuplicateOf: urlOf(p.DuplicateOf), NearDuplicateOf: urlOf(p.NearDuplicateOf), NoIndex: p.NoIndex}
		if rec.MainText == "" {
			rec.MainText = p.Text
		}
		if *withText {
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
	if *out != "" {
		fmt.Fprintf(stderr, "exported %d documents to %s\n", n, *out)
	}
	return nil
}
