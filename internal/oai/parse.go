package oai

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// Parse reads one OAI-PMH response. It accepts a byte order mark,
// whitespace before the XML declaration, HTML named entities (&nbsp;,
// &eacute;), CDATA, ISO-8859-1 and windows-1252 documents, and in a UTF-8
// document replaces invalid bytes and the control characters XML forbids
// (form feeds copied out of PDFs) rather than failing. Elements are matched
// by namespace, whatever prefixes the repository uses; Dublin Core elements
// written with an undeclared "dc:" prefix or in the DC terms namespace are
// read too.
//
// Parse returns an error for a response over lim.MaxBytes (ErrTooLarge),
// for XML that is malformed or truncated, and for a document that is not
// an OAI-PMH response. OAI errors are not Parse errors: they are in
// Response.Errors.
func Parse(body []byte, lim Limits) (*Response, error) {
	lim = lim.withDefaults()
	if len(body) > lim.MaxBytes {
		return nil, fmt.Errorf("oai: parse: %d bytes: %w", len(body), ErrTooLarge)
	}
	body = clean(body)
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict = true
	d.Entity = xml.HTMLEntity
	d.CharsetReader = charsetReader
	p := &parser{d: d, lim: lim, resp: &Response{}}
	if err := p.document(); err != nil {
		var syntax *xml.SyntaxError
		if errors.Is(err, io.EOF) || errors.As(err, &syntax) && d.InputOffset() >= int64(len(body)) {
			// The input ended inside the document.
			return nil, fmt.Errorf("oai: parse: %w: %w", ErrTruncated, err)
		}
		return nil, fmt.Errorf("oai: parse: %w", err)
	}
	return p.resp, nil
}

// clean strips what precedes the XML declaration (a byte order mark,
// whitespace) and, in a document that does not declare another encoding,
// replaces invalid UTF-8 and forbidden control characters. It copies body
// only when something is replaced.
func clean(body []byte) []byte {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	body = bytes.TrimLeft(body, " \t\r\n")
	if enc := declaredEncoding(body); enc != "" && enc != "utf-8" && enc != "utf8" {
		return body
	}
	bad := !utf8.Valid(body)
	if !bad {
		for _, c := range body {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
				bad = true
				break
			}
		}
	}
	if !bad {
		return body
	}
	body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	out := make([]byte, len(body))
	for i, c := range body {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			c = ' '
		}
		out[i] = c
	}
	return out
}

// declaredEncoding returns the lower-cased encoding of the XML
// declaration, or "".
func declaredEncoding(body []byte) string {
	if !bytes.HasPrefix(body, []byte("<?xml")) {
		return ""
	}
	end := bytes.Index(body, []byte("?>"))
	if end < 0 || end > 200 {
		return ""
	}
	decl := string(body[:end])
	i := strings.Index(decl, "encoding")
	if i < 0 {
		return ""
	}
	rest := strings.TrimLeft(decl[i+len("encoding"):], " \t\r\n=")
	if rest == "" || (rest[0] != '"' && rest[0] != '\'') {
		return ""
	}
	q := rest[0]
	rest = rest[1:]
	if j := strings.IndexByte(rest, q); j >= 0 {
		return strings.ToLower(rest[:j])
	}
	return ""
}

func charsetReader(label string, r io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "iso-8859-1", "latin1", "latin-1", "iso8859-1":
		return charmap.ISO8859_1.NewDecoder().Reader(r), nil
	case "windows-1252", "cp1252":
		return charmap.Windows1252.NewDecoder().Reader(r), nil
	case "us-ascii", "ascii":
		return r, nil
	}
	return nil, fmt.Errorf("unsupported encoding %q", label)
}

type parser struct {
	d    *xml.Decoder
	lim  Limits
	resp *Response
	buf  []byte // text of the element being read
	// pending is the decoder error met by text, returned by err.
	pending error
}

// next returns the next start or end element, skipping everything else.
func (p *parser) next() (xml.Token, error) {
	for {
		t, err := p.d.Token()
		if err != nil {
			return nil, err
		}
		switch t.(type) {
		case xml.StartElement, xml.EndElement:
			return t, nil
		}
	}
}

