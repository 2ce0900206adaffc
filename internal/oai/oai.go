// Package oai speaks OAI-PMH 2.0, the protocol institutional repositories
// (DSpace, EPrints, OJS, Invenio) offer for listing their records: the
// polite and complete way to enumerate a repository.
//
// Parse reads one response (Identify, ListMetadataFormats, ListRecords,
// ListIdentifiers, GetRecord, or an OAI error) into values; it is pure,
// linear in its input and bounded by Limits. Records in the oai_dc format
// are mapped to Record, a plain value with the DOI, landing pages and PDF
// links picked out of the Dublin Core identifiers.
//
// A Harvester pages through ListRecords over a Getter (the caller's HTTP
// client, which applies its politeness), following resumption tokens,
// reporting each page so that an interrupted harvest can resume from its
// last token, and stopping on a token it has seen before.
package oai

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// The namespaces of OAI-PMH and of the oai_dc format.
const (
	NamespaceOAI    = "http://www.openarchives.org/OAI/2.0/"
	NamespaceOAIDC  = "http://www.openarchives.org/OAI/2.0/oai_dc/"
	NamespaceDC     = "http://purl.org/dc/elements/1.1/"
	NamespaceDCTerm = "http://purl.org/dc/terms/"
)

// Limits bound what Parse reads and returns. A zero field takes its
// default.
type Limits struct {
	// MaxBytes is the largest response accepted (default 32 MiB); a
	// larger one is an error, not a truncated parse.
	MaxBytes int
	// MaxRecords is the most records (or headers) kept from one response
	// (default 10000); the rest are dropped and Response.Truncated is set.
	MaxRecords int
	// MaxField is the most bytes kept of one value (default 16 KiB), cut
	// at a character boundary.
	MaxField int
	// MaxValues is the most values kept of one repeated element of a
	// record: creators, subjects, identifiers, sets (default 256).
	MaxValues int
}

// Default limits.
const (
	DefaultMaxBytes   = 32 << 20
	DefaultMaxRecords = 10000
	DefaultMaxField   = 16 << 10
	DefaultMaxValues  = 256
)

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxRecords <= 0 {
		l.MaxRecords = DefaultMaxRecords
	}
	if l.MaxField <= 0 {
		l.MaxField = DefaultMaxField
	}
	if l.MaxValues <= 0 {
		l.MaxValues = DefaultMaxValues
	}
	return l
}

// Response is one OAI-PMH response. Exactly one of Identify, Formats,
// Records (with Token) or Errors is what the request asked for; the others
// are empty.
type Response struct {
	ResponseDate string // as sent, e.g. "2025-03-01T09:30:00Z"
	Verb         string // the request's verb attribute, as echoed
	BaseURL      string // the request element's text: the repository's base URL

	Identify *Identify
	Formats  []MetadataFormat
	// Records of ListRecords and GetRecord; ListIdentifiers gives records
	// with a header only.
	Records []Record
	// Token is the list's resumptionToken; nil when the response has none,
	// and a Token with an empty Value when the list is complete.
	Token *ResumptionToken
	// Errors are the response's OAI errors (usually one).
	Errors []*Error
	// Truncated reports that a limit dropped records or cut values.
	Truncated bool
}

// Err returns the response's first OAI error, or nil.
func (r *Response) Err() error {
	if len(r.Errors) == 0 {
		return nil
	}
	return r.Errors[0]
}

// Identify describes a repository.
type Identify struct {
	RepositoryName    string
	BaseURL           string
	ProtocolVersion   string // "2.0"
	AdminEmails       []string
	EarliestDatestamp string
	DeletedRecord     string // "no", "persistent" or "transient"
	Granularity       Granularity
}

// MetadataFormat is one format a repository disseminates.
type MetadataFormat struct {
	Prefix    string // "oai_dc"
	Schema    string
	Namespace string
}

// ResumptionToken continues an incomplete list. An empty Value ends the
// list.
type ResumptionToken struct {
	Value            string
	CompleteListSize int       // -1 when not given
	Cursor           int       // -1 when not given
	ExpirationDate   time.Time // zero when not given
}

