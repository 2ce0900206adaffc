package opensearch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
)

const secret = "s3cr3t-Pa55word"

// recorded is one request the fake cluster received.
type recorded struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// cluster is a fake OpenSearch on 127.0.0.1 that records every request and
// answers with respond.
type cluster struct {
	srv     *httptest.Server
	mu      sync.Mutex
	reqs    []recorded
	respond func(r recorded) (status int, body string)
}

func newCluster(t *testing.T, respond func(r recorded) (int, string)) *cluster {
	t.Helper()
	c := &cluster{respond: respond}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec := recorded{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
		c.mu.Lock()
		c.reqs = append(c.reqs, rec)
		c.mu.Unlock()
		status, out := c.respond(rec)
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.WriteHeader(status)
		io.WriteString(w, out)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// requests returns what the cluster received so far.
func (c *cluster) requests() []recorded {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]recorded(nil), c.reqs...)
}

// client returns a client for the cluster with cfg's other settings.
func (c *cluster) client(t *testing.T, cfg Config) *Client {
	t.Helper()
	cfg.URL = c.srv.URL
	cl, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

// testdata returns a recorded response body.
func testdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ctx returns a context that ends with the test, bounded in time.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// at walks decoded JSON along a path of object keys and array indexes.
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for i, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: not an object: %v", path[:i+1], v)
			}
			if v, ok = m[k]; !ok {
				t.Fatalf("at %v: no key %q in %v", path[:i+1], k, m)
			}
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("at %v: no element %d in %v", path[:i+1], k, v)
			}
			v = a[k]
		}
	}
	return v
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("invalid JSON %q: %v", b, err)
	}
	return v
}

func TestNew(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"plain", Config{URL: "http://127.0.0.1:9200"}, true},
		{"https credentials", Config{URL: "https://admin:" + secret + "@127.0.0.1:9200/"}, true},
		{"custom index", Config{URL: "http://127.0.0.1:9200", Index: "papers-v2"}, true},
		{"empty", Config{}, false},
		{"no scheme", Config{URL: "127.0.0.1:9200"}, false},
		{"ftp", Config{URL: "ftp://admin:" + secret + "@127.0.0.1"}, false},
		{"bad port", Config{URL: "http://admin:" + secret + "@127.0.0.1:port"}, false},
		{"bad escape", Config{URL: "http://admin:" + secret + "%zz@127.0.0.1"}, false},
		{"uppercase index", Config{URL: "http://127.0.0.1:9200", Index: "Papers"}, false},
		{"index with star", Config{URL: "http://127.0.0.1:9200", Index: "a*"}, false},
		{"index with leading underscore", Config{URL: "http://127.0.0.1:9200", Index: "_a"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.cfg)
			if (err == nil) != tt.ok {
				t.Fatalf("New(%+v) error = %v, want ok %v", tt.cfg, err, tt.ok)
			}
			if err != nil && strings.Contains(err.Error(), secret) {
				t.Errorf("New error shows the password: %v", err)
			}
			if c != nil {
				c.Close()
			}
		})
	}
}

