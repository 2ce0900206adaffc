package pdf

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
)

// buildPDF writes a valid PDF whose pages have the given content streams,
// all using Helvetica as /F1. Streams are deflated when deflate is set.
func buildPDF(contents [][]byte, deflate bool) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	n := len(contents)
	// 1: catalog, 2: pages, 3: font, then a page and its content per page.
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	kids := make([]string, n)
	for i := range kids {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	obj(fmt.Sprintf("<< /Type /Pages /Count %d /Kids [%s] >>", n, strings.Join(kids, " ")))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	for i, c := range contents {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		filter := ""
		if deflate {
			var z bytes.Buffer
			w, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
			w.Write(c)
			w.Close()
			c = z.Bytes()
			filter = " /Filter /FlateDecode"
		}
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n<< /Length %d%s >>\nstream\n", len(offsets), len(c), filter)
		b.Write(c)
		b.WriteString("\nendstream\nendobj\n")
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// textPage returns a content stream that shows lines of text from the top
// of a page, 14 points apart.
func textPage(lines ...string) []byte {
	var b bytes.Buffer
	b.WriteString("BT /F1 12 Tf 14 TL 72 720 Td\n")
	for _, l := range lines {
		r := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`)
		fmt.Fprintf(&b, "(%s) '\n", r.Replace(l))
	}
	b.WriteString("ET\n")
	return b.Bytes()
}
