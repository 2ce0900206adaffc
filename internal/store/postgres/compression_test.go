package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/acrawler/acrawler/internal/crawl"
)

// A page's texts and search vector are stored compressed with LZ4 where
// the server has it (a search vector only when compressing it saves
// enough: PostgreSQL's own rule), and read back whole.
func TestTextsCompressedLZ4(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	_, lz4 := conn.Exec(ctx, `CREATE TEMP TABLE lz4_probe (x TEXT COMPRESSION lz4)`)
	conn.Close(ctx)
	if lz4 != nil {
		t.Skipf("the server has no LZ4 compression: %v", lz4)
	}
	db := open(t, dsn, schema)
	var words []string
	for i := range 2000 {
		words = append(words, fmt.Sprintf("w%d", i%700))
	}
	text := strings.Join(words, " ") // a search vector of 700 words, over 2 KB
	main := strings.Repeat("okapi habitat and range ", 200)
	u := "http://a.test/okapi"
	indexPages(t, db, nil, &crawl.Page{URL: u, Title: "okapi", Text: text, MainText: main})
	var ct, cm, set string
	if err := queryRow(t, dsn, schema, `SELECT pg_column_compression(text), pg_column_compression(main_text),
		(SELECT string_agg(attname || ' ' || attcompression::text, ', ' ORDER BY attname) FROM pg_attribute
			WHERE attrelid = 'pages'::regclass AND attname IN ('text', 'main_text', 'search'))
		FROM pages WHERE url_id = $1`, []any{int64(crawl.URLID(u))}, &ct, &cm, &set); err != nil {
		t.Fatal(err)
	}
	if ct != "lz4" || cm != "lz4" {
		t.Errorf("text and main text compressed with %q, %q; want lz4", ct, cm)
	}
	if set != "main_text l, search l, text l" {
		t.Errorf("columns' compression: %s; want lz4 (l) for each", set)
	}
	p, err := db.Page(ctx, crawl.URLID(u))
	if err != nil || p.Text != text || p.MainText != main {
		t.Errorf("Page: %.20q…, %.20q…, %v; want the texts whole", p.Text, p.MainText, err)
	}
	if got := urlsOf(search(t, db, crawl.SearchRequest{Query: "habitat"})); len(got) != 1 {
		t.Errorf("Search(habitat) = %v, want the page", got)
	}
}