func TestEnsureIndexCreates(t *testing.T) {
	c := newCluster(t, func(r recorded) (int, string) {
		if r.Method == http.MethodHead {
			return http.StatusNotFound, ""
		}
		return http.StatusOK, testdata(t, "create_index_response.json")
	})
	if err := c.client(t, Config{}).EnsureIndex(ctx(t)); err != nil {
		t.Fatal(err)
	}
	reqs := c.requests()
	if len(reqs) != 2 || reqs[0].Method != "HEAD" || reqs[0].Path != "/acrawler" || reqs[1].Method != "PUT" || reqs[1].Path != "/acrawler" {
		t.Fatalf("requests = %v, want HEAD /acrawler then PUT /acrawler", methodsPaths(reqs))
	}
	if ct := reqs[1].Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("create index Content-Type = %q", ct)
	}
	body := decode(t, reqs[1].Body)
	props := at(t, body, "mappings", "properties")
	if got := at(t, body, "mappings", "dynamic"); got != "strict" {
		t.Errorf("mappings.dynamic = %v, want strict", got)
	}
	if got := at(t, body, "settings", "analysis", "analyzer", "folded", "filter"); !reflect.DeepEqual(got, []any{"lowercase", "asciifolding"}) {
		t.Errorf("folded analyzer filters = %v, want lowercase and asciifolding", got)
	}
	for _, f := range []string{"title", "text", "anchors"} {
		if got := at(t, props, f, "type"); got != "text" {
			t.Errorf("%s type = %v, want text", f, got)
		}
		// Folded, as the embedded indexes fold: "zoe" finds "Zoë".
		if got := at(t, props, f, "analyzer"); got != "folded" {
			t.Errorf("%s analyzer = %v, want folded", f, got)
		}
		if got := at(t, props, f, "fields", "en", "analyzer"); got != "english" {
			t.Errorf("%s.en analyzer = %v, want english", f, got)
		}
		if got := at(t, props, f, "fields", "tr", "analyzer"); got != "turkish" {
			t.Errorf("%s.tr analyzer = %v, want turkish", f, got)
		}
	}
	types := map[string]string{
		"url": "keyword", "host": "keyword", "type": "keyword", "lang": "keyword", "doi": "keyword",
		"authors": "text", "year": "integer", "pagerank": "rank_feature", "fetched_at": "date",
	}
	for f, want := range types {
		if got := at(t, props, f, "type"); got != want {
			t.Errorf("%s type = %v, want %s", f, got, want)
		}
	}
	if got := at(t, props, "url", "fields", "text", "type"); got != "text" {
		t.Errorf("url.text type = %v, want text", got)
	}
	if got := at(t, props, "authors", "fields", "raw", "type"); got != "keyword" {
		t.Errorf("authors.raw type = %v, want keyword", got)
	}
	if n := len(props.(map[string]any)); n != 12 {
		t.Errorf("mapping has %d fields, want 12", n)
	}
	// Every field a Document writes is in the mapping (it is strict).
	src, _ := json.Marshal(toSource(fullDocument()))
	for f := range decode(t, src).(map[string]any) {
		if _, ok := props.(map[string]any)[f]; !ok {
			t.Errorf("documents write field %q, which the mapping lacks", f)
		}
	}
}

func methodsPaths(reqs []recorded) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}

