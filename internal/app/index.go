package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/index/opensearch"
	"github.com/acrawler/acrawler/internal/indexer"
	"github.com/acrawler/acrawler/internal/rank"
)

// indexSpec is where search documents go: "embedded" (the store's own
// full-text index, always kept) or "opensearch:URL".
type indexSpec struct {
	kind string // "embedded" or "opensearch"
	url  string
}

func parseIndex(s string) (indexSpec, error) {
	switch {
	case s == "" || s == "embedded":
		return indexSpec{kind: "embedded"}, nil
	case strings.HasPrefix(s, "opensearch:"):
		u := strings.TrimPrefix(s, "opensearch:")
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return indexSpec{}, usagef("--index %q: want opensearch:http(s)://host:port", s)
		}
		return indexSpec{kind: "opensearch", url: u}, nil
	}
	return indexSpec{}, usagef("--index %q: want embedded or opensearch:URL", s)
}

// openSearchClient connects to the OpenSearch index named by spec; the
// user and password come from the URL or ACRAWLER_INDEX_USER/_PASSWORD.
func openSearchClient(spec indexSpec, name string) (*opensearch.Client, error) {
	c, err := opensearch.New(opensearch.Config{URL: spec.url, Index: name,
		Username: os.Getenv("ACRAWLER_INDEX_USER"), Password: os.Getenv("ACRAWLER_INDEX_PASSWORD"), Timeout: 30 * time.Second})
	if err != nil {
		return nil, UsageError{err}
	}
	return c, nil
}

// drainFor delivers the outbox to OpenSearch for at most d (the backlog
// stays in the outbox if the index is away longer).
func drainFor(ctx context.Context, st crawl.Store, c *opensearch.Client, d time.Duration, log *slog.Logger) (indexer.Stats, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if err := c.EnsureIndex(ctx); err != nil {
		return indexer.Stats{}, err
	}
	stats, err := indexer.New(st, c, indexer.Config{Log: log}).Drain(ctx, false)
	if errors.Is(err, context.DeadlineExceeded) {
		return stats, fmt.Errorf("the index did not take the whole backlog within %s; it stays queued: %w", d, err)
	}
	return stats, err
}

// rankLocker is a store that the processes of a fleet share (PostgreSQL),
// whose rank passes take turns: LockRanks holds its rank lock until
// unlock is called, waiting for it with wait, else answering ok false at
// once when another process holds it.
type rankLocker interface {
	LockRanks(ctx context.Context, wait bool) (unlock func(), ok bool, err error)
}

// lockedRanks is computeRanks under st's rank lock, when it has one (see
// rankLocker): with wait after the pass another process is running, else
// not at all while one runs (ran false).
func lockedRanks(ctx context.Context, st crawl.RankStore, wait bool) (nodes, edges int, ran bool, err error) {
	if l, ok := st.(rankLocker); ok {
		unlock, ok, err := l.LockRanks(ctx, wait)
		if err != nil || !ok {
			return 0, 0, false, err
		}
		defer unlock()
	}
	nodes, edges, err = computeRanks(ctx, st)
	return nodes, edges, true, err
}

// computeRanks runs PageRank over the stored link graph and records it.
func computeRanks(ctx context.Context, st crawl.RankStore) (nodes, edges int, err error) {
	// A store that can refresh its index's anchor texts apart from the
	// ranks does it while the graph is read and ranked, on another core.
	// It has ended, one way or the other, when computeRanks returns.
	refreshed := func() error { return nil }
	if r, ok := st.(anchorRefresher); ok {
		refreshCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- r.RefreshAnchors(refreshCtx) }()
		refreshed = sync.OnceValue(func() error { return <-done })
		defer func() {
			cancel()
			refreshed()
		}()
	}
	b := rank.NewBuilder(1 << 16)
	for e, err := range st.LinkGraph(ctx) {
		if err != nil {
			return 0, 0, err
		}
		b.AddEdge(int64(e[0]), int64(e[1]))
	}
	g := b.Build()
	res, err := rank.PageRank(ctx, g, rank.Options{})
	if err != nil {
		return 0, 0, err
	}
	ranks := make(map[crawl.ID]float64, g.Nodes())
	n := float64(g.Nodes())
	for i, s := range res.Scores {
		ranks[crawl.ID(g.ID(i))] = s * n // 1 is the average page
	}
	if err := refreshed(); err != nil {
		return 0, 0, err
	}
	if err := st.SetRanks(ctx, ranks); err != nil {
		return 0, 0, err
	}
	return g.Nodes(), g.Edges(), nil
}

// anchorRefresher is a store that writes its full-text index's new anchor
// texts apart from the ranks (SQLite: RefreshAnchors, most of the pass).
type anchorRefresher interface {
	RefreshAnchors(ctx context.Context) error
}

// Rank computes PageRank over the stored link graph and records it (a
// crawl does so when it ends).
func Rank(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	log, err := newLogger(stderr, cfg.LogLevel, cfg.LogFormat)
	if err != nil {
		return err
	}
	st, err := openStoreWith(ctx, cfg.DB, storeOptions{pgConns: cfg.PGConns, nearDistance: crawl.DefaultNearDistance, log: log})
	if err != nil {
		return err
	}
	defer st.Close()
	start := time.Now()
	nodes, edges, _, err := lockedRanks(ctx, st, true)
	if err != nil {
		return fmt.Errorf("rank: %w", err)
	}
	fmt.Fprintf(stdout, "ranked %d pages over %d links in %s; inbound anchor texts re-indexed\n", nodes, edges, time.Since(start).Round(time.Millisecond))
	return nil
}

// Reindex rebuilds a search index from the store: the embedded one, or
// the OpenSearch index cfg.Index names (every document queued again and
// delivered, waiting up to cfg.Reindex.Wait).
func Reindex(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	var err error
	spec, err := parseIndex(cfg.Index)
	if err != nil {
		return err
	}
	log, err := newLogger(stderr, cfg.LogLevel, cfg.LogFormat)
	if err != nil {
		return err
	}
	if spec.kind == "embedded" {
		st, err := openStoreWith(ctx, cfg.DB, storeOptions{pgConns: cfg.PGConns, nearDistance: crawl.DefaultNearDistance, log: log})
		if err != nil {
			return err
		}
		defer st.Close()
		if _, err := applyRecorded(ctx, st, &cfg); err != nil {
			return err
		}
		n, err := st.RebuildIndex(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "embedded index rebuilt: %d documents\n", n)
		return nil
	}
	client, err := openSearchClient(spec, cfg.IndexName)
	if err != nil {
		return err
	}
	st, err := openStoreWith(ctx, cfg.DB, storeOptions{pgConns: cfg.PGConns, outbox: true, nearDistance: crawl.DefaultNearDistance, log: log})
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := applyRecorded(ctx, st, &cfg); err != nil {
		return err
	}
	n, err := st.RequeueIndex(ctx)
	if err != nil {
		return err
	}
	stats, err := drainFor(ctx, st, client, time.Duration(cfg.Reindex.Wait), log)
	fmt.Fprintf(stdout, "OpenSearch index %s: %d documents queued, %d indexed, %d deleted, %d refused\n", cfg.IndexName, n, stats.Indexed, stats.Deleted, stats.Failed)
	return err
}
