package indexer_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/index/opensearch"
	"github.com/acrawler/acrawler/internal/indexer"
)

// memOutbox is an outbox in memory with the stores' lease semantics:
// OutboxNext hands out, oldest first, the operations whose lease ended.
type memOutbox struct {
	mu    sync.Mutex
	next  int64
	items []memItem
}

type memItem struct {
	it    crawl.OutboxItem
	until time.Time
}

func (o *memOutbox) upsert(key, text string) {
	o.next++
	u := "http://a.test/" + key
	o.items = append(o.items, memItem{it: crawl.OutboxItem{ID: o.next, Op: "upsert", Key: key, Host: "a.test",
		Page: &crawl.Page{URL: u, Title: "Title " + key, Text: text}}})
}

func (o *memOutbox) delete(key string) {
	o.next++
	o.items = append(o.items, memItem{it: crawl.OutboxItem{ID: o.next, Op: "delete", Key: key, Page: &crawl.Page{}}})
}

func (o *memOutbox) OutboxNext(ctx context.Context, limit int, lease time.Duration, now time.Time) ([]crawl.OutboxItem, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []crawl.OutboxItem
	for i := range o.items {
		if len(out) == limit {
			break
		}
		if o.items[i].until.Before(now) {
			o.items[i].until = now.Add(lease)
			out = append(out, o.items[i].it)
		}
	}
	return out, nil
}

func (o *memOutbox) OutboxDone(ctx context.Context, ids []int64) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	done := map[int64]bool{}
	for _, id := range ids {
		done[id] = true
	}
	kept := o.items[:0]
	for _, m := range o.items {
		if !done[m.it.ID] {
			kept = append(kept, m)
		}
	}
	o.items = kept
	return nil
}

func (o *memOutbox) left() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.items)
}

// startFake serves fake on loopback and returns a client for it.
func startFake(t *testing.T, fake *fakeOpenSearch) *opensearch.Client {
	t.Helper()
	fake.docs, fake.writes = map[string]map[string]any{}, map[string]int{}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	client, err := opensearch.New(opensearch.Config{URL: srv.URL, Index: "acrawler"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	return client
}

// inAnHour is a clock past every lease the tests take.
func inAnHour() time.Time { return time.Now().Add(time.Hour) }

// TestItemRejectedForLoad: OpenSearch answers an overloaded bulk request
// with 200 and es_rejected_execution_exception (429) in the items. Such an
// operation must be sent again, with back-off, before the operations queued
// after it: here the page's document is upserted, then deleted (the page
// changed); delivering the delete first and the upsert after its lease
// would leave a document of a page that no longer has that content.
func TestItemRejectedForLoad(t *testing.T) {
	out := &memOutbox{}
	out.upsert("x", "old content")
	out.delete("x")
	rejections := 0
	fake := &fakeOpenSearch{refuse: func(op, id string) (int, string) {
		if op == "index" && rejections < 1 {
			rejections++
			return 429, "es_rejected_execution_exception"
		}
		return 0, ""
	}}
	client := startFake(t, fake)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stats, err := indexer.New(out, client, indexer.Config{Batch: 1, MaxBackoff: 10 * time.Millisecond}).Drain(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if n := out.left(); n != 0 {
		t.Errorf("Drain returned with %d operations in the outbox, want none", n)
	}
	if stats.Retries != 1 || stats.Failed != 0 || stats.Indexed != 1 || stats.Deleted != 1 {
		t.Errorf("stats = %+v, want 1 retry, 1 indexed, 1 deleted", stats)
	}
	// Once the leases are over, whatever is left is delivered.
	if _, err := indexer.New(out, client, indexer.Config{Batch: 1, Now: inAnHour}).Drain(ctx, false); err != nil {
		t.Fatal(err)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if _, ok := fake.docs["x"]; ok {
		t.Errorf("document x is in the index: its upsert was delivered after its delete")
	}
}

// TestItemRefusedForGood: an operation OpenSearch refuses for its content
// (400 mapper_parsing_exception) fails the same way every time. It is
// logged and leaves the outbox; the others are delivered.
func TestItemRefusedForGood(t *testing.T) {
	out := &memOutbox{}
	out.upsert("a", "fine")
	out.upsert("bad", "does not parse")
	out.upsert("c", "fine")
	fake := &fakeOpenSearch{refuse: func(op, id string) (int, string) {
		if id == "bad" {
			return 400, "mapper_parsing_exception"
		}
		return 0, ""
	}}
	client := startFake(t, fake)
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stats, err := indexer.New(out, client, indexer.Config{MaxBackoff: 10 * time.Millisecond, Log: log}).Drain(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Indexed != 2 || stats.Failed != 1 || stats.Retries != 0 {
		t.Errorf("stats = %+v, want 2 indexed, 1 failed, no retry", stats)
	}
	if n := out.left(); n != 0 {
		t.Errorf("%d operations left in the outbox, want none", n)
	}
	if !strings.Contains(logs.String(), "key=bad") || !strings.Contains(logs.String(), "mapper_parsing_exception") {
		t.Errorf("the refusal was not logged with its key and reason:\n%s", logs.String())
	}
	// It does not come back.
	before := fake.bulks
	if _, err := indexer.New(out, client, indexer.Config{Now: inAnHour}).Drain(ctx, false); err != nil {
		t.Fatal(err)
	}
	if fake.bulks != before {
		t.Errorf("%d more bulk requests later, want none", fake.bulks-before)
	}
}

// TestBulkBoundedInBytes: a batch is sent in requests bounded in bytes, and
// a request OpenSearch finds too large (413, past http.max_content_length,
// or a proxy's lower limit) is split; a single document too large for any
// request is dropped, logged, instead of blocking the outbox forever.
func TestBulkBoundedInBytes(t *testing.T) {
	out := &memOutbox{}
	mib := strings.Repeat("word ", 1<<20/5)
	for i := range 12 {
		out.upsert(fmt.Sprintf("doc%02d", i), mib)
		if i == 5 {
			out.upsert("huge", strings.Repeat(mib, 5))
		}
	}
	fake := &fakeOpenSearch{maxBody: 3 << 20}
	client := startFake(t, fake)
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	stats, err := indexer.New(out, client, indexer.Config{MaxBackoff: 10 * time.Millisecond, Log: log}).Drain(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if len(fake.docs) != 12 || stats.Indexed != 12 || stats.Failed != 1 {
		t.Errorf("index holds %d documents; stats %+v; want 12 indexed, 1 failed", len(fake.docs), stats)
	}
	if n := out.left(); n != 0 {
		t.Errorf("%d operations left in the outbox, want none", n)
	}
	if !strings.Contains(logs.String(), "key=huge") {
		t.Errorf("the refused document was not logged:\n%s", logs.String())
	}
}
