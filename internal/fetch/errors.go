package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"
	"time"
)

// Kind classifies why a fetch produced no response.
type Kind int

// Error kinds. The zero Kind is not used.
const (
	KindTimeout   Kind = iota + 1 // Config.Timeout (or the caller's deadline) expired
	KindDNS                       // the host name could not be resolved
	KindConnect                   // connection refused, reset, unreachable, or closed before a response
	KindTLS                       // TLS handshake or certificate failure
	KindTooLarge                  // the decoded body exceeds MaxBody
	KindBlocked                   // the address or host is refused by the SSRF guard (the error matches ErrPrivate)
	KindProtocol                  // malformed response, headers, chunking or compression; truncated body
	KindRedirects                 // more redirects than Request.FollowRedirects
	KindCanceled                  // the caller canceled the context
	KindBadURL                    // not an absolute http(s) URL (the request or a redirect target)
)

var kindNames = [...]string{
	KindTimeout:   "timeout",
	KindDNS:       "dns",
	KindConnect:   "connect",
	KindTLS:       "tls",
	KindTooLarge:  "too large",
	KindBlocked:   "refused",
	KindProtocol:  "protocol",
	KindRedirects: "redirects",
	KindCanceled:  "canceled",
	KindBadURL:    "bad url",
}

// String returns a short lowercase name such as "timeout" or "too large".
func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Error is the error returned by Client.Fetch.
type Error struct {
	Kind   Kind
	URL    string // the URL being fetched when it failed (a redirect target when following)
	Status int    // the response status when one was received (TooLarge, Redirects, a failed body read), else 0
	Err    error  // the underlying cause
}

// Error returns a message like "fetch: get http://a.example/: timeout: ...".
func (e *Error) Error() string {
	s := "fetch: get " + e.URL + ": " + e.Kind.String()
	if e.Status != 0 {
		s += fmt.Sprintf(" (status %d)", e.Status)
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Temporary reports whether the same fetch is worth retrying later:
// timeouts, connection failures, DNS failures other than "no such host",
// and truncated responses. Blocked, bad URLs, redirect loops, oversized
// bodies, malformed responses, TLS failures and cancellation are not.
func (e *Error) Temporary() bool {
	switch e.Kind {
	case KindTimeout, KindConnect:
		return true
	case KindDNS:
		var d *net.DNSError
		return !errors.As(e.Err, &d) || !d.IsNotFound
	case KindProtocol:
		return errors.Is(e.Err, io.ErrUnexpectedEOF)
	}
	return false
}

// timeoutError is the cause of a fetch's context when Config.Timeout
// expires; it lets classify tell our deadline from the caller's.
type timeoutError struct{ d time.Duration }

func (e *timeoutError) Error() string {
	return fmt.Sprintf("no complete response within %v", e.d)
}

// Timeout reports true, as net.Error timeouts do.
func (e *timeoutError) Timeout() bool { return true }

// Is makes errors.Is(err, context.DeadlineExceeded) hold.
func (e *timeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// classify turns an error from the transport, the guard or a body read into
// an *Error. parent is the caller's context, ctx the fetch's own.
func classify(parent, ctx context.Context, u string, status int, err error) *Error {
	var fe *Error
	if errors.As(err, &fe) {
		return fe
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the URL is in Error.URL already
	}
	e := &Error{URL: u, Status: status, Err: err}
	var (
		be  *blockedError
		dns *net.DNSError
		enc errEncoding
	)
	switch {
	case errors.As(err, &be):
		e.Kind = KindBlocked
	case errors.Is(err, errTooLarge):
		e.Kind = KindTooLarge
	case parent.Err() != nil:
		e.Kind = KindTimeout
		if errors.Is(parent.Err(), context.Canceled) {
			e.Kind = KindCanceled
		}
	case isOurTimeout(ctx):
		e.Kind = KindTimeout
		e.Err = context.Cause(ctx)
	case errors.As(err, &dns):
		e.Kind = KindDNS
	case isTimeout(err):
		e.Kind = KindTimeout
	case isTLS(err):
		e.Kind = KindTLS
	case errors.As(err, &enc):
		e.Kind = KindProtocol
	case isConnect(err):
		e.Kind = KindConnect
	default:
		e.Kind = KindProtocol
	}
	return e
}

func isOurTimeout(ctx context.Context) bool {
	var te *timeoutError
	return ctx.Err() != nil && errors.As(context.Cause(ctx), &te)
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &t) && t.Timeout()
}

func isTLS(err error) bool {
	var (
		cv  *tls.CertificateVerificationError
		rh  tls.RecordHeaderError
		al  tls.AlertError
		ua  x509.UnknownAuthorityError
		he  x509.HostnameError
		ci  x509.CertificateInvalidError
		op  *net.OpError
		ech *tls.ECHRejectionError
	)
	switch {
	case errors.As(err, &cv), errors.As(err, &rh), errors.As(err, &al),
		errors.As(err, &ua), errors.As(err, &he), errors.As(err, &ci), errors.As(err, &ech):
		return true
	case errors.As(err, &op):
		// crypto/tls reports alerts as *net.OpError with these operations.
		return op.Op == "remote error" || op.Op == "local error"
	}
	return false
}

func isConnect(err error) bool {
	var op *net.OpError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EHOSTUNREACH),
		errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF): // the server closed the connection before answering
		return true
	case errors.As(err, &op):
		return op.Op == "dial" || op.Op == "proxyconnect"
	}
	return false
}
