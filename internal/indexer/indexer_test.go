package indexer_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
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

// fakeOpenSearch speaks enough of OpenSearch's index API (HEAD and PUT of
// the index, _bulk request NDJSON, documented response shapes) to count
// what reaches the index; it answers the first down requests of any kind
// with 503, and then fails the first failures bulk requests with 503.
type fakeOpenSearch struct {
	mu       sync.Mutex
	down     int
	failures int
	docs     map[string]map[string]any
	writes   map[string]int // upserts received per document ID
	bulks    int
	created  []byte   // the body of the request that created the index
	log      []string // "METHOD /path status", in arrival order
	// refuse, when set, decides each bulk action's fate: a status of 0
	// applies it, another refuses it with that status and error type.
	refuse func(op, id string) (status int, errType string)
	// maxBody, when set, is http.max_content_length: a longer _bulk body
	// is answered 413.
	maxBody int
}

func (f *fakeOpenSearch) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	defer func() { f.log = append(f.log, fmt.Sprintf("%s %s %d", r.Method, r.URL.Path, rec.status)) }()
	f.serve(rec, r)
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

func (f *fakeOpenSearch) serve(w http.ResponseWriter, r *http.Request) {
	if f.down > 0 {
		f.down--
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"error":{"type":"cluster_block_exception"},"status":503}`))
		return
	}
	if r.URL.Path == "/acrawler" {
		switch {
		case r.Method == http.MethodHead && f.created != nil:
			w.WriteHeader(http.StatusOK)
		case r.Method == http.MethodHead:
			w.WriteHeader(http.StatusNotFound)
		case r.Method == http.MethodPut && f.created == nil:
			body, _ := io.ReadAll(r.Body)
			f.created = body
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"acknowledged":true,"shards_acknowledged":true,"index":"acrawler"}`))
		default:
			http.Error(w, `{"error":"unexpected"}`, http.StatusBadRequest)
		}
		return
	}
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
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	if f.maxBody > 0 && len(body) > f.maxBody {
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		return
	}
	f.bulks++
	var items []map[string]any
	failed := false
	sc := bufio.NewScanner(bytes.NewReader(body))
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
			status, errType := 0, ""
			if f.refuse != nil {
				status, errType = f.refuse(op, id)
			}
			if status != 0 {
				failed = true
				if op != "delete" && !sc.Scan() {
					http.Error(w, "missing source", 400)
					return
				}
				items = append(items, map[string]any{op: map[string]any{"_index": "acrawler", "_id": id, "status": status,
					"error": map[string]any{"type": errType, "reason": "refused by the test", "index": "acrawler", "shard": "0"}}})
				continue
			}
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
	json.NewEncoder(w).Encode(map[string]any{"took": 3, "errors": failed, "items": items})
}

