package sqlite

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/s2"
	sqlite "modernc.org/sqlite"

	"github.com/acrawler/acrawler/internal/crawl"
)

// A page's text and main text are stored compressed, as a BLOB: a format
// byte (textS2) and an S2 block, when they are minPacked to maxUnpacked
// bytes long. Other texts, and every text written before, stay TEXT; a
// reader tells them apart by the value's type. No stored block claims
// more than maxUnpacked bytes, which bounds what a damaged one allocates.
const (
	textS2      = 1
	minPacked   = 256
	maxUnpacked = 64 << 20
)

// packText is the value a page text is stored as.
func packText(s string) any {
	if len(s) < minPacked || len(s) > maxUnpacked {
		return s
	}
	// S2 only reads its input: the string's bytes are not copied first.
	// It writes into a pooled buffer of the largest size it may need; the
	// value kept is of the size written.
	buf := packBufs.Get().(*[]byte)
	enc := s2.Encode(*buf, unsafe.Slice(unsafe.StringData(s), len(s)))
	b := make([]byte, 1+len(enc))
	b[0] = textS2
	copy(b[1:], enc)
	*buf = enc[:0]
	packBufs.Put(buf)
	return b
}

var packBufs = sync.Pool{New: func() any { return new([]byte) }}

// packedTexts are a page's texts as PrepareResult stored them.
type packedTexts struct {
	text, mainText         string // the texts compressed
	storedText, storedMain any
}

// PrepareResult compresses the texts of a result's page in the worker
// that fetched it, on any core, so that the writer's transaction does not.
func (db *DB) PrepareResult(r *crawl.Result) {
	if p := r.Page; p != nil {
		r.Prepared = &packedTexts{p.Text, p.MainText, packText(p.Text), packText(p.MainText)}
	}
}

// storedTexts are the values p's texts are stored as: those prepared, if
// they are of the same texts (the same strings compare in constant time),
// else compressed now.
func storedTexts(p *crawl.Page, prepared any) (text, mainText any) {
	if pk, ok := prepared.(*packedTexts); ok && pk.text == p.Text && pk.mainText == p.MainText {
		return pk.storedText, pk.storedMain
	}
	return packText(p.Text), packText(p.MainText)
}

var errPackedText = errors.New("sqlite: stored page text")

// unpackText is the page text a stored value holds.
func unpackText(v any) (string, error) {
	switch t := v.(type) {
	case nil:
		return "", nil
	case string:
		return t, nil
	case []byte:
		if len(t) == 0 || t[0] != textS2 {
			return "", fmt.Errorf("%w: unknown format", errPackedText)
		}
		n, err := s2.DecodedLen(t[1:])
		if err == nil && n > maxUnpacked {
			err = fmt.Errorf("%d bytes", n)
		}
		var b []byte
		if err == nil {
			b, err = s2.Decode(make([]byte, n), t[1:])
		}
		if err != nil {
			return "", fmt.Errorf("%w: %w", errPackedText, err)
		}
		if len(b) == 0 {
			return "", nil
		}
		return unsafe.String(&b[0], len(b)), nil // b is not written again
	default:
		return "", fmt.Errorf("%w: a %T", errPackedText, v)
	}
}

// acrawler_body(main_text, text, max) is the text a page is indexed with:
// its main text, else its visible text, the first max bytes.
func init() {
	sqlite.MustRegisterDeterministicScalarFunction("acrawler_body", 3,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			s, err := unpackText(args[0])
			if err == nil && s == "" {
				s, err = unpackText(args[1])
			}
			if err != nil {
				return nil, err
			}
			n, ok := args[2].(int64)
			if !ok {
				return nil, fmt.Errorf("acrawler_body: want a length, got %T", args[2])
			}
			if int64(len(s)) > n {
				s = s[:n]
			}
			return s, nil
		})
}
