// Package pdf extracts the text and metadata of PDF documents.
//
// It runs PDFium compiled to WebAssembly (github.com/klippa-app/go-pdfium
// in WebAssembly mode, on the wazero runtime): pure Go, no cgo and no
// files or processes outside the program. Every document is opened in a
// fresh WebAssembly instance with bounded memory and no file system, and
// the instance is thrown away afterwards, so a malicious or broken PDF
// can neither crash the program nor leave state behind.
//
// Compiling the PDFium module is slow (seconds), so an Extractor is
// created once and reused; Options.CacheDir keeps the compiled module on
// disk between runs.
package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/klippa-app/go-pdfium"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// Defaults for the zero fields of Options.
const (
	DefaultMaxPages  = 200
	DefaultMaxText   = 2 << 20
	DefaultTimeout   = 20 * time.Second
	DefaultWorkers   = 1
	DefaultMaxMemory = 512 << 20
)

// Options configure an Extractor. Zero fields take the defaults above.
type Options struct {
	// MaxPages is the number of pages whose text is extracted; later
	// pages are left out.
	MaxPages int
	// MaxText is the size in bytes at which Document.Text is cut.
	MaxText int
	// Timeout bounds the work on one document, not counting the wait
	// for a free worker.
	Timeout time.Duration
	// Workers is the number of WebAssembly instances, that is, of
	// documents extracted at the same time; further calls wait.
	Workers int
	// MaxMemory bounds the memory of each WebAssembly instance in
	// bytes, from 64 MiB to 4 GiB (while it grows, the Go heap may hold
	// about twice that). The document itself must fit in half of it; a
	// document that needs more makes PDFium fail, which Extract reports
	// as ErrBroken.
	MaxMemory int64
	// CacheDir, if set, is a directory where the compiled PDFium module
	// is kept so that the next New in this or another process starts in
	// a fraction of a second instead of several seconds. If it cannot be
	// created, read or written, New compiles the module without it.
	CacheDir string
}

// Document is what Extract found in a PDF.
type Document struct {
	// Text is the text of the pages in reading order as PDFium
	// determines it: pages are separated by an empty line ("\n\n"),
	// paragraphs within a page by a line break, and the lines of a
	// paragraph are joined with spaces, words hyphenated at line ends
	// being rejoined. Ligatures are expanded, control characters
	// removed, and the text is valid UTF-8 in NFC. Empty pages and page
	// numbers at the foot of a page are left out.
	Text string
	// Pages is the number of pages of the document, including those
	// beyond Options.MaxPages.
	Pages int
	// Truncated reports that Text stops early: the document has more
	// than MaxPages pages or more than MaxText bytes of text.
	Truncated bool
	// The document information dictionary, cleaned like Text and cut
	// at 1 KiB each.
	Title, Author, Subject, Keywords, Creator, Producer string
	// Heading is the text set in the largest type at the top of the
	// first page with text, as a title page sets the title: at most four
	// lines in a font at least a fifth larger than most of the page's
	// text, joined like the lines of a paragraph; "" if there is none.
	Heading string
	// Created and Modified are the document's dates, or zero if
	// missing or malformed.
	Created, Modified time.Time
}

// Errors returned by Extract, wrapped; test for them with errors.Is.
var (
	// ErrEncrypted means the document needs a password to be read.
	ErrEncrypted = errors.New("encrypted PDF")
	// ErrBroken means the data is not a PDF or is damaged beyond
	// repair.
	ErrBroken = errors.New("broken PDF")
	// ErrTooLarge means the document exceeds a resource limit:
	// it is larger than half of Options.MaxMemory, or its extraction
	// took longer than Options.Timeout.
	ErrTooLarge = errors.New("PDF too large")
)

// Extractor extracts PDF documents. It is safe for concurrent use.
type Extractor struct {
	opts Options
	pool pdfium.Pool

	mu     sync.RWMutex
	closed bool
}