// Record is one repository record mapped from its header and its oai_dc
// metadata. A deleted record has a header only.
type Record struct {
	Identifier string   // the OAI identifier, "oai:repo.example.org:123"
	Datestamp  string   // as sent, at the repository's granularity
	Deleted    bool     // the header's status="deleted"
	Sets       []string // setSpec values

	Title        string   // the first dc:title
	Creators     []string // dc:creator, as written ("Sato, J." or "Jamal Sato")
	Contributors []string
	Date         string // the dc:date that gave Year, else the first
	Year         int    // the earliest year among dc:date values; 0 if none
	Type         string // the first dc:type
	Publisher    string
	Description  string // the first dc:description
	Subjects     []string
	Language     string
	Rights       []string
	Sources      []string
	Formats      []string
	// DOI is the first DOI among the identifiers (bare, "doi:…",
	// "https://doi.org/…", "info:doi/…"), then the relations, normalized as
	// scholar.NormalizeDOI does (lower case: DOIs are case-insensitive).
	DOI string
	// Handle is the first Handle System identifier ("hdl:1234/56",
	// "https://hdl.handle.net/1234/56"), as "1234/56".
	Handle string
	// URLs are the http(s) identifiers that are not PDFs and not DOI
	// resolver links: the record's landing pages, in order.
	URLs []string
	// PDFURLs are the http(s) identifiers and relations that name a file:
	// a path ending in .pdf, or a DSpace bitstream, EPrints or OJS
	// download path.
	PDFURLs     []string
	Identifiers []string // every dc:identifier as sent
	Relations   []string // every dc:relation as sent
}

// ErrorCode is an OAI-PMH error code.
type ErrorCode string

// The error codes of OAI-PMH 2.0 (section 3.6).
const (
	BadArgument             ErrorCode = "badArgument"
	BadResumptionToken      ErrorCode = "badResumptionToken"
	BadVerb                 ErrorCode = "badVerb"
	CannotDisseminateFormat ErrorCode = "cannotDisseminateFormat"
	IDDoesNotExist          ErrorCode = "idDoesNotExist"
	NoMetadataFormats       ErrorCode = "noMetadataFormats"
	NoRecordsMatch          ErrorCode = "noRecordsMatch"
	NoSetHierarchy          ErrorCode = "noSetHierarchy"
)

// Error is an OAI error a repository answered. errors.Is matches an Error
// by code: errors.Is(err, oai.ErrBadResumptionToken).
type Error struct {
	Code    ErrorCode
	Message string
}

func (e *Error) Error() string {
	if e.Message == "" {
		return "oai error " + string(e.Code)
	}
	return fmt.Sprintf("oai error %s: %s", e.Code, e.Message)
}

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Sentinels for errors.Is.
var (
	ErrBadArgument             = &Error{Code: BadArgument}
	ErrBadResumptionToken      = &Error{Code: BadResumptionToken}
	ErrBadVerb                 = &Error{Code: BadVerb}
	ErrCannotDisseminateFormat = &Error{Code: CannotDisseminateFormat}
	ErrIDDoesNotExist          = &Error{Code: IDDoesNotExist}
	ErrNoMetadataFormats       = &Error{Code: NoMetadataFormats}
	ErrNoRecordsMatch          = &Error{Code: NoRecordsMatch}
	ErrNoSetHierarchy          = &Error{Code: NoSetHierarchy}
)

// ErrTooLarge is returned by Parse for a response over Limits.MaxBytes.
var ErrTooLarge = errors.New("oai: response too large")

// ErrTruncated is returned by Parse for a response that ends inside the
// document (a connection cut, a body cut at the client's size limit).
var ErrTruncated = errors.New("truncated response")

// Granularity is the precision of a repository's datestamps, as its
// Identify response states it.
type Granularity string

// The two granularities of OAI-PMH 2.0.
const (
	DayGranularity    Granularity = "YYYY-MM-DD"
	SecondGranularity Granularity = "YYYY-MM-DDThh:mm:ssZ"
)

// Format writes t (in UTC) at granularity g; an unknown granularity is
// taken as days, which every repository accepts.
func (g Granularity) Format(t time.Time) string {
	t = t.UTC()
	if g == SecondGranularity {
		return t.Format("2006-01-02T15:04:05Z")
	}
	return t.Format("2006-01-02")
}

// ParseDatestamp reads a datestamp or responseDate at either granularity
// (a fractional second, which some repositories send, is accepted).
func ParseDatestamp(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if len(s) == len("2006-01-02") {
		return time.Parse("2006-01-02", s)
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("oai: datestamp %q: %w", s, err)
	}
	return t.UTC(), nil
}
