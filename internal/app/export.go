package app

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/extract"
)

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

// Export writes every document as JSON lines (ExportRecord) to stdout or
// cfg.Export.Out.
func Export(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	if cfg.Export.What == "works" {
		return exportWorks(ctx, cfg, stdout, stderr)
	}
	var err error
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
