package sqlite

import (
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/s2"
	sqlite "modernc.org/sqlite"

	"github.com/acrawler/acrawler/internal/crawl"
)

// A page's text and main text are stored compressed, as a BLOB in the
// column text, when together they are minPacked to maxUnpacked bytes
// long: a format byte (textPair), the main text's length (a uvarint) and
// one S2 block of the main text followed by the text; main_text then
// holds the empty text. The main text is mostly a part of the text, and
// one block of both finds those repeats: on go-trafilatura's 945 real
// pages the pair takes 6.7 KB a page where the two blocks apart took
// 10.0, and on a page of the uniform test web 4.3 KB against 6.0, in 12
// µs against 21 (the repeats are long matches). S2's better mode would
// take 6.0 and 3.6 KB, but above 16 KB of input it takes a 576 KB table
// from a pool that each garbage collection empties, and with it the
// crawl's CPU a page was 8–17% higher in three of six runs.
//
// A text alone (no main text) is a format byte (textS2) and its S2
// block, as each text was stored before; shorter or longer texts, and
// the texts of rows written before migration 0033, stay TEXT. A reader
// tells them apart by the value's type and format byte. No stored block
// claims more than maxUnpacked bytes, which bounds what a damaged one
// allocates.
const (
	textS2      = 1
	textPair    = 2
	minPacked   = 256
	maxUnpacked = 64 << 20
)

// packText is the value a page text alone is stored as.
func packText(s string) any {
	if len(s) < minPacked || len(s) > maxUnpacked {
		return s
	}
	return packed(textS2, nil, s, "")
}

// packTexts are the values a page's text and main text are stored as,
// in the columns text and main_text.
func packTexts(text, mainText string) (storedText, storedMain any) {
	n := len(text) + len(mainText)
	if mainText == "" || n < minPacked || n > maxUnpacked {
		return packText(text), packText(mainText)
	}
	return packed(textPair, binary.AppendUvarint(nil, uint64(len(mainText))), mainText, text), ""
}

// packed is a stored value of format f: the format byte, head, and one S2
// block of a followed by b.
func packed(f byte, head []byte, a, b string) []byte {
	// S2 only reads its input: a text alone is not copied first. It
	// writes into a pooled buffer of the largest size it may need; the
	// value kept is of the size written.
	buf := packBufs.Get().(*[]byte)
	in := unsafe.Slice(unsafe.StringData(a), len(a))
	if b != "" {
		in = append(append((*buf)[:0], a...), b...)
		*buf = in
	}
	enc := packBufs.Get().(*[]byte)
	out := s2.Encode(*enc, in)
	v := make([]byte, 1+len(head)+len(out))
	v[0] = f
	copy(v[1+copy(v[1:], head):], out)
	*enc = out[:0]
	packBufs.Put(enc)
	packBufs.Put(buf)
	return v
}

var packBufs = sync.Pool{New: func() any { return new([]byte) }}

// packedTexts are a page's texts as PrepareResult stored them, moved out
// of the page: a result waiting for its commit holds its texts
// compressed only (on the uniform test web 4.3 KB, where the two texts
// take 17.3), which lowered the crawl's peak memory before its end pass
// by a quarter there. hasText tells whether the page had a text.
type packedTexts struct {
	storedText, storedMain any
	hasText                bool
}

// PrepareResult compresses the texts of a result's page in the worker
// that fetched it, on any core, so that the writer's transaction does not,
// and moves them out of the page into r.Prepared: the commit stores them
// as prepared, and unpacks them when it indexes the page at once
// (restoreTexts). A page whose texts are set again after this (either of
// them not empty) is stored with those.
func (db *DB) PrepareResult(r *crawl.Result) {
	if p := r.Page; p != nil {
		st, sm := packTexts(p.Text, p.MainText)
		r.Prepared = &packedTexts{st, sm, p.Text != ""}
		p.Text, p.MainText = "", ""
	}
}

// HeldBytes is about the memory the prepared texts hold (the engine
// counts it among the results on their way to the store).
func (pk *packedTexts) HeldBytes() int {
	return storedLen(pk.storedText) + storedLen(pk.storedMain)
}

