// Package indexer drains a store's outbox into an external search index:
// the store records "to index" in the same transaction as the page, and
// the indexer delivers those operations in bulk, retrying with back-off,
// removing an operation only once the index has it (or has refused it for
// good, for its content: that is logged). The index keys
// documents by content hash, so delivering an operation twice (after a
// crash between delivery and removal) leaves one document: nothing is lost
// and nothing is indexed twice.
package indexer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/index/opensearch"
)

// Outbox is what the indexer needs from a store: the pending operations
// of its outbox (crawl.OutboxStore), leased and then removed once
// delivered. Every crawl.Store has it.
type Outbox interface {
	OutboxNext(ctx context.Context, limit int, lease time.Duration, now time.Time) ([]crawl.OutboxItem, error)
	OutboxDone(ctx context.Context, ids []int64) error
}

var _ Outbox = crawl.Store(nil)

// Index is the external index: *opensearch.Client implements it.
type Index interface {
	// EnsureIndex creates the index with its mapping unless it exists. The
	// indexer calls it before its first bulk request and again until it
	// succeeds: a bulk request to a missing index would create it with a
	// mapping guessed from the documents.
	EnsureIndex(ctx context.Context) error
	Bulk(ctx context.Context, upserts []crawl.Document, deletes []string) (failed map[string]opensearch.ItemError, err error)
}

// Config configures an Indexer.
type Config struct {
	Batch      int           // operations taken from the outbox at a time (default 500)
	MaxBytes   int           // bytes per bulk request body (default 5 MiB; a larger operation goes alone)
	Lease      time.Duration // how long a batch is reserved (default 2m)
	Idle       time.Duration // wait when the outbox is empty (default 1s)
	MaxBackoff time.Duration // cap on the retry back-off (default 1m)
	Log        *slog.Logger
	Now        func() time.Time
}

// Indexer delivers outbox operations to an index.
type Indexer struct {
	out     Outbox
	idx     Index
	cfg     Config
	ensured atomic.Bool // EnsureIndex succeeded
}

