package app

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/acrawler/acrawler/internal/api"
	"github.com/acrawler/acrawler/internal/cite"
	"github.com/acrawler/acrawler/internal/crawl"
)

// citeFormat reports whether f is a citation format of
// `acrawler export --what works`.
func citeFormat(f string) bool { return f == "bibtex" || f == "ris" || f == "csl-json" }

// exportWorks writes every work (crawl.Work) as JSON lines, or as
// citations (BibTeX, RIS, CSL-JSON), to stdout or cfg.Export.Out.
func exportWorks(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	st, err := openStoreReadOnly(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer st.Close()
	ws, ok := st.(crawl.WorkStore)
	if !ok {
		return fmt.Errorf("export: the store keeps no works")
	}
	w := stdout
	if cfg.Export.Out != "" {
		f, err := os.Create(cfg.Export.Out)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	var works []cite.Work // the citation writers take the whole list: keys are unique within one export
	n := 0
	for wk, err := range ws.Works(ctx) {
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		n++
		if cfg.Export.Format == "jsonl" {
			if err := enc.Encode(wk); err != nil {
				return fmt.Errorf("export: %w", err)
			}
			continue
		}
		works = append(works, api.CiteWork(wk))
	}
	switch cfg.Export.Format {
	case "bibtex":
		err = cite.WriteBibTeX(bw, works)
	case "ris":
		err = cite.WriteRIS(bw, works)
	case "csl-json":
		err = cite.WriteCSLJSON(bw, works)
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if cfg.Export.Out != "" {
		fmt.Fprintf(stderr, "exported %d works to %s\n", n, cfg.Export.Out)
	}
	return nil
}
