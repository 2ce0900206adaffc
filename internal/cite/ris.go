package cite

import (
	"fmt"
	"io"
	"strings"
)

// risTypes are the RIS reference types of the work types.
var risTypes = map[Type]string{
	TypeArticle:          "JOUR",
	TypeThesis:           "THES",
	TypeReport:           "RPRT",
	TypeBook:             "BOOK",
	TypeChapter:          "CHAP",
	TypeProceedingsPaper: "CPAPER",
	TypePreprint:         "UNPB",
	TypeDataset:          "DATA",
	TypeOther:            "GEN",
}

// WriteRIS writes works as RIS records, in their order: UTF-8, lines
// ended by CRLF, each record ended by "ER  - " and a blank line.
func WriteRIS(w io.Writer, works []Work) error {
	var b strings.Builder
	for i := range works {
		b.Reset()
		risRecord(&b, &works[i])
		if _, err := io.WriteString(w, b.String()); err != nil {
			return fmt.Errorf("cite: write ris: %w", err)
		}
	}
	return nil
}

func risRecord(b *strings.Builder, w *Work) {
	tag := func(t, v string) {
		if v == "" {
			return
		}
		b.WriteString(t + "  - " + v + "\r\n")
	}
	typ := w.Type.Normalize()
	tag("TY", risTypes[typ])
	for _, n := range w.authors() {
		tag("AU", risName(n))
	}
	tag("TI", clean(w.Title))
	tag("T2", clean(w.ContainerTitle))
	if typ == TypeArticle {
		// The journal again, as JO: readers that take T2 for a
		// secondary or abbreviated title (bibutils) read the journal here.
		tag("JO", clean(w.ContainerTitle))
	}
	y, m, d := w.date()
	if y > 0 {
		tag("PY", fmt.Sprintf("%04d", y))
		da := fmt.Sprintf("%04d/", y)
		if m > 0 {
			da += fmt.Sprintf("%02d/", m)
			if d > 0 {
				da += fmt.Sprintf("%02d/", d)
			} else {
				da += "/"
			}
		} else {
			da += "//"
		}
		tag("DA", da)
	}
	tag("VL", clean(w.Volume))
	tag("IS", clean(w.Issue))
	first, last := w.pages()
	tag("SP", first)
	tag("EP", last)
	tag("PB", clean(w.Publisher))
	for _, s := range cleanList(w.ISSN) {
		tag("SN", s)
	}
	for _, s := range cleanList(w.ISBN) {
		tag("SN", s)
	}
	tag("DO", clean(w.DOI))
	tag("UR", clean(w.URL))
	tag("L1", clean(w.PDFURL))
	tag("AB", clean(w.Abstract))
	for _, k := range cleanList(w.Keywords) {
		tag("KW", k)
	}
	tag("LA", clean(w.Language))
	b.WriteString("ER  - \r\n\r\n")
}

// risName writes n as RIS asks: "Family, Given, Suffix", with the
// particle in front of the family name; a literal as it is.
func risName(n Name) string {
	if n.Literal != "" {
		return n.Literal
	}
	s := joinWords(n.Particle, n.Family)
	if n.Given != "" || n.Suffix != "" {
		s += ", " + n.Given
	}
	if n.Suffix != "" {
		s += ", " + n.Suffix
	}
	return s
}
