// Package archive asks web archives which URLs of a domain they have
// captured, through the CDX server API of the Internet Archive's Wayback
// Machine (https://github.com/internetarchive/wayback/tree/master/wayback-cdx-server).
// The URLs seed crawls with pages that no link leads to any more.
//
// A Client makes plain HTTP GET requests with the caller's *http.Client and
// streams the answers: memory stays bounded however many captures a domain
// has. Deduplicating the URLs is left to the caller; the client asks the
// server to collapse captures of the same URL (collapse=urlkey), which
// removes most duplicates.
package archive

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// DefaultEndpoint is the Internet Archive's CDX API.
const DefaultEndpoint = "https://web.archive.org/cdx/search/cdx"

// Client asks a CDX server for captures. The zero value asks the Internet
// Archive with http.DefaultClient. A Client is safe for concurrent use if its
// HTTP client is.
type Client struct {
	// Endpoint is the CDX API's URL (default DefaultEndpoint). Query
	// parameters already in it are kept.
	Endpoint string
	// HTTP is the client requests are made with (its proxy, timeouts and
	// transport); nil means http.DefaultClient.
	HTTP *http.Client
	// UserAgent, if set, is sent as the User-Agent header.
	UserAgent string
	// AllStatuses asks for captures whatever their HTTP status; by default
	// only captures answered with status 200 are asked for.
	AllStatuses bool
}

// Capture is one archived URL.
type Capture struct {
	// URL is the URL as the archive captured it (the CDX "original" field),
	// not normalized.
	URL string
	// Time is when it was captured, in UTC. With collapse=urlkey, the server
	// returns the first capture of each URL.
	Time time.Time
	// Status is the HTTP status of the capture, or 0 if the archive does not
	// know it (revisit records).
	Status int
	// MIME is the capture's media type as the archive recorded it, or "".
	MIME string
}

// StatusError is the error for a CDX server that answers with an HTTP
// status other than 200.
type StatusError struct {
	Code   int    // the HTTP status code
	Status string // the status line's text, such as "503 Service Unavailable"
}

func (e *StatusError) Error() string {
	return "archive: CDX server answered " + e.Status
}

// Temporary reports whether asking again later may succeed: the server was
// overloaded or failing (429 or 5xx), rather than refusing the query.
func (e *StatusError) Temporary() bool {
	return e.Code == http.StatusTooManyRequests || e.Code >= 500
}

// maxEmptyPages bounds the answers in a row that hold no capture but a
// resume key: a server that keeps doing that makes no progress.
const maxEmptyPages = 10

// Captures asks the CDX server for the captures of domain and its subdomains
// (matchType=domain), one per URL (collapse=urlkey), only those with status
// 200 unless c.AllStatuses, and calls fn for each, at most limit in all (0:
// no limit). The limit is passed to the server too. When the server ends an
// answer with a resume key (showResumeKey=true), Captures asks for the next
// part, until the server gives no key or limit captures have come.
//
// The answer may be JSON (output=json is asked for) or, from a server that
// ignores that, the plain text format; it may be gzip-compressed with or
// without a Content-Encoding header.
//
// Captures delivered before an error stand. The error is fn's, as it is, if
// fn failed; otherwise it is wrapped with the domain and is one of: the
// *http.Client's error (the server is down, ctx ended, a timeout), a
// *StatusError for a status other than 200, an error wrapping ErrMalformed
// for an answer that cannot be read (garbage, cut short, a resume key that
// does not advance), or the error that ended reading the body.
func (c *Client) Captures(ctx context.Context, domain string, limit int, fn func(Capture) error) error {
	if domain == "" {
		return errors.New("archive: captures: empty domain")
	}
	delivered, empty := 0, 0
	var fnErr error
	deliver := func(cp Capture) error {
		if limit > 0 && delivered == limit {
			return errStop
		}
		delivered++
		if err := fn(cp); err != nil {
			fnErr = err
			return err
		}
		return nil
	}
	key := ""
	// The keys asked with, hashed: a key that comes back again would make
	// the same requests again, forever.
	seen := map[[sha256.Size]byte]bool{}
	for {
		remaining := 0
		if limit > 0 {
			remaining = limit - delivered
		}
		before := delivered
		next, err := c.page(ctx, domain, remaining, key, deliver)
		switch {
		case fnErr != nil:
			return fnErr
		case err == errStop:
			return nil
		case err != nil:
			return fmt.Errorf("archive: captures %s: %w", domain, err)
		case next == "" || limit > 0 && delivered >= limit:
			return nil
		case next == key || seen[sha256.Sum256([]byte(next))]:
			return fmt.Errorf("archive: captures %s: %w: the resume key %q came back", domain, ErrMalformed, next)
		}
		if delivered == before {
			if empty++; empty == maxEmptyPages {
				return fmt.Errorf("archive: captures %s: %w: %d answers in a row without captures", domain, ErrMalformed, empty)
			}
		} else {
			empty = 0
		}
		key = next
		seen[sha256.Sum256([]byte(key))] = true
	}
}

// page makes one request and reads its answer, returning the resume key.
func (c *Client) page(ctx context.Context, domain string, limit int, resumeKey string, fn func(Capture) error) (string, error) {
	u, err := c.query(domain, limit, resumeKey)
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", &StatusError{Code: resp.StatusCode, Status: resp.Status}
	}
	body := bufio.NewReader(resp.Body)
	var r io.Reader = body
	if magic, _ := body.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(body)
		if err != nil {
			return "", fmt.Errorf("gunzip: %w", err)
		}
		r = zr
	}
	return parseCDX(r, fn)
}

// query returns the URL of one request.
func (c *Client) query(domain string, limit int, resumeKey string) (string, error) {
	endpoint := c.Endpoint
	if endpoint == "" {
		endpoint = DefaultEndpoint
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", fmt.Errorf("endpoint: %w", err)
	}
	q := u.Query()
	// The archive keys captures by the host name in ASCII: an IDN domain is
	// asked in punycode. One that is not a valid IDN is asked as it is.
	for i := range len(domain) {
		if domain[i] >= utf8.RuneSelf {
			if a, err := idna.Lookup.ToASCII(domain); err == nil {
				domain = a
			}
			break
		}
	}
	q.Set("url", domain)
	q.Set("matchType", "domain")
	q.Set("collapse", "urlkey")
	q.Set("fl", "original,timestamp,statuscode,mimetype")
	q.Set("output", "json")
	q.Set("showResumeKey", "true")
	if !c.AllStatuses {
		// Added to the endpoint's filters, if any: the server applies all.
		q.Add("filter", "statuscode:200")
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if resumeKey != "" {
		q.Set("resumeKey", resumeKey)
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}
