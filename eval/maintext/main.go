// Command maintext scores the crawl's main-text extraction on
// go-trafilatura's comparison benchmark (983 real pages, each with a few
// snippets its main text must hold and a few of boilerplate it must not),
// beside go-readability and go-trafilatura in the same run.
//
// It is a module of its own, so that the crawler's module neither builds
// it in `go test ./...` nor depends on the extractors it is compared with.
// The benchmark's pages and expectations are read from the go-trafilatura
// module, fetched through the Go module proxy (`go mod download`); nothing
// of the benchmark is copied here. Run it from this directory:
//
//	go run . [-only acrawler] [-misses] [-page file.html]
//	go run . -titles [-misses]
//
// Scoring is the benchmark's (scripts/comparison/content.go): a snippet
// of the page's expectations "with" found in the text is a true positive,
// one missing a false negative; a snippet "without" found is a false
// positive, one missing a true negative; an empty text misses every
// "with" snippet. Precision, recall, accuracy and F1 are computed over
// all pages. Time is CPU time of the process (user and system) per page,
// extractors run one after the other on one goroutine, each from the
// page's bytes: decoding and HTML parsing included. With -rounds, each
// round runs every extractor over every page in turn, so that the
// machine's load, if it changes, weighs on all of them alike.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	readability "github.com/go-shiori/go-readability"
	gt "github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"

	"github.com/acrawler/acrawler/internal/cputime"
	"github.com/acrawler/acrawler/internal/extract"
	"github.com/acrawler/acrawler/internal/htmlx"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

