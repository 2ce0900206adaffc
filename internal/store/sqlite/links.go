package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"iter"
	"maps"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	sqlite "modernc.org/sqlite"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/outlinks"
)

// A page's outlinks are one row of outlinks, in the compact form of
// package outlinks: no URL text, no row or index entry per link. The
// inbound links of a URL are its (target, source) pairs in inlinks; a
// target's URL text is urls' or, for a URL the crawl did not take (a link
// out of its scope, over a cap), link_urls' (migration 0020).

// SQL functions over compact links:
//   - acrawler_outlinks(target_id, anchor, nofollow), an aggregate: the
//     compact form of a source's link rows (the migration from rows);
//   - acrawler_link_anchor(links, target_id): the anchor text of the link
//     to target_id in a compact value, empty if none;
//   - acrawler_links_to(links, target_id): whether a compact value holds a
//     link to target_id.
func init() {
	sqlite.MustRegisterFunction("acrawler_outlinks", &sqlite.FunctionImpl{
		NArgs: 3, Deterministic: true,
		MakeAggregate: func(sqlite.FunctionContext) (sqlite.AggregateFunction, error) { return &packLinks{}, nil },
	})
	sqlite.MustRegisterDeterministicScalarFunction("acrawler_link_anchor", 2,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			b, _ := args[0].([]byte)
			id, ok := args[1].(int64)
			if b == nil || !ok {
				return "", nil
			}
			a, _, _, err := outlinks.Find(b, id)
			if err != nil {
				return nil, err
			}
			return string(a), nil
		})
	sqlite.MustRegisterDeterministicScalarFunction("acrawler_links_to", 2,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			b, _ := args[0].([]byte)
			id, ok := args[1].(int64)
			if b == nil || !ok {
				return int64(0), nil
			}
			_, _, found, err := outlinks.Find(b, id)
			if err != nil {
				return nil, err
			}
			return int64(b2i(found)), nil
		})
}

// jsonIDs writes IDs as a JSON array.
func jsonIDs[T ~int64](ids []T) string {
	b := make([]byte, 0, 2+len(ids)*20)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	return string(append(b, ']'))
}

// packLinks is the aggregate acrawler_outlinks.
type packLinks struct{ links []outlinks.Link }

func (p *packLinks) Step(_ *sqlite.FunctionContext, args []driver.Value) error {
	id, ok := args[0].(int64)
	if !ok {
		return fmt.Errorf("acrawler_outlinks: target ID %T", args[0])
	}
	l := outlinks.Link{Target: id}
	switch a := args[1].(type) {
	case string:
		l.Anchor = a
	case []byte:
		l.Anchor = string(a)
	}
	if nf, ok := args[2].(int64); ok && nf != 0 {
		l.NoFollow = true
	}
	p.links = append(p.links, l)
	return nil
}

func (p *packLinks) WindowInverse(*sqlite.FunctionContext, []driver.Value) error {
	return errors.New("acrawler_outlinks: not a window function")
}

func (p *packLinks) WindowValue(*sqlite.FunctionContext) (driver.Value, error) {
	return outlinks.Encode(nil, p.links), nil
}

func (p *packLinks) Final(*sqlite.FunctionContext) {}

// linkStmts are the committer's statements on links.
type linkStmts struct {
	get, put, linkURL, stage *sql.Stmt
	buf                      []byte
}

func (c *committer) prepareLinks(ctx context.Context) error {
	var err error
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var s *sql.Stmt
		s, err = c.t.prep(ctx, q)
		return s
	}
	c.ls.get = prep(`SELECT links FROM outlinks WHERE source_id = ?`)
	c.ls.put = prep(`INSERT INTO outlinks (source_id, links) VALUES (?, ?) ON CONFLICT (source_id) DO UPDATE SET links = excluded.links`)
	c.ls.linkURL = prep(`INSERT INTO link_urls (id, url) VALUES (?, ?) ON CONFLICT (id) DO NOTHING`)
	c.ls.stage = prep(`INSERT INTO inlinks_staged (source_id) VALUES (?)`)
	return err
}