func TestEnsureIndexExists(t *testing.T) {
	c := newCluster(t, func(r recorded) (int, string) { return http.StatusOK, "" })
	if err := c.client(t, Config{Index: "papers-v2"}).EnsureIndex(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if got := methodsPaths(c.requests()); !reflect.DeepEqual(got, []string{"HEAD /papers-v2"}) {
		t.Errorf("requests = %v, want only HEAD /papers-v2", got)
	}
}

func TestEnsureIndexRace(t *testing.T) {
	// Another process created the index between our HEAD and PUT.
	c := newCluster(t, func(r recorded) (int, string) {
		if r.Method == http.MethodHead {
			return http.StatusNotFound, ""
		}
		return http.StatusBadRequest, testdata(t, "create_index_exists.json")
	})
	if err := c.client(t, Config{}).EnsureIndex(ctx(t)); err != nil {
		t.Errorf("EnsureIndex after a lost creation race = %v, want nil", err)
	}
}

// fullDocument has every field set.
func fullDocument() crawl.Document {
	return crawl.Document{
		ID: "5d41402abc4b2a76b9719d911017c592", URL: "https://cs.example.edu/papers/gnn-survey",
		Title: "Deep Learning on Graphs", Text: "We review methods.\nLine two: \"quoted\" <b>&</b>",
		Host: "cs.example.edu", Lang: "en", Type: "paper", DOI: "10.1000/xyz123",
		Authors: []string{"Ada Lovelace", "Alan Turing"}, Year: 2021,
		Anchors: []string{"GNN survey", "graph learning"}, PageRank: 0.0031,
		FetchedAt: time.Date(2024, 3, 1, 14, 30, 0, 123456789, time.FixedZone("CET", 3600)),
	}
}

// bulkOK answers a _bulk request with a documented success item per action.
func bulkOK(r recorded) (int, string) {
	var items []string
	for line := range strings.Lines(string(r.Body)) {
		var a map[string]map[string]any
		if json.Unmarshal([]byte(line), &a) != nil {
			continue
		}
		for action, meta := range a {
			if action != "index" && action != "delete" {
				continue
			}
			status, result := 201, "created"
			if action == "delete" {
				status, result = 200, "deleted"
			}
			items = append(items, fmt.Sprintf(`{%q:{"_index":"acrawler","_id":%q,"_version":1,"result":%q,"_shards":{"total":2,"successful":1,"failed":0},"_seq_no":1,"_primary_term":1,"status":%d}}`, action, meta["_id"], result, status))
		}
	}
	return http.StatusOK, `{"took":3,"errors":false,"items":[` + strings.Join(items, ",") + `]}`
}

func TestBulkNDJSON(t *testing.T) {
	c := newCluster(t, bulkOK)
	bare := crawl.Document{ID: "abc", URL: "https://a.example/", PageRank: 0}
	failed, err := c.client(t, Config{}).Bulk(ctx(t), []crawl.Document{fullDocument(), bare}, []string{"old1"})
	if err != nil || failed != nil {
		t.Fatalf("Bulk = %v, %v; want no failure", failed, err)
	}
	reqs := c.requests()
	if len(reqs) != 1 || reqs[0].Method != "POST" || reqs[0].Path != "/acrawler/_bulk" {
		t.Fatalf("requests = %v, want POST /acrawler/_bulk", methodsPaths(reqs))
	}
	if ct := reqs[0].Header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Errorf("Content-Type = %q, want application/x-ndjson", ct)
	}
	body := string(reqs[0].Body)
	if !strings.HasSuffix(body, "\n") {
		t.Errorf("body does not end with a newline: %q", body)
	}
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("body has %d lines, want 5 (2 index pairs, 1 delete):\n%s", len(lines), body)
	}
	vals := make([]any, len(lines))
	for i, l := range lines {
		vals[i] = decode(t, []byte(l))
	}
	wantActions := map[int]string{0: "index 5d41402abc4b2a76b9719d911017c592", 2: "index abc", 4: "delete old1"}
	for i, want := range wantActions {
		m := vals[i].(map[string]any)
		if len(m) != 1 {
			t.Errorf("line %d: action %v has %d keys", i, m, len(m))
		}
		for action, meta := range m {
			if got := action + " " + at(t, meta, "_id").(string); got != want {
				t.Errorf("line %d: action %q, want %q", i, got, want)
			}
		}
	}
	full := vals[1]
	wantFull := map[string]any{
		"url": "https://cs.example.edu/papers/gnn-survey", "title": "Deep Learning on Graphs",
		"text": "We review methods.\nLine two: \"quoted\" <b>&</b>", "host": "cs.example.edu",
		"lang": "en", "type": "paper", "doi": "10.1000/xyz123",
		"authors": []any{"Ada Lovelace", "Alan Turing"}, "year": 2021.0,
		"anchors": []any{"GNN survey", "graph learning"}, "pagerank": 0.0031,
		"fetched_at": "2024-03-01T13:30:00.123Z",
	}
	if !reflect.DeepEqual(full, any(wantFull)) {
		t.Errorf("source = %v\nwant %v", full, wantFull)
	}
	if got, want := vals[3], any(map[string]any{"url": "https://a.example/"}); !reflect.DeepEqual(got, want) {
		t.Errorf("bare source = %v, want %v (no pagerank, no empty fields)", got, want)
	}
}

func TestBulkPartialFailure(t *testing.T) {
	c := newCluster(t, func(r recorded) (int, string) { return http.StatusOK, testdata(t, "bulk_partial_failure.json") })
	upserts := []crawl.Document{{ID: "a1b2c3"}, {ID: "d4e5f6"}, {ID: "0f0f0f"}}
	failed, err := c.client(t, Config{}).Bulk(ctx(t), upserts, []string{"gone01", "old002"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]ItemError{
		"d4e5f6": {400, "mapper_parsing_exception", "mapper_parsing_exception: failed to parse field [year] of type [integer] in document with id 'd4e5f6'. Preview of field's value: 'MMXX'"},
		"0f0f0f": {429, "es_rejected_execution_exception", "es_rejected_execution_exception: rejected execution of coordinating operation"},
	}
	if !reflect.DeepEqual(failed, want) {
		t.Errorf("failed = %+v\nwant %+v", failed, want)
	}
	if !failed["d4e5f6"].Permanent() || failed["0f0f0f"].Permanent() {
		t.Errorf("a mapping failure must be permanent, a rejection for load not")
	}
}

func TestBulkDocumentedResponses(t *testing.T) {
	tests := []struct {
		file string
		ids  []string
		want map[string]ItemError
	}{
		{"bulk_response_docs.json", []string{"tt2229499", "tt1979320", "tt1392214", "tt0816711"}, nil},
		{"bulk_response_docs_errors.json", []string{"nonexistent1"}, map[string]ItemError{"nonexistent1": {404, "document_missing_exception", "document_missing_exception: [nonexistent1]: document missing"}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var r bulkResponse
			if err := json.Unmarshal([]byte(testdata(t, tt.file)), &r); err != nil {
				t.Fatal(err)
			}
			if got := r.failures(tt.ids); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("failures(%s) = %+v, want %+v", tt.file, got, tt.want)
			}
		})
	}
}

