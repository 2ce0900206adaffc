package crawl

import (
	"context"
	"iter"
)

// Work is one scholarly work: its copies (landing pages, PDFs, repository
// records, preprints recorded by the crawl) joined and their metadata
// merged, as the stores keep it at commit time (see docs/works.md). It
// reads the record package works writes.
type Work struct {
	ID        int64    `json:"id"`
	Type      string   `json:"type,omitempty"`
	Title     string   `json:"title"`
	Authors   []string `json:"authors,omitempty"`
	Year      int      `json:"year,omitempty"`
	Date      string   `json:"date,omitempty"`
	Venue     string   `json:"venue,omitempty"`
	Volume    string   `json:"volume,omitempty"`
	Issue     string   `json:"issue,omitempty"`
	FirstPage string   `json:"first_page,omitempty"`
	LastPage  string   `json:"last_page,omitempty"`
	Publisher string   `json:"publisher,omitempty"`
	DOI       string   `json:"doi,omitempty"`
	DOIs      []string `json:"dois,omitempty"`
	Abstract  string   `json:"abstract,omitempty"`
	Keywords  []string `json:"keywords,omitempty"`
	// URL is its landing page, PDFURL its open access PDF (OpenAccess).
	URL        string `json:"url,omitempty"`
	PDFURL     string `json:"pdf_url,omitempty"`
	OpenAccess bool   `json:"open_access"`
	// Fields says, by field name (the JSON names above), which source
	// ("citation", "jsonld", "dublincore", "pdf", "text") of which copy
	// gave the field.
	Fields map[string]WorkField `json:"fields,omitempty"`
	Copies []WorkCopy           `json:"copies"`
}

// WorkField is where a field of a work came from.
type WorkField struct {
	Source string `json:"source"`
	URL    string `json:"url"`
}

// WorkCopy is one copy of a work: a recorded page, its kind ("landing",
// "pdf", "repository", "preprint", "other"), whether it is open access (a
// PDF reachable without login, or a page naming one) and the source of its
// metadata.
type WorkCopy struct {
	PageID     ID     `json:"page_id"`
	URL        string `json:"url"`
	Kind       string `json:"kind"`
	OpenAccess bool   `json:"open_access"`
	Source     string `json:"source"`
}

// WorkStore reads the works a store keeps: every recorded page that is a
// copy of a scholarly work belongs to one, joined in the commit that
// recorded the page.
type WorkStore interface {
	// Work returns a work by ID, or an error wrapping ErrNotFound.
	Work(ctx context.Context, id int64) (*Work, error)
	// WorkOf returns the work a page is a copy of, or an error wrapping
	// ErrNotFound when the page is no copy of a work.
	WorkOf(ctx context.Context, page ID) (*Work, error)
	// Works iterates over every work in ID order, streaming.
	Works(ctx context.Context) iter.Seq2[*Work, error]
	// WorkCount returns how many works there are.
	WorkCount(ctx context.Context) (int64, error)
}
