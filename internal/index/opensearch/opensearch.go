// Package opensearch is the OpenSearch search backend: it keeps crawled
// documents in one OpenSearch index and answers user queries from it, with
// highlighted snippets and facets.
//
// It talks to the cluster through github.com/opensearch-project/opensearch-go
// with the client's own retries turned off: Bulk and Search say whether a
// failure is worth retrying (errors.Is(err, ErrUnavailable)), and the caller
// (the outbox for writes, the HTTP API for reads) owns the retry policy.
//
// # The index
//
// EnsureIndex creates the index with the mapping in mapping.json:
//
//   - title, text and anchors (inbound anchor texts) are text fields analyzed
//     with the language-neutral "folded" analyzer (the standard tokenizer,
//     lowercase, asciifolding: "zoe" finds "Zoë", "strasse" "Straße", as in
//     the embedded indexes, which fold by query.Fold), each with two
//     sub-fields: ".en" with the "english" analyzer (stemming, English stop
//     words) and ".tr" with the "turkish" analyzer (Turkish lowercasing of
//     I/İ, stemming, stop words). The crawl is mostly English with a Turkish
//     share; indexing every document both ways and querying all three fields
//     together ("most_fields") lets "networks" find "network" in English
//     pages and "üniversitesi" find "üniversite" in Turkish ones, without
//     trusting per-page language detection, at the cost of about three times
//     the postings for these fields. A document's detected language is kept
//     in lang for filtering.
//   - text also stores term offsets, so that highlighting long pages does not
//     reanalyze them.
//   - url is a keyword with a text sub-field (url.text); host, lang and doi
//     are keywords lowercased by a normalizer; type is a keyword; authors is
//     text with a keyword sub-field (authors.raw); year is an integer;
//     fetched_at a date.
//   - pagerank is a rank_feature: Search boosts by it with a rank_feature
//     query in a should clause, which OpenSearch can evaluate with early
//     termination, unlike a function_score script. A rank_feature accepts
//     only positive values, so a document with PageRank <= 0 is indexed
//     without one (and gets no boost).
//   - The mapping is strict: a field it does not name is refused.
//
// # Queries
//
// Search parses the user's query (query.Parse, refusing what Check
// refuses) and turns it into a bool query: each positive term is a
// must clause (a word matches any of the fields, a phrase matches in order,
// a prefix expands the last word), each excluded term a must_not clause.
// Exclusions look at the unstemmed fields only, like the embedded indexes:
// -graph excludes "graph", not "graphs". Snippets come from the unified
// highlighter on text (and title), run with the positive clauses only and
// require_field_match off, so that a match found through a stemmed field is
// marked in the original text; the html encoder escapes the rest, and the
// client reads the fragment back as plain text and the byte offsets of the
// marked words (crawl.SearchHit.Snippet and Marks): any other tag is text.
//
// Documents are crawl.Document values; Client is a crawl.Index (Search,
// Upsert, Delete), and Bulk writes both kinds of operations at once, with
// each refused operation's reason, for the outbox's delivery.
package opensearch

import (
	"bytes"
	"context"
	"crypto/tls"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/opensearch-project/opensearch-go/v4"
	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"
)

// DefaultIndex is the index name used when Config.Index is empty.
const DefaultIndex = "acrawler"

// DefaultTimeout bounds each request when Config.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// mapping is the body of the create-index request: settings and mappings.
//
//go:embed mapping.json
var mapping []byte

// Config says where the cluster is and how to reach it.
type Config struct {
	// URL is the cluster's address, such as https://search.internal:9200.
	// Credentials in it ("https://user:pass@host") are used when Username
	// and Password are empty, and never appear in errors.
	URL string
	// Username and Password are sent with HTTP basic authentication when
	// both are set.
	Username, Password string
	// Index is the index name; empty means DefaultIndex.
	Index string
	// InsecureSkipVerify turns off TLS certificate verification, for
	// clusters with self-signed certificates.
	InsecureSkipVerify bool
	// Timeout bounds each request; zero means DefaultTimeout.
	Timeout time.Duration
}

// Client reads and writes one OpenSearch index. It is safe for concurrent
// use.
type Client struct {
	os      *opensearch.Client
	index   string
	timeout time.Duration
}

// New returns a client for cfg. It makes no request: EnsureIndex is the
// first one.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		// A *url.Error quotes the whole URL, password included.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("opensearch: invalid URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("opensearch: invalid URL %q: want http:// or https:// and a host", u.Redacted())
	}
	user, pass := cfg.Username, cfg.Password
	if u.User != nil {
		if user == "" && pass == "" {
			user = u.User.Username()
			pass, _ = u.User.Password()
		}
		u.User = nil
	}
	index := cfg.Index
	if index == "" {
		index = DefaultIndex
	}
	if err := checkIndexName(index); err != nil {
		return nil, err
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	if cfg.InsecureSkipVerify {
		transport.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
	}
	noDiscovery := false
	c, err := opensearch.NewClient(opensearch.Config{
		Addresses:             []string{u.String()},
		Username:              user,
		Password:              pass,
		Transport:             transport,
		DisableRetry:          true,
		DiscoverNodesOnStart:  &noDiscovery,
		HealthCheckMaxRetries: -1,
	})
	if err != nil {
		return nil, fmt.Errorf("opensearch: %w", err)
	}
	return &Client{os: c, index: index, timeout: timeout}, nil
}