func storedLen(v any) int {
	switch v := v.(type) {
	case []byte:
		return len(v)
	case string:
		return len(v)
	}
	return 0
}

// moved returns the texts prepared for p, if they are still its texts:
// PrepareResult moved them out and neither was set again.
func moved(p *crawl.Page, prepared any) (*packedTexts, bool) {
	pk, ok := prepared.(*packedTexts)
	return pk, ok && p.Text == "" && p.MainText == ""
}

// storedTexts are the values p's texts are stored as: those prepared, if
// they are still the page's texts, else compressed now.
func storedTexts(p *crawl.Page, prepared any) (text, mainText any) {
	if pk, ok := moved(p, prepared); ok {
		return pk.storedText, pk.storedMain
	}
	return packTexts(p.Text, p.MainText)
}

// restoreTexts puts the texts prepared for p back into it, if they were
// moved out and not set again.
func restoreTexts(p *crawl.Page, prepared any) error {
	pk, ok := moved(p, prepared)
	if !ok {
		return nil
	}
	text, mainText, err := unpackTexts(pk.storedText, pk.storedMain)
	if err != nil {
		return err
	}
	p.Text, p.MainText = text, mainText
	return nil
}

// hasText reports whether p has a text, moved out by PrepareResult or not.
func hasText(p *crawl.Page, prepared any) bool {
	if pk, ok := moved(p, prepared); ok {
		return pk.hasText
	}
	return p.Text != ""
}

var errPackedText = errors.New("sqlite: stored page text")

// unpackTexts are the text and main text the values of the columns text
// and main_text hold.
func unpackTexts(text, mainText any) (string, string, error) {
	if b, ok := text.([]byte); ok && len(b) > 0 && b[0] == textPair {
		n, k := binary.Uvarint(b[1:])
		if k <= 0 {
			return "", "", fmt.Errorf("%w: bad main text length", errPackedText)
		}
		s, err := unpackBlock(b[1+k:])
		if err != nil {
			return "", "", err
		}
		if n > uint64(len(s)) {
			return "", "", fmt.Errorf("%w: main text of %d bytes in %d", errPackedText, n, len(s))
		}
		if m, err := unpackText(mainText); err != nil || m != "" {
			return "", "", fmt.Errorf("%w: a main text beside a pair", errPackedText)
		}
		return s[n:], s[:n], nil
	}
	t, err := unpackText(text)
	if err != nil {
		return "", "", err
	}
	m, err := unpackText(mainText)
	if err != nil {
		return "", "", fmt.Errorf("main text: %w", err)
	}
	return t, m, nil
}

// unpackText is the page text a stored value of one text holds.
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
		return unpackBlock(t[1:])
	default:
		return "", fmt.Errorf("%w: a %T", errPackedText, v)
	}
}

// unpackBlock is the text an S2 block holds.
func unpackBlock(block []byte) (string, error) {
	n, err := s2.DecodedLen(block)
	if err == nil && n > maxUnpacked {
		err = fmt.Errorf("%d bytes", n)
	}
	var b []byte
	if err == nil {
		b, err = s2.Decode(make([]byte, n), block)
	}
	if err != nil {
		return "", fmt.Errorf("%w: %w", errPackedText, err)
	}
	if len(b) == 0 {
		return "", nil
	}
	return unsafe.String(&b[0], len(b)), nil // b is not written again
}

// acrawler_body(main_text, text, max) is the text a page is indexed with
// (indexedBody), the first max bytes.
func init() {
	sqlite.MustRegisterDeterministicScalarFunction("acrawler_body", 3,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			n, ok := args[2].(int64)
			if !ok {
				return nil, fmt.Errorf("acrawler_body: want a length, got %T", args[2])
			}
			return indexedBody(args[1], args[0], n)
		})
}

// indexedBody is the text a page is indexed with, from the values of its
// columns text and main_text: its main text, else its visible text, the
// first limit bytes.
func indexedBody(text, mainText any, limit int64) (string, error) {
	t, s, err := unpackTexts(text, mainText)
	if err != nil {
		return "", err
	}
	if s == "" {
		s = t
	}
	if int64(len(s)) > limit {
		s = s[:limit]
	}
	return s, nil
}