// DefaultCacheDir is where the program keeps the compiled PDFium module:
// acrawler/pdfium under the user's cache directory (os.UserCacheDir), or
// "" if there is none.
func DefaultCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "acrawler", "pdfium")
}

// New compiles the PDFium module and starts one instance of it to check
// that it works. This takes seconds unless opts.CacheDir holds the
// compiled module from an earlier run. It returns an error if opts has a
// negative field or the runtime cannot start.
func New(ctx context.Context, opts Options) (*Extractor, error) {
	if opts.MaxPages < 0 || opts.MaxText < 0 || opts.Timeout < 0 || opts.Workers < 0 || opts.MaxMemory < 0 {
		return nil, errors.New("pdf: new: negative option")
	}
	if opts.MaxPages == 0 {
		opts.MaxPages = DefaultMaxPages
	}
	if opts.MaxText == 0 {
		opts.MaxText = DefaultMaxText
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Workers == 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.MaxMemory == 0 {
		opts.MaxMemory = DefaultMaxMemory
	}
	const page = 64 << 10
	opts.MaxMemory = min(opts.MaxMemory, 1<<32) / page * page
	if opts.MaxMemory < 64<<20 {
		return nil, fmt.Errorf("pdf: new: MaxMemory %d is below 64 MiB", opts.MaxMemory)
	}

	rc := wazero.NewRuntimeConfig().
		// The PDFium module lowers setjmp/longjmp to exception handling.
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithMemoryLimitPages(uint32(opts.MaxMemory / page)).
		WithCloseOnContextDone(true)
	var pool pdfium.Pool
	var err error
	if opts.CacheDir != "" {
		// The cache only saves time: a directory that cannot be created
		// or written (a service's read-only home, a full disk) costs the
		// compile, not the extraction.
		var cache wazero.CompilationCache
		if cache, err = wazero.NewCompilationCacheWithDir(opts.CacheDir); err == nil {
			pool, err = initPool(rc.WithCompilationCache(cache), opts.Workers)
		}
	}
	if opts.CacheDir == "" || err != nil {
		pool, err = initPool(rc, opts.Workers)
	}
	if err != nil {
		return nil, fmt.Errorf("pdf: new: %w", err)
	}
	e := &Extractor{opts: opts, pool: pool}
	inst, err := pool.GetInstanceWithContext(ctx)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("pdf: new: start instance: %w", err)
	}
	inst.Close()
	return e, nil
}

// initPool starts the runtime with rc: it compiles the PDFium module, or
// reads it from rc's compilation cache.
func initPool(rc wazero.RuntimeConfig, workers int) (pdfium.Pool, error) {
	return webassembly.Init(webassembly.Config{
		// The pool outlives New's ctx.
		Context:  context.Background(),
		MinIdle:  0,
		MaxIdle:  workers,
		MaxTotal: workers,
		// An empty file system: documents cannot reach files.
		FSConfig:      wazero.NewFSConfig(),
		RuntimeConfig: rc,
		Stdout:        io.Discard,
		Stderr:        io.Discard,
		// A fresh instance per document (a few milliseconds) returns the
		// memory of each document as soon as it is done.
		ReuseWorkers: false,
	})
}

// Close waits for the Extract calls in progress, then stops the runtime.
// Later calls to Extract return an error.
func (e *Extractor) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	if err := e.pool.Close(); err != nil {
		return fmt.Errorf("pdf: close: %w", err)
	}
	return nil
}