// checkIndexName applies OpenSearch's index naming rules, so that a bad name
// fails at startup rather than on the first write.
func checkIndexName(name string) error {
	bad := name == "." || name == ".." || len(name) > 255 ||
		strings.ContainsAny(name[:1], "_-+") ||
		strings.ContainsAny(name, " ,:\"*+/\\|?#<>") ||
		strings.ToLower(name) != name
	if bad {
		return fmt.Errorf("opensearch: invalid index name %q: lowercase, no spaces, no leading _ - +, none of , : \" * + / \\ | ? # < >", name)
	}
	return nil
}

// Close releases the client's idle connections and background work.
func (c *Client) Close() error {
	return c.os.Close()
}

// ErrUnavailable is matched (errors.Is) by errors worth retrying later: no
// response or a broken one (connection refused, reset, timed out, also while
// the body was read), 429 Too Many Requests, or a 5xx status.
var ErrUnavailable = errors.New("opensearch: unavailable")

// Error is the failure of a whole request.
type Error struct {
	// Op is the operation: "ensure index", "bulk", "search".
	Op string
	// Status is the HTTP status, or 0 when no response was obtained.
	Status int
	// Reason is the server's error type and reason, when it gave them.
	Reason string
	// Err is the transport error: no response (Status 0), or the
	// response's body could not be read.
	Err error
}

// Error describes the failure without request bodies or credentials.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("opensearch: ")
	b.WriteString(e.Op)
	if e.Status != 0 {
		fmt.Fprintf(&b, ": %d %s", e.Status, http.StatusText(e.Status))
	}
	if e.Reason != "" {
		b.WriteString(": ")
		b.WriteString(e.Reason)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the transport error, if any.
func (e *Error) Unwrap() error { return e.Err }

// Temporary reports whether the request may succeed if retried later.
func (e *Error) Temporary() bool {
	return e.Status == 0 || e.Err != nil || e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// Is makes errors.Is(err, ErrUnavailable) report Temporary.
func (e *Error) Is(target error) bool {
	return target == ErrUnavailable && e.Temporary()
}

// request is an opensearchapi request value.
type request interface {
	GetRequest(method string) (*http.Request, error)
}

// do sends one request and returns the status and body of a 2xx response,
// or an error. A HEAD request's 404 is returned as a status, not an error.
func (c *Client) do(ctx context.Context, op, method string, req request) (int, []byte, error) {
	hreq, err := req.GetRequest(method)
	if err != nil {
		return 0, nil, fmt.Errorf("opensearch: %s: %w", op, err)
	}
	tctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	res, err := c.os.Perform(hreq.WithContext(tctx))
	if res == nil {
		if err == nil {
			err = errors.New("no response")
		}
		if ctx.Err() != nil {
			// The caller gave up: not the cluster's fault.
			return 0, nil, fmt.Errorf("opensearch: %s: %w", op, ctx.Err())
		}
		return 0, nil, &Error{Op: op, Err: err}
	}
	defer res.Body.Close()
	body, rerr := io.ReadAll(res.Body)
	switch {
	case err == nil && rerr != nil:
		err = rerr
	case err == nil && res.StatusCode/100 != 2 && !(method == http.MethodHead && res.StatusCode == http.StatusNotFound):
		return res.StatusCode, nil, &Error{Op: op, Status: res.StatusCode, Reason: errorReason(body)}
	}
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil, fmt.Errorf("opensearch: %s: %w", op, ctx.Err())
		}
		return 0, nil, &Error{Op: op, Status: res.StatusCode, Err: err}
	}
	return res.StatusCode, body, nil
}

// errorReason reads the type and reason of an OpenSearch error body, in
// either of its shapes: {"error":{"type":…,"reason":…,"root_cause":[…]},
// "status":…} or {"error":"…","status":…}. A root cause other than the
// error itself is added: a failed search is search_phase_execution_exception
// "all shards failed", and only its root cause says why.
func errorReason(body []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || len(e.Error) == 0 {
		return ""
	}
	type cause struct{ Type, Reason string }
	var obj struct {
		cause
		RootCause []cause `json:"root_cause"`
	}
	if json.Unmarshal(e.Error, &obj) == nil {
		if len(obj.RootCause) > 0 && obj.RootCause[0] != obj.cause {
			root := obj.RootCause[0]
			return clip(joinReason(obj.Type, obj.Reason) + " (caused by " + joinReason(root.Type, root.Reason) + ")")
		}
		return joinReason(obj.Type, obj.Reason)
	}
	var s string
	if json.Unmarshal(e.Error, &s) == nil {
		return clip(s)
	}
	return ""
}

// joinReason writes "type: reason", clipped.
func joinReason(typ, reason string) string {
	switch {
	case typ == "":
		return clip(reason)
	case reason == "":
		return typ
	}
	return clip(typ + ": " + reason)
}

// clip bounds a server-supplied message, which can quote a whole document.
func clip(s string) string {
	const max = 300
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// EnsureIndex creates the index with its mapping unless it exists. Two
// processes racing to create it both succeed. Errors are *Error values;
// errors.Is(err, ErrUnavailable) tells whether to retry.
func (c *Client) EnsureIndex(ctx context.Context) error {
	const op = "ensure index"
	status, _, err := c.do(ctx, op, http.MethodHead, opensearchapi.IndicesExistsReq{Indices: []string{c.index}})
	if err != nil {
		return err
	}
	if status == http.StatusOK {
		return nil
	}
	_, _, err = c.do(ctx, op, http.MethodPut, opensearchapi.IndicesCreateReq{Index: c.index, Body: bytes.NewReader(mapping)})
	var e *Error
	if errors.As(err, &e) && e.Status == http.StatusBadRequest && strings.HasPrefix(e.Reason, "resource_already_exists_exception") {
		return nil
	}
	return err
}
