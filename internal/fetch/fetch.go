// Package fetch is the crawler's HTTP client: one Client, shared by all
// workers, fetches a URL with a bounded time and body size, decodes
// compressed bodies itself, reads only the media types it is asked for and
// refuses to connect to private and other non-public addresses.
//
// It follows http.RoundTripper's contract: any HTTP status, 404 and 503
// included, is a Response; an error (always an *Error) means that no usable
// response was obtained or that policy refused the fetch, and says whether
// it is worth retrying.
package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
	"golang.org/x/net/http/httpproxy"
)

// Defaults for zero Config fields.
const (
	DefaultTimeout         = 10 * time.Second
	DefaultMaxBody         = 5 << 20
	DefaultMaxConnsPerHost = 2
)

// acceptHeader is sent on every request. Media types the caller does not
// accept are still welcome: their bodies are simply not read.
const acceptHeader = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

// drainLimit is the largest unread body (by Content-Length) that is read
// and discarded, rather than the connection closed, to keep it alive.
const drainLimit = 4 << 10

// sniffLen is how much of a body http.DetectContentType looks at.
const sniffLen = 512

// Config configures a Client. Only UserAgent is required.
type Config struct {
	// UserAgent is sent on every request.
	UserAgent string

	// Timeout bounds a whole fetch, redirects and body included, so that a
	// server dripping a byte a second cannot hold the caller longer.
	// 0 means DefaultTimeout.
	Timeout time.Duration

	// MaxBody is the default limit on a decoded (decompressed) body.
	// 0 means DefaultMaxBody.
	MaxBody int64

	// Proxy is the proxy URL, such as "http://127.0.0.1:3128" (http,
	// https, socks5 and socks5h schemes; "host:port" means http). ""
	// uses HTTP_PROXY, HTTPS_PROXY and NO_PROXY as read when New is
	// called (the rules of http.ProxyFromEnvironment); "none" means no
	// proxy whatever the environment says.
	Proxy string

	// AllowPrivate allows connecting to loopback, private, link-local and
	// other non-public addresses.
	AllowPrivate bool

	// MaxConnsPerHost limits connections to one host (all states).
	// 0 means DefaultMaxConnsPerHost.
	MaxConnsPerHost int

	// Dial replaces the dialer, for tests. Unless AllowPrivate is set, the
	// address passed to it is checked first: IP literals by range, host
	// names by the rules applied to targets reached through a proxy (it is
	// Dial's job to resolve them, as it is a proxy's). Connections to a
	// proxy are not checked.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)

	// RootCAs replaces the system roots for verifying servers (tests,
	// private deployments). nil means the system roots.
	RootCAs *x509.CertPool
}

// Request is one fetch.
type Request struct {
	// URL is an absolute http or https URL.
	URL string

	// Accept reports which media types (lowercase, without parameters)
	// have their body read. nil accepts text/html and
	// application/xhtml+xml. For other types Fetch returns a Response
	// with BodySkipped set, without reading the body.
	Accept func(mediaType string) bool

	// MaxBody limits the decoded body; 0 means Config.MaxBody.
	MaxBody int64

	// Limit, when set, chooses the body limit by media type (a PDF may be
	// larger than a page); a result of 0 falls back to MaxBody.
	Limit func(mediaType string) int64

	// ETag, when set, is sent as If-None-Match.
	ETag string

	// LastModified, when set, is sent as If-Modified-Since.
	LastModified string

	// Truncate keeps the first MaxBody bytes of a longer body (setting
	// Response.Truncated) instead of failing with KindTooLarge. robots.txt
	// is read this way: only its first 500 KiB count.
	Truncate bool

	// FollowRedirects is how many redirects to follow. 0 returns a
	// redirect as a Response with Location set. When following, every
	// hop passes the SSRF guard, and a redirect beyond the last allowed
	// hop is an error of KindRedirects.
	FollowRedirects int
}