// Extract returns the text and metadata of the PDF in data. It waits for
// a free worker as long as ctx allows, then spends at most
// Options.Timeout on the document.
//
// Errors wrap ErrBroken for data that is not a PDF or is damaged beyond
// repair (truncated files are repaired when PDFium can), ErrEncrypted for
// a document that needs a password (one with only an owner password is
// read), ErrTooLarge for a document over the size or time limits, and
// ctx.Err() if ctx ends first. PDFium failing on a document (a trap in
// the WebAssembly code, such as running out of MaxMemory) counts as
// ErrBroken. A document whose text stops at MaxPages or MaxText is no
// error: see Document.Truncated.
func (e *Extractor) Extract(ctx context.Context, data []byte) (*Document, error) {
	if !bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-")) {
		return nil, fmt.Errorf("pdf: extract: no PDF header: %w", ErrBroken)
	}
	if int64(len(data)) > e.opts.MaxMemory/2 {
		return nil, fmt.Errorf("pdf: extract: %d bytes: %w", len(data), ErrTooLarge)
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.closed {
		return nil, errors.New("pdf: extract: extractor closed")
	}
	inst, err := e.pool.GetInstanceWithContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("pdf: extract: wait for worker: %w", ctx.Err())
		}
		return nil, fmt.Errorf("pdf: extract: start instance: %w", err)
	}

	tctx, cancel := context.WithTimeout(ctx, e.opts.Timeout)
	defer cancel()
	type result struct {
		doc *Document
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			if p := recover(); p != nil {
				r = result{err: fmt.Errorf("panic: %v: %w", p, ErrBroken)}
			}
			done <- r
		}()
		x := extraction{inst: inst, ctx: tctx, opts: &e.opts}
		r.doc, r.err = x.run(data)
	}()
	select {
	case r := <-done:
		if r.err != nil {
			// The instance may be in any state: throw it away.
			inst.Kill()
		} else {
			inst.Close()
		}
		if r.err != nil && tctx.Err() != nil {
			return nil, e.timeoutErr(ctx)
		}
		if r.err != nil {
			return nil, fmt.Errorf("pdf: extract: %w", r.err)
		}
		return r.doc, nil
	case <-tctx.Done():
		// Cancelling the instance's context stops the running
		// WebAssembly code; the goroutine then fails and ends.
		inst.Kill()
		return nil, e.timeoutErr(ctx)
	}
}

func (e *Extractor) timeoutErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("pdf: extract: %w", err)
	}
	return fmt.Errorf("pdf: extract: over %v: %w", e.opts.Timeout, ErrTooLarge)
}

// extraction is the work on one document in one instance.
type extraction struct {
	inst pdfium.Pdfium
	ctx  context.Context
	opts *Options
}

func (x *extraction) run(data []byte) (*Document, error) {
	opened, err := x.inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		if errors.Is(err, pdfiumerrors.ErrPassword) || errors.Is(err, pdfiumerrors.ErrSecurity) {
			return nil, fmt.Errorf("open: %w", ErrEncrypted)
		}
		return nil, fmt.Errorf("open: %w: %w", ErrBroken, err)
	}
	doc := opened.Document
	defer x.inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc})

	count, err := x.inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc})
	if err != nil {
		return nil, fmt.Errorf("page count: %w: %w", ErrBroken, err)
	}
	d := &Document{Pages: count.PageCount}
	x.metadata(doc, d)

	var text strings.Builder
	failed := 0
	n := min(d.Pages, x.opts.MaxPages)
	d.Truncated = d.Pages > n
	for i := 0; i < n; i++ {
		if err := x.ctx.Err(); err != nil {
			return nil, err
		}
		budget := x.opts.MaxText - text.Len()
		paras, head, cut, err := x.page(doc, i, budget)
		if err != nil {
			failed++
			continue
		}
		d.Truncated = d.Truncated || cut
		if len(paras) == 0 {
			continue
		}
		if text.Len() == 0 {
			d.Heading = head
		}
		if text.Len() > 0 {
			text.WriteString("\n\n")
		}
		text.WriteString(strings.Join(paras, "\n"))
		if text.Len() >= x.opts.MaxText {
			d.Truncated = d.Truncated || text.Len() > x.opts.MaxText || i < n-1
			break
		}
	}
	if n > 0 && failed == n {
		return nil, fmt.Errorf("no page could be read: %w", ErrBroken)
	}
	d.Text = strings.TrimSpace(truncate(text.String(), x.opts.MaxText))
	return d, nil
}

