package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/acrawler/acrawler/internal/api"
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("acrawler serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := dbFlag(fs)
	addr := fs.String("addr", "127.0.0.1:8080", "`address` to serve on")
	index := fs.String("index", "embedded", "search index: embedded (the store's own) or opensearch:URL")
	indexName := fs.String("index-name", "acrawler", "OpenSearch index name")
	weight := fs.Float64("pagerank-weight", 0.5, "how much link-graph rank moves the score")
	maxSearches := fs.Int("max-searches", api.DefaultMaxSearches(), "requests that read the store at once (searches, documents, the dashboard); more wait a second, then get 503 with Retry-After")
	timeout := fs.Duration("timeout", api.DefaultTimeout, "time budget of a request; past it the answer is 503 with Retry-After")
	grace := fs.Duration("grace", 5*time.Second, "on a stop, how long requests in progress may take to finish")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("serve takes no arguments, got %q", fs.Args())
	}
	if *maxSearches < 1 {
		return usagef("--max-searches must be at least 1, got %d", *maxSearches)
	}
	if *timeout <= 0 || *grace < 0 {
		return usagef("--timeout must be positive and --grace not negative, got %v and %v", *timeout, *grace)
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
	// OpenSearch answers searches, when named; the store everything else.
	var external crawl.Searcher
	if spec.kind == "opensearch" {
		c, err := openSearchClient(spec, *indexName)
		if err != nil {
			return err
		}
		external = c
	}
	srv, err := api.New(api.Config{Backend: api.StoreBackend(st, 200), Index: external, Normalize: norm.Normalize, PageRankWeight: *weight,
		Timeout: *timeout, MaxSearches: *maxSearches, Log: log})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: *timeout + 20*time.Second, IdleTimeout: time.Minute}
	fmt.Fprintf(stdout, "acrawler serving %s on http://%s (search: %s, %d requests reading the store at once)\n",
		redactDB(*db), ln.Addr(), spec.kind, *maxSearches)
	// The stop is announced before the shutdown starts.
	stopCtx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() {
		select {
		case <-ctx.Done():
			fmt.Fprintf(stdout, "acrawler serve: no new connections; requests in progress have %v to finish\n", *grace)
			stop()
		case <-stopCtx.Done():
		}
	}()
	// The store is closed (deferred above) only once every request is over.
	if err := serveUntilDone(stopCtx, hs, ln, *grace); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// serveUntilDone serves HTTP on ln until ctx ends, then shuts the server
// down: it stops accepting, lets requests in progress finish for up to
// grace, then closes the connections left, which cancels their requests.
// It returns only when every handler has returned (what they use can be
// closed then), with Serve's error or the shutdown's.
func serveUntilDone(ctx context.Context, srv *http.Server, ln net.Listener, grace time.Duration) error {
	var handlers sync.WaitGroup
	h := srv.Handler
	if h == nil {
		h = http.DefaultServeMux
	}
	srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handlers.Add(1)
		defer handlers.Done()
		h.ServeHTTP(w, r)
	})
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	var err error
	select {
	case err = <-served: // Serve failed (it returns ErrServerClosed only after Shutdown or Close)
		srv.Close()
		handlers.Wait()
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err = srv.Shutdown(sctx); errors.Is(err, context.DeadlineExceeded) {
		// Closing the connections cancels the requests' contexts, which
		// the handlers heed.
		err = fmt.Errorf("shutdown: requests still in progress after %v were canceled", grace)
		if cerr := srv.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close: %w", cerr))
		}
	} else if err != nil {
		err = fmt.Errorf("shutdown: %w", err)
	}
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	handlers.Wait()
	return err
}
