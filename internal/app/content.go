package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/acrawler/acrawler/internal/pdf"
	"github.com/acrawler/acrawler/internal/warc"
)

// warcDir is where the archive of a database lives: --warc DIR, or
// beside a SQLite file (DB.warc), or ./acrawler-warc for PostgreSQL.
func warcDir(flag, db string) string {
	switch flag {
	case "off", "":
		return ""
	case "auto":
		if isPostgres(db) {
			return "acrawler-warc"
		}
		return db + ".warc"
	}
	return flag
}

// openArchive opens the WARC writer, or returns nil when archiving is off.
func openArchive(flag, db, userAgent string) (*warc.Writer, error) {
	dir := warcDir(flag, db)
	if dir == "" {
		return nil, nil
	}
	// Several processes may share one archive directory: each names its
	// files after its host and process.
	host, _ := os.Hostname()
	prefix := fmt.Sprintf("acrawler-%s-%d", strings.ReplaceAll(host, "-", ""), os.Getpid())
	w, err := warc.NewWriter(warc.Options{Dir: dir, Prefix: prefix, Software: strings.SplitN(userAgent, " ", 2)[0]})
	if err != nil {
		return nil, fmt.Errorf("warc: %w", err)
	}
	return w, nil
}

// lazyPDF starts the PDF extractor (a WebAssembly module that takes
// seconds to compile) when the first PDF arrives, not before.
type lazyPDF struct {
	log  *slog.Logger
	once sync.Once
	ext  *pdf.Extractor
	err  error
}

func newLazyPDF(log *slog.Logger) *lazyPDF { return &lazyPDF{log: log} }

func (l *lazyPDF) Extract(ctx context.Context, data []byte) (*pdf.Document, error) {
	l.once.Do(func() {
		l.ext, l.err = pdf.New(context.WithoutCancel(ctx), pdf.Options{CacheDir: pdf.DefaultCacheDir()})
		if l.err != nil {
			l.log.Warn("PDF extraction unavailable", "err", l.err)
		}
	})
	if l.err != nil {
		return nil, l.err
	}
	return l.ext.Extract(ctx, data)
}

// Close stops the extractor if it was started.
func (l *lazyPDF) Close() error {
	if l.ext != nil {
		return l.ext.Close()
	}
	return nil
}