func TestBulkNothingToSend(t *testing.T) {
	c := newCluster(t, bulkOK)
	cl := c.client(t, Config{})
	if failed, err := cl.Bulk(ctx(t), nil, nil); failed != nil || err != nil {
		t.Errorf("Bulk(nothing) = %v, %v", failed, err)
	}
	if _, err := cl.Bulk(ctx(t), []crawl.Document{{URL: "https://a.example/"}}, nil); err == nil {
		t.Error("Bulk of a document without ID: no error")
	}
	if err := cl.Delete(ctx(t), []string{""}); err == nil {
		t.Error("Delete of an empty ID: no error")
	}
	if n := len(c.requests()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

func TestDelete(t *testing.T) {
	c := newCluster(t, bulkOK)
	if err := c.client(t, Config{}).Delete(ctx(t), []string{"x1", "x2"}); err != nil {
		t.Fatal(err)
	}
	reqs := c.requests()
	if len(reqs) != 1 || string(reqs[0].Body) != "{\"delete\":{\"_id\":\"x1\"}}\n{\"delete\":{\"_id\":\"x2\"}}\n" {
		t.Errorf("Delete sent %v %q", methodsPaths(reqs), reqs[0].Body)
	}
}

// TestErrors checks how whole-request failures are reported: which are
// retryable, that the server's reason is kept, and that the password never
// shows.
func TestErrors(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		body      string
		temporary bool
		reason    string
	}{
		{"503 cluster block", 503, "unavailable_503.json", true, "cluster_block_exception: blocked by"},
		{"502 proxy", 502, "", true, ""},
		{"429", 429, `{"error":{"type":"es_rejected_execution_exception","reason":"rejected"},"status":429}`, true, "es_rejected_execution_exception"},
		{"500", 500, `{"error":"boom","status":500}`, true, "boom"},
		{"400", 400, `{"error":{"type":"parsing_exception","reason":"bad query"},"status":400}`, false, "parsing_exception: bad query"},
		{"401", 401, "Unauthorized", false, ""},
		{"413", 413, "", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body
			if strings.HasSuffix(body, ".json") {
				body = testdata(t, body)
			}
			c := newCluster(t, func(r recorded) (int, string) { return tt.status, body })
			cl := c.client(t, Config{Username: "admin", Password: secret})
			ops := map[string]func() error{
				"bulk": func() error {
					_, err := cl.Bulk(ctx(t), []crawl.Document{{ID: "a"}}, nil)
					return err
				},
				"search": func() error {
					_, err := cl.Search(ctx(t), crawl.SearchRequest{Query: "deep"})
					return err
				},
				"ensure index": func() error { return cl.EnsureIndex(ctx(t)) },
			}
			for op, call := range ops {
				err := call()
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("%s: error %v (%T), want *Error", op, err, err)
				}
				if e.Op != op || e.Status != tt.status || e.Temporary() != tt.temporary || errors.Is(err, ErrUnavailable) != tt.temporary {
					t.Errorf("%s: %+v: Temporary %v, ErrUnavailable %v; want status %d, temporary %v", op, e, e.Temporary(), errors.Is(err, ErrUnavailable), tt.status, tt.temporary)
				}
				// A HEAD response has no body: no reason for EnsureIndex.
				if op != "ensure index" && !strings.Contains(e.Reason, tt.reason) {
					t.Errorf("%s: reason %q, want it to contain %q", op, e.Reason, tt.reason)
				}
				if strings.Contains(err.Error(), secret) {
					t.Errorf("%s: error shows the password: %v", op, err)
				}
			}
			// No retries inside the client: the caller decides. (HEAD
			// fails first for EnsureIndex.)
			if n := len(c.requests()); n != 3 {
				t.Errorf("%d requests for 3 failing calls, want 3 (no retries)", n)
			}
		})
	}
}