func (p *parser) document() error {
	t, err := p.next()
	if err != nil {
		return err
	}
	root, ok := t.(xml.StartElement)
	if !ok || root.Name.Local != "OAI-PMH" || (root.Name.Space != NamespaceOAI && root.Name.Space != "") {
		return errors.New("not an OAI-PMH response")
	}
	err = p.children(func(se xml.StartElement) error {
		if !oaiName(se.Name) {
			return p.d.Skip()
		}
		switch se.Name.Local {
		case "responseDate":
			p.resp.ResponseDate = p.text()
		case "request":
			p.resp.Verb = attr(se, "verb")
			p.resp.BaseURL = p.text()
		case "error":
			code := ErrorCode(attr(se, "code"))
			msg := p.text()
			if len(p.resp.Errors) < p.lim.MaxValues {
				p.resp.Errors = append(p.resp.Errors, &Error{Code: code, Message: msg})
			}
		case "Identify":
			return p.identify()
		case "ListMetadataFormats":
			return p.formats()
		case "ListRecords", "GetRecord", "ListIdentifiers":
			return p.list()
		default:
			return p.d.Skip()
		}
		return p.err()
	})
	if err != nil {
		return err
	}
	// Nothing but comments and whitespace may follow the root; a second
	// element or garbage is an error.
	for {
		t, err := p.d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := t.(type) {
		case xml.CharData:
			if len(bytes.TrimSpace(t)) != 0 {
				return errors.New("text after the root element")
			}
		case xml.StartElement:
			return errors.New("a second root element")
		}
	}
}

// children calls f for each child element of the element just started
// and returns at its end. f must consume the child, end element included.
func (p *parser) children(f func(xml.StartElement) error) error {
	for {
		t, err := p.next()
		if err != nil {
			return err
		}
		switch t := t.(type) {
		case xml.EndElement:
			return nil
		case xml.StartElement:
			if err := f(t); err != nil {
				return err
			}
		}
	}
}

// text reads the text of the element just started, nested elements'
// included, up to its end; whitespace runs become one space and the value
// is cut to MaxField bytes. A decoder error is kept for err.
func (p *parser) text() string {
	s, err := p.textErr()
	if err != nil {
		p.pending = err
	}
	return s
}

// err returns and clears the error text met.
func (p *parser) err() error {
	err := p.pending
	p.pending = nil
	return err
}

// textErr is text returning its error.
func (p *parser) textErr() (string, error) { return p.read(true) }

// textRaw reads the text of the element just started like text, but keeps
// whitespace inside it as it is.
func (p *parser) textRaw() (string, error) { return p.read(false) }

func (p *parser) read(collapse bool) (string, error) {
	p.buf = p.buf[:0]
	depth := 0
	space := false
	for {
		t, err := p.d.Token()
		if err != nil {
			return "", err
		}
		switch t := t.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			if depth == 0 {
				s := string(bytes.TrimRight(p.buf, " \t\r\n"))
				if len(s) > p.lim.MaxField {
					s = cut(s, p.lim.MaxField)
					p.resp.Truncated = true
				}
				return s, nil
			}
			depth--
		case xml.CharData:
			for _, c := range t {
				if len(p.buf) > p.lim.MaxField {
					break
				}
				if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
					if !collapse && len(p.buf) > 0 {
						p.buf = append(p.buf, c)
					}
					space = collapse && len(p.buf) > 0
					continue
				}
				if space {
					p.buf = append(p.buf, ' ')
					space = false
				}
				p.buf = append(p.buf, c)
			}
		}
	}
}

// cut shortens s to at most n bytes at a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func attr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return strings.TrimSpace(a.Value)
		}
	}
	return ""
}

// oaiName reports an element of the OAI-PMH namespace (or of none, as some
// repositories write).
func oaiName(n xml.Name) bool { return n.Space == NamespaceOAI || n.Space == "" }

func (p *parser) identify() error {
	id := &Identify{}
	p.resp.Identify = id
	return p.children(func(se xml.StartElement) error {
		if !oaiName(se.Name) {
			return p.d.Skip()
		}
		switch se.Name.Local {
		case "repositoryName":
			id.RepositoryName = p.text()
		case "baseURL":
			id.BaseURL = p.text()
		case "protocolVersion":
			id.ProtocolVersion = p.text()
		case "adminEmail":
			if v := p.text(); v != "" && len(id.AdminEmails) < p.lim.MaxValues {
				id.AdminEmails = append(id.AdminEmails, v)
			}
		case "earliestDatestamp":
			id.EarliestDatestamp = p.text()
		case "deletedRecord":
			id.DeletedRecord = p.text()
		case "granularity":
			id.Granularity = Granularity(p.text())
		default:
			return p.d.Skip()
		}
		return p.err()
	})
}

func (p *parser) formats() error {
	return p.children(func(se xml.StartElement) error {
		if !oaiName(se.Name) || se.Name.Local != "metadataFormat" {
			return p.d.Skip()
		}
		var f MetadataFormat
		err := p.children(func(se xml.StartElement) error {
			switch se.Name.Local {
			case "metadataPrefix":
				f.Prefix = p.text()
			case "schema":
				f.Schema = p.text()
			case "metadataNamespace":
				f.Namespace = p.text()
			default:
				return p.d.Skip()
			}
			return p.err()
		})
		if err != nil {
			return err
		}
		if len(p.resp.Formats) < p.lim.MaxValues {
			p.resp.Formats = append(p.resp.Formats, f)
		}
		return nil
	})
}

