package fetch

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// benchPage returns about n bytes of HTML made of varied words, which
// compresses about as well as real pages do.
func benchPage(n int) []byte {
	words := strings.Fields("research group laboratory faculty publication seminar thesis department " +
		"professor student lecture journal conference abstract theorem experiment data analysis " +
		"model university campus library archive project funding grant colloquium")
	rng := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	sb.WriteString("<!doctype html><html><head><title>Benchmark</title></head><body>\n")
	for sb.Len() < n {
		fmt.Fprintf(&sb, `<p id="p%d"><a href="/%s/%d">`, rng.IntN(1000), words[rng.IntN(len(words))], rng.IntN(100000))
		for range 12 {
			sb.WriteString(words[rng.IntN(len(words))])
			sb.WriteByte(' ')
		}
		sb.WriteString("</a></p>\n")
	}
	sb.WriteString("</body></html>\n")
	return []byte(sb.String())
}

// BenchmarkFetch gets a 20 KB page, gzip-compressed, from a loopback
// server, one request at a time and from GOMAXPROCS goroutines. Allocations
// include the server's, which runs in the same process.
func BenchmarkFetch(b *testing.B) {
	html := benchPage(20 << 10)
	gz := gzipBytes(b, html)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Type"] = []string{"text/html; charset=utf-8"}
		h["Content-Encoding"] = []string{"gzip"}
		w.Write(gz)
	}))
	defer srv.Close()
	c := newClient(b, Config{AllowPrivate: true, MaxConnsPerHost: 8})
	req := Request{URL: srv.URL + "/page"}
	b.Logf("page: %d bytes, %d gzip-compressed", len(html), len(gz))

	fetch := func(b *testing.B) {
		resp, err := c.Fetch(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		if len(resp.Body) != len(html) {
			b.Fatalf("body = %d bytes, want %d", len(resp.Body), len(html))
		}
	}
	b.Run("sequential", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(html)))
		n := 0
		for b.Loop() {
			fetch(b)
			n++
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "req/s")
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(html)))
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				fetch(b)
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	})
}
