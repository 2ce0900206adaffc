package cite

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// cslTypes are the CSL 1.0.2 item types of the work types.
var cslTypes = map[Type]string{
	TypeArticle:          "article-journal",
	TypeThesis:           "thesis",
	TypeReport:           "report",
	TypeBook:             "book",
	TypeChapter:          "chapter",
	TypeProceedingsPaper: "paper-conference",
	TypePreprint:         "article", // CSL's type for preprints and working papers
	TypeDataset:          "dataset",
	TypeOther:            "document",
}

// cslItem is one CSL-JSON item; fields in the order they are written.
type cslItem struct {
	ID             string    `json:"id"`
	Type           string    `json:"type"`
	CitationKey    string    `json:"citation-key,omitempty"`
	Title          string    `json:"title,omitempty"`
	Author         []cslName `json:"author,omitempty"`
	Issued         *cslDate  `json:"issued,omitempty"`
	ContainerTitle string    `json:"container-title,omitempty"`
	Volume         string    `json:"volume,omitempty"`
	Issue          string    `json:"issue,omitempty"`
	Page           string    `json:"page,omitempty"`
	Publisher      string    `json:"publisher,omitempty"`
	DOI            string    `json:"DOI,omitempty"`
	ISSN           string    `json:"ISSN,omitempty"`
	ISBN           string    `json:"ISBN,omitempty"`
	URL            string    `json:"URL,omitempty"`
	Abstract       string    `json:"abstract,omitempty"`
	Keyword        string    `json:"keyword,omitempty"`
	Language       string    `json:"language,omitempty"`
}

type cslName struct {
	Family   string `json:"family,omitempty"`
	Given    string `json:"given,omitempty"`
	Particle string `json:"non-dropping-particle,omitempty"`
	Suffix   string `json:"suffix,omitempty"`
	Literal  string `json:"literal,omitempty"`
}

type cslDate struct {
	DateParts [][]int `json:"date-parts"`
}

// WriteCSLJSON writes works as a CSL-JSON array, in their order. An item's
// id is its work's ID, or its citation key when the ID is empty or shared
// with another work of the export (with "-2", "-3"… should another work
// have that key as ID): ids are unique.
func WriteCSLJSON(w io.Writer, works []Work) error {
	p := prepare(works)
	seen := make(map[string]int, len(works))
	for i := range works {
		seen[clean(works[i].ID)]++
	}
	items := make([]cslItem, len(works))
	used := make(map[string]bool, len(works))
	for i := range works {
		items[i] = cslOf(&works[i], p.names[i], p.keys[i])
		if id := clean(works[i].ID); id != "" && seen[id] == 1 {
			items[i].ID = id
			used[id] = true
		}
	}
	for i := range works {
		if id := clean(works[i].ID); id != "" && seen[id] == 1 {
			continue
		}
		// The citation key, unless a work has it as its ID.
		id := p.keys[i]
		for n := 2; used[id]; n++ {
			id = p.keys[i] + "-" + strconv.Itoa(n)
		}
		items[i].ID = id
		used[id] = true
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(items); err != nil {
		return fmt.Errorf("cite: write csl-json: %w", err)
	}
	return nil
}

func cslOf(w *Work, names []Name, key string) cslItem {
	it := cslItem{
		ID:             key,
		Type:           cslTypes[w.Type.Normalize()],
		CitationKey:    key,
		Title:          clean(w.Title),
		ContainerTitle: clean(w.ContainerTitle),
		Volume:         clean(w.Volume),
		Issue:          clean(w.Issue),
		Publisher:      clean(w.Publisher),
		DOI:            clean(w.DOI),
		ISSN:           strings.Join(cleanList(w.ISSN), ", "),
		ISBN:           strings.Join(cleanList(w.ISBN), ", "),
		URL:            clean(w.URL),
		Abstract:       clean(w.Abstract),
		Keyword:        strings.Join(cleanList(w.Keywords), ", "),
		Language:       clean(w.Language),
	}
	if it.URL == "" {
		it.URL = clean(w.PDFURL)
	}
	for _, n := range names {
		it.Author = append(it.Author, cslName(n.cslParts()))
	}
	if y, m, d := w.date(); y > 0 {
		parts := []int{y}
		if m > 0 {
			parts = append(parts, m)
			if d > 0 {
				parts = append(parts, d)
			}
		}
		it.Issued = &cslDate{DateParts: [][]int{parts}}
	}
	if first, last := w.pages(); last != "" {
		it.Page = first + "-" + last
	} else {
		it.Page = first
	}
	return it
}

func (n Name) cslParts() cslName {
	if n.Literal != "" {
		return cslName{Literal: n.Literal}
	}
	return cslName{Family: n.Family, Given: n.Given, Particle: n.Particle, Suffix: n.Suffix}
}
