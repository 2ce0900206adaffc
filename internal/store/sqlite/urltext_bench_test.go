package sqlite_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/klauspost/compress/s2"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/htmlx"
	"github.com/acrawler/acrawler/internal/urlnorm"
	"github.com/acrawler/acrawler/internal/urlrun"
)

// BenchmarkURLTextBytes measures what the text of real URLs takes in a
// frontier, by encoding: the URLs are the links of the 983 real pages of
// go-trafilatura's comparison benchmark (scripts/comparison/data.go names
// each page's URL), resolved and normalized as a crawl does, deduplicated,
// each host's in the order the pages link to them. The module is
// downloaded through the Go module proxy (nothing of it is copied here),
// so the benchmark runs only with ACRAWLER_URLTEXT_PAGES=1:
//
//	ACRAWLER_URLTEXT_PAGES=1 go test -run '^$' -bench BenchmarkURLTextBytes -benchtime 1x ./internal/store/sqlite
//
// It reports bytes a URL: the whole URL; host-relative, as urls.url holds
// it (crawl.RelURL); front-coded within each host in runs of 64 (each URL
// as the length it shares with the one before, the length of the rest and
// the rest, in varints); and the host-relative texts of each run of 64
// compressed together with S2.
func BenchmarkURLTextBytes(b *testing.B) {
	if os.Getenv("ACRAWLER_URLTEXT_PAGES") == "" {
		b.Skip("set ACRAWLER_URLTEXT_PAGES=1 to read go-trafilatura's comparison pages (downloaded through the Go module proxy)")
	}
	const mod, run = "github.com/markusmobius/go-trafilatura@v1.12.2", 64
	out, err := exec.CommandContext(context.Background(), "go", "mod", "download", "-json", mod).Output()
	if err != nil {
		b.Fatalf("go mod download %s: %v", mod, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		b.Fatalf("go mod download %s: %v %s", mod, err, m.Error)
	}
	data, err := os.ReadFile(filepath.Join(m.Dir, "scripts", "comparison", "data.go"))
	if err != nil {
		b.Fatal(err)
	}
	norm, err := urlnorm.New(urlnorm.Options{})
	if err != nil {
		b.Fatal(err)
	}
	entry := regexp.MustCompile(`(?m)^\t"(https?://[^"]+)": \{\n\t\tFile: +"([^"]+)"`)
	seen := map[string]bool{}
	byHost := map[string][]string{}
	var hosts []string
	pages := 0
	for _, e := range entry.FindAllSubmatch(data, -1) {
		pageURL, file := string(e[1]), string(e[2])
		var body []byte
		for _, dir := range []string{"comparison", "mock"} {
			if body, err = os.ReadFile(filepath.Join(m.Dir, "test-files", dir, file)); err == nil {
				break
			}
		}
		if err != nil {
			continue
		}
		base, err := norm.Normalize(pageURL)
		if err != nil {
			continue
		}
		utf8, _, err := htmlx.Decode(body, "text/html")
		if err != nil {
			continue
		}
		doc, err := htmlx.Parse(utf8, base, htmlx.Options{Resolver: norm})
		if err != nil {
			continue
		}
		pages++
		for _, l := range append([]htmlx.Link{{URL: base}}, doc.Links...) {
			if seen[l.URL] {
				continue
			}
			seen[l.URL] = true
			key := crawl.HostKey(l.URL)
			if byHost[key] == nil {
				hosts = append(hosts, key)
			}
			byHost[key] = append(byHost[key], crawl.RelURL(l.URL, key))
		}
	}
	if pages < 900 {
		b.Fatalf("read %d pages of %s, want the comparison's 983 or near", pages, mod)
	}
	var urls, whole, rel, frontCoded, compressed, packed int
	var entries []urlrun.Entry
	var record []byte
	for b.Loop() {
		urls, whole, rel, frontCoded, compressed, packed = 0, 0, 0, 0, 0, 0
		for _, key := range hosts {
			list := byHost[key]
			urls += len(list)
			for i := 0; i < len(list); i += run {
				var block []byte
				prev := ""
				// The run as the packed layout would keep it: each URL with
				// a priority, depth, kind and way found as a crawl gives
				// them, found a few milliseconds after the one before.
				entries = entries[:0]
				for j, r := range list[i:min(i+run, len(list))] {
					entries = append(entries, urlrun.Entry{Path: r, Priority: int64(j % 9), Depth: 1 + int64(j%3), Via: 1, Discovered: 1_800_000_000_000 + int64(i+j)*7})
				}
				var err error
				if record, err = urlrun.Encode(record[:0], entries); err != nil {
					b.Fatal(err)
				}
				packed += len(record)
				for _, r := range list[i:min(i+run, len(list))] {
					whole += len(crawl.FullURL(r, key))
					rel += len(r)
					shared := 0
					for shared < len(prev) && shared < len(r) && prev[shared] == r[shared] {
						shared++
					}
					frontCoded += len(binary.AppendUvarint(binary.AppendUvarint(nil, uint64(shared)), uint64(len(r)-shared))) + len(r) - shared
					prev = r
					block = append(append(block, r...), 0)
				}
				compressed += len(s2.Encode(nil, block))
			}
		}
	}
	per := func(n int) float64 { return float64(n) / float64(urls) }
	b.ReportMetric(float64(pages), "pages")
	b.ReportMetric(float64(urls), "urls")
	b.ReportMetric(float64(urls)/float64(len(hosts)), "urls/host")
	b.ReportMetric(per(whole), "whole-B/URL")
	b.ReportMetric(per(rel), "host-relative-B/URL")
	b.ReportMetric(per(frontCoded), "front-coded-B/URL")
	b.ReportMetric(per(compressed), "s2-runs-B/URL")
	b.ReportMetric(per(packed), "urlrun-B/URL")
}