func TestNoResponse(t *testing.T) {
	c := newCluster(t, bulkOK)
	cl := c.client(t, Config{URL: "", Username: "admin", Password: secret})
	c.srv.Close() // connection refused from now on
	_, err := cl.Bulk(ctx(t), []crawl.Document{{ID: "a"}}, nil)
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("Bulk to a closed port = %v, want ErrUnavailable", err)
	}
	if err != nil && strings.Contains(err.Error(), secret) {
		t.Errorf("error shows the password: %v", err)
	}

	// The caller's own cancellation is not the cluster's failure.
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = cl.Search(canceled, crawl.SearchRequest{Query: "deep"})
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrUnavailable) {
		t.Errorf("Search with a canceled context = %v, want context.Canceled, not ErrUnavailable", err)
	}
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	c := newCluster(t, func(r recorded) (int, string) {
		select { // hold the request until the client gives up
		case <-release:
		case <-time.After(5 * time.Second):
		}
		return http.StatusOK, "{}"
	})
	defer close(release)
	cl := c.client(t, Config{Timeout: 50 * time.Millisecond})
	_, err := cl.Search(ctx(t), crawl.SearchRequest{Query: "deep"})
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("Search past the timeout = %v, want ErrUnavailable", err)
	}
}

func TestAuth(t *testing.T) {
	tests := []struct {
		name string
		cfg  func(srv string) Config
		want string // user:password, or "" for no Authorization
	}{
		{"none", func(srv string) Config { return Config{URL: srv} }, ""},
		{"config", func(srv string) Config { return Config{URL: srv, Username: "admin", Password: secret} }, "admin:" + secret},
		{"url", func(srv string) Config {
			return Config{URL: strings.Replace(srv, "http://", "http://reader:"+secret+"@", 1)}
		}, "reader:" + secret},
		{"config wins", func(srv string) Config {
			return Config{URL: strings.Replace(srv, "http://", "http://reader:other@", 1), Username: "admin", Password: secret}
		}, "admin:" + secret},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCluster(t, func(r recorded) (int, string) { return http.StatusOK, "" })
			cl, err := New(tt.cfg(c.srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			if err := cl.EnsureIndex(ctx(t)); err != nil {
				t.Fatal(err)
			}
			r := c.requests()[0]
			req := &http.Request{Header: r.Header}
			user, pass, ok := req.BasicAuth()
			if got := user + ":" + pass; ok && got != tt.want || !ok && tt.want != "" {
				t.Errorf("Authorization = %q (basic %v), want %q", r.Header.Get("Authorization"), ok, tt.want)
			}
		})
	}
}

// searchBodyOf runs r against a fake cluster and returns the request body.
func searchBodyOf(t *testing.T, r crawl.SearchRequest) any {
	t.Helper()
	c := newCluster(t, func(rec recorded) (int, string) { return http.StatusOK, testdata(t, "search_response.json") })
	if _, err := c.client(t, Config{}).Search(ctx(t), r); err != nil {
		t.Fatal(err)
	}
	reqs := c.requests()
	if len(reqs) != 1 || reqs[0].Method != "POST" || reqs[0].Path != "/acrawler/_search" {
		t.Fatalf("requests = %v, want POST /acrawler/_search", methodsPaths(reqs))
	}
	return decode(t, reqs[0].Body)
}

func TestSearchQuery(t *testing.T) {
	matchFields := []any{"title^3", "title.en^3", "title.tr^3", "anchors^2", "anchors.en^2", "anchors.tr^2", "text", "text.en", "text.tr"}
	exactFields := []any{"title^3", "anchors^2", "text"}
	mm := func(q, typ string, fields []any) any {
		return map[string]any{"multi_match": map[string]any{"query": q, "type": typ, "fields": fields}}
	}
	tests := []struct {
		q             string
		must, mustNot []any
	}{
		{"Deep learning", []any{mm("deep", "most_fields", matchFields), mm("learning", "most_fields", matchFields)}, nil},
		{`"deep learning" AND`, []any{mm("deep learning", "phrase", matchFields), mm("and", "most_fields", matchFields)}, nil},
		{"graph*", []any{mm("graph", "phrase_prefix", exactFields)}, nil},
		{`"deep lear"*`, []any{mm("deep lear", "phrase_prefix", exactFields)}, nil},
		{`deep -graph -"neural nets" -gnn*`, []any{mm("deep", "most_fields", matchFields)},
			[]any{mm("graph", "phrase", exactFields), mm("neural nets", "phrase", exactFields), mm("gnn", "phrase_prefix", exactFields)}},
		{"'; DROP TABLE pages;--", []any{mm("drop", "most_fields", matchFields), mm("table", "most_fields", matchFields), mm("pages", "most_fields", matchFields)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			body := searchBodyOf(t, crawl.SearchRequest{Query: tt.q})
			b := at(t, body, "query", "bool").(map[string]any)
			if got := b["must"]; !reflect.DeepEqual(got, any(tt.must)) {
				t.Errorf("Search(%q) must = %v\nwant %v", tt.q, got, tt.must)
			}
			if got, _ := b["must_not"].([]any); !reflect.DeepEqual(got, tt.mustNot) {
				t.Errorf("Search(%q) must_not = %v\nwant %v", tt.q, got, tt.mustNot)
			}
			for _, absent := range []string{"filter", "should"} {
				if _, ok := b[absent]; ok {
					t.Errorf("Search(%q) has %s: %v", tt.q, absent, b[absent])
				}
			}
			// Highlighting uses the positive clauses only.
			if got := at(t, body, "highlight", "highlight_query", "bool", "should"); !reflect.DeepEqual(got, any(tt.must)) {
				t.Errorf("Search(%q) highlight_query = %v, want the must clauses", tt.q, got)
			}
		})
	}
}

