package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/cputime"
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/testweb"
)

// BenchmarkCommitWorks measures what keeping works costs the write path:
// the enumerable pages of the default test web (about a third of them
// copies of papers: landing pages, PDFs, deposits, preprints, mirrors,
// with the metadata their pages state), claimed and committed in batches
// of 32 as a crawl commits them, with works (works) and without
// (no-works). It reports the commits' wall time and the process's CPU
// time during them, per page; the differences are the clustering's cost.
//
//	go test -run '^$' -bench BenchmarkCommitWorks -benchtime 3x ./internal/store/sqlite
func BenchmarkCommitWorks(b *testing.B) {
	pages := benchWorkPages()
	for _, off := range []bool{false, true} {
		name := "works"
		if off {
			name = "no-works"
		}
		b.Run(name, func(b *testing.B) {
			noWorks = off
			defer func() { noWorks = false }()
			var total, cpu time.Duration
			for b.Loop() {
				wall, c := commitAll(b, pages)
				total, cpu = total+wall, cpu+c
			}
			n := float64(b.N * len(pages))
			b.ReportMetric(float64(total.Microseconds())/n, "µs/page")
			b.ReportMetric(float64(cpu.Microseconds())/n, "cpu-µs/page")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// benchWorkPages makes a page for every enumerable page of the default
// test web: a paper's copies carry the metadata its truth states (a PDF
// as a PDF's would be: no venue, no sources), other pages only text.
func benchWorkPages() []*crawl.Page {
	web := testweb.New(testweb.Config{Seed: 1, NoFaults: true})
	paperOf := map[string]testweb.Paper{}
	for _, p := range web.Papers() {
		for _, u := range p.URLs {
			paperOf[u] = p
		}
	}
	text := strings.Repeat("Words of a page about crawling and research. ", 100)
	var out []*crawl.Page
	for i, info := range web.Pages() {
		if info.Status != 200 {
			continue
		}
		p := &crawl.Page{URL: info.URL, Status: 200, ContentType: "text/html", Title: info.Title, Text: text + info.URL}
		h := crawl.HashID(p.Text)
		p.ContentHash = []byte(fmt.Sprintf("%016x%016x", uint64(h), uint64(h)))
		if pp, ok := paperOf[info.URL]; ok {
			m := &crawl.Metadata{Title: pp.Title, Year: pp.Year, DOI: pp.DOI, Type: "article", Sources: []string{"highwire"}}
			if c := info.Citation; c != nil {
				m.Title, m.Authors, m.Venue, m.DOI, m.PDFURL = c.Title, c.Authors, c.Venue, c.DOI, c.PDF
			}
			if info.Kind == "pdf" {
				p.ContentType = "application/pdf"
				m.Sources, m.Venue, m.Authors = nil, "", []string{fmt.Sprintf("Author %d", i%7)}
			}
			p.Meta = m
		}
		out = append(out, p)
	}
	return out
}

// commitAll records pages in a fresh database as a crawl would and
// returns the wall and CPU time the commits took.
func commitAll(b *testing.B, pages []*crawl.Page) (wall, cpu time.Duration) {
	db, wall, cpu := openCommitted(b, pages)
	db.Close()
	return wall, cpu
}

// openCommitted commits pages into a new database as commitAll does and
// returns it open, with the time the commits took. The timer is stopped
// meanwhile and started again.
func openCommitted(b *testing.B, pages []*crawl.Page) (db *DB, wall, cpu time.Duration) {
	b.StopTimer()
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "works.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	byURL := map[string]*crawl.Page{}
	var urls []crawl.NewURL
	for _, p := range pages {
		host := crawl.HostKey(p.URL)
		urls = append(urls, crawl.NewURL{ID: crawl.URLID(p.URL), URL: p.URL, HostID: crawl.HashID(host), Host: host, Via: crawl.ViaSeed})
		byURL[p.URL] = p
	}
	if _, err := db.AddURLs(ctx, urls, crawl.Limits{}); err != nil {
		b.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	var spent, spentCPU time.Duration
	for {
		hs, err := db.ClaimHosts(ctx, "b", 1000, time.Hour, now)
		if err != nil {
			b.Fatal(err)
		}
		if len(hs) == 0 {
			break
		}
		var batch []crawl.Result
		flush := func() {
			start, startCPU := time.Now(), cputime.Process()
			if _, err := db.Commit(ctx, batch, crawl.Limits{}); err != nil {
				b.Fatal(err)
			}
			spent, spentCPU = spent+time.Since(start), spentCPU+cputime.Process()-startCPU
			batch = batch[:0]
		}
		for _, h := range hs {
			cs, _, err := db.ClaimURLs(ctx, "b", h.ID, 100000, crawl.Limits{}, now)
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range cs {
				p := *byURL[c.URL]
				p.FetchedAt = now
				batch = append(batch, crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Page: &p})
				if len(batch) == 32 {
					flush()
				}
			}
		}
		if len(batch) > 0 {
			flush()
		}
		var rel []crawl.HostRelease
		for _, h := range hs {
			rel = append(rel, crawl.HostRelease{ID: h.ID})
		}
		if err := db.ReleaseHosts(ctx, "b", rel); err != nil {
			b.Fatal(err)
		}
	}
	if n, err := db.WorkCount(ctx); err != nil || (n == 0) != noWorks {
		b.Fatalf("%d works (%v) with works off = %v", n, err, noWorks)
	}
	b.StartTimer()
	return db, spent, spentCPU
}

// BenchmarkReparseWorks reparses every copy of a paper of the default test
// web (its pages committed first, untimed), as acrawler reparse or a
// recrawl does, with metadata changed:
//
//   - abstract: a new abstract (the copy stays in its work, which is
//     merged again);
//   - title: a title of its own (the copy leaves its work, which is merged
//     again or split, and starts a work of its own);
//   - same: the metadata as committed (one lookup).
//
// It reports the time per reparsed copy, with the works and without.
func BenchmarkReparseWorks(b *testing.B) {
	pages := benchWorkPages()
	var copies []*crawl.Page
	for _, p := range pages {
		if p.Meta != nil {
			copies = append(copies, p)
		}
	}
	change := map[string]func(m crawl.Metadata, i int) crawl.Metadata{
		"same": func(m crawl.Metadata, _ int) crawl.Metadata { return m },
		"abstract": func(m crawl.Metadata, i int) crawl.Metadata {
			m.Abstract = fmt.Sprintf("A revised abstract, number %d.", i)
			return m
		},
		"title": func(m crawl.Metadata, i int) crawl.Metadata {
			m.Title, m.DOI, m.PDFURL = fmt.Sprintf("A Title of Its Own, Number %d", i), "", ""
			return m
		},
	}
	for _, name := range []string{"same", "abstract", "title"} {
		for _, off := range []bool{false, true} {
			sub := name + "/works"
			if off {
				sub = name + "/no-works"
			}
			b.Run(sub, func(b *testing.B) {
				noWorks = off
				defer func() { noWorks = false }()
				ctx := context.Background()
				var total, cpu time.Duration
				for b.Loop() {
					db, _, _ := openCommitted(b, pages)
					start, startCPU := time.Now(), cputime.Process()
					for i, p := range copies {
						m := change[name](*p.Meta, i)
						q := &crawl.Page{ID: crawl.URLID(p.URL), URL: p.URL, Title: m.Title, Text: p.Text, ContentHash: p.ContentHash, Meta: &m}
						if err := db.Reparse(ctx, q, nil); err != nil {
							b.Fatal(err)
						}
					}
					total, cpu = total+time.Since(start), cpu+cputime.Process()-startCPU
					b.StopTimer()
					db.Close()
					b.StartTimer()
				}
				n := float64(b.N * len(copies))
				b.ReportMetric(float64(total.Microseconds())/n, "µs/copy")
				b.ReportMetric(float64(cpu.Microseconds())/n, "cpu-µs/copy")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}
