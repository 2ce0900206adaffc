package opensearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"unicode/utf8"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"

	"github.com/acrawler/acrawler/internal/crawl"
)

// source is a crawl.Document as the index stores it (its _source).
type source struct {
	URL       string   `json:"url,omitempty"`
	Title     string   `json:"title,omitempty"`
	Text      string   `json:"text,omitempty"`
	Anchors   []string `json:"anchors,omitempty"`
	Host      string   `json:"host,omitempty"`
	Type      string   `json:"type,omitempty"`
	Lang      string   `json:"lang,omitempty"`
	DOI       string   `json:"doi,omitempty"`
	Authors   []string `json:"authors,omitempty"`
	Year      int      `json:"year,omitempty"`
	PageRank  float64  `json:"pagerank,omitempty"`
	FetchedAt string   `json:"fetched_at,omitempty"`
}

// dateFormat is how fetched_at is written: UTC with milliseconds, which the
// date field's default format (strict_date_optional_time) reads.
const dateFormat = "2006-01-02T15:04:05.000Z"

func toSource(d crawl.Document) source {
	s := source{
		URL: d.URL, Title: d.Title, Text: d.Text, Anchors: d.Anchors,
		Host: d.Host, Type: d.Type, Lang: d.Lang, DOI: d.DOI,
		Authors: d.Authors, Year: d.Year,
		PageRank: rankFeature(d.PageRank),
	}
	if !d.FetchedAt.IsZero() {
		s.FetchedAt = d.FetchedAt.UTC().Format(dateFormat)
	}
	return s
}

// rankFeature returns v as a rank_feature value, or 0 (omitted) when the
// field would refuse it: rank_feature takes positive normal float32 values.
func rankFeature(v float64) float64 {
	switch {
	case math.IsNaN(v) || v < 0x1p-126: // smallest normal float32
		return 0
	case v > math.MaxFloat32:
		return math.MaxFloat32
	}
	return v
}

// MaxIDBytes is the longest document ID OpenSearch takes, in bytes. It
// validates every action of a _bulk request before running any, so one
// longer ID would make it refuse the whole request (400
// action_request_validation_exception): Bulk does not send such an ID.
const MaxIDBytes = 512

// ItemError is OpenSearch's refusal of one operation of a _bulk request.
type ItemError struct {
	// Status is the operation's HTTP status.
	Status int
	// Type is the error type, such as mapper_parsing_exception; empty when
	// OpenSearch gave only a status.
	Type string
	// Reason is the type and the reason, for logs.
	Reason string
}

func (e ItemError) Error() string { return e.Reason }

// Permanent reports whether sending the operation again cannot succeed:
// OpenSearch refused the operation itself (400 Bad Request: a field that
// does not parse, a field the strict mapping lacks, an invalid ID). Other
// refusals depend on the cluster's state and may pass later: 429
// es_rejected_execution_exception (load), 5xx, a read-only (cluster_block)
// or closed index (index_closed_exception, although a 400).
func (e ItemError) Permanent() bool {
	return e.Status == http.StatusBadRequest && e.Type != "index_closed_exception"
}

// UpsertSize is the number of bytes an upsert of d adds to a _bulk request
// body, for callers that bound their requests (OpenSearch refuses a body
// longer than http.max_content_length, 100 MB by default, with 413).
func UpsertSize(d crawl.Document) int {
	a, _ := json.Marshal(bulkAction{Index: &bulkTarget{d.ID}})
	s, _ := json.Marshal(toSource(d))
	return len(a) + len(s) + 2
}

// DeleteSize is the number of bytes a delete of id adds to a _bulk request
// body.
func DeleteSize(id string) int {
	a, _ := json.Marshal(bulkAction{Delete: &bulkTarget{id}})
	return len(a) + 1
}

// badID says why OpenSearch would refuse id, or "" when it takes it.
func badID(id string) string {
	switch {
	case len(id) > MaxIDBytes:
		return fmt.Sprintf("id is too long, must be no longer than %d bytes but was: %d", MaxIDBytes, len(id))
	case !utf8.ValidString(id):
		// JSON cannot carry it: it would arrive as another ID.
		return "id is not valid UTF-8"
	}
	return ""
}

// bulkAction is the action line of a _bulk request.
type bulkAction struct {
	Index  *bulkTarget `json:"index,omitempty"`
	Delete *bulkTarget `json:"delete,omitempty"`
}

type bulkTarget struct {
	ID string `json:"_id"`
}

