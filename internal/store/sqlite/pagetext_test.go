package sqlite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// TestPageTextCompressed stores page texts compressed and checks that
// every way a text is read back gives it as fetched: the page's record,
// a reparse, the index at the end-of-crawl pass and search's snippets,
// for compressed rows and for rows written as TEXT before.
func TestPageTextCompressed(t *testing.T) {
	ctx := context.Background()
	c := newDelayCrawl(t, Options{IndexDelay: time.Hour})
	db := c.db
	const a, b, old = "http://a.test/long", "http://a.test/short", "http://a.test/old"
	long := strings.Repeat("lorem ipsum dolor sit amet ", 80) + "okapi grazes " + strings.Repeat("consectetur adipiscing ", 40)
	c.commit(map[string]string{a: long, b: "a short page on the narwhal", old: "an older page on the pangolin"}, nil)

	stored := func(url, col string) (typ string, size int, first string) {
		t.Helper()
		if err := db.r.QueryRow(`SELECT typeof(`+col+`), length(CAST(`+col+` AS BLOB)), hex(substr(CAST(`+col+` AS BLOB), 1, 1))
			FROM pages WHERE url_id = ?`, crawl.URLID(url)).Scan(&typ, &size, &first); err != nil {
			t.Fatal(err)
		}
		return typ, size, first
	}
	if typ, size, first := stored(a, "text"); typ != "blob" || first != "01" || size > len(long)/2 {
		t.Errorf("long text stored as a %s of %d bytes starting %s; want a blob of S2 under %d bytes", typ, size, first, len(long)/2)
	}
	if typ, _, _ := stored(b, "text"); typ != "text" {
		t.Errorf("short text stored as a %s, want text", typ)
	}
	// A row as an older version wrote it: the text as TEXT.
	oldText := strings.Repeat("an older page on the pangolin ", 20)
	if _, err := db.w.Exec(`UPDATE pages SET text = ? WHERE url_id = ?`, oldText, crawl.URLID(old)); err != nil {
		t.Fatal(err)
	}

	for url, want := range map[string]string{a: long, b: "a short page on the narwhal", old: oldText} {
		p, err := db.Page(ctx, crawl.URLID(url))
		if err != nil || p.Text != want {
			t.Errorf("Page(%s).Text = %.40q…, %v; want %.40q…", url, p.Text, err, want)
		}
	}

	// A reparse's main text is stored and read back the same way.
	p, err := db.Page(ctx, crawl.URLID(a))
	if err != nil {
		t.Fatal(err)
	}
	p.MainText = "okapi " + strings.Repeat("main text words ", 30)
	if err := db.Reparse(ctx, p, nil); err != nil {
		t.Fatal(err)
	}
	// With a main text, the two are one value, smaller than the two apart.
	apart := len(packText(long).([]byte)) + len(packText(p.MainText).([]byte))
	if typ, size, first := stored(a, "text"); typ != "blob" || first != "02" || size >= apart {
		t.Errorf("text and main text stored as a %s of %d bytes starting %s, want a blob of the pair under %d bytes", typ, size, first, apart)
	}
	if typ, size, _ := stored(a, "main_text"); typ != "text" || size != 0 {
		t.Errorf("main_text beside a pair: a %s of %d bytes, want the empty text", typ, size)
	}
	if got, err := db.Page(ctx, crawl.URLID(a)); err != nil || got.MainText != p.MainText || got.Text != long {
		t.Errorf("after Reparse: main text %.30q…, text %.30q…, %v", got.MainText, got.Text, err)
	}

	// The pass indexes each page's main text, else its text, read from
	// either form.
	if err := db.SetRanks(ctx, map[crawl.ID]float64{crawl.URLID(a): 1}); err != nil {
		t.Fatal(err)
	}
	c.expect("okapi", a)
	c.expect("words", a)   // in its main text
	c.expect("lorem")      // in its text only: the main text is indexed
	c.expect("narwhal", b) // a short text
	c.expect("pangolin", old)
	res, err := db.Search(ctx, crawl.SearchRequest{Query: "pangolin", Limit: 1})
	if err != nil || len(res.Hits) != 1 || !strings.Contains(res.Hits[0].Snippet, "older page on the pangolin") {
		t.Errorf("Search(pangolin) = %+v, %v; want the old page's text in its snippet", res.Hits, err)
	}
	res, err = db.Search(ctx, crawl.SearchRequest{Query: "okapi", Limit: 1})
	if err != nil || len(res.Hits) != 1 || !strings.Contains(res.Hits[0].Snippet, "main text words") {
		t.Errorf("Search(okapi) = %+v, %v; want the main text in its snippet", res.Hits, err)
	}

	// A damaged value is an error naming the page, not a wrong text.
	if _, err := db.w.Exec(`UPDATE pages SET text = x'01ffffffff0f00' WHERE url_id = ?`, crawl.URLID(b)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Page(ctx, crawl.URLID(b)); !errors.Is(err, errPackedText) {
		t.Errorf("Page of a damaged text: %v, want %v", err, errPackedText)
	}
}

// A result's texts compressed by PrepareResult leave its page (the
// result holds them compressed only) and are stored as prepared, unless
// the page's texts were set again after; the index finds the page by its
// text whether it indexes it at the commit, which takes the texts back,
// or after the index delay, from its row. Each engine.
func TestPreparedTexts(t *testing.T) {
	const a, b, d, e = "http://a.test/a", "http://a.test/b", "http://a.test/d", "http://a.test/e"
	text := func(w string) string { return strings.Repeat(w+" ", 100) }
	for _, engine := range []string{EngineSegments, EngineFTS5} {
		for _, delay := range []time.Duration{0, time.Hour} {
			t.Run(fmt.Sprintf("%s/delay=%s", engine, delay), func(t *testing.T) {
				ctx := context.Background()
				c := newDelayCrawl(t, Options{Engine: engine, IndexDelay: delay})
				db := c.db
				c.prepare = func(r *crawl.Result) {
					if r.URL.URL == e {
						r.Page.Title = "" // found by its text alone
					}
					plain := r.Page.Text
					db.PrepareResult(r)
					if r.Page.Text != "" || r.Page.MainText != "" {
						t.Errorf("%s: PrepareResult left the texts in the page", r.URL.URL)
					}
					if h := r.Prepared.(*packedTexts).HeldBytes(); h == 0 || h >= len(plain) {
						t.Errorf("%s: the prepared texts hold %d bytes for %d", r.URL.URL, h, len(plain))
					}
					switch r.URL.URL {
					case b:
						r.Page.Text = text("changed") // after its preparation
					case d:
						// A preparation the commit stores as it is, of the same text.
						r.Prepared.(*packedTexts).storedText = packText(text("prepared"))
					}
				}
				c.commit(map[string]string{a: text("alpha"), b: text("beta"), d: text("delta"), e: text("epsilon")}, nil)
				for url, want := range map[string]string{a: text("alpha"), b: text("changed"), d: text("prepared"), e: text("epsilon")} {
					if p, err := db.Page(ctx, crawl.URLID(url)); err != nil || p.Text != want {
						t.Errorf("Page(%s).Text = %.20q…, %v; want %.20q…", url, p.Text, err, want)
					}
				}
				if delay > 0 {
					c.expect("alpha") // waiting for the delay
					if err := db.SetRanks(ctx, nil); err != nil {
						t.Fatal(err)
					}
				}
				c.expect("alpha", a)
				c.expect("changed", b)
				c.expect("beta")
				c.expect("prepared", d)
				c.expect("epsilon", e)
			})
		}
	}
}

func TestPackText(t *testing.T) {
	for _, s := range []string{"", "short", strings.Repeat("x", minPacked-1), strings.Repeat("ab", minPacked),
		strings.Repeat("ü€𝄞", 500), "\x00\xff invalid UTF-8 \xc3" + strings.Repeat("z", 400)} {
		v := packText(s)
		if _, blob := v.([]byte); blob != (len(s) >= minPacked) {
			t.Errorf("packText of %d bytes gave a %T", len(s), v)
		}
		if got, err := unpackText(v); err != nil || got != s {
			t.Errorf("round trip of %.20q: %.20q, %v", s, got, err)
		}
	}
	for _, bad := range [][]byte{{}, {0}, {2, 0}, {textS2}, {textS2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, {textS2, 10, 0}} {
		if s, err := unpackText(bad); !errors.Is(err, errPackedText) {
			t.Errorf("unpackText(%x) = %q, %v; want %v", bad, s, err, errPackedText)
		}
	}
	long := strings.Repeat("lorem ipsum dolor ", 30)
	for _, c := range [][2]string{{"", ""}, {"short", "sh"}, {long, ""}, {"", long}, {long, long[:200]}, {long, long},
		{strings.Repeat("x", minPacked-3), "ab"}, {strings.Repeat("ü€𝄞", 300), "𝄞\x00\xff"}} {
		st, sm := packTexts(c[0], c[1])
		b, pair := st.([]byte)
		pair = pair && b[0] == textPair
		if want := c[1] != "" && len(c[0])+len(c[1]) >= minPacked; pair != want {
			t.Errorf("packTexts of %d and %d bytes: a pair %v, want %v", len(c[0]), len(c[1]), pair, want)
		}
		if text, main, err := unpackTexts(st, sm); err != nil || text != c[0] || main != c[1] {
			t.Errorf("round trip of %.20q and %.20q: %.20q, %.20q, %v", c[0], c[1], text, main, err)
		}
	}
	pair, _ := packTexts(long, long[:100])
	for _, bad := range []struct{ text, main any }{
		{[]byte{textPair}, ""},       // no length
		{[]byte{textPair, 0xff}, ""}, // a length cut short
		{[]byte{textPair, 0}, ""},    // no block
		{[]byte{textPair, 5, 0}, ""}, // a main text longer than the block's text
		{append([]byte{textPair, 0x80, 0x80, 0x80, 0x80, 0x10}, pair.([]byte)[2:]...), ""}, // the same, by far
		{pair, "a main text beside the pair"},
	} {
		if text, main, err := unpackTexts(bad.text, bad.main); !errors.Is(err, errPackedText) {
			t.Errorf("unpackTexts(%x, %v) = %.20q, %.20q, %v; want %v", bad.text, bad.main, text, main, err, errPackedText)
		}
	}
}

func FuzzPackText(f *testing.F) {
	f.Add([]byte("okapi"), false)
	f.Add(bytes.Repeat([]byte("lorem ipsum "), 40), false)
	f.Add(append([]byte{textS2}, packText(strings.Repeat("abc", 200)).([]byte)[1:]...), true)
	f.Add([]byte{textS2, 0xff, 0xff, 0xff, 0xff, 0x0f}, true)
	seedPair, _ := packTexts(strings.Repeat("abc", 200), "ab")
	f.Add(seedPair.([]byte), true)
	f.Fuzz(func(t *testing.T, data []byte, stored bool) {
		if stored {
			// Any stored value: a text, or an error, never a panic or
			// more than maxUnpacked bytes.
			s, err := unpackText(data)
			if err == nil && len(s) > maxUnpacked {
				t.Fatalf("%d bytes unpacked", len(s))
			}
			text, main, err := unpackTexts(data, "")
			if err == nil && len(text)+len(main) > maxUnpacked {
				t.Fatalf("%d bytes unpacked", len(text)+len(main))
			}
			return
		}
		s := string(data)
		if got, err := unpackText(packText(s)); err != nil || got != s {
			t.Fatalf("round trip: %v", err)
		}
		// The data as a text and a main text, cut where its first byte says.
		cut := 0
		if len(s) > 0 {
			cut = int(s[0]) % len(s)
		}
		if text, main, err := unpackTexts(packTexts(s[cut:], s[:cut])); err != nil || text != s[cut:] || main != s[:cut] {
			t.Fatalf("round trip of the pair: %v", err)
		}
	})
}
