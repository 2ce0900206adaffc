package postings

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchCorpus returns n documents of a title of 5 words, a text of 1,000
// and anchor texts of 10, Zipf-spread over 30,000 words, with the
// vocabulary and the random source and distribution they were drawn
// from, for queries drawn the same way.
func benchCorpus(n int) ([]testDoc, []string, *rand.Rand, *rand.Zipf) {
	rnd := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 30_000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%x%c", i, 'a'+rune(i%26))
	}
	zipf := rand.NewZipf(rnd, 1.1, 2, uint64(len(vocab)-1))
	text := func(words int) string {
		var sb strings.Builder
		for range words {
			sb.WriteString(vocab[zipf.Uint64()])
			sb.WriteByte(' ')
		}
		return sb.String()
	}
	docs := make([]testDoc, n)
	for i := range docs {
		docs[i] = testDoc{id: uint32(i + 1), fields: []string{text(5), text(1000), text(10)}}
	}
	return docs, vocab, rnd, zipf
}

// benchDocs returns benchCorpus's documents.
func benchDocs(n int) []testDoc {
	docs, _, _, _ := benchCorpus(n)
	return docs
}

// BenchmarkBuild builds segments of 1,000 documents of 1,015 words each:
//
//	go test -run '^$' -bench 'BenchmarkBuild|BenchmarkMerge' ./internal/postings
func BenchmarkBuild(b *testing.B) {
	docs := benchDocs(1000)
	for _, size := range []int{1000, 250, 64} {
		b.Run(fmt.Sprintf("segments-of-%d", size), func(b *testing.B) {
			bld := NewBuilder(3)
			for range b.N {
				for _, d := range docs {
					bld.Add(d.id, d.fields...)
					if bld.Len() == size {
						bld.Segment()
					}
				}
				bld.Segment()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(docs)*1015), "ns/word")
		})
	}
}

// BenchmarkMerge merges ten segments of 1,000 such documents.
func BenchmarkMerge(b *testing.B) {
	docs := benchDocs(10_000)
	var segs []*Segment
	for i := 0; i < len(docs); i += 1000 {
		segs = append(segs, open(b, build(b, docs[i:i+1000])))
	}
	b.ResetTimer()
	for range b.N {
		out, err := Merge(partsOf(segs, nil))
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(out)))
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(docs)), "µs/doc")
}
