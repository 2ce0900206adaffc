package oai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// Getter fetches a URL for the harvester. It is the caller's HTTP client,
// with its robots, politeness and size limits: a status other than 200 is
// a result (status, and Retry-After for a 503), not an error; an error
// means no response was obtained.
type Getter interface {
	Get(ctx context.Context, url string) (status int, body []byte, retryAfter time.Duration, err error)
}

// Harvester lists the records of one repository.
type Harvester struct {
	Getter  Getter
	BaseURL string // "https://repository.example.org/oai/request"
	Limits  Limits // bounds on each response
}

// Options select what ListRecords harvests.
type Options struct {
	// MetadataPrefix is the format asked for (default "oai_dc", which
	// every repository disseminates and which Record maps).
	MetadataPrefix string
	Set            string
	// From and Until bound the records' datestamps (zero: unbounded). For
	// an incremental harvest From is the ResponseDate of the last complete
	// harvest. They are written at Granularity.
	From, Until time.Time
	// Granularity is the repository's, from Identify; the zero value is
	// days, which every repository accepts.
	Granularity Granularity
	// Token resumes an interrupted harvest: the Token of the last page
	// reported (see Page.Token), which a caller persists. When set, the
	// first request sends only it.
	Token string
	// RestartOnBadToken restarts the list once from the start (From,
	// Until, Set) when the repository rejects a token as
	// badResumptionToken (an expired token after a long interruption);
	// records already reported are reported again. Without it the
	// harvest stops with ErrBadResumptionToken.
	RestartOnBadToken bool
	// MaxPages bounds the requests of one call (default 100000).
	MaxPages int
}

// Page is one page of a list, as the harvester reports it.
type Page struct {
	Number       int // 1 for the first page of this call
	URL          string
	ResponseDate string
	Records      []Record
	// Token is the token for the next page: what to persist to resume
	// after this page. "" on the last page.
	Token            string
	CompleteListSize int  // -1 when not given
	Cursor           int  // -1 when not given
	Restarted        bool // the list restarted after a bad token
	Truncated        bool // limits dropped records or cut values
}

// Result sums up a ListRecords call.
type Result struct {
	Pages   int
	Records int
	Deleted int
	// Complete reports that the list was read to its end.
	Complete bool
	// Token is where to resume when the call stopped early: the token of
	// the page that was to be fetched next ("" with Complete).
	Token string
	// ResponseDate is that of the call's first response: the From of the
	// next incremental harvest once this one is complete. A harvest that
	// took several calls (resumed from tokens) keeps the ResponseDate of
	// its first call: records changed while it ran are then harvested
	// again next time rather than missed.
	ResponseDate string
	Restarted    bool
}

// UnavailableError is a 503 (or another status other than 200) the
// repository answered. RetryAfter is its Retry-After (0 if none); the
// caller waits at least that long, then resumes from Result.Token.
type UnavailableError struct {
	Status     int
	RetryAfter time.Duration
}

func (e *UnavailableError) Error() string {
	if e.RetryAfter > 0 {
		return fmt.Sprintf("status %d, retry after %s", e.Status, e.RetryAfter)
	}
	return fmt.Sprintf("status %d", e.Status)
}

