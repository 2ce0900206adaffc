package oai

import (
	"fmt"
	"strings"
	"testing"
)

// listPage is a ListRecords page of n DSpace-like records.
func listPage(n int) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2025-03-01T09:30:00Z</responseDate><request verb="ListRecords">http://r.test/oai</request><ListRecords>`)
	for i := range n {
		fmt.Fprintf(&b, `<record><header><identifier>oai:r.test:1/%d</identifier><datestamp>2024-01-01T00:00:00Z</datestamp><setSpec>col_1</setSpec></header>`+
			`<metadata><oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/">`+
			`<dc:title>Polite crawling of institutional repositories, part %d</dc:title><dc:creator>Sato, Jamal</dc:creator><dc:creator>Okafor, N.</dc:creator>`+
			`<dc:description>%s</dc:description><dc:date>2019-06-01</dc:date><dc:type>Article</dc:type>`+
			`<dc:identifier>http://r.test/handle/1/%d</dc:identifier><dc:identifier>https://doi.org/10.5555/jac.%d</dc:identifier>`+
			`<dc:identifier>http://r.test/bitstream/handle/1/%d/paper.pdf</dc:identifier></oai_dc:dc></metadata></record>`,
			i, i, strings.Repeat("An abstract of words. ", 40), i, i, i)
	}
	b.WriteString(`<resumptionToken cursor="0">next</resumptionToken></ListRecords></OAI-PMH>`)
	return []byte(b.String())
}

// BenchmarkParse parses pages of 100 and 1000 records: time and
// allocations per byte stay flat as the page grows.
func BenchmarkParse(b *testing.B) {
	for _, n := range []int{100, 1000} {
		body := listPage(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				resp, err := Parse(body, Limits{})
				if err != nil || len(resp.Records) != n {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestParseLinear counts allocations, a measure of work that does not
// depend on the machine: ten times the records cost at most about ten
// times as much.
func TestParseLinear(t *testing.T) {
	small, large := listPage(50), listPage(500)
	allocs := func(body []byte) float64 {
		return testing.AllocsPerRun(3, func() {
			if _, err := Parse(body, Limits{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	a, b := allocs(small), allocs(large)
	if b > 11*a {
		t.Errorf("%v allocations for 50 records, %v for 500", a, b)
	}
}