func TestSearchFiltersAndPaging(t *testing.T) {
	body := searchBodyOf(t, crawl.SearchRequest{
		Query: "deep", Limit: 25, Offset: 50,
		Host: "cs.example.edu", Type: "paper", Lang: "tr", YearFrom: 2015, YearTo: 2020,
		PageRankWeight: 2.5,
	})
	wantFilter := []any{
		map[string]any{"term": map[string]any{"host": "cs.example.edu"}},
		map[string]any{"term": map[string]any{"type": "paper"}},
		map[string]any{"term": map[string]any{"lang": "tr"}},
		map[string]any{"range": map[string]any{"year": map[string]any{"gte": 2015.0, "lte": 2020.0}}},
	}
	if got := at(t, body, "query", "bool", "filter"); !reflect.DeepEqual(got, any(wantFilter)) {
		t.Errorf("filter = %v\nwant %v", got, wantFilter)
	}
	wantShould := []any{map[string]any{"rank_feature": map[string]any{"field": "pagerank", "saturation": map[string]any{}, "boost": 2.5}}}
	if got := at(t, body, "query", "bool", "should"); !reflect.DeepEqual(got, any(wantShould)) {
		t.Errorf("should = %v, want %v", got, wantShould)
	}
	if from, size := at(t, body, "from"), at(t, body, "size"); from != 50.0 || size != 25.0 {
		t.Errorf("from, size = %v, %v; want 50, 25", from, size)
	}
	for _, f := range []string{"host", "type", "year"} {
		if got := at(t, body, "aggs", f, "terms", "field"); got != f {
			t.Errorf("aggs.%s field = %v", f, got)
		}
	}
	// Every year a search accepts (1000-2100) has its bucket: the year
	// facet lists them all, as the embedded stores do.
	if got, _ := at(t, body, "aggs", "year", "terms", "size").(float64); got < 1101 {
		t.Errorf("aggs.year size = %v, want room for every year from 1000 to 2100", got)
	}
	hl := at(t, body, "highlight")
	if at(t, hl, "pre_tags", 0) != "<mark>" || at(t, hl, "post_tags", 0) != "</mark>" || at(t, hl, "encoder") != "html" {
		t.Errorf("highlight tags/encoder = %v", hl)
	}
	for _, f := range []string{"text", "title"} {
		at(t, hl, "fields", f)
	}
	if got := at(t, body, "_source", "excludes"); !reflect.DeepEqual(got, any([]any{"text", "anchors"})) {
		t.Errorf("_source excludes = %v", got)
	}

	// Only one year bound: a one-sided range.
	body = searchBodyOf(t, crawl.SearchRequest{Query: "deep", YearFrom: 2020})
	if got := at(t, body, "query", "bool", "filter", 0, "range", "year"); !reflect.DeepEqual(got, any(map[string]any{"gte": 2020.0})) {
		t.Errorf("year range = %v, want gte 2020 only", got)
	}
}

func TestSearchPaging(t *testing.T) {
	tests := []struct{ limit, offset, from, size int }{
		{0, 0, 0, DefaultLimit},
		{-5, -5, 0, DefaultLimit},
		{1000, 0, 0, MaxLimit},
		{50, MaxWindow - 20, MaxWindow - 20, 20},
		{10, MaxWindow, 0, 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("limit %d offset %d", tt.limit, tt.offset), func(t *testing.T) {
			b := searchBody(query.Parse("x"), crawl.SearchRequest{Limit: tt.limit, Offset: tt.offset})
			if b["from"] != tt.from || b["size"] != tt.size {
				t.Errorf("Limit %d Offset %d: from, size = %v, %v; want %d, %d", tt.limit, tt.offset, b["from"], b["size"], tt.from, tt.size)
			}
		})
	}
}