// Temporary reports a status worth retrying later: 503, 429 and other
// 5xx.
func (e *UnavailableError) Temporary() bool {
	return e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// ErrTokenCycle is returned when a repository sends a resumption token it
// sent before in the same list: following it would loop forever.
var ErrTokenCycle = errors.New("oai: resumption token repeats")

// ErrTooManyPages is returned when a list goes on past Options.MaxPages.
var ErrTooManyPages = errors.New("oai: too many pages")

// Identify asks the repository to describe itself.
func (h *Harvester) Identify(ctx context.Context) (*Identify, error) {
	resp, _, err := h.do(ctx, url.Values{"verb": {"Identify"}})
	if err != nil {
		return nil, fmt.Errorf("oai: Identify %s: %w", h.BaseURL, err)
	}
	if resp.Identify == nil {
		return nil, fmt.Errorf("oai: Identify %s: no Identify element", h.BaseURL)
	}
	return resp.Identify, nil
}

// ListMetadataFormats asks which formats the repository disseminates.
func (h *Harvester) ListMetadataFormats(ctx context.Context) ([]MetadataFormat, error) {
	resp, _, err := h.do(ctx, url.Values{"verb": {"ListMetadataFormats"}})
	if err != nil {
		return nil, fmt.Errorf("oai: ListMetadataFormats %s: %w", h.BaseURL, err)
	}
	return resp.Formats, nil
}

// ListRecords harvests the list opt selects, page by page, calling page
// for each (its error stops the harvest and is returned as is). It
// returns when the list is complete, at the first error, or when ctx is
// done. noRecordsMatch is an empty list, not an error.
//
// Errors: *UnavailableError for a status other than 200 (Result.Token says
// where to resume after RetryAfter); a Parse error for bad or truncated
// XML (the page is not reported; Result.Token resumes at it); *Error for
// an OAI error (ErrBadResumptionToken when a token is refused and
// RestartOnBadToken is off or already used); ErrTokenCycle;
// ErrTooManyPages; the Getter's errors.
func (h *Harvester) ListRecords(ctx context.Context, opt Options, page func(*Page) error) (Result, error) {
	return h.list(ctx, "ListRecords", opt, page)
}

// ListIdentifiers is ListRecords for headers only (identifier,
// datestamp, sets, deletion): a cheap way to learn which records changed
// or were deleted. Its records have no metadata.
func (h *Harvester) ListIdentifiers(ctx context.Context, opt Options, page func(*Page) error) (Result, error) {
	return h.list(ctx, "ListIdentifiers", opt, page)
}

// GetRecord fetches one record by its OAI identifier. Errors: as
// ListRecords, and ErrIDDoesNotExist.
func (h *Harvester) GetRecord(ctx context.Context, identifier, metadataPrefix string) (*Record, error) {
	if metadataPrefix == "" {
		metadataPrefix = "oai_dc"
	}
	resp, u, err := h.do(ctx, url.Values{"verb": {"GetRecord"}, "identifier": {identifier}, "metadataPrefix": {metadataPrefix}})
	if err == nil {
		err = resp.Err()
	}
	if err == nil && len(resp.Records) != 1 {
		err = fmt.Errorf("%d records in the answer", len(resp.Records))
	}
	if err != nil {
		return nil, fmt.Errorf("oai: GetRecord %s: %w", u, err)
	}
	return &resp.Records[0], nil
}

func (h *Harvester) list(ctx context.Context, verb string, opt Options, page func(*Page) error) (Result, error) {
	if opt.MetadataPrefix == "" {
		opt.MetadataPrefix = "oai_dc"
	}
	if opt.MaxPages <= 0 {
		opt.MaxPages = 100000
	}
	var res Result
	token := opt.Token
	seen := map[string]bool{}
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			res.Token = token
			return res, err
		}
		if n > opt.MaxPages {
			res.Token = token
			return res, fmt.Errorf("oai: %s %s: %d pages: %w", verb, h.BaseURL, opt.MaxPages, ErrTooManyPages)
		}
		q := url.Values{"verb": {verb}}
		if token != "" {
			q.Set("resumptionToken", token)
		} else {
			q.Set("metadataPrefix", opt.MetadataPrefix)
			if opt.Set != "" {
				q.Set("set", opt.Set)
			}
			if !opt.From.IsZero() {
				q.Set("from", opt.Granularity.Format(opt.From))
			}
			if !opt.Until.IsZero() {
				q.Set("until", opt.Granularity.Format(opt.Until))
			}
		}
		resp, u, err := h.do(ctx, q)
		if err == nil {
			err = resp.Err()
		}
		if errors.Is(err, ErrNoRecordsMatch) {
			err = nil
			resp.Records, resp.Token = nil, nil
		}
		if errors.Is(err, ErrBadResumptionToken) && token != "" && opt.RestartOnBadToken && !res.Restarted {
			res.Restarted = true
			token = ""
			clear(seen)
			continue
		}
		if err != nil {
			res.Token = token
			return res, fmt.Errorf("oai: %s %s: %w", verb, u, err)
		}
		if res.ResponseDate == "" {
			res.ResponseDate = resp.ResponseDate
		}
		p := &Page{Number: n, URL: u, ResponseDate: resp.ResponseDate, Records: resp.Records,
			CompleteListSize: -1, Cursor: -1, Restarted: res.Restarted, Truncated: resp.Truncated}
		if t := resp.Token; t != nil {
			p.Token, p.CompleteListSize, p.Cursor = t.Value, t.CompleteListSize, t.Cursor
		}
		if p.Token != "" && (seen[p.Token] || p.Token == token) {
			res.Token = token
			return res, fmt.Errorf("oai: %s %s: token %q: %w", verb, u, p.Token, ErrTokenCycle)
		}
		seen[p.Token] = true
		res.Pages++
		res.Records += len(p.Records)
		for _, r := range p.Records {
			if r.Deleted {
				res.Deleted++
			}
		}
		if page != nil {
			if err := page(p); err != nil {
				res.Token = token
				return res, err
			}
		}
		token = p.Token
		if token == "" {
			res.Complete = true
			return res, nil
		}
	}
}

// do sends one request and parses the answer.
func (h *Harvester) do(ctx context.Context, q url.Values) (*Response, string, error) {
	s, err := requestURL(h.BaseURL, q)
	if err != nil {
		return nil, h.BaseURL, err
	}
	status, body, retry, err := h.Getter.Get(ctx, s)
	if err != nil {
		return nil, s, err
	}
	if status != http.StatusOK {
		return nil, s, &UnavailableError{Status: status, RetryAfter: retry}
	}
	resp, err := Parse(body, h.Limits)
	if err != nil {
		return nil, s, err
	}
	return resp, s, nil
}

// requestURL is base with the query q (replacing any query of base).
func requestURL(base string, q url.Values) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("base URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("base URL %q: not an http(s) URL", base)
	}
	u.RawQuery = q.Encode()
	u.Fragment = ""
	return u.String(), nil
}