// insertLinks records a page's outlinks: its compact row, merged with the
// one it has (whose links are kept, as a row per link with ON CONFLICT DO
// NOTHING kept them), the page staged as the source of inbound links to
// the targets it did not link to yet (see staged.go), and the URL text of
// those urls does not hold (at the end of the batch: flushLinkURLs).
func (c *committer) insertLinks(ctx context.Context, source crawl.ID, links []crawl.Link) error {
	if len(links) == 0 {
		return nil
	}
	var prev []outlinks.Link
	var old []byte
	switch err := c.outlinksOf(ctx, source, &old); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return err
	default:
		var derr error
		if prev, derr = outlinks.Decode(old); derr != nil {
			return fmt.Errorf("links of %d: %w", source, derr)
		}
	}
	all := make([]outlinks.Link, 0, len(prev)+len(links))
	all = append(all, prev...)
	for _, l := range links {
		all = append(all, outlinks.Link{Target: int64(l.TargetID), Anchor: l.Anchor, NoFollow: l.NoFollow})
	}
	c.ls.buf = outlinks.Encode(c.ls.buf[:0], all)
	n, _ := outlinks.Count(c.ls.buf)
	if n == len(prev) {
		return nil
	}
	if _, err := c.ls.put.ExecContext(ctx, source, c.ls.buf); err != nil {
		return err
	}
	if c.hasLinks != nil {
		c.hasLinks[source] = true
	}
	c.t.add("links", int64(n-len(prev)))
	// The targets new to this source, in order, with their URL text.
	had := make(map[int64]bool, len(prev))
	for _, l := range prev {
		had[l.Target] = true
	}
	texts := make(map[crawl.ID]string, len(links))
	anchors := make(map[crawl.ID]string, len(links))
	var fresh []crawl.ID
	for _, l := range links {
		if had[int64(l.TargetID)] {
			continue
		}
		if _, dup := texts[l.TargetID]; !dup {
			// The first link to a target is the one kept (outlinks.Encode).
			texts[l.TargetID], anchors[l.TargetID] = l.Target, l.Anchor
			fresh = append(fresh, l.TargetID)
		}
	}
	slices.Sort(fresh)
	if err := c.stage(ctx, source, fresh, anchors); err != nil {
		return err
	}
	// A target the crawl did not take keeps its URL text in link_urls:
	// the targets are looked up once for the whole batch, at its end
	// (flushLinkURLs).
	for _, id := range fresh {
		if texts[id] == "" {
			continue
		}
		if c.linkTexts == nil {
			c.linkTexts = map[crawl.ID]string{}
		}
		if _, dup := c.linkTexts[id]; !dup {
			c.linkTexts[id] = texts[id]
		}
	}
	return nil
}

// flushLinkURLs keeps in link_urls the URL text of each link target the
// batch recorded (insertLinks) that urls does not hold. The targets are
// looked up once each, in ID order, many a statement, instead of once for
// each page linking to them, a statement a page; those the batch's
// discovered URLs showed to be in urls (addDiscovered, which runs first)
// are not. A target added to urls in the batch needs no text of its own:
// urls has it.
func (c *committer) flushLinkURLs(ctx context.Context) error {
	for id := range c.t.inURLs {
		delete(c.linkTexts, id)
		c.t.confirmed = append(c.t.confirmed, id)
	}
	c.t.inURLs = nil
	for id := range c.linkTexts {
		if c.t.db.knownURLs.has(id) {
			delete(c.linkTexts, id)
		}
	}
	if len(c.linkTexts) == 0 {
		return nil
	}
	ids := slices.Sorted(maps.Keys(c.linkTexts))
	have := make(map[crawl.ID]bool, len(ids))
	if err := c.t.inChunks(ctx, len(ids), 1, `SELECT id FROM urls WHERE id IN (%s)`,
		func(i int, a []any) { a[0] = ids[i] },
		func(rows *sql.Rows) error {
			var id crawl.ID
			if err := rows.Scan(&id); err != nil {
				return err
			}
			have[id] = true
			c.t.confirmed = append(c.t.confirmed, id)
			return nil
		}); err != nil {
		return fmt.Errorf("link targets: %w", err)
	}
	for _, id := range ids {
		if !have[id] {
			if _, err := c.ls.linkURL.ExecContext(ctx, id, c.linkTexts[id]); err != nil {
				return fmt.Errorf("link target %d: %w", id, err)
			}
		}
	}
	clear(c.linkTexts)
	return nil
}

