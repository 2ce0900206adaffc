package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

func TestOutbox(t *testing.T) {
	testDSN(t)
	storetest.RunOutbox(t, func(t *testing.T) func() (crawl.Store, error) {
		dsn, schema := freshSchema(t)
		return func() (crawl.Store, error) {
			return postgres.Open(context.Background(), dsn, postgres.Options{Schema: schema, Outbox: true})
		}
	})
}

// openOutbox opens a store with its outbox on.
func openOutbox(t *testing.T, dsn, schema string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), dsn, postgres.Options{Schema: schema, MaxConns: 4, Outbox: true})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// commitScheduled records n indexable pages on a few hosts, each due again
// at due, and releases their hosts.
func commitScheduled(t *testing.T, s crawl.Store, n int, now, due time.Time) {
	t.Helper()
	var urls []crawl.NewURL
	for i := range n {
		u := fmt.Sprintf("http://h%d.test/p%d", i%6, i)
		urls = append(urls, crawl.NewURL{ID: crawl.URLID(u), URL: u, HostID: crawl.URLID(fmt.Sprintf("http://h%d.test", i%6)),
			Host: fmt.Sprintf("http://h%d.test", i%6), Via: crawl.ViaSeed})
	}
	cs := claimAll(t, s, now, urls...)
	var rs []crawl.Result
	for _, c := range cs {
		p := &crawl.Page{URL: c.URL, Status: 200, ContentType: "text/html", Title: "Page " + c.URL, Text: "text of " + c.URL,
			ContentHash: []byte("hash of " + c.URL), Bytes: 10, FetchedAt: now}
		rs = append(rs, crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Page: p,
			Revisit: &crawl.Revisit{Interval: due.Sub(now), NextCheck: due, Changed: true}})
	}
	ctx := context.Background()
	if _, err := s.Commit(ctx, rs, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	var rel []crawl.HostRelease
	for i := range 6 {
		rel = append(rel, crawl.HostRelease{ID: crawl.HashID(fmt.Sprintf("http://h%d.test", i))})
	}
	if err := s.ReleaseHosts(ctx, "p", rel); err != nil {
		t.Fatal(err)
	}
}

// Two processes draining the outbox at once never get the same operation
// within a lease, and together get every one.
func TestOutboxLeasesAcrossProcesses(t *testing.T) {
	dsn, schema := freshSchema(t)
	a, b := openOutbox(t, dsn, schema), openOutbox(t, dsn, schema)
	now := time.Unix(1_800_000_000, 0)
	const n = 60
	commitScheduled(t, a, n, now, now.Add(time.Hour))
	ctx := context.Background()
	var mu sync.Mutex
	seen := map[int64]int{}
	var wg sync.WaitGroup
	for _, s := range []*postgres.DB{a, b, a, b} {
		wg.Go(func() {
			for range 100 {
				items, err := s.OutboxNext(ctx, 3, time.Hour, now)
				if err != nil {
					t.Error(err)
					return
				}
				if len(items) == 0 {
					return
				}
				mu.Lock()
				for _, it := range items {
					seen[it.ID]++
					if it.Op != "upsert" || it.Page == nil || it.Page.Title == "" {
						t.Errorf("OutboxNext item %+v, want an upsert with its page", it)
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != n {
		t.Errorf("%d operations handed out, want %d", len(seen), n)
	}
	for id, k := range seen {
		if k != 1 {
			t.Errorf("operation %d handed out %d times within its lease", id, k)
		}
	}
}

// Two processes scheduling due pages at once requeue each page once.
func TestScheduleDueAcrossProcesses(t *testing.T) {
	dsn, schema := freshSchema(t)
	a, b := open(t, dsn, schema), open(t, dsn, schema)
	now := time.Unix(1_800_000_000, 0)
	const n = 60
	commitScheduled(t, a, n, now, now.Add(time.Hour))
	ctx := context.Background()
	later := now.Add(2 * time.Hour)
	if k, err := a.DueCount(ctx, later); err != nil || k != n {
		t.Fatalf("DueCount = %d, %v; want %d", k, err, n)
	}
	var mu sync.Mutex
	total := 0
	var wg sync.WaitGroup
	for _, s := range []*postgres.DB{a, b, a, b} {
		wg.Go(func() {
			for range 100 {
				k, err := s.ScheduleDue(ctx, later, false, 7)
				if err != nil {
					t.Error(err)
					return
				}
				if k == 0 {
					return
				}
				mu.Lock()
				total += k
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if total != n {
		t.Errorf("ScheduleDue requeued %d pages in all, want %d", total, n)
	}
	c, err := a.Counters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Queued != n || c.Done != 0 {
		t.Errorf("counters after scheduling: queued %d done %d, want %d and 0", c.Queued, c.Done, n)
	}
	if k, _ := b.DueCount(ctx, later); k != 0 {
		t.Errorf("DueCount after scheduling = %d, want 0", k)
	}
	// Every host holds its pages in its queue again.
	hs, err := b.ClaimHosts(ctx, "q", 100, time.Hour, later)
	if err != nil || len(hs) != 6 {
		t.Fatalf("ClaimHosts = %d hosts, %v; want 6", len(hs), err)
	}
	claimed := 0
	for _, h := range hs {
		cs, _, err := b.ClaimURLs(ctx, "q", h.ID, 100, crawl.Limits{}, later)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if c.Prev == nil || c.Prev.Interval != time.Hour || string(c.Prev.ContentHash) != "hash of "+c.URL {
				t.Errorf("claim of %s: Prev = %+v, want the recorded fetch", c.URL, c.Prev)
			}
		}
		claimed += len(cs)
	}
	if claimed != n {
		t.Errorf("claimed %d URLs after scheduling, want %d", claimed, n)
	}
}