// list reads ListRecords, GetRecord or ListIdentifiers.
func (p *parser) list() error {
	return p.children(func(se xml.StartElement) error {
		if !oaiName(se.Name) {
			return p.d.Skip()
		}
		switch se.Name.Local {
		case "record":
			var r Record
			var dc dcValues
			err := p.children(func(se xml.StartElement) error {
				if !oaiName(se.Name) {
					return p.d.Skip()
				}
				switch se.Name.Local {
				case "header":
					return p.header(se, &r)
				case "metadata":
					return p.metadata(&dc)
				}
				return p.d.Skip()
			})
			if err != nil {
				return err
			}
			p.add(r, &dc)
		case "header": // ListIdentifiers
			var r Record
			if err := p.header(se, &r); err != nil {
				return err
			}
			p.add(r, nil)
		case "resumptionToken":
			tok := &ResumptionToken{CompleteListSize: -1, Cursor: -1}
			if v, err := strconv.Atoi(attr(se, "completeListSize")); err == nil && v >= 0 {
				tok.CompleteListSize = v
			}
			if v, err := strconv.Atoi(attr(se, "cursor")); err == nil && v >= 0 {
				tok.Cursor = v
			}
			if v := attr(se, "expirationDate"); v != "" {
				if t, err := ParseDatestamp(v); err == nil {
					tok.ExpirationDate = t
				}
			}
			// A token is opaque: only its ends are trimmed.
			v, err := p.textRaw()
			if err != nil {
				return err
			}
			tok.Value = v
			p.resp.Token = tok
			return nil
		default:
			return p.d.Skip()
		}
		return nil
	})
}

func (p *parser) add(r Record, dc *dcValues) {
	if len(p.resp.Records) >= p.lim.MaxRecords {
		p.resp.Truncated = true
		return
	}
	if dc != nil {
		dc.fill(&r)
	}
	p.resp.Records = append(p.resp.Records, r)
}

func (p *parser) header(se xml.StartElement, r *Record) error {
	r.Deleted = attr(se, "status") == "deleted"
	return p.children(func(se xml.StartElement) error {
		if !oaiName(se.Name) {
			return p.d.Skip()
		}
		switch se.Name.Local {
		case "identifier":
			r.Identifier = p.text()
		case "datestamp":
			r.Datestamp = p.text()
		case "setSpec":
			r.Sets = p.appendValue(r.Sets, p.text())
		default:
			return p.d.Skip()
		}
		return p.err()
	})
}

// dcValues are the Dublin Core elements of one record, as sent.
type dcValues struct {
	fields [nFields][]string
}

const (
	fTitle = iota
	fCreator
	fContributor
	fSubject
	fDescription
	fPublisher
	fDate
	fType
	fFormat
	fIdentifier
	fSource
	fLanguage
	fRelation
	fRights
	nFields
)

var dcFields = map[string]int{
	"title": fTitle, "creator": fCreator, "contributor": fContributor,
	"subject": fSubject, "description": fDescription, "abstract": fDescription,
	"publisher": fPublisher, "date": fDate, "issued": fDate, "created": fDate,
	"type": fType, "format": fFormat, "identifier": fIdentifier,
	"source": fSource, "language": fLanguage, "relation": fRelation,
	"rights": fRights,
}

// dcName reports a Dublin Core element: in the DC elements or DC terms
// namespace, or with the prefix "dc" or "dcterms" left undeclared.
func dcName(n xml.Name) bool {
	switch n.Space {
	case NamespaceDC, NamespaceDCTerm, "dc", "dcterms",
		"http://purl.org/dc/elements/1.1", "http://purl.org/dc/terms":
		return true
	}
	return false
}

// metadata reads the metadata element: Dublin Core elements at any depth
// (inside oai_dc:dc, or another container) are collected; everything else
// is walked through.
func (p *parser) metadata(dc *dcValues) error {
	depth := 0
	for {
		t, err := p.next()
		if err != nil {
			return err
		}
		switch t := t.(type) {
		case xml.EndElement:
			if depth == 0 {
				return nil
			}
			depth--
		case xml.StartElement:
			f, ok := dcFields[t.Name.Local]
			if !ok || !dcName(t.Name) {
				depth++
				continue
			}
			v, err := p.textErr()
			if err != nil {
				return err
			}
			dc.fields[f] = p.appendValue(dc.fields[f], v)
		}
	}
}

func (p *parser) appendValue(list []string, v string) []string {
	if v == "" {
		return list
	}
	if len(list) >= p.lim.MaxValues {
		p.resp.Truncated = true
		return list
	}
	return append(list, v)
}
