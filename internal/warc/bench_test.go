package warc

import (
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
)

// benchExchange is a 20 KB HTML page fetched gzip-compressed.
func benchExchange(i int, body []byte) Exchange {
	return Exchange{
		URL: fmt.Sprintf("https://www.example.edu/dept/page%d.html", i),
		ReqHeader: http.Header{
			"User-Agent":      {"acrawler/0.1.0 (+https://example.org/bot)"},
			"Accept":          {"text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"},
			"Accept-Encoding": {"gzip"},
		},
		Time:   baseTime,
		IP:     "192.0.2.10",
		Status: 200,
		RespHeader: http.Header{
			"Content-Type":     {"text/html; charset=utf-8"},
			"Content-Encoding": {"gzip"},
			"Date":             {"Fri, 14 Mar 2025 15:09:26 GMT"},
			"Server":           {"Apache"},
		},
		Body:    body,
		Decoded: true,
	}
}

// BenchmarkWrite writes 20 KB HTML exchanges; MB/s counts body bytes.
// The files are synced once, at Close.
func BenchmarkWrite(b *testing.B) {
	body := htmlPage(1, 20<<10)
	for _, par := range []bool{false, true} {
		name := "sequential"
		if par {
			name = "parallel"
		}
		b.Run(name, func(b *testing.B) {
			w, err := NewWriter(Options{Dir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			if par {
				b.RunParallel(func(pb *testing.PB) {
					for i := 0; pb.Next(); i++ {
						if _, err := w.Write(benchExchange(i, body)); err != nil {
							b.Error(err)
							return
						}
					}
				})
			} else {
				for i := 0; b.Loop(); i++ {
					if _, err := w.Write(benchExchange(i, body)); err != nil {
						b.Fatal(err)
					}
				}
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkScan reads back 20 KB HTML exchanges; MB/s counts body bytes.
func BenchmarkScan(b *testing.B) {
	body := htmlPage(1, 20<<10)
	dir := b.TempDir()
	const n = 200
	xs := make([]Exchange, n)
	for i := range xs {
		xs[i] = benchExchange(i, body)
	}
	locs := writeAll(b, Options{Dir: dir}, xs)
	path := filepath.Join(dir, locs[0].File)
	b.SetBytes(int64(n * len(body)))
	b.ReportAllocs()
	for b.Loop() {
		got := 0
		if _, err := Scan(path, func(*Record, Location) error { got++; return nil }); err != nil || got != n {
			b.Fatalf("Scan = %v after %d records, want %d", err, got, n)
		}
	}
}