// Response is an HTTP response with its body read and decoded.
type Response struct {
	URL    string      // the URL that answered (the last hop when following redirects)
	Status int         // HTTP status code
	Proto  string      // "HTTP/1.1"
	Header http.Header // response header as received
	// RequestHeader is the header of the request that got this response
	// (for archiving the exchange); do not modify it.
	RequestHeader http.Header
	MediaType     string // lowercase media type without parameters; sniffed when Content-Type is absent or invalid; "" when unknown
	ContentType   string // raw Content-Type header
	Body          []byte // decoded body; nil when BodySkipped or empty
	BodySkipped   bool   // MediaType not accepted: the body was not read
	Truncated     bool   // Request.Truncate cut the body at MaxBody

	// Location is, for a 3xx response, its Location header resolved
	// against URL; "" when absent or invalid.
	Location string

	// RetryAfter is the Retry-After header (delta-seconds or HTTP-date,
	// relative to now), capped at 24h; 0 when absent or invalid.
	RetryAfter time.Duration

	Bytes     int64         // len(Body)
	WireBytes int64         // received for the whole exchange, redirects included: status lines and headers (approximately) and compressed body bytes read
	Duration  time.Duration // from the call to Fetch until the body was read
}

// Client fetches URLs. It is safe for concurrent use; create one and share it.
type Client struct {
	userAgent    string
	timeout      time.Duration
	maxBody      int64
	allowPrivate bool
	proxy        func(*url.URL) (*url.URL, error) // nil: never proxy
	dial         func(ctx context.Context, network, addr string) (net.Conn, error)
	checked      *net.Dialer // refuses blocked addresses unless AllowPrivate
	plain        *net.Dialer // for proxies
	transport    *http.Transport
}

// proxyKey is the context key under which a request carries the proxy URL
// chosen for it, read by the transport's Proxy and dial functions.
type proxyKey struct{}

// New returns a Client for cfg, or an error naming the invalid setting.
func New(cfg Config) (*Client, error) {
	switch {
	case cfg.UserAgent == "":
		return nil, errors.New("fetch: config: empty user agent")
	case !httpguts.ValidHeaderFieldValue(cfg.UserAgent):
		return nil, fmt.Errorf("fetch: config: invalid user agent %q", cfg.UserAgent)
	case cfg.Timeout < 0:
		return nil, fmt.Errorf("fetch: config: negative timeout %v", cfg.Timeout)
	case cfg.MaxBody < 0:
		return nil, fmt.Errorf("fetch: config: negative max body %d", cfg.MaxBody)
	case cfg.MaxConnsPerHost < 0:
		return nil, fmt.Errorf("fetch: config: negative max connections per host %d", cfg.MaxConnsPerHost)
	}
	c := &Client{
		userAgent:    cfg.UserAgent,
		timeout:      cmp0(cfg.Timeout, DefaultTimeout),
		maxBody:      cmp0(cfg.MaxBody, DefaultMaxBody),
		allowPrivate: cfg.AllowPrivate,
		dial:         cfg.Dial,
	}
	proxy, err := proxyFunc(cfg.Proxy)
	if err != nil {
		return nil, err
	}
	c.proxy = proxy

	// Partial timeouts well under the whole, so that a stuck phase is
	// reported as what it is; the context deadline bounds everything.
	phase := c.timeout / 2
	c.plain = &net.Dialer{Timeout: phase, KeepAlive: 30 * time.Second,
		// The pure Go resolver does not tie up a thread per lookup.
		Resolver: &net.Resolver{PreferGo: true}}
	c.checked = c.plain
	if !c.allowPrivate {
		d := *c.plain
		d.ControlContext = controlDial
		c.checked = &d
	}
	conns := cmp0(cfg.MaxConnsPerHost, DefaultMaxConnsPerHost)
	c.transport = &http.Transport{
		Proxy: func(r *http.Request) (*url.URL, error) {
			p, _ := r.Context().Value(proxyKey{}).(*url.URL)
			return p, nil
		},
		ProxyConnectHeader:     http.Header{"User-Agent": {c.userAgent}},
		DialContext:            c.dialContext,
		TLSClientConfig:        &tls.Config{RootCAs: cfg.RootCAs},
		TLSHandshakeTimeout:    phase,
		ResponseHeaderTimeout:  c.timeout * 3 / 4,
		ForceAttemptHTTP2:      true,
		DisableCompression:     true, // we ask for gzip and decode it ourselves
		MaxIdleConns:           512,
		MaxIdleConnsPerHost:    conns,
		MaxConnsPerHost:        conns,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 1 << 20,
	}
	return c, nil
}

