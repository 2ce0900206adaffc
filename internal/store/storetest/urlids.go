package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// The URLs of the URL ID migration's fixture.
const (
	oldA   = "http://a.test/page"
	oldQ   = "http://a.test/queued"
	oldB   = "http://b.test/copy"
	oldOut = "http://elsewhere.test/x"
)

// OldURLIDRows returns SQL statements that record a small crawl with URL
// IDs as stores wrote them before crawl.URLID (the whole crawl.HashID of
// the URL): two fetched pages, one a duplicate of the other, a queued URL
// found on the first, a link out of the crawl, a content hash and a
// revisit record. They are plain SQL, for either backend.
func OldURLIDRows() []string {
	id := func(s string) int64 { return int64(crawl.HashID(s)) }
	a, b := id("http://a.test"), id("http://b.test")
	return []string{
		fmt.Sprintf(`INSERT INTO hosts (id, key) VALUES (%d, 'http://a.test'), (%d, 'http://b.test')`, a, b),
		fmt.Sprintf(`INSERT INTO urls (id, url, host_id, depth, priority, state, via, parent_id, discovered_at) VALUES
			(%d, '%s', %d, 0, 0, 2, 'seed', 0, 1),
			(%d, '%s', %d, 1, 0, 0, 'link', %d, 1),
			(%d, '%s', %d, 0, 0, 2, 'seed', 0, 1)`,
			id(oldA), oldA, a, id(oldQ), oldQ, a, id(oldA), id(oldB), oldB, b),
		fmt.Sprintf(`INSERT INTO pages (url_id, url, status, content_type, title, text, host, fetched_at, duplicate_of) VALUES
			(%d, '%s', 200, 'text/html', 'Migrated page', 'words about lighthouses', 'http://a.test', 1, 0),
			(%d, '%s', 200, 'text/html', 'Migrated page', 'words about lighthouses', 'http://b.test', 2, %d)`,
			id(oldA), oldA, id(oldB), oldB, id(oldA)),
		fmt.Sprintf(`INSERT INTO links (source_id, target_id, target, anchor) VALUES
			(%d, %d, '%s', 'queued one'), (%d, %d, '%s', 'out there')`,
			id(oldA), id(oldQ), oldQ, id(oldA), id(oldOut), oldOut),
		fmt.Sprintf(`INSERT INTO page_history (url_id, checked_at, run, status, changed, bytes) VALUES (%d, 1, 0, 200, 1 = 1, 10)`, id(oldA)),
	}
}

// CheckURLIDMigration checks a store migrated from OldURLIDRows: every
// URL, page, link and reference answers to its crawl.URLID, and the page
// is found by a search.
func CheckURLIDMigration(t *testing.T, s crawl.Store) {
	t.Helper()
	ctx := context.Background()
	a, q, b, out := crawl.URLID(oldA), crawl.URLID(oldQ), crawl.URLID(oldB), crawl.URLID(oldOut)
	if a == crawl.HashID(oldA) {
		t.Fatal("the fixture URL's new ID equals its old one: pick another URL")
	}
	for _, u := range []struct {
		id     crawl.ID
		url    string
		parent crawl.ID
	}{{a, oldA, 0}, {q, oldQ, a}, {b, oldB, 0}} {
		r, err := s.URL(ctx, u.id)
		if err != nil || r.URL != u.url || r.Parent != u.parent {
			t.Errorf("URL %s after the migration: %+v, %v; want it under its new ID with parent %d", u.url, r, err, u.parent)
		}
	}
	if p, err := s.Page(ctx, a); err != nil || p == nil || p.URL != oldA {
		t.Errorf("page %s after the migration: %+v, %v", oldA, p, err)
	}
	if p, err := s.Page(ctx, b); err != nil || p == nil || p.DuplicateOf != a {
		t.Errorf("duplicate page after the migration: %+v, %v; want duplicate of %d", p, err, a)
	}
	ls, err := s.Links(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	got := map[crawl.ID]string{}
	for _, l := range ls {
		got[l.TargetID] = l.Target
	}
	if len(got) != 2 || got[q] != oldQ || got[out] != oldOut {
		t.Errorf("links after the migration: %v; want %s as %d and %s as %d", got, oldQ, q, oldOut, out)
	}
	res, err := s.Search(ctx, crawl.SearchRequest{Query: "lighthouses", Limit: 10})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].ID != a || res.Hits[0].URL != oldA {
		t.Errorf("search after the migration: %+v, %v; want %s as %d", res.Hits, err, oldA, a)
	}
}
