package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/acrawler/acrawler/internal/api"
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/index/opensearch"
	"github.com/acrawler/acrawler/internal/query"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

// searchBackend answers searches from OpenSearch and everything else from
// the store.
type searchBackend struct {
	api.Backend
	os *opensearch.Client
}

func (b searchBackend) Search(ctx context.Context, r crawl.SearchRequest) (crawl.SearchResult, error) {
	res, err := b.os.Search(ctx, opensearch.SearchRequest{Q: query.Parse(r.Query), Limit: r.Limit, Offset: r.Offset,
		Host: r.Host, Type: r.Type, Lang: r.Lang, YearFrom: r.YearFrom, YearTo: r.YearTo, PageRankWeight: r.PageRankWeight})
	if err != nil {
		return crawl.SearchResult{}, err
	}
	out := crawl.SearchResult{Total: res.Total, Estimated: res.TotalLowerBound, Took: res.Took,
		Facets: crawl.Facets{Host: res.Facets.Host, Type: res.Facets.Type, Year: res.Facets.Year}}
	for _, h := range res.Hits {
		out.Hits = append(out.Hits, crawl.SearchHit{ID: crawl.URLID(h.URL), URL: h.URL, Title: h.Title, Snippet: h.Snippet,
			Score: h.Score, Host: h.Host, Type: h.Type, DOI: h.DOI, Authors: h.Authors, Year: h.Year, Lang: h.Lang,
			FetchedAt: h.FetchedAt})
	}
	return out, nil
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("acrawler serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := dbFlag(fs)
	addr := fs.String("addr", "127.0.0.1:8080", "`address` to serve on")
	index := fs.String("index", "embedded", "search index: embedded (the store's own) or opensearch:URL")
	indexName := fs.String("index-name", "acrawler", "OpenSearch index name")
	weight := fs.Float64("pagerank-weight", 0.5, "how much link-graph rank moves the score")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("serve takes no arguments, got %q", fs.Args())
	}
	spec, err := parseIndex(*index)
	if err != nil {
		return err
	}
	log, err := newLogger(stderr, *logLevel, "text")
	if err != nil {
		return err
	}
	st, err := openStoreReadOnly(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	norm, err := urlnorm.New(urlnorm.DefaultOptions())
	if err != nil {
		return err
	}
	backend := api.StoreBackend(st, 200)
	if spec.kind == "opensearch" {
		c, err := openSearchClient(spec, *indexName)
		if err != nil {
			return err
		}
		backend = searchBackend{Backend: backend, os: c}
	}
	srv, err := api.New(api.Config{Backend: backend, Normalize: norm.Normalize, PageRankWeight: *weight, Log: log})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: time.Minute}
	fmt.Fprintf(stdout, "acrawler serving %s on http://%s (search: %s)\n", redactDB(*db), ln.Addr(), spec.kind)
	if err := serveUntilDone(ctx, hs, ln, 5*time.Second); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// serveUntilDone serves HTTP on ln until ctx ends, then shuts the server
// down, giving requests in progress up to grace to finish.
func serveUntilDone(ctx context.Context, srv *http.Server, ln net.Listener, grace time.Duration) error {
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