func cmp0[T int | int64 | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// proxyFunc returns the proxy selection for a Config.Proxy value.
func proxyFunc(s string) (func(*url.URL) (*url.URL, error), error) {
	switch s {
	case "none":
		return nil, nil
	case "":
		env := httpproxy.FromEnvironment()
		for _, v := range []struct{ name, val string }{{"HTTP_PROXY", env.HTTPProxy}, {"HTTPS_PROXY", env.HTTPSProxy}} {
			if v.val == "" {
				continue
			}
			if _, err := parseProxy(v.val); err != nil {
				return nil, fmt.Errorf("fetch: config: proxy from %s %q: %w", v.name, v.val, err)
			}
		}
		if env.HTTPProxy == "" && env.HTTPSProxy == "" {
			return nil, nil
		}
		return env.ProxyFunc(), nil
	}
	u, err := parseProxy(s)
	if err != nil {
		return nil, fmt.Errorf("fetch: config: proxy %q: %w", s, err)
	}
	return func(*url.URL) (*url.URL, error) { return u, nil }, nil
}

// parseProxy parses a proxy URL; "host:port" means http://host:port.
func parseProxy(s string) (*url.URL, error) {
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	switch u.Scheme {
	case "http", "https", "socks5", "socks5h":
	default:
		return nil, fmt.Errorf("unsupported scheme %q", u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, errors.New("no host")
	}
	return u, nil
}

// proxyAddr returns the host:port the transport dials for proxy p.
func proxyAddr(p *url.URL) string {
	port := p.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080", "socks5h": "1080"}[p.Scheme]
	}
	return net.JoinHostPort(p.Hostname(), port)
}

// dialContext is the transport's dialer: connections to the proxy chosen
// for the request go unchecked; others pass the SSRF guard. The host name
// is checked before anything resolves it: names that are loopback by
// definition ("localhost", "*.localhost", RFC 6761) and numeric names are
// refused without asking DNS. The addresses a name resolves to are checked
// by the dialer's control function (or, with Config.Dial, left to it).
func (c *Client) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if p, _ := ctx.Value(proxyKey{}).(*url.URL); p != nil && addr == proxyAddr(p) {
		if c.dial != nil {
			return c.dial(ctx, network, addr)
		}
		return c.plain.DialContext(ctx, network, addr)
	}
	if !c.allowPrivate {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, &blockedError{addr: addr, why: "unparsable address"}
		}
		if err := checkHost(host); err != nil {
			return nil, err
		}
	}
	if c.dial != nil {
		return c.dial(ctx, network, addr)
	}
	return c.checked.DialContext(ctx, network, addr)
}

// Close closes idle connections. The Client remains usable.
func (c *Client) Close() {
	c.transport.CloseIdleConnections()
}

