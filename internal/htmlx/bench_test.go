package htmlx

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding/charmap"

	"github.com/acrawler/acrawler/internal/cputime"
)

// largePage returns a page of about 200 KB: the publications page with a
// table of 700 publications, each with a DOI link.
func largePage(tb testing.TB) []byte {
	page := readTestdata(tb, "publications.html")
	i := bytes.Index(page, []byte("<tbody>"))
	j := bytes.Index(page, []byte("</tbody>"))
	var rows bytes.Buffer
	for n := 0; rows.Len() < 200<<10-len(page)+(j-i); n++ {
		fmt.Fprintf(&rows, `
        <tr>
          <td>%d</td>
          <td>A. Okafor, B. Lindqvist, C. Yamamoto</td>
          <td><cite>Cross-lingual Transfer Learning for Low-Resource Morphological Segmentation, part %d</cite></td>
          <td><em>Proceedings of ACL</em>, pp.&nbsp;%d&ndash;%d</td>
          <td><a href="https://doi.org/10.18653/v1/2024.acl-long.%d" rel="noopener">doi:10.18653/v1/2024.acl-long.%d</a></td>
        </tr>`, 2024-n%6, n, n, n+12, n, n)
	}
	return bytes.Join([][]byte{page[:i+len("<tbody>")], rows.Bytes(), page[j:]}, nil)
}

// hostResolver resolves only the common cases, cheaply: it shows the cost
// of Parse itself, without that of a full URL parser.
type hostResolver struct{}

func (hostResolver) Resolve(base, ref string) (string, error) {
	switch {
	case strings.HasPrefix(ref, "https://"), strings.HasPrefix(ref, "http://"):
		return ref, nil
	case strings.HasPrefix(ref, "/") && !strings.HasPrefix(ref, "//"):
		return "https://www.cl.exampleton.ac.uk" + ref, nil
	}
	return "", errNotHTTP
}

func BenchmarkParse(b *testing.B) {
	pages := []struct {
		name string
		body []byte
	}{
		{"20KB", readTestdata(b, "publications.html")},
		{"200KB", largePage(b)},
	}
	n := newNormalizer(b)
	resolvers := []struct {
		name string
		r    Resolver
	}{
		{"urlnorm", n},
		{"urlnorm-base", normBaseResolver{n}},
		{"whatwg-base", whatwgBaseResolver{newResolver()}},
		{"host", hostResolver{}},
	}
	const pageURL = "https://www.cl.exampleton.ac.uk/research/publications/"
	for _, p := range pages {
		for _, r := range resolvers {
			b.Run(p.name+"/"+r.name, func(b *testing.B) {
				opts := Options{Resolver: r.r, Token: "acrawler"}
				b.SetBytes(int64(len(p.body)))
				b.ReportAllocs()
				var links int
				cpu := cputime.Process()
				for b.Loop() {
					doc, err := Parse(p.body, pageURL, opts)
					if err != nil {
						b.Fatal(err)
					}
					links = len(doc.Links)
				}
				cputime.ReportPerOp(b, cpu)
				b.ReportMetric(float64(links), "links/page")
			})
		}
	}
}

// BenchmarkTokenizer runs a tokenizer alone over the 20 KB page, the
// package's and x/net/html's: the floor under Parse.
func BenchmarkTokenizer(b *testing.B) {
	body := readTestdata(b, "publications.html")
	b.Run("own", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		cpu := cputime.Process()
		for b.Loop() {
			z := newTokenizer(body)
			for z.Next() != html.ErrorToken {
			}
		}
		cputime.ReportPerOp(b, cpu)
	})
	b.Run("x-net-html", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		cpu := cputime.Process()
		for b.Loop() {
			z := html.NewTokenizer(bytes.NewReader(body))
			for z.Next() != html.ErrorToken {
			}
		}
		cputime.ReportPerOp(b, cpu)
	})
}

func BenchmarkDecode(b *testing.B) {
	utf8Page := readTestdata(b, "publications.html")
	large := largePage(b)
	w1254, err := charmap.Windows1254.NewEncoder().Bytes(bytes.ReplaceAll(large, []byte("Okafor"), []byte("Öztürk")))
	if err != nil {
		b.Fatal(err)
	}
	tests := []struct {
		name, contentType string
		body              []byte
	}{
		{"utf-8/20KB", "text/html; charset=utf-8", utf8Page},
		{"sniffed-utf-8/200KB", "text/html", large},
		{"windows-1254/200KB", "text/html; charset=windows-1254", w1254},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(tt.body)))
			b.ReportAllocs()
			cpu := cputime.Process()
			for b.Loop() {
				if _, _, err := Decode(tt.body, tt.contentType); err != nil {
					b.Fatal(err)
				}
			}
			cputime.ReportPerOp(b, cpu)
		})
	}
}
