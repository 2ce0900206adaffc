package app

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/acrawler/acrawler/internal/testweb"
)

// ServeTestWeb serves the synthetic test web (an origin and an HTTP proxy)
// on cfg.Synthetic.Listen until ctx ends.
func ServeTestWeb(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	var err error
	c := cfg.Synthetic
	web := testweb.New(testweb.Config{Seed: c.Seed, Sites: c.Sites, PagesPerSite: c.Pages, NoFaults: c.NoFaults, Slow: time.Duration(c.Slow)})
	ln, err := net.Listen("tcp", c.Listen)
	if err != nil {
		return fmt.Errorf("testweb: %w", err)
	}
	srv := &http.Server{Handler: web, ReadHeaderTimeout: 10 * time.Second}
	addr := ln.Addr().String()
	fmt.Fprintf(stdout, "acrawler test web serving %d sites on http://%s (origin and HTTP proxy)\n", len(web.Sites()), addr)
	fmt.Fprintf(stdout, "try:\n  acrawler crawl --proxy http://%s --delay 100ms --max-pages 500 %s\n", addr, web.Seeds()[0])
	if err := serveUntilDone(ctx, srv, ln, 2*time.Second); err != nil {
		return fmt.Errorf("testweb: %w", err)
	}
	return nil
}

// testWebServer is the synthetic web served on a loopback port.
type testWebServer struct {
	Addr string
	srv  *http.Server
}

// startTestWeb serves a test web on 127.0.0.1 at a free port.
func startTestWeb(cfg testweb.Config) (*testWebServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("testweb: %w", err)
	}
	srv := &http.Server{Handler: testweb.New(cfg), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return &testWebServer{Addr: ln.Addr().String(), srv: srv}, nil
}

// Close stops the server.
func (s *testWebServer) Close() error { return s.srv.Close() }
