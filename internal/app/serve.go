package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/acrawler/acrawler/internal/api"
	"github.com/acrawler/acrawler/internal/crawl"
)

// Serve serves the search API and web page on cfg.Serve.Addr until ctx
// ends, then lets requests in progress finish for cfg.Serve.Grace.
func Serve(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	var err error
	spec, err := parseIndex(cfg.Index)
	if err != nil {
		return err
	}
	log, err := newLogger(stderr, cfg.LogLevel, cfg.LogFormat)
	if err != nil {
		return err
	}
	st, err := openStoreReadOnly(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer st.Close()
	// URLs are looked up spelt as the crawl normalized them.
	if _, err := applyRecorded(ctx, st, &cfg); err != nil {
		return err
	}
	norm, err := cfg.normalizer()
	if err != nil {
		return err
	}
	sc := cfg.Serve
	timeout, grace := time.Duration(sc.Timeout), time.Duration(sc.Grace)
	// OpenSearch answers searches, when named; the store everything else.
	var external crawl.Searcher
	if spec.kind == "opensearch" {
		c, err := openSearchClient(spec, cfg.IndexName)
		if err != nil {
			return err
		}
		external = c
	}
	srv, err := api.New(api.Config{Backend: api.StoreBackend(st, 200), Index: external, Normalize: norm.Normalize, PageRankWeight: sc.PageRankWeight,
		Timeout: timeout, MaxSearches: sc.MaxSearches, MaxClientSearches: sc.MaxClientSearches, Log: log})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", sc.Addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: timeout + 20*time.Second, IdleTimeout: time.Minute}
	fmt.Fprintf(stdout, "acrawler serving %s on http://%s (search: %s, %d requests reading the store at once)\n",
		redactDB(cfg.DB), ln.Addr(), spec.kind, sc.MaxSearches)
	// The stop is announced before the shutdown starts.
	stopCtx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() {
		select {
		case <-ctx.Done():
			fmt.Fprintf(stdout, "acrawler serve: no new connections; requests in progress have %v to finish\n", grace)
			stop()
		case <-stopCtx.Done():
		}
	}()
	// The store is closed (deferred above) only once every request is over.
	if err := serveUntilDone(stopCtx, hs, ln, grace); err != nil {
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
