package fingerprint

import (
	"testing"

	"github.com/acrawler/acrawler/internal/htmlx"
	"github.com/acrawler/acrawler/internal/maintext"
	"github.com/acrawler/acrawler/internal/testweb"
)

// uniformTexts returns the text and the main text of a page of the uniform
// test web, the page the throughput benchmark crawls: what Exact and
// SimHash are given there.
func uniformTexts(b *testing.B) (text, main string) {
	page := testweb.NewUniform(testweb.UniformConfig{}).Page(3, 17)
	mt := maintext.NewBuilder(len(page))
	doc, err := htmlx.Parse(page, "http://example.org/", htmlx.Options{Resolver: keepRef{}, Visitors: []htmlx.Visitor{mt}})
	if err != nil {
		b.Fatal(err)
	}
	res, err := mt.Result("")
	if err != nil {
		b.Fatal(err)
	}
	return doc.Text, res.Text
}

// keepRef resolves a reference to itself: the links do not matter here.
type keepRef struct{}

func (keepRef) Resolve(base, ref string) (string, error) { return ref, nil }

// BenchmarkExactUniform fingerprints the text of a uniform-web page.
func BenchmarkExactUniform(b *testing.B) {
	text, _ := uniformTexts(b)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Exact(text)
	}
}

// BenchmarkSimHashUniform fingerprints the main text of a uniform-web
// page.
func BenchmarkSimHashUniform(b *testing.B) {
	_, main := uniformTexts(b)
	b.SetBytes(int64(len(main)))
	for b.Loop() {
		SimHash(main)
	}
}
