// Package warc keeps the raw HTTP exchanges of a crawl in WARC 1.1 files, so
// that extraction can be re-run from the archive without the network.
//
// A [Writer] appends exchanges to gzip-compressed files named
// PREFIX-YYYYMMDDhhmmss-NNNNN.warc.gz in one directory. Each file starts with
// a warcinfo record; each exchange is a request record and a response record,
// each its own gzip member, linked both ways by WARC-Concurrent-To. The file
// being written carries a ".open" suffix, dropped when the Writer rotates to
// a new file or closes; [ReadAt], [Scan] and [Files] find records either way.
//
// # What a response record holds
//
// The crawler decodes Content-Encoding itself, so the body it has is the
// decoded one. A response record stores that body as an HTTP response message
// (status line, headers, body) with Content-Encoding and Transfer-Encoding
// removed and Content-Length set to the stored body's length, so that the
// record is self-consistent and every standard reader parses it. The original
// Content-Encoding and Content-Length are kept in the headers
// X-Acrawler-Original-Content-Encoding and X-Acrawler-Original-Content-Length.
// WARC purists store the bytes as they came off the wire instead; this
// archive trades that for records that need no decoding and no knowledge of
// the crawler to read. When [Exchange.Decoded] is false the body is stored as
// received and Content-Encoding stays.
//
// Records carry WARC-Block-Digest and WARC-Payload-Digest computed with
// SHA-256 (lowercase base16, "sha256:…"), see [DigestAlgorithm]. [ReadAt]
// and [Scan] check them on response records; other records are checked by
// their gzip CRC only.
package warc

import (
	"errors"
	"net/http"
	"time"
)

// DigestAlgorithm is the algorithm of the WARC-Block-Digest and
// WARC-Payload-Digest fields this package writes. SHA-1 in base32 is the
// older custom (CDX files carry it); SHA-256 is what WARC 1.1 tooling
// recommends now and is not broken for collisions.
const DigestAlgorithm = "sha256"

// Defaults of [Options].
const (
	DefaultPrefix      = "acrawler"
	DefaultMaxFileSize = 1 << 30
	DefaultSoftware    = "acrawler"
)

// OpenSuffix is appended to the name of the file a Writer is writing.
const OpenSuffix = ".open"

// Extension is the extension of the files a Writer makes.
const Extension = ".warc.gz"

// Header names the response record adds to keep what it rewrote.
const (
	HeaderOriginalContentEncoding = "X-Acrawler-Original-Content-Encoding"
	HeaderOriginalContentLength   = "X-Acrawler-Original-Content-Length"
)

// ErrClosed is returned by [Writer.Write] after [Writer.Close].
var ErrClosed = errors.New("warc: writer closed")

// ErrCorrupt is wrapped by the errors of [ReadAt] and [Scan] when the bytes
// of a record are not a well-formed gzip member holding a WARC record whose
// digests match; it is not worth retrying.
var ErrCorrupt = errors.New("warc: corrupt record")

// Options configures a [Writer].
type Options struct {
	Dir         string // directory for the files, created if missing
	Prefix      string // file name prefix; default DefaultPrefix
	MaxFileSize int64  // start a new file rather than grow one past this; default DefaultMaxFileSize
	Software    string // software field of the warcinfo record, such as "acrawler/0.1.0"; default DefaultSoftware
}

// Exchange is one HTTP request and the response the crawler got for it.
type Exchange struct {
	URL        string      // absolute URL of the request
	Method     string      // default "GET"
	ReqHeader  http.Header // the request headers sent (User-Agent, Accept, If-None-Match, ...); Host is added from URL if absent
	Time       time.Time   // when the request was sent; zero means now. Stored at microsecond precision
	IP         string      // remote IP, with or without port; "" or unparsable omits WARC-IP-Address
	Status     int         // HTTP status code, 100 to 999
	Proto      string      // "HTTP/1.1" (the default), "HTTP/2.0", ...
	RespHeader http.Header // the response headers received
	Body       []byte      // the payload as the crawler has it
	Decoded    bool        // the crawler removed Content-Encoding from Body
	Truncated  string      // "" or the WARC-Truncated reason: "length", "time", "disconnect", "unspecified"
}

// Location says where a response record is: the gzip member at Offset,
// Length bytes long, in File, a name relative to the archive directory
// (without OpenSuffix even while the file is being written).
type Location struct {
	File   string
	Offset int64
	Length int64
}

// Record is a response record read back from an archive.
type Record struct {
	URL       string      // WARC-Target-URI
	Time      time.Time   // WARC-Date
	Status    int         // HTTP status code
	Header    http.Header // HTTP response headers as stored (see the package doc)
	Body      []byte      // HTTP payload, without chunked transfer coding
	Type      string      // WARC-Type: "response"
	Truncated string      // WARC-Truncated, "" if the body is whole
}

// truncationReasons are the WARC-Truncated values WARC 1.1 defines.
var truncationReasons = map[string]bool{
	"":            true,
	"length":      true,
	"time":        true,
	"disconnect":  true,
	"unspecified": true,
}
