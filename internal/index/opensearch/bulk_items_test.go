package opensearch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// TestResponseCutOff: a connection that breaks in the middle of a 200
// response (reset, or the timeout while the body is read) is a transport
// failure, worth retrying like no response at all: the operations were
// perhaps not applied, and their result is unknown.
func TestResponseCutOff(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "4096")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, `{"took":3,"errors":false,"items":[{"index":{"_id":"a","status":201`)
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer srv.Close()
	cl, err := New(Config{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := cl.Bulk(ctx(t), []crawl.Document{{ID: "a"}}, nil); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Bulk whose response is cut off = %v, want ErrUnavailable", err)
	}
	if _, err := cl.Search(ctx(t), crawl.SearchRequest{Query: "deep"}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Search whose response is cut off = %v, want ErrUnavailable", err)
	}
}

// TestBulkIDTooLong: OpenSearch validates every action of a _bulk request
// before running any (BulkRequest.validate), so one ID over 512 bytes makes
// it refuse the whole request with 400 action_request_validation_exception.
// Bulk must not send such an ID: it reports it as a refused operation and
// writes the others.
func TestBulkIDTooLong(t *testing.T) {
	long := strings.Repeat("f", MaxIDBytes+1)
	c := newCluster(t, func(r recorded) (int, string) {
		for line := range strings.Lines(string(r.Body)) {
			var a map[string]map[string]any
			if json.Unmarshal([]byte(line), &a) != nil {
				continue
			}
			for _, meta := range a {
				if id, _ := meta["_id"].(string); len(id) > MaxIDBytes {
					return http.StatusBadRequest, `{"error":{"root_cause":[{"type":"action_request_validation_exception","reason":"Validation Failed: 1: id [` + id + `] is too long, must be no longer than 512 bytes but was: 513;"}],"type":"action_request_validation_exception","reason":"Validation Failed: 1: id [` + id + `] is too long, must be no longer than 512 bytes but was: 513;"},"status":400}`
				}
			}
		}
		return bulkOK(r)
	})
	cl := c.client(t, Config{})
	failed, err := cl.Bulk(ctx(t), []crawl.Document{{ID: "ok1"}, {ID: long}, {ID: "\xff\xfe"}}, []string{long + "x", "ok2"})
	if err != nil {
		t.Fatalf("Bulk with an ID too long = %v, want the other operations written", err)
	}
	for _, id := range []string{long, long + "x", "\xff\xfe"} {
		f, ok := failed[id]
		if !ok || !f.Permanent() {
			t.Errorf("failed[%.20q…] = %+v, %v; want a permanent refusal", id, f, ok)
		}
	}
	if len(failed) != 3 {
		t.Errorf("failed = %v, want only the three bad IDs", failed)
	}
	reqs := c.requests()
	if len(reqs) != 1 || string(reqs[0].Body) != "{\"index\":{\"_id\":\"ok1\"}}\n{}\n{\"delete\":{\"_id\":\"ok2\"}}\n" {
		t.Errorf("sent %d requests: %q", len(reqs), reqs)
	}
	// Nothing valid left: nothing sent.
	if failed, err := cl.Bulk(ctx(t), nil, []string{long}); err != nil || len(failed) != 1 || len(c.requests()) != 1 {
		t.Errorf("Bulk of one bad ID = %v, %v after %d requests; want it refused without a request", failed, err, len(c.requests()))
	}
}

// TestBulkItemPermanence: which refused operations can never pass (their
// content) and which can later (the cluster's load or state).
func TestBulkItemPermanence(t *testing.T) {
	tests := []struct {
		status    int
		typ       string
		permanent bool
	}{
		{400, "mapper_parsing_exception", true},
		{400, "strict_dynamic_mapping_exception", true},
		{400, "illegal_argument_exception", true},
		{400, "index_closed_exception", false}, // an administrator closed the index for a while
		{429, "es_rejected_execution_exception", false},
		{429, "cluster_block_exception", false}, // flood-stage disk watermark: index read-only
		{403, "cluster_block_exception", false},
		{404, "index_not_found_exception", false},
		{409, "version_conflict_engine_exception", false},
		{500, "exception", false},
		{503, "unavailable_shards_exception", false},
	}
	for _, tt := range tests {
		body := fmt.Sprintf(`{"took":1,"errors":true,"items":[{"index":{"_index":"acrawler","_id":"a","status":%d,"error":{"type":%q,"reason":"r"}}}]}`, tt.status, tt.typ)
		var r bulkResponse
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			t.Fatal(err)
		}
		f := r.failures([]string{"a"})["a"]
		if f.Status != tt.status || f.Permanent() != tt.permanent || f.Reason != tt.typ+": r" {
			t.Errorf("%d %s: %+v, permanent %v; want permanent %v", tt.status, tt.typ, f, f.Permanent(), tt.permanent)
		}
	}
}

// TestSearchErrorRootCause: a failed search says search_phase_execution_exception
// "all shards failed" at the top; what went wrong is in root_cause, and is
// what the error must carry.
func TestSearchErrorRootCause(t *testing.T) {
	body := `{"error":{"root_cause":[{"type":"too_many_clauses","reason":"maxClauseCount is set to 1024"}],"type":"search_phase_execution_exception","reason":"all shards failed","phase":"query","grouped":true,"failed_shards":[{"shard":0,"index":"acrawler","node":"n1","reason":{"type":"too_many_clauses","reason":"maxClauseCount is set to 1024"}}]},"status":400}`
	c := newCluster(t, func(r recorded) (int, string) { return http.StatusBadRequest, body })
	_, err := c.client(t, Config{}).Search(ctx(t), crawl.SearchRequest{Query: "deep"})
	var e *Error
	if !errors.As(err, &e) || e.Status != 400 {
		t.Fatalf("Search = %v, want a 400 *Error", err)
	}
	for _, want := range []string{"search_phase_execution_exception", "too_many_clauses: maxClauseCount is set to 1024"} {
		if !strings.Contains(e.Reason, want) {
			t.Errorf("reason %q lacks %q", e.Reason, want)
		}
	}
	// When the root cause is the error itself, it is not repeated.
	if got := errorReason([]byte(testdata(t, "create_index_exists.json"))); got != "resource_already_exists_exception: index [acrawler/rVw9qS4eS5iTOf5Zc2soZA] already exists" {
		t.Errorf("reason = %q", got)
	}
}

// TestUpsertRefused: Upsert reports a document OpenSearch refused, with
// how many, and writes the others.
func TestUpsertRefused(t *testing.T) {
	long := strings.Repeat("x", MaxIDBytes+1)
	c := newCluster(t, bulkOK)
	cl := c.client(t, Config{})
	err := cl.Upsert(ctx(t), []crawl.Document{{ID: "ok1"}, {ID: long}})
	if err == nil || !strings.Contains(err.Error(), "1 of 2 failed") {
		t.Errorf("Upsert with an ID too long = %v, want 1 of 2 refused", err)
	}
	if reqs := c.requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), `"ok1"`) {
		t.Errorf("sent %q, want the valid document", reqs)
	}
	if err := cl.Upsert(ctx(t), []crawl.Document{{ID: "ok2"}}); err != nil {
		t.Errorf("Upsert = %v", err)
	}
}