// encodeBulk writes the NDJSON body of a _bulk request on the client's
// index: an index action and its source per upsert, then a delete action
// per deleted ID; every line, the last included, ends with "\n".
func encodeBulk(upserts []crawl.Document, deletes []string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // Encode ends each value with '\n'
	for i, d := range upserts {
		if d.ID == "" {
			return nil, fmt.Errorf("upsert %d has no ID", i)
		}
		if err := enc.Encode(bulkAction{Index: &bulkTarget{d.ID}}); err != nil {
			return nil, err
		}
		if err := enc.Encode(toSource(d)); err != nil {
			return nil, fmt.Errorf("upsert %s: %w", d.ID, err)
		}
	}
	for i, id := range deletes {
		if id == "" {
			return nil, fmt.Errorf("delete %d has no ID", i)
		}
		if err := enc.Encode(bulkAction{Delete: &bulkTarget{id}}); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// bulkResponse is the part of a _bulk response that Bulk reads.
type bulkResponse struct {
	Errors bool                  `json:"errors"`
	Items  []map[string]bulkItem `json:"items"`
}

type bulkItem struct {
	ID     string `json:"_id"`
	Status int    `json:"status"`
	Result string `json:"result"`
	Error  *struct {
		Type   string `json:"type"`
		Reason string `json:"reason"`
	} `json:"error"`
}

// failures returns the failed items of a _bulk response by document ID.
// ids holds the request's IDs in order, for items that name none. A delete
// of a missing document (404 not_found) is not a failure: it is gone.
func (r bulkResponse) failures(ids []string) map[string]ItemError {
	failed := map[string]ItemError{}
	for i, item := range r.Items {
		for action, it := range item {
			id := it.ID
			if id == "" && i < len(ids) {
				id = ids[i]
			}
			switch {
			case it.Error != nil:
				failed[id] = ItemError{Status: it.Status, Type: it.Error.Type, Reason: joinReason(it.Error.Type, it.Error.Reason)}
			case action == "delete" && it.Status == http.StatusNotFound:
			case it.Status/100 != 2:
				failed[id] = ItemError{Status: it.Status, Reason: fmt.Sprintf("%s: status %d", action, it.Status)}
			}
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return failed
}

// Bulk indexes upserts (replacing documents with the same ID) and removes
// deletes, in one _bulk request. Operations that OpenSearch refused are
// returned in failed, by ID, with their status and reason (ItemError.Permanent
// tells whether to send them again); the others are written. An ID that
// OpenSearch would refuse (longer than MaxIDBytes, or not UTF-8) is in
// failed, not sent. err is set when the request failed as a whole, in which
// case nothing may have been written: errors.Is(err, ErrUnavailable) tells
// whether to retry (no response or a broken one, 429, 5xx); otherwise (400,
// 401, 413 Request Entity Too Large…) the request will not succeed as it
// is. A document without an ID is an error before anything is sent. Bulk
// with nothing to do sends nothing.
func (c *Client) Bulk(ctx context.Context, upserts []crawl.Document, deletes []string) (failed map[string]ItemError, err error) {
	const op = "bulk"
	var refused map[string]ItemError
	bad := func(id string) bool {
		why := badID(id)
		if why == "" {
			return false
		}
		if refused == nil {
			refused = map[string]ItemError{}
		}
		refused[id] = ItemError{Status: http.StatusBadRequest, Type: "action_request_validation_exception",
			Reason: clip("action_request_validation_exception: " + why)}
		return true
	}
	upserts = slices.DeleteFunc(slices.Clone(upserts), func(d crawl.Document) bool { return bad(d.ID) })
	deletes = slices.DeleteFunc(slices.Clone(deletes), bad)
	if len(upserts)+len(deletes) == 0 {
		return refused, nil
	}
	body, err := encodeBulk(upserts, deletes)
	if err != nil {
		return nil, fmt.Errorf("opensearch: %s: %w", op, err)
	}
	req := opensearchapi.BulkReq{
		Index:  c.index,
		Body:   bytes.NewReader(body),
		Header: http.Header{"Content-Type": {"application/x-ndjson"}},
	}
	_, resp, err := c.do(ctx, op, http.MethodPost, req)
	if err != nil {
		return nil, err
	}
	var r bulkResponse
	if err := json.Unmarshal(resp, &r); err != nil {
		return nil, &Error{Op: op, Status: http.StatusOK, Reason: "unreadable response: " + err.Error()}
	}
	ids := make([]string, 0, len(upserts)+len(deletes))
	for _, d := range upserts {
		ids = append(ids, d.ID)
	}
	ids = append(ids, deletes...)
	if len(r.Items) != len(ids) {
		return nil, &Error{Op: op, Status: http.StatusOK, Reason: fmt.Sprintf("response has %d items for %d actions", len(r.Items), len(ids))}
	}
	failed = r.failures(ids)
	for id, f := range refused {
		if failed == nil {
			failed = map[string]ItemError{}
		}
		failed[id] = f
	}
	return failed, nil
}

// Upsert indexes the documents, replacing those with the same IDs, in one
// _bulk request. It returns an *Error like Bulk, and, when OpenSearch
// refused some documents, an error naming how many and the first one.
func (c *Client) Upsert(ctx context.Context, docs []crawl.Document) error {
	failed, err := c.Bulk(ctx, docs, nil)
	if err != nil {
		return err
	}
	for _, d := range docs {
		if f, ok := failed[d.ID]; ok {
			return fmt.Errorf("opensearch: upsert: %d of %d failed, %s: %s", len(failed), len(docs), d.ID, f.Reason)
		}
	}
	return nil
}

var _ crawl.Index = (*Client)(nil)

// Delete removes the documents with the given IDs; IDs that are not in the
// index are not an error. It returns an *Error like Bulk, and, when
// OpenSearch refused some deletions, an error naming how many.
func (c *Client) Delete(ctx context.Context, ids []string) error {
	failed, err := c.Bulk(ctx, nil, ids)
	if err != nil {
		return err
	}
	for id, reason := range failed {
		return fmt.Errorf("opensearch: delete: %d of %d failed, %s: %s", len(failed), len(ids), id, reason)
	}
	return nil
}