// outlinksOf reads the outlinks row of source into links, or gives
// sql.ErrNoRows if there is none: without a look when the batch's
// prefetch showed it has none.
func (c *committer) outlinksOf(ctx context.Context, source crawl.ID, links *[]byte) error {
	if c.hasLinks != nil && !c.hasLinks[source] {
		return sql.ErrNoRows
	}
	return c.ls.get.QueryRowContext(ctx, source).Scan(links)
}

// urlIDCache remembers URL IDs committed in urls, so that the link
// targets of a batch that are known need not be looked up there again
// (flushLinkURLs): the targets of a crawl's links are mostly the same
// pages, linked again and again. A URL is never removed from urls, so an
// ID once there stays true; the cache is a table of urlIDSlots IDs, each
// in the slot its low bits give, a newer one taking an older's place.
// Only IDs of committed transactions are added (DB.tx).
type urlIDCache struct{ slots []crawl.ID }

// urlIDSlots is the size of urlIDCache's table: 1 MiB.
const urlIDSlots = 1 << 17

func (c *urlIDCache) has(id crawl.ID) bool {
	return c.slots != nil && id != 0 && c.slots[uint64(id)%urlIDSlots] == id
}

func (c *urlIDCache) add(id crawl.ID) {
	if c.slots == nil {
		c.slots = make([]crawl.ID, urlIDSlots)
	}
	c.slots[uint64(id)%urlIDSlots] = id
}

// deleteLinks removes a page's outlinks and their inlinks (those staged
// go with the outlinks row they are read from).
func (c *committer) deleteLinks(ctx context.Context, source crawl.ID) error {
	var old []byte
	switch err := c.outlinksOf(ctx, source, &old); {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	}
	ts, err := outlinks.Targets(nil, old)
	if err != nil {
		return fmt.Errorf("links of %d: %w", source, err)
	}
	if _, err := c.t.exec(ctx, `DELETE FROM inlinks WHERE target_id IN (SELECT value FROM json_each(?)) AND source_id = ?`,
		jsonIDs(ts), source); err != nil {
		return err
	}
	if _, err := c.t.exec(ctx, `DELETE FROM outlinks WHERE source_id = ?`, source); err != nil {
		return err
	}
	// The targets lost a link, and maybe an anchor text: the next pass
	// looks at them (changedAnchors).
	if _, err := c.t.exec(ctx, `INSERT OR IGNORE INTO anchors_stale (key) SELECT `+sqlFTSKey("value")+` FROM json_each(?)`,
		jsonIDs(ts)); err != nil {
		return err
	}
	if c.hasLinks != nil {
		delete(c.hasLinks, source)
	}
	c.t.unstage(source, ts)
	c.t.add("links", -int64(len(ts)))
	return nil
}

// Links returns a page's outlinks, in target ID order. It reads the
// targets' texts in one read transaction: from urls, link_urls, or the
// run of a packed URL, which a claim may make a row meanwhile.
func (db *DB) Links(ctx context.Context, source crawl.ID) ([]crawl.Link, error) {
	tx, err := db.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("sqlite: links of %d: %w", source, err)
	}
	defer tx.Rollback()
	var b []byte
	switch err := tx.QueryRowContext(ctx, `SELECT links FROM outlinks WHERE source_id = ?`, source).Scan(&b); {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("sqlite: links of %d: %w", source, err)
	}
	ls, err := outlinks.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("sqlite: links of %d: %w", source, err)
	}
	ids := make([]int64, len(ls))
	for i, l := range ls {
		ids[i] = l.Target
	}
	rows, err := tx.QueryContext(ctx, `SELECT u.id, `+fullURLSQL+` FROM json_each(?1) j JOIN urls u ON u.id = j.value
		LEFT JOIN hosts h ON h.id = u.host_id UNION ALL SELECT k.id, k.url FROM json_each(?1) j JOIN link_urls k ON k.id = j.value`, jsonIDs(ids))
	if err != nil {
		return nil, fmt.Errorf("sqlite: links of %d: %w", source, err)
	}
	defer rows.Close()
	texts := make(map[int64]string, len(ls))
	for rows.Next() {
		var id int64
		var u string
		if err := rows.Scan(&id, &u); err != nil {
			return nil, fmt.Errorf("sqlite: links of %d: %w", source, err)
		}
		if _, seen := texts[id]; !seen {
			texts[id] = u
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: links of %d: %w", source, err)
	}
	var packed []crawl.ID // the targets neither holds
	for _, id := range ids {
		if _, ok := texts[id]; !ok {
			packed = append(packed, crawl.ID(id))
		}
	}
	inRuns, err := packedTargets(ctx, tx, packed)
	if err != nil {
		return nil, fmt.Errorf("sqlite: links of %d: %w", source, err)
	}
	for id, p := range inRuns {
		texts[int64(id)] = p.url
	}
	out := make([]crawl.Link, len(ls))
	for i, l := range ls {
		out[i] = crawl.Link{TargetID: crawl.ID(l.Target), Target: texts[l.Target], Anchor: l.Anchor, NoFollow: l.NoFollow}
	}
	return out, nil
}