// metadata fills the information dictionary fields of d.
func (x *extraction) metadata(doc references.FPDF_DOCUMENT, d *Document) {
	md, err := x.inst.GetMetaData(&requests.GetMetaData{Document: doc})
	if err != nil {
		return
	}
	for _, t := range md.Tags {
		v := cleanField(t.Value)
		switch t.Tag {
		case "Title":
			d.Title = v
		case "Author":
			d.Author = v
		case "Subject":
			d.Subject = v
		case "Keywords":
			d.Keywords = v
		case "Creator":
			d.Creator = v
		case "Producer":
			d.Producer = v
		case "CreationDate":
			d.Created, _ = parseDate(v)
		case "ModDate":
			d.Modified, _ = parseDate(v)
		}
	}
}

// page returns the paragraphs and the heading of page i, reading at most
// about budget characters of it, and whether it left some out.
func (x *extraction) page(doc references.FPDF_DOCUMENT, i, budget int) (paras []string, head string, cut bool, err error) {
	p, err := x.inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: i})
	if err != nil {
		return nil, "", false, err
	}
	defer x.inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: p.Page})
	tp, err := x.inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: requests.Page{ByReference: &p.Page}})
	if err != nil {
		return nil, "", false, err
	}
	defer x.inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	cc, err := x.inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil {
		return nil, "", false, err
	}
	// Cleaning shrinks text (spaces, "\r\n"), so read a margin more,
	// and read on while what was read cleans to less than the budget
	// (a page can hold any number of characters that cleaning removes).
	count := min(cc.Count, 2*budget+4096)
	if count <= 0 {
		return nil, "", false, nil
	}
	for {
		paras, head, err = x.lines(tp.TextPage, count)
		if err != nil {
			return nil, "", false, err
		}
		if count == cc.Count || len(strings.Join(paras, "\n")) >= budget {
			return paras, head, count < cc.Count, nil
		}
		count = min(cc.Count, 4*count)
	}
}

// lines returns the paragraphs and the heading of the first count
// characters of the text page tp.
func (x *extraction) lines(tp references.FPDF_TEXTPAGE, count int) ([]string, string, error) {
	t, err := x.inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp, Count: count})
	if err != nil {
		return nil, "", err
	}
	texts, starts := splitLines(t.Text)
	// Character positions are found by index, which is the UTF-16 index
	// in the text as long as no character was cut short.
	units := 0
	for _, r := range t.Text {
		units += utf16Len(r)
	}
	geo := units == count
	lines := make([]line, len(texts))
	for j, s := range texts {
		lines[j].text = s
		if geo {
			x.position(tp, &lines[j], starts[j])
		}
	}
	return layoutPage(lines), heading(lines), nil
}

// position sets the geometry of l, which starts at character index start.
func (x *extraction) position(tp references.FPDF_TEXTPAGE, l *line, start int) {
	first, last := -1, -1
	idx := start
	for _, r := range l.text {
		if r != ' ' && r != '\t' && r != hyphenMark {
			if first < 0 {
				first = idx
			}
			last = idx
		}
		idx += utf16Len(r)
	}
	if first < 0 {
		return
	}
	o, err := x.inst.FPDFText_GetCharOrigin(&requests.FPDFText_GetCharOrigin{TextPage: tp, Index: first})
	if err != nil {
		return
	}
	fs, err := x.inst.FPDFText_GetFontSize(&requests.FPDFText_GetFontSize{TextPage: tp, Index: first})
	if err != nil {
		return
	}
	end, err := x.inst.FPDFText_GetCharOrigin(&requests.FPDFText_GetCharOrigin{TextPage: tp, Index: last})
	if err != nil {
		return
	}
	box, err := x.inst.FPDFText_GetCharBox(&requests.FPDFText_GetCharBox{TextPage: tp, Index: last})
	if err != nil {
		return
	}
	*l = line{text: l.text, x0: o.X, y0: o.Y, x1: max(box.Right, end.X), y1: end.Y, size: fs.FontSize, geo: true}
}
