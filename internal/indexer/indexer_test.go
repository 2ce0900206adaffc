package indexer_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/index/opensearch"
	"github.com/acrawler/acrawler/internal/indexer"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// fakeOpenSearch speaks enough of OpenSearch's _bulk API (request NDJSON,
// documented response shape) to count what reaches the index; it fails
// the first failures bulk requests with 503.
type fakeOpenSearch struct {
	mu       sync.Mutex
	failures int
	docs     map[string]map[string]any
	writes   map[string]int // upserts received per document ID
	bulks    int
}

func (f *fakeOpenSearch) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !strings.HasSuffix(r.URL.Path, "/_bulk") {
		http.Error(w, `{"error":"unexpected"}`, http.StatusNotFound)
		return
	}
	if f.failures > 0 {
		f.failures--
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"error":{"type":"cluster_block_exception"},"status":503}`))
		return
	}
	f.bulks++
	var items []map[string]any
	sc := bufio.NewScanner(r.Body)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var action map[string]map[string]any
		if err := json.Unmarshal(line, &action); err != nil {
			http.Error(w, "bad action line", 400)
			return
		}
		for op, meta := range action {
			id := fmt.Sprint(meta["_id"])
			switch op {
			case "index", "create", "update":
				if !sc.Scan() {
					http.Error(w, "missing source", 400)
					return
				}
				var doc map[string]any
				if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
					http.Error(w, "bad source", 400)
					return
				}
				f.docs[id] = doc
				f.writes[id]++
				items = append(items, map[string]any{op: map[string]any{"_id": id, "status": 201, "result": "created"}})
			case "delete":
				delete(f.docs, id)
				items = append(items, map[string]any{"delete": map[string]any{"_id": id, "status": 200, "result": "deleted"}})
			}
		}
	}
	json.NewEncoder(w).Encode(map[string]any{"took": 3, "errors": false, "items": items})
}

// TestOutboxSurvivesOutage indexes pages through the outbox while the
// index fails several times: every document ends up indexed exactly once,
// replaced documents are deleted, and the outbox empties.
func TestOutboxSurvivesOutage(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "o.db"), sqlite.Options{Outbox: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var urls []crawl.NewURL
	for i := range 30 {
		urls = append(urls, storetest.U(fmt.Sprintf("http://a.test/doc%02d", i), 0, 0))
	}
	if _, err := st.AddURLs(ctx, urls, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	hs, _ := st.ClaimHosts(ctx, "p", 1, time.Minute, now)
	cs, _, _ := st.ClaimURLs(ctx, "p", hs[0].ID, 100, crawl.Limits{}, now)
	var rs []crawl.Result
	for _, c := range cs {
		text := "document text of " + c.URL
		rs = append(rs, crawl.Result{URL: c, Outcome: crawl.OutcomeDone, Page: &crawl.Page{URL: c.URL, Status: 200,
			ContentType: "text/html", Title: "Title " + c.URL, Text: text, FetchedAt: now,
			ContentHash: []byte(fmt.Sprintf("%032s", c.URL[len(c.URL)-5:]))}})
	}
	if _, err := st.Commit(ctx, rs, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	// One page changes: its old document must go.
	p, _ := st.Page(ctx, cs[0].ID)
	p.Text, p.ContentHash = "changed", []byte("changedchangedchangedchangedchan")
	if err := st.Reparse(ctx, p, nil); err != nil {
		t.Fatal(err)
	}

	fake := &fakeOpenSearch{failures: 3, docs: map[string]map[string]any{}, writes: map[string]int{}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	client, err := opensearch.New(opensearch.Config{URL: srv.URL, Index: "acrawler"})
	if err != nil {
		t.Fatal(err)
	}
	x := indexer.New(st, client, indexer.Config{Batch: 7, MaxBackoff: 10 * time.Millisecond})
	dctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	stats, err := x.Drain(dctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Retries != 3 {
		t.Errorf("retries = %d, want 3 (the index failed three times)", stats.Retries)
	}
	if len(fake.docs) != 30 {
		t.Errorf("index holds %d documents, want 30", len(fake.docs))
	}
	for id, n := range fake.writes {
		if n != 1 {
			t.Errorf("document %s written %d times, want once", id, n)
		}
	}
	if _, ok := fake.docs[fmt.Sprintf("%x", []byte(fmt.Sprintf("%032s", cs[0].URL[len(cs[0].URL)-5:])))]; ok {
		t.Error("the replaced document is still in the index")
	}
	if left, _ := st.OutboxNext(ctx, 100, time.Minute, time.Now().Add(time.Hour)); len(left) != 0 {
		t.Errorf("%d operations left in the outbox", len(left))
	}
}