// Inlinks returns links to a page, by the linking page's URL.
func (db *DB) Inlinks(ctx context.Context, target crawl.ID, limit int) ([]crawl.Inlink, error) {
	if limit <= 0 {
		limit = 100
	}
	rows, err := db.r.QueryContext(ctx, `SELECT i.source_id, `+fullURLSQL+` AS url, o.links FROM (`+linkingSources("?1")+`) i
		JOIN urls u ON u.id = i.source_id LEFT JOIN hosts h ON h.id = u.host_id JOIN outlinks o ON o.source_id = i.source_id
		ORDER BY url LIMIT ?2`, target, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: inlinks of %d: %w", target, err)
	}
	defer rows.Close()
	var out []crawl.Inlink
	var b sql.RawBytes
	for rows.Next() {
		var l crawl.Inlink
		if err := rows.Scan(&l.Source, &l.URL, &b); err != nil {
			return nil, fmt.Errorf("sqlite: inlinks of %d: %w", target, err)
		}
		a, nf, ok, err := outlinks.Find(b, int64(target))
		if err != nil {
			return nil, fmt.Errorf("sqlite: inlinks of %d: from %d: %w", target, l.Source, err)
		}
		if !ok {
			continue
		}
		l.Anchor, l.NoFollow = string(a), nf
		out = append(out, l)
	}
	return out, rows.Err()
}

// linkGraphBatch is how many sources LinkGraph reads per query.
const linkGraphBatch = 1000