func TestSearchEmptyQuery(t *testing.T) {
	c := newCluster(t, func(r recorded) (int, string) { return http.StatusOK, testdata(t, "search_response.json") })
	cl := c.client(t, Config{})
	for _, q := range []string{"", "-deep", `"`, "* - :"} {
		res, err := cl.Search(ctx(t), crawl.SearchRequest{Query: q})
		if err != nil || res.Total != 0 || len(res.Hits) != 0 {
			t.Errorf("Search(%q) = %+v, %v; want an empty result", q, res, err)
		}
	}
	if n := len(c.requests()); n != 0 {
		t.Errorf("%d requests for empty queries, want none", n)
	}
}

func TestSearchResponse(t *testing.T) {
	c := newCluster(t, func(r recorded) (int, string) { return http.StatusOK, testdata(t, "search_response.json") })
	res, err := c.client(t, Config{}).Search(ctx(t), crawl.SearchRequest{Query: "deep learning"})
	if err != nil {
		t.Fatal(err)
	}
	survey := "https://cs.example.edu/papers/gnn-survey"
	want := crawl.SearchResult{
		Total: 2,
		Took:  14 * time.Millisecond,
		Hits: []crawl.SearchHit{
			{
				ID: crawl.URLID(survey), URL: survey,
				Title:      "Deep Learning on Graphs: A Survey",
				TitleMarks: [][2]int{{0, 4}, {5, 13}},
				Snippet:    "We review deep learning methods for graphs & networks, where x < y.",
				Marks:      [][2]int{{10, 14}, {15, 23}},
				Score:      9.127351, Host: "cs.example.edu", Type: "paper", DOI: "10.1000/xyz123", Lang: "en",
				Authors: []string{"Ada Lovelace", "Alan Turing"}, Year: 2021,
				FetchedAt: time.Date(2024, 3, 1, 12, 30, 0, 0, time.UTC),
			},
			{
				ID: crawl.URLID("https://www.example.org/tr/yayinlar"), URL: "https://www.example.org/tr/yayinlar",
				Title: "Derin öğrenme <yayınlar> & notlar",
				Score: 4.2, Host: "www.example.org", Type: "page", Lang: "tr", Year: 2019,
				FetchedAt: time.Date(2024, 2, 28, 8, 0, 0, 0, time.UTC),
			},
		},
		Facets: crawl.Facets{
			Host: map[string]int{"cs.example.edu": 1, "www.example.org": 1},
			Type: map[string]int{"page": 1, "paper": 1},
			Year: map[int]int{2019: 1, 2021: 1},
		},
	}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("Search result =\n%+v\nwant\n%+v", res, want)
	}
}

func TestSearchDocumentedResponses(t *testing.T) {
	res, err := parseSearch([]byte(testdata(t, "search_response_docs.json")))
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 805 || res.Took != 3*time.Millisecond || len(res.Hits) != 3 || res.Hits[0].Score != 7.450247 {
		t.Errorf("documented highlight response read as %+v", res)
	}
	// The documented terms aggregation on a numeric field has numeric keys.
	agg := strings.Replace(testdata(t, "terms_aggregation_docs.json"), `"response_codes"`, `"year"`, 1)
	res, err = parseSearch([]byte(agg))
	if err != nil {
		t.Fatal(err)
	}
	if want := map[int]int{200: 300, 404: 30}; !reflect.DeepEqual(res.Facets.Year, want) || res.Total != 3 || len(res.Hits) != 0 {
		t.Errorf("documented terms aggregation read as %+v, want year facets %v", res, want)
	}
	if res.Estimated {
		t.Errorf("total with relation eq read as a lower bound")
	}
	// Past track_total_hits (10,000 by default) the total is a lower bound.
	gte := strings.Replace(testdata(t, "search_response_docs.json"), `"relation" : "eq"`, `"relation" : "gte"`, 1)
	if res, err := parseSearch([]byte(gte)); err != nil || !res.Estimated {
		t.Errorf("total with relation gte read as %+v, %v: want a lower bound", res, err)
	}
}

