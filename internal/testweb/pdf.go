package testweb

import (
	"bytes"
	"strconv"
	"strings"
)

// renderPDF writes a small valid one-page PDF of a publication: title,
// authors, venue, the abstract and the start of the introduction, as
// uncompressed Helvetica text folded to ASCII.
func renderPDF(d *doc) {
	pb := d.p.pub
	var text bytes.Buffer
	r := pubText(pb)
	textFor(pb).paragraph(&text, &r, 6)
	abstract := text.String()
	text.Reset()
	r = pubText(pb)
	r.s ^= 0xb0d1
	textFor(pb).paragraph(&text, &r, 6)
	intro := text.String()

	names := make([]string, len(pb.authors))
	for i, a := range pb.authors {
		names[i] = a.name
	}
	var lines []pdfLine
	for _, l := range wrap(foldASCII(pb.title), 60) {
		lines = append(lines, pdfLine{font: "F1", size: 16, text: l})
	}
	for _, l := range wrap(foldASCII(strings.Join(names, ", ")), 90) {
		lines = append(lines, pdfLine{font: "F2", size: 11, text: l})
	}
	lines = append(lines, pdfLine{font: "F2", size: 10, text: foldASCII(pb.venue) + ", " + itoa(pb.year) + ". doi:" + pb.doi})
	lines = append(lines, pdfLine{font: "F1", size: 12, text: "Abstract"})
	for _, l := range wrap(foldASCII(abstract), 95) {
		lines = append(lines, pdfLine{font: "F2", size: 10, text: l})
	}
	lines = append(lines, pdfLine{font: "F1", size: 12, text: "1. Introduction"})
	for _, l := range wrap(foldASCII(intro), 95) {
		lines = append(lines, pdfLine{font: "F2", size: 10, text: l})
	}
	writePDF(d.b, foldASCII(pb.title), foldASCII(strings.Join(names, "; ")), lines)
}

type pdfLine struct {
	font string
	size int
	text string
}

// wrap splits s into lines of at most width bytes at spaces.
func wrap(s string, width int) []string {
	var out []string
	for len(s) > width {
		i := strings.LastIndexByte(s[:width], ' ')
		if i <= 0 {
			i = width
		}
		out = append(out, s[:i])
		s = strings.TrimLeft(s[i:], " ")
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func pdfString(b *bytes.Buffer, s string) {
	b.WriteByte('(')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '(', ')', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(')')
}

// writePDF writes the document with a correct cross-reference table.
func writePDF(b *bytes.Buffer, title, author string, lines []pdfLine) {
	writePDFDated(b, title, author, "", lines)
}

// writePDFDated is writePDF with a CreationDate ("D:20200312120000Z") in
// the information dictionary when created is not empty.
func writePDFDated(b *bytes.Buffer, title, author, created string, lines []pdfLine) {
	start := b.Len()
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len()-start)
		b.WriteString(strconv.Itoa(len(offsets)))
		b.WriteString(" 0 obj\n")
		b.WriteString(body)
		b.WriteString("\nendobj\n")
	}
	var content bytes.Buffer
	content.WriteString("BT\n50 790 Td\n")
	y := 790
	for _, l := range lines {
		if y < 60 {
			break
		}
		lead := l.size + 4
		content.WriteString("/" + l.font + " " + strconv.Itoa(l.size) + " Tf\n")
		pdfString(&content, l.text)
		content.WriteString(" Tj\n0 -" + strconv.Itoa(lead) + " Td\n")
		y -= lead
	}
	content.WriteString("ET\n")

	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R /F2 5 0 R >> >> /Contents 6 0 R >>")
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	obj("<< /Length " + strconv.Itoa(content.Len()) + " >>\nstream\n" + content.String() + "endstream")
	var info bytes.Buffer
	info.WriteString("<< /Title ")
	pdfString(&info, title)
	info.WriteString(" /Author ")
	pdfString(&info, author)
	if created != "" {
		info.WriteString(" /CreationDate ")
		pdfString(&info, created)
	}
	info.WriteString(" /Producer (acrawler testweb) >>")
	obj(info.String())
	xref := b.Len() - start
	b.WriteString("xref\n0 " + strconv.Itoa(len(offsets)+1) + "\n0000000000 65535 f \n")
	for _, off := range offsets {
		s := strconv.Itoa(off)
		b.WriteString(strings.Repeat("0", 10-len(s)) + s + " 00000 n \n")
	}
	b.WriteString("trailer\n<< /Size " + strconv.Itoa(len(offsets)+1) + " /Root 1 0 R /Info 7 0 R >>\nstartxref\n" + strconv.Itoa(xref) + "\n%%EOF\n")
}