// LinkGraph streams the links between recorded pages, by source then
// target: a row per source page, its targets kept when they are pages.
func (db *DB) LinkGraph(ctx context.Context) iter.Seq2[[2]crawl.ID, error] {
	return func(yield func([2]crawl.ID, error) bool) {
		fail := func(err error) { yield([2]crawl.ID{}, fmt.Errorf("sqlite: link graph: %w", err)) }
		pages, err := db.pageIDs(ctx)
		if err != nil {
			fail(err)
			return
		}
		after := int64(math.MinInt64)
		first := true
		var targets []int64
		for {
			rows, err := db.r.QueryContext(ctx, `SELECT source_id, links FROM outlinks
				WHERE source_id > ? OR ? ORDER BY source_id LIMIT ?`, after, first, linkGraphBatch)
			if err != nil {
				fail(err)
				return
			}
			var edges [][2]crawl.ID
			n := 0
			for rows.Next() {
				var src int64
				var b sql.RawBytes
				if err := rows.Scan(&src, &b); err != nil {
					rows.Close()
					fail(err)
					return
				}
				n++
				after = src
				if targets, err = outlinks.Targets(targets[:0], b); err != nil {
					rows.Close()
					fail(fmt.Errorf("links of %d: %w", src, err))
					return
				}
				for _, t := range targets {
					if _, ok := slices.BinarySearch(pages, t); ok {
						edges = append(edges, [2]crawl.ID{crawl.ID(src), crawl.ID(t)})
					}
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				fail(err)
				return
			}
			first = false
			for _, e := range edges {
				if !yield(e, nil) {
					return
				}
			}
			if n < linkGraphBatch {
				return
			}
		}
	}
}

// pageIDs returns the URL IDs of the recorded pages, in order.
func (db *DB) pageIDs(ctx context.Context) ([]int64, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT url_id FROM pages ORDER BY url_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// anchorsOf is the SQL expression of the indexed anchor texts of the page
// whose full-text key is the SQL expression key: the distinct texts of
// links to it, at most 200 and maxAnchors bytes, in source order, the
// staged links' included (linkingSources). A commit gathers the same
// texts without reading the staged rows (anchorsFor).
func anchorsOf(key string) string {
	return fmt.Sprintf(`coalesce((SELECT substr(group_concat(a, ' '), 1, %d) FROM
		(SELECT DISTINCT a FROM (SELECT acrawler_link_anchor(o.links, %s) AS a FROM (%s) i
			JOIN outlinks o ON o.source_id = i.source_id ORDER BY i.source_id)
		WHERE a <> '' LIMIT 200)), '')`, maxAnchors, sqlURLID(key), linkingSources(sqlURLID(key)))
}

// anchorChunk is how many documents changedAnchors gathers anchors for in
// one scan of the links: what it holds in memory is bounded by it.
var anchorChunk = 100_000

// anchorsFullShare decides how changedAnchors looks for changed anchor
// texts: every document, when the sources marked since the last pass are
// a 1/anchorsFullShare share of the pages or more; else only the targets
// of their links and the documents marked.
var anchorsFullShare = 4

// changedAnchors returns, in key order, the documents whose anchor texts
// (anchorsOf) differ from those indexed, and takes the marks that say
// where to look (migration 0040): the sources whose links were merged into
// inlinks since the last pass (anchors_sources, and those staged now),
// and the documents that lost a link (anchors_stale). Only a document
// among their targets, or marked, can have changed. When they are few
// (anchorsFullShare), it reads those documents' anchors alone
// (markedChangedAnchors), so that a pass after a small crawl into a large
// store costs what changed; when they are many, it reads every document's
// (allChangedAnchors), as a sequential read of the links costs less than
// as many look-ups.
func (t *txn) changedAnchors(ctx context.Context) ([]anchorDoc, error) {
	var sources, pages int64
	if err := t.queryRow(ctx, `SELECT
		(SELECT count(*) FROM (SELECT source_id FROM anchors_sources UNION SELECT source_id FROM inlinks_staged)),
		coalesce((SELECT value FROM counters WHERE name = 'pages'), 0)`).Scan(&sources, &pages); err != nil {
		return nil, err
	}
	var out []anchorDoc
	var err error
	if sources*int64(anchorsFullShare) >= pages {
		out, err = t.allChangedAnchors(ctx)
	} else {
		out, err = t.markedChangedAnchors(ctx)
	}
	if err != nil {
		return nil, err
	}
	if _, err := t.exec(ctx, `DELETE FROM anchors_sources`); err != nil {
		return nil, err
	}
	if _, err := t.exec(ctx, `DELETE FROM anchors_stale`); err != nil {
		return nil, err
	}
	return out, nil
}

// markedChangedAnchors is changedAnchors over the marked documents and the
// targets of the marked and staged sources' links: each document's anchor
// texts read by anchorsFor, from its range of inlinks and the staged links.
func (t *txn) markedChangedAnchors(ctx context.Context) ([]anchorDoc, error) {
	keys := map[crawl.ID]bool{}
	rows, err := t.tx.QueryContext(ctx, `SELECT key FROM anchors_stale`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var k crawl.ID
		if err := rows.Scan(&k); err != nil {
			rows.Close()
			return nil, err
		}
		keys[k] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var targets []int64
	if err := t.eachOutlinks(ctx, `SELECT source_id, links FROM outlinks WHERE source_id IN
		(SELECT source_id FROM anchors_sources UNION SELECT source_id FROM inlinks_staged) ORDER BY source_id`,
		func(_ crawl.ID, b []byte) (err error) {
			if targets, err = outlinks.Targets(targets[:0], b); err != nil {
				return err
			}
			for _, tg := range targets {
				keys[ftsKey(crawl.ID(tg))] = true
			}
			return nil
		}); err != nil {
		return nil, err
	}
	doc, err := t.prep(ctx, `SELECT anchors, key IN (SELECT url_id FROM search_tier) FROM search_docs WHERE key = ?`)
	if err != nil {
		return nil, err
	}
	read, err := t.prep(ctx, anchorsRead)
	if err != nil {
		return nil, err
	}
	// Two statements a document: they run under perRow(ctx), and the loop
	// checks ctx between documents.
	row := perRow(ctx)
	var out []anchorDoc
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var old string
		var tier bool
		switch err := doc.QueryRowContext(row, k).Scan(&old, &tier); {
		case errors.Is(err, sql.ErrNoRows):
			continue // not a document
		case err != nil:
			return nil, err
		}
		a, err := t.anchorsFor(row, read, urlIDOfKey(k))
		if err != nil {
			return nil, err
		}
		if a != old {
			out = append(out, anchorDoc{key: k, anchors: a, tier: tier})
		}
	}
	return out, nil
}

// allChangedAnchors is changedAnchors over every document. It reads the
// compact links in their own order (by source), once per anchorChunk
// documents, and gathers each target's texts in memory: asking anchorsOf
// of each document would look every inbound link up again. The texts are
// anchorsOf's: the first 200 distinct non-empty ones in source order,
// joined by spaces and cut at maxAnchors characters (TestAnchorsGathered
// compares the two).
func (t *txn) allChangedAnchors(ctx context.Context) ([]anchorDoc, error) {
	type target struct {
		key  crawl.ID
		old  string
		tier bool
		anchorSet
	}
	var out []anchorDoc
	var scratch []int64
	from := crawl.ID(math.MinInt64)
	for {
		// The next chunk of documents, in key order.
		rows, err := t.tx.QueryContext(ctx, `SELECT key, anchors, key IN (SELECT url_id FROM search_tier)
			FROM search_docs WHERE key >= ? ORDER BY key LIMIT ?`, from, anchorChunk)
		if err != nil {
			return nil, err
		}
		var chunk []*target
		byID := map[crawl.ID]*target{}
		for rows.Next() {
			tg := &target{}
			if err := rows.Scan(&tg.key, &tg.old, &tg.tier); err != nil {
				rows.Close()
				return nil, err
			}
			chunk = append(chunk, tg)
			byID[urlIDOfKey(tg.key)] = tg
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if len(chunk) == 0 {
			return out, nil
		}
		// Their anchor texts, from the links read in source order.
		add := func(id int64, a []byte, _ bool) {
			if tg := byID[crawl.ID(id)]; tg != nil {
				tg.add(a)
			}
		}
		if err := t.eachOutlinks(ctx, `SELECT source_id, links FROM outlinks ORDER BY source_id`, func(_ crawl.ID, b []byte) (err error) {
			scratch, err = outlinks.Walk(b, scratch, add)
			return err
		}); err != nil {
			return nil, err
		}
		for _, tg := range chunk {
			if a := string(tg.joined); a != tg.old {
				out = append(out, anchorDoc{key: tg.key, anchors: a, tier: tg.tier})
			}
		}
		last := chunk[len(chunk)-1].key
		if len(chunk) < anchorChunk || last == math.MaxInt64 {
			return out, nil
		}
		from = last + 1
	}
}

// eachOutlinks runs q, which reads outlinks rows (source_id, links), and
// gives fn each row, its links valid until fn returns.
func (t *txn) eachOutlinks(ctx context.Context, q string, fn func(src crawl.ID, links []byte) error) error {
	rows, err := t.tx.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var src crawl.ID
		var b sql.RawBytes
		if err := rows.Scan(&src, &b); err != nil {
			return err
		}
		if err := fn(src, b); err != nil {
			return fmt.Errorf("links of %d: %w", src, err)
		}
	}
	return rows.Err()
}

// anchorSet gathers the anchor texts of a document as anchorsOf does:
// the distinct non-empty texts added, at most 200 of them, joined by
// spaces and cut at maxAnchors characters. Each text is kept joined, as it
// will be indexed, with where it ends: a few bytes a text beyond the text.
type anchorSet struct {
	joined []byte
	ends   []int32 // of each text in joined
	chars  int     // in joined
	full   bool
}

func (s *anchorSet) has(a []byte) bool {
	start := int32(0)
	for _, end := range s.ends {
		if bytes.Equal(s.joined[start:end], a) {
			return true
		}
		start = end + 1
	}
	return false
}

// add adds a text, in source order.
func (s *anchorSet) add(a []byte) {
	if len(a) == 0 || s.full || s.has(a) {
		return
	}
	if len(s.ends) > 0 {
		s.joined = append(s.joined, ' ')
		s.chars++
	}
	s.joined = append(s.joined, a...)
	s.ends = append(s.ends, int32(len(s.joined)))
	s.chars += utf8.RuneCount(a)
	if s.full = len(s.ends) == 200 || s.chars >= maxAnchors; s.full {
		s.joined = []byte(cutRunes(string(s.joined), maxAnchors))
		s.ends = nil
	}
}

// cutRunes returns the first n characters of s, as SQLite's substr(s, 1, n)
// counts them.
func cutRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
