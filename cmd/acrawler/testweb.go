package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/acrawler/acrawler/internal/testweb"
)

func runTestweb(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("acrawler testweb", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:8080", "`address` to serve on")
	seed := fs.Int64("seed", 1, "seed of the generated web")
	sites := fs.Int("sites", 0, "generated sites beside the named ones")
	pages := fs.Int("pages", 60, "content pages per site")
	noFaults := fs.Bool("no-faults", false, "leave out the slow, dripping, oversized and gzip-bomb pages")
	slow := fs.Duration("slow", 3*time.Second, "how long the slow pages take")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("testweb takes no arguments, got %q", fs.Args())
	}
	web := testweb.New(testweb.Config{Seed: *seed, Sites: *sites, PagesPerSite: *pages, NoFaults: *noFaults, Slow: *slow})
	ln, err := net.Listen("tcp", *listen)
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