// Fetch gets req.URL. A response with any status is a *Response; an error
// is an *Error: KindBadURL for a URL that is not absolute http(s),
// KindBlocked when the SSRF guard refuses the address (permanent, and
// matching ErrPrivate), KindTooLarge when
// the decoded body exceeds MaxBody, KindRedirects when following more
// redirects than allowed, KindCanceled when ctx is canceled, KindTimeout
// when Config.Timeout or ctx's deadline expires, and KindDNS, KindConnect,
// KindTLS or KindProtocol when the network or the server fails.
func (c *Client) Fetch(ctx context.Context, req Request) (*Response, error) {
	start := time.Now()
	u, err := parseTarget(req.URL)
	if err != nil {
		return nil, &Error{Kind: KindBadURL, URL: req.URL, Err: err}
	}
	fctx, cancel := context.WithTimeoutCause(ctx, c.timeout, &timeoutError{c.timeout})
	defer cancel()

	h := make(http.Header, 6)
	h["User-Agent"] = []string{c.userAgent}
	h["Accept"] = []string{acceptHeader}
	h["Accept-Encoding"] = []string{"gzip, deflate"}
	if req.ETag != "" {
		h["If-None-Match"] = []string{req.ETag}
	}
	if req.LastModified != "" {
		h["If-Modified-Since"] = []string{req.LastModified}
	}

	var wire int64
	for hop := 0; ; hop++ {
		resp, err := c.send(fctx, u, h)
		if err != nil {
			return nil, classify(ctx, fctx, u.String(), 0, err)
		}
		wire += headerBytes(resp)
		if req.FollowRedirects <= 0 || !isRedirect(resp.StatusCode) {
			return c.read(ctx, fctx, resp, req, start, wire)
		}
		loc, err := resp.Location()
		if err != nil {
			// A redirect without a usable Location is the answer.
			return c.read(ctx, fctx, resp, req, start, wire)
		}
		wire += discard(resp)
		if hop >= req.FollowRedirects {
			return nil, &Error{Kind: KindRedirects, URL: u.String(), Status: resp.StatusCode,
				Err: fmt.Errorf("more than %d redirects", req.FollowRedirects)}
		}
		next, err := parseTarget(loc.String())
		if err != nil {
			return nil, &Error{Kind: KindBadURL, URL: u.String(), Status: resp.StatusCode,
				Err: fmt.Errorf("redirect to %q: %w", loc.String(), err)}
		}
		u = next
		if req.ETag != "" || req.LastModified != "" {
			// Validators belong to the first URL, not to where it
			// redirects. A new map: the transport may still read the old.
			h = h.Clone()
			delete(h, "If-None-Match")
			delete(h, "If-Modified-Since")
		}
	}
}