// New returns an Indexer.
func New(out Outbox, idx Index, cfg Config) *Indexer {
	if cfg.Batch <= 0 {
		cfg.Batch = 500
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = 5 << 20
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 2 * time.Minute
	}
	if cfg.Idle <= 0 {
		cfg.Idle = time.Second
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = time.Minute
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Indexer{out: out, idx: idx, cfg: cfg}
}

// Stats are what a drain did.
type Stats struct {
	Indexed, Deleted, Failed, Retries int
}

// Once delivers one batch. It returns how many operations the outbox
// handed out (0: it is empty) and an error when the index could not take
// them all (those stay in the outbox and come back after the lease).
func (x *Indexer) Once(ctx context.Context, st *Stats) (int, error) {
	items, err := x.out.OutboxNext(ctx, x.cfg.Batch, x.cfg.Lease, x.cfg.Now())
	if err != nil {
		return 0, fmt.Errorf("indexer: %w", err)
	}
	if len(items) == 0 {
		return 0, nil
	}
	_, err = x.deliver(ctx, items, st)
	return len(items), err
}

// ensure makes sure the index exists with its mapping before any bulk
// request; once it has succeeded it is not asked again.
func (x *Indexer) ensure(ctx context.Context) error {
	if x.ensured.Load() {
		return nil
	}
	if err := x.idx.EnsureIndex(ctx); err != nil {
		return fmt.Errorf("indexer: %w", err)
	}
	x.ensured.Store(true)
	return nil
}

// deliver sends a batch, once the index is ensured, in bulk requests of at
// most MaxBytes, and removes from the outbox what the index took, and what
// it refused for good (logged). It returns the operations to send again
// (in outbox order) and why: the index was unavailable, or refused some
// operations for now (429 es_rejected_execution_exception, 5xx, a blocked
// index), which must reach it before anything queued after them.
func (x *Indexer) deliver(ctx context.Context, items []crawl.OutboxItem, st *Stats) ([]crawl.OutboxItem, error) {
	if err := x.ensure(ctx); err != nil {
		return items, err
	}
	// The last operation on a key wins within a batch: the earlier ones
	// are settled with it.
	last := map[string]int{}
	for i, it := range items {
		last[it.Key] = i
	}
	var sends []int // indexes in items
	for i, it := range items {
		if last[it.Key] == i {
			sends = append(sends, i)
		}
	}
	settled := map[string]bool{} // keys the index took or refused for good
	refused := map[string]bool{} // keys it refused for good
	var retry error
	for reqs := x.requests(items, sends); len(reqs) > 0 && retry == nil; {
		req := reqs[0]
		reqs = reqs[1:]
		var upserts []crawl.Document
		var deletes []string
		for _, i := range req {
			if items[i].Op == "upsert" {
				upserts = append(upserts, document(items[i]))
			} else {
				deletes = append(deletes, items[i].Key)
			}
		}
		failed, err := x.idx.Bulk(ctx, upserts, deletes)
		var e *opensearch.Error
		switch {
		case errors.As(err, &e) && e.Status == http.StatusRequestEntityTooLarge && len(req) > 1:
			// Past http.max_content_length, or a proxy's lower limit: halve.
			reqs = append([][]int{req[:len(req)/2], req[len(req)/2:]}, reqs...)
			continue
		case errors.As(err, &e) && e.Status == http.StatusRequestEntityTooLarge:
			failed = map[string]opensearch.ItemError{items[req[0]].Key: {Status: e.Status, Reason: e.Error()}}
		case err != nil:
			retry = fmt.Errorf("indexer: bulk of %d operations: %w", len(req), err)
			continue
		}
		for _, i := range req {
			it := items[i]
			f, bad := failed[it.Key]
			switch {
			case !bad:
				settled[it.Key] = true
			case f.Permanent() || f.Status == http.StatusRequestEntityTooLarge:
				x.cfg.Log.Error("index operation refused; dropped from the outbox (reindex queues it again)", "key", it.Key, "op", it.Op, "status", f.Status, "reason", f.Reason)
				settled[it.Key], refused[it.Key] = true, true
			case retry == nil:
				retry = fmt.Errorf("indexer: index refused %s %s for now: %s: %w", it.Op, it.Key, f.Reason, opensearch.ErrUnavailable)
			}
		}
	}
	var done []int64
	var rest []crawl.OutboxItem
	for _, it := range items {
		if settled[it.Key] {
			done = append(done, it.ID)
		} else {
			rest = append(rest, it)
		}
	}
	if err := x.out.OutboxDone(ctx, done); err != nil {
		return items, fmt.Errorf("indexer: %w", err)
	}
	for _, it := range items {
		switch {
		case !settled[it.Key]:
		case refused[it.Key]:
			st.Failed++
		case it.Op == "upsert":
			st.Indexed++
		default:
			st.Deleted++
		}
	}
	return rest, retry
}

// requests groups the operations to send (indexes in items, in order) into
// bulk requests of at most MaxBytes; a larger operation is a request alone.
func (x *Indexer) requests(items []crawl.OutboxItem, sends []int) [][]int {
	var reqs [][]int
	var cur []int
	size := 0
	for _, i := range sends {
		n := opensearch.DeleteSize(items[i].Key)
		if items[i].Op == "upsert" {
			n = opensearch.UpsertSize(document(items[i]))
		}
		if len(cur) > 0 && size+n > x.cfg.MaxBytes {
			reqs, cur, size = append(reqs, cur), nil, 0
		}
		cur = append(cur, i)
		size += n
	}
	if len(cur) > 0 {
		reqs = append(reqs, cur)
	}
	return reqs
}

// Drain delivers until the outbox is empty (or, with follow, until ctx
// ends). While the index is unavailable (or cannot be ensured, or refuses
// operations for now) it retries what is left of the batch with back-off;
// the outbox keeps everything else.
func (x *Indexer) Drain(ctx context.Context, follow bool) (Stats, error) {
	var st Stats
	for {
		items, err := x.out.OutboxNext(ctx, x.cfg.Batch, x.cfg.Lease, x.cfg.Now())
		if err != nil {
			if ctx.Err() != nil {
				return st, ctx.Err()
			}
			x.cfg.Log.Warn("read the outbox", "err", err)
			if !sleep(ctx, x.cfg.Idle) {
				return st, ctx.Err()
			}
			continue
		}
		if len(items) == 0 {
			if !follow {
				return st, nil
			}
			if !sleep(ctx, x.cfg.Idle) {
				return st, nil
			}
			continue
		}
		backoff := min(time.Second, x.cfg.MaxBackoff)
		for {
			rest, err := x.deliver(ctx, items, &st)
			if err == nil {
				break
			}
			items = rest
			if ctx.Err() != nil {
				return st, ctx.Err()
			}
			st.Retries++
			if st.Retries == 1 || st.Retries%10 == 0 {
				x.cfg.Log.Warn("index unavailable; the outbox keeps the backlog", "err", err, "retry_in", backoff)
			}
			if !sleep(ctx, backoff) {
				return st, ctx.Err()
			}
			backoff = min(backoff*2, x.cfg.MaxBackoff)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// document turns an outbox upsert into an index document.
func document(it crawl.OutboxItem) crawl.Document {
	p := it.Page
	d := crawl.Document{ID: it.Key, URL: p.URL, Title: p.Title, Text: p.MainText, Host: it.Host, Lang: p.Lang,
		FetchedAt: p.FetchedAt, PageRank: it.PageRank}
	if d.Text == "" {
		d.Text = p.Text
	}
	if it.Anchors != "" {
		d.Anchors = []string{it.Anchors}
	}
	if m := p.Meta; m != nil {
		d.Type, d.DOI, d.Authors, d.Year = m.Type, m.DOI, m.Authors, m.Year
		if d.Title == "" {
			d.Title = m.Title
		}
	}
	return d
}

// ErrUnavailable re-exports the index's "try later" error.
var ErrUnavailable = opensearch.ErrUnavailable

var _ = errors.Is
