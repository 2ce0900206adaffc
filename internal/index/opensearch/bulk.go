package opensearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"
)

// Document is one crawled document as the index keeps it.
type Document struct {
	// ID is the content hash (hex): the same content crawled twice is one
	// document.
	ID                                      string
	URL, Title, Text, Host, Lang, Type, DOI string
	Authors                                 []string
	// Year is the publication year, 0 when unknown.
	Year int
	// Anchors holds the anchor texts of inbound links, searched as a field
	// of its own.
	Anchors []string
	// PageRank boosts the document at query time; <= 0 means none.
	PageRank  float64
	FetchedAt time.Time
}

// source is a Document as the index stores it (its _source).
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

func toSource(d Document) source {
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
func encodeBulk(upserts []Document, deletes []string) ([]byte, error) {
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
func (r bulkResponse) failures(ids []string) map[string]string {
	failed := map[string]string{}
	for i, item := range r.Items {
		for action, it := range item {
			id := it.ID
			if id == "" && i < len(ids) {
				id = ids[i]
			}
			switch {
			case it.Error != nil:
				failed[id] = joinReason(it.Error.Type, it.Error.Reason)
			case action == "delete" && it.Status == http.StatusNotFound:
			case it.Status/100 != 2:
				failed[id] = fmt.Sprintf("%s: status %d", action, it.Status)
			}
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return failed
}

// Bulk indexes upserts (replacing documents with the same ID) and removes
// deletes, in one _bulk request. Documents that OpenSearch refused are
// returned in failed, by ID, with its reason; the others are written. err
// is set when the request failed as a whole, in which case nothing may have
// been written: errors.Is(err, ErrUnavailable) tells whether to retry (no
// response, 429, 5xx); otherwise (400, 401, 413 Request Entity Too Large…)
// the request will not succeed as it is. A document without an ID is an
// error before anything is sent. Bulk with nothing to do sends nothing.
func (c *Client) Bulk(ctx context.Context, upserts []Document, deletes []string) (failed map[string]string, err error) {
	const op = "bulk"
	if len(upserts)+len(deletes) == 0 {
		return nil, nil
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
	return r.failures(ids), nil
}

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