func TestHighlighted(t *testing.T) {
	tests := []struct {
		in, text string
		words    []string
	}{
		{"", "", nil},
		{"plain", "plain", nil},
		{"a <mark>b</mark> c", "a b c", []string{"b"}},
		{"x &lt; y &amp; z", "x < y & z", nil},
		{"x < y & z", "x < y & z", nil},
		{"<script>alert(1)</script>", "<script>alert(1)</script>", nil},
		{"<mark>open", "open", []string{"open"}},
		{"close</mark> <mark><mark>x</mark></mark>", "close x", []string{"x"}},
		{"<MARK>x</MARK>", "<MARK>x</MARK>", nil},
		{"it&#39;s &#x2F; &quot;<mark>Zo&euml;</mark>", `it's / "Zoë`, []string{"Zoë"}},
		{"a\x01<mark>b\x02</mark>", "ab", []string{"b"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			text, marks := highlighted(tt.in)
			if words := crawl.Marked(text, marks); text != tt.text || !slices.Equal(words, tt.words) {
				t.Errorf("highlighted(%q) = %q, %v (%q), want %q, %q", tt.in, text, marks, words, tt.text, tt.words)
			}
		})
	}
}

// FuzzHighlighted checks that any fragment reads as text without tags'
// marks, whose marks are ordered ranges of it.
func FuzzHighlighted(f *testing.F) {
	f.Add("a <mark>b</mark> &amp; c")
	f.Add("<mark><script>x</script>")
	f.Add("&lt;mark&gt;")
	f.Fuzz(func(t *testing.T, in string) {
		text, marks := highlighted(in)
		end := 0
		for _, m := range marks {
			if m[0] < end || m[1] <= m[0] || m[1] > len(text) {
				t.Fatalf("highlighted(%q) = %q, %v: not ordered ranges", in, text, marks)
			}
			end = m[1]
		}
		if !strings.Contains(in, "<mark>") && len(marks) > 0 {
			t.Fatalf("highlighted(%q) = %q, %v: marks without <mark>", in, text, marks)
		}
		if strings.ContainsAny(text, markOpen+markClose) {
			t.Fatalf("highlighted(%q) = %q: markers left", in, text)
		}
	})
}

// FuzzSearchBody checks that any user query gives a valid request: JSON
// whose must clauses are exactly the positive terms, and that a non-empty
// query always has one.
func FuzzSearchBody(f *testing.F) {
	for _, s := range []string{"deep learning", `"a b"* -c`, `'; DROP TABLE pages;--`, `\"}`, "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		q := query.Parse(in)
		b, err := json.Marshal(searchBody(q, crawl.SearchRequest{}))
		if err != nil {
			t.Fatalf("searchBody(%q): %v", in, err)
		}
		var body struct {
			Query struct {
				Bool struct {
					Must    []json.RawMessage `json:"must"`
					MustNot []json.RawMessage `json:"must_not"`
				} `json:"bool"`
			} `json:"query"`
		}
		if err := json.Unmarshal(b, &body); err != nil || bytes.ContainsAny(b, "\n") {
			t.Fatalf("searchBody(%q) = %s: %v", in, b, err)
		}
		var pos, neg int
		for _, term := range q.Terms {
			if term.Exclude {
				neg++
			} else {
				pos++
			}
		}
		if len(body.Query.Bool.MustNot) != neg {
			t.Fatalf("searchBody(%q): %d must_not clauses for %d excluded terms", in, len(body.Query.Bool.MustNot), neg)
		}
		if len(body.Query.Bool.Must) != pos {
			t.Fatalf("searchBody(%q): %d must clauses for %d positive terms", in, len(body.Query.Bool.Must), pos)
		}
	})
}

func BenchmarkEncodeBulk(b *testing.B) {
	docs := make([]crawl.Document, 100)
	for i := range docs {
		docs[i] = fullDocument()
		docs[i].ID = fmt.Sprintf("%032x", i)
		docs[i].Text = strings.Repeat("Graph neural networks learn representations of nodes. ", 100)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := encodeBulk(docs, []string{"gone"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSearchRoundTrip(b *testing.B) {
	resp, err := os.ReadFile(filepath.Join("testdata", "search_response.json"))
	if err != nil {
		b.Fatal(err)
	}
	q := query.Parse(`"deep learning" graph* -survey`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(searchBody(q, crawl.SearchRequest{Host: "a.example", PageRankWeight: 1})); err != nil {
			b.Fatal(err)
		}
		if _, err := parseSearch(resp); err != nil {
			b.Fatal(err)
		}
	}
}