// parseTarget parses an absolute http(s) URL.
func parseTarget(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, errors.New("not an http or https URL")
	}
	if u.Hostname() == "" {
		return nil, errors.New("no host")
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// send makes one GET request, through the proxy when one applies.
func (c *Client) send(ctx context.Context, u *url.URL, h http.Header) (*http.Response, error) {
	if c.proxy != nil {
		p, err := c.proxy(u)
		if err != nil {
			return nil, err
		}
		if p != nil {
			if !c.allowPrivate {
				if err := checkHost(u.Hostname()); err != nil {
					return nil, err
				}
			}
			ctx = context.WithValue(ctx, proxyKey{}, p)
		}
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	r.Header = h // never modified once sent
	return c.transport.RoundTrip(r)
}

// discard reads and discards a small unread body, so that its connection
// can be reused, and closes it. It returns the bytes read.
func discard(resp *http.Response) int64 {
	var n int64
	if resp.ContentLength >= 0 && resp.ContentLength <= drainLimit {
		n, _ = io.CopyN(io.Discard, resp.Body, drainLimit+1)
	}
	resp.Body.Close()
	return n
}

// read reads and decodes resp's body into a Response.
func (c *Client) read(parent, ctx context.Context, resp *http.Response, req Request, start time.Time, wire int64) (*Response, error) {
	out := &Response{
		URL:           resp.Request.URL.String(),
		Status:        resp.StatusCode,
		Proto:         resp.Proto,
		Header:        resp.Header,
		RequestHeader: resp.Request.Header,
		ContentType:   resp.Header.Get("Content-Type"),
		RetryAfter:    parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()),
	}
	if resp.StatusCode/100 == 3 {
		if loc, err := resp.Location(); err == nil && loc.IsAbs() {
			out.Location = loc.String()
		}
	}
	done := func() (*Response, error) {
		out.Bytes = int64(len(out.Body))
		out.WireBytes = wire
		out.Duration = time.Since(start)
		return out, nil
	}
	fail := func(err error) (*Response, error) {
		resp.Body.Close()
		return nil, classify(parent, ctx, out.URL, resp.StatusCode, err)
	}
	accept := req.Accept
	if accept == nil {
		accept = acceptHTML
	}
	out.MediaType = mediaType(out.ContentType)
	if out.MediaType != "" && !accept(out.MediaType) {
		out.BodySkipped = true
		wire += discard(resp)
		return done()
	}
	limit := c.bodyLimit(req, out.MediaType)
	encoding := resp.Header.Get("Content-Encoding")
	identity := encoding == "" || strings.EqualFold(encoding, "identity")
	tooLong := func() (*Response, error) {
		resp.Body.Close()
		return nil, &Error{Kind: KindTooLarge, URL: out.URL, Status: resp.StatusCode,
			Err: fmt.Errorf("content length %d exceeds %d bytes", resp.ContentLength, limit)}
	}
	if out.MediaType != "" && identity && resp.ContentLength > limit && !req.Truncate {
		return tooLong()
	}

	body := &countingReader{r: resp.Body}
	dec, release, err := decoder(encoding, body)
	if err != nil {
		wire += body.n
		return fail(err)
	}
	defer release()
	var buf []byte
	eof := false
	if out.MediaType == "" {
		buf, eof, err = readPrefix(dec, sniffLen)
		if err != nil {
			return fail(err)
		}
		if len(buf) > 0 {
			out.MediaType = mediaType(http.DetectContentType(buf))
			if !accept(out.MediaType) {
				out.BodySkipped = true
				resp.Body.Close()
				wire += body.n
				return done()
			}
			limit = c.bodyLimit(req, out.MediaType) // Limit applies to a sniffed type too
			if identity && resp.ContentLength > limit && !req.Truncate {
				return tooLong()
			}
		}
	}
	// Truncate reads one byte more than it keeps, to tell a cut body
	// from one of exactly limit bytes.
	readLimit := limit
	if req.Truncate {
		readLimit = limit + 1
		if int64(len(buf)) >= readLimit {
			buf, eof = buf[:readLimit], true
		}
		dec = io.LimitReader(dec, readLimit-int64(len(buf)))
	}
	if !eof {
		size := int64(-1) // decoded size, when known
		if identity && resp.ContentLength <= limit {
			size = resp.ContentLength
		}
		buf, err = readBody(dec, buf, readLimit, size)
	} else if int64(len(buf)) > readLimit {
		err = errTooLarge // the sniffed prefix holds the whole body, and more than the limit
	}
	resp.Body.Close()
	wire += body.n
	if err != nil {
		if err == errTooLarge {
			err = fmt.Errorf("decoded body exceeds %d bytes", limit)
			return nil, &Error{Kind: KindTooLarge, URL: out.URL, Status: resp.StatusCode, Err: err}
		}
		return fail(err)
	}
	if req.Truncate && int64(len(buf)) > limit {
		buf, out.Truncated = buf[:limit], true
	}
	out.Body = nonEmpty(buf)
	return done()
}

// bodyLimit returns the limit on a decoded body of media type mt ("" when
// not known yet) for req.
func (c *Client) bodyLimit(req Request, mt string) int64 {
	limit := req.MaxBody
	if req.Limit != nil && mt != "" {
		if l := req.Limit(mt); l > 0 {
			limit = l
		}
	}
	if limit <= 0 {
		limit = c.maxBody
	}
	return limit
}

// readPrefix reads up to n bytes of r and reports whether it reached EOF.
func readPrefix(r io.Reader, n int) (buf []byte, eof bool, err error) {
	buf = make([]byte, n)
	read := 0
	for read < n {
		m, err := r.Read(buf[read:])
		read += m
		if err == io.EOF {
			return buf[:read], true, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
	return buf, false, nil
}

func nonEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

func acceptHTML(mt string) bool {
	return mt == "text/html" || mt == "application/xhtml+xml"
}