// TestOutboxSurvivesOutage indexes pages through the outbox while the
// index fails several times: every document ends up indexed exactly once,
// replaced documents are deleted, and the outbox empties.
func TestOutboxSurvivesOutage(t *testing.T) {
	ctx := context.Background()
	st, cs := outboxStore(t, 30)
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

// outboxStore returns a SQLite store with an outbox holding the upserts of
// n fetched pages, and the pages' URLs.
func outboxStore(t *testing.T, n int) (*sqlite.DB, []crawl.ClaimedURL) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "o.db"), sqlite.Options{Outbox: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var urls []crawl.NewURL
	for i := range n {
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
	return st, cs
}

// TestEnsureIndexBeforeBulk starts the indexer while OpenSearch is down
// (answering 503, or refusing connections) and brings it up: the indexer
// retries until it has created the index with the project's mapping, and
// sends no _bulk before that (a _bulk to a missing index would create it
// with a mapping guessed from the documents).
func TestEnsureIndexBeforeBulk(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "index", "opensearch", "mapping.json"))
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, fake *fakeOpenSearch, stats indexer.Stats) {
		t.Helper()
		fake.mu.Lock()
		defer fake.mu.Unlock()
		created, firstBulk := -1, -1
		for i, l := range fake.log {
			if created < 0 && l == "PUT /acrawler 200" {
				created = i
			}
			if firstBulk < 0 && strings.Contains(l, "/_bulk ") {
				firstBulk = i
			}
		}
		switch {
		case created < 0:
			t.Fatalf("the index was never created; requests:\n%s", strings.Join(fake.log, "\n"))
		case firstBulk < 0:
			t.Fatalf("no _bulk request; requests:\n%s", strings.Join(fake.log, "\n"))
		case firstBulk < created:
			t.Errorf("a _bulk request came before the index was created; requests:\n%s", strings.Join(fake.log, "\n"))
		}
		var got, exp any
		if err := json.Unmarshal(fake.created, &got); err != nil {
			t.Fatalf("create-index body: %v", err)
		}
		json.Unmarshal(want, &exp)
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("the index was created with\n%s\nwant the project's mapping.json", fake.created)
		}
		if stats.Retries == 0 {
			t.Error("no retry counted: the outage was not seen")
		}
		if len(fake.docs) != 30 || stats.Indexed != 30 {
			t.Errorf("index holds %d documents (%d indexed), want 30", len(fake.docs), stats.Indexed)
		}
	}

	t.Run("503", func(t *testing.T) {
		st, _ := outboxStore(t, 30)
		fake := &fakeOpenSearch{down: 4, docs: map[string]map[string]any{}, writes: map[string]int{}}
		srv := httptest.NewServer(fake)
		defer srv.Close()
		client, err := opensearch.New(opensearch.Config{URL: srv.URL, Index: "acrawler"})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		stats, err := indexer.New(st, client, indexer.Config{Batch: 7, MaxBackoff: 10 * time.Millisecond}).Drain(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		check(t, fake, stats)
		if fake.log[0] != "HEAD /acrawler 503" {
			t.Errorf("first request %q, want the index check (answered 503)", fake.log[0])
		}
	})

	t.Run("refused", func(t *testing.T) {
		st, _ := outboxStore(t, 30)
		// A loopback port nobody listens on yet: connections are refused.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		client, err := opensearch.New(opensearch.Config{URL: "http://" + addr, Index: "acrawler"})
		if err != nil {
			t.Fatal(err)
		}
		warned := &signalWriter{match: "index unavailable", ch: make(chan struct{})}
		log := slog.New(slog.NewTextHandler(warned, nil))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		type result struct {
			stats indexer.Stats
			err   error
		}
		done := make(chan result, 1)
		go func() {
			stats, err := indexer.New(st, client, indexer.Config{Batch: 7, MaxBackoff: 10 * time.Millisecond, Log: log}).Drain(ctx, false)
			done <- result{stats, err}
		}()
		select {
		case <-warned.ch:
		case r := <-done:
			t.Fatalf("the indexer finished while the index was unreachable: %+v, %v", r.stats, r.err)
		case <-ctx.Done():
			t.Fatal("the indexer never reported the index unavailable")
		}
		// OpenSearch comes up on that port.
		fake := &fakeOpenSearch{docs: map[string]map[string]any{}, writes: map[string]int{}}
		ln, err = net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("listen again on %s: %v", addr, err)
		}
		srv := httptest.NewUnstartedServer(fake)
		srv.Listener.Close()
		srv.Listener = ln
		srv.Start()
		defer srv.Close()
		r := <-done
		if r.err != nil {
			t.Fatal(r.err)
		}
		check(t, fake, r.stats)
		if fake.log[0] != "HEAD /acrawler 404" {
			t.Errorf("first request %q, want the index check", fake.log[0])
		}
	})
}

// signalWriter closes ch the first time a write contains match.
type signalWriter struct {
	mu    sync.Mutex
	match string
	ch    chan struct{}
	done  bool
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done && strings.Contains(string(p), w.match) {
		w.done = true
		close(w.ch)
	}
	return len(p), nil
}