// benchModule is the module that holds the benchmark.
const benchModule = "github.com/markusmobius/go-trafilatura@v1.12.2"

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "maintext:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("maintext", flag.ContinueOnError)
	dir := fs.String("dir", "", "directory of the go-trafilatura module (default: go mod download "+benchModule+")")
	only := fs.String("only", "", "run only the extractors whose names contain this (comma-separated)")
	misses := fs.Bool("misses", false, "list, for the first extractor run, the snippets it gets wrong, page by page")
	page := fs.String("page", "", "print the first extractor's text of this page file and its snippets")
	whereFlag := fs.Bool("where", false, "with -misses: show the markup above each snippet got wrong")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file")
	memprofile := fs.String("memprofile", "", "write a profile of the run's allocations to this file")
	rounds := fs.Int("rounds", 1, "times each extractor reads every page (for steadier time figures)")
	titles := fs.Bool("titles", false, "score the crawl's titles on the pages whose <title> carries the site's name (with -misses: list those got wrong)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		d, err := moduleDir(ctx, benchModule)
		if err != nil {
			return err
		}
		*dir = d
	}
	pages, err := loadPages(*dir)
	if err != nil {
		return err
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if *memprofile != "" {
		defer func() {
			if f, err := os.Create(*memprofile); err == nil {
				pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	if *titles {
		evalTitles(stdout, pages, crawlTitle(), *misses)
		return nil
	}
	var exs []extractor
	for _, e := range extractors() {
		if *only == "" || matchAny(e.name, *only) {
			exs = append(exs, e)
		}
	}
	if len(exs) == 0 {
		return fmt.Errorf("no extractor matches %q", *only)
	}
	if *page != "" {
		return showPage(stdout, exs[0], pages, *page)
	}
	fmt.Fprintf(stdout, "%d pages, %d snippets to find, %d to leave out\n\n", len(pages), countWith(pages), countWithout(pages))
	fmt.Fprintln(stdout, "| extractor | precision | recall | accuracy | F1 | TP | FN | FP | TN | CPU ms/page |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|---|---|---|---|---|")
	// Round by round, each extractor reads every page in turn, so that a
	// change in the machine's load over the run weighs on all alike.
	type result struct {
		ev    eval
		cpu   time.Duration
		fails []string
	}
	results := make([]result, len(exs))
	texts := make([]string, len(pages))
	for r := 0; r < *rounds; r++ {
		for k, e := range exs {
			// Only the extraction is timed: the texts are scored after,
			// and the garbage of what ran before is collected first.
			runtime.GC()
			start := cputime.Process()
			for i, p := range pages {
				texts[i] = e.run(p)
			}
			res := &results[k]
			res.cpu += cputime.Process() - start
			if r > 0 {
				continue // every round gives the same texts
			}
			for i, p := range pages {
				text := texts[i]
				res.ev.add(score(p, text))
				if *misses && k == 0 {
					if *whereFlag {
						var sb strings.Builder
						where(&sb, p, text)
						if sb.Len() > 0 {
							res.fails = append(res.fails, "== "+p.file, sb.String())
						}
					} else {
						res.fails = append(res.fails, missesOf(p, text)...)
					}
				}
			}
		}
	}
	defer func() {
		// Each extractor's time beside the first's, measured in the
		// same run.
		for k := 1; k < len(exs) && results[0].cpu > 0; k++ {
			fmt.Fprintf(stdout, "\nCPU per page of %s: %.2f× that of %s", exs[k].name,
				float64(results[k].cpu)/float64(results[0].cpu), exs[0].name)
		}
		if len(exs) > 1 {
			fmt.Fprintln(stdout)
		}
	}()
	for k, e := range exs {
		ev := results[k].ev
		ms := float64(results[k].cpu.Microseconds()) / 1000 / float64(len(pages)**rounds)
		fmt.Fprintf(stdout, "| %s | %.3f | %.3f | %.3f | %.3f | %d | %d | %d | %d | %.2f |\n",
			e.name, ev.precision(), ev.recall(), ev.accuracy(), ev.f1(), ev.tp, ev.fn, ev.fp, ev.tn, ms)
		if fails := results[k].fails; len(fails) > 0 {
			fmt.Fprintln(stdout)
			for _, f := range fails {
				fmt.Fprintln(stdout, f)
			}
			fmt.Fprintln(stdout)
		}
	}
	return nil
}

func matchAny(name, list string) bool {
	for _, s := range strings.Split(list, ",") {
		if s != "" && strings.Contains(name, s) {
			return true
		}
	}
	return false
}

// extractor turns a page into its main text.
type extractor struct {
	name string
	run  func(p page) string
}

func extractors() []extractor {
	norm, err := urlnorm.New(urlnorm.DefaultOptions())
	if err != nil {
		panic(err)
	}
	// As the engine builds it (internal/engine newExtractor).
	x := extract.New(extract.Options{Resolver: norm, MaxLinks: 1000, Token: "acrawler", MainText: true},
		func() htmlx.Resolver { return norm.PageResolver() })
	y := extract.New(extract.Options{Resolver: norm, MaxLinks: 1000, Token: "acrawler"},
		func() htmlx.Resolver { return norm.PageResolver() })
	return []extractor{
		{"acrawler", func(p page) string {
			return x.HTML(p.body, "text/html", p.url.String(), nil).MainText
		}},
		{"acrawler without main text", func(p page) string {
			// The rest of the extraction, for the cost of the main text
			// alone (the difference); scored on the page's whole text.
			return y.HTML(p.body, "text/html", p.url.String(), nil).Text
		}},
		{"go-readability", func(p page) string {
			doc, err := html.Parse(bytes.NewReader(p.body))
			if err != nil {
				return ""
			}
			a, err := readability.FromDocument(doc, p.url)
			if err != nil {
				return ""
			}
			return a.TextContent
		}},
		{"go-trafilatura", trafilatura(false)},
		{"go-trafilatura+fallback", trafilatura(true)},
	}
}

// crawlTitle returns the title the crawl records for a page.
func crawlTitle() func(p page) string {
	norm, err := urlnorm.New(urlnorm.DefaultOptions())
	if err != nil {
		panic(err)
	}
	x := extract.New(extract.Options{Resolver: norm, MaxLinks: 1000, Token: "acrawler"},
		func() htmlx.Resolver { return norm.PageResolver() })
	return func(p page) string { return x.HTML(p.body, "text/html", p.url.String(), nil).Title }
}

// trafilatura runs go-trafilatura with the benchmark's options.
func trafilatura(fallback bool) func(p page) string {
	return func(p page) string {
		doc, err := html.Parse(bytes.NewReader(p.body))
		if err != nil {
			return ""
		}
		res, err := gt.ExtractDocument(doc, gt.Options{EnableFallback: fallback, ExcludeComments: true,
			Focus: gt.Balanced, OriginalURL: p.url})
		if err != nil {
			return ""
		}
		return res.ContentText
	}
}

// eval counts the snippets found and missed.
type eval struct{ tp, fn, fp, tn int }

func (e *eval) add(o eval) { e.tp, e.fn, e.fp, e.tn = e.tp+o.tp, e.fn+o.fn, e.fp+o.fp, e.tn+o.tn }

func (e eval) precision() float64 { return ratio(e.tp, e.tp+e.fp) }
func (e eval) recall() float64    { return ratio(e.tp, e.tp+e.fn) }
func (e eval) accuracy() float64  { return ratio(e.tp+e.tn, e.tp+e.tn+e.fp+e.fn) }
func (e eval) f1() float64        { return ratio(2*e.tp, 2*e.tp+e.fp+e.fn) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// score scores the text of one page as the benchmark does.
func score(p page, text string) eval {
	var ev eval
	if text == "" {
		ev.fn, ev.tn = len(p.with), len(p.without)
		return ev
	}
	for _, s := range p.with {
		if strings.Contains(text, s) {
			ev.tp++
		} else {
			ev.fn++
		}
	}
	for _, s := range p.without {
		if strings.Contains(text, s) {
			ev.fp++
		} else {
			ev.tn++
		}
	}
	return ev
}

// missesOf lists the snippets a page's text gets wrong.
func missesOf(p page, text string) []string {
	var out []string
	for _, s := range p.with {
		if text == "" || !strings.Contains(text, s) {
			out = append(out, fmt.Sprintf("%s\tmissing\t%q", p.file, s))
		}
	}
	for _, s := range p.without {
		if text != "" && strings.Contains(text, s) {
			out = append(out, fmt.Sprintf("%s\tleaked\t%q", p.file, s))
		}
	}
	return out
}

func showPage(w io.Writer, e extractor, pages []page, file string) error {
	for _, p := range pages {
		if p.file != file {
			continue
		}
		text := e.run(p)
		fmt.Fprintf(w, "%s (%s), %s:\n\n%s\n\n", p.file, p.url, e.name, text)
		where(w, p, text)
		return nil
	}
	return errors.New("no page " + file)
}

func countWith(pages []page) (n int) {
	for _, p := range pages {
		n += len(p.with)
	}
	return n
}

func countWithout(pages []page) (n int) {
	for _, p := range pages {
		n += len(p.without)
	}
	return n
}

// page is one page of the benchmark with its expectations.
type page struct {
	url           *url.URL
	file          string
	body          []byte
	with, without []string
}
