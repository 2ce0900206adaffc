package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"iter"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
)

// Column weights of the embedded index: a word in the title counts most,
// then the anchor texts of links to the page, then its text.
const (
	weightTitle   = 10.0
	weightBody    = 1.0
	weightAnchors = 4.0
	maxAnchors    = 2000 // bytes of inbound anchor text indexed per page
	maxBody       = 200_000
)

// hostOf is the host key of a normalized URL: scheme://authority.
func hostOf(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
		return u[:i+3+j]
	}
	return u
}

// anchorsOf is the SQL expression of the indexed anchor texts of the page
// whose ID is the SQL expression id: the distinct texts of links to it, at
// most 200 and maxAnchors bytes.
func anchorsOf(id string) string {
	return fmt.Sprintf(`coalesce((SELECT substr(group_concat(anchor, ' '), 1, %d) FROM
		(SELECT DISTINCT anchor FROM links WHERE target_id = %s AND anchor <> '' LIMIT 200)), '')`, maxAnchors, id)
}

// indexPage writes or removes a page's row in the full-text index, and,
// with an outbox, queues the matching operations for the external index.
// The full-text writes wait for the end of the transaction (see ftsOp).
func (t *txn) indexPage(ctx context.Context, p *crawl.Page) error {
	t.fts = append(t.fts, ftsOp{id: p.ID})
	indexable := crawl.Indexable(p)
	if t.db.outbox {
		key := ""
		if indexable && len(p.ContentHash) > 0 {
			key = hex.EncodeToString(p.ContentHash)
		}
		if err := t.outboxKey(ctx, p.ID, key); err != nil {
			return err
		}
	}
	if !indexable {
		return nil
	}
	body := p.MainText
	if body == "" {
		body = p.Text
	}
	if len(body) > maxBody {
		body = body[:maxBody]
	}
	title := p.Title
	if title == "" && p.Meta != nil {
		title = p.Meta.Title
	}
	t.fts = append(t.fts, ftsOp{id: p.ID, insert: true, title: title, body: body})
	return nil
}

// ftsOp is a write to the full-text index, held until the end of its
// transaction. FTS5 keeps new rows in memory and writes them out as one
// segment, but it must write them out early whenever a statement opens a
// savepoint (most multi-row statements do), a row comes with a smaller
// rowid than the one before, or deletes and inserts alternate. Applied one
// page at a time among the other statements of a commit, every page became
// its own segment, merged again and again; applied at the end, deletes
// then inserts, each in rowid order, a batch is one segment.
type ftsOp struct {
	id          crawl.ID
	insert      bool // insert the row; else delete it
	title, body string
}

// flushFTS applies the transaction's full-text writes: the last write of
// each page decides. The anchors of an inserted row are read then, so they
// include the links the transaction recorded.
func (t *txn) flushFTS(ctx context.Context) error {
	if len(t.fts) == 0 {
		return nil
	}
	last := make(map[crawl.ID]int, len(t.fts))
	for i, op := range t.fts {
		last[op.id] = i
	}
	ids := make([]crawl.ID, 0, len(last))
	for id := range last {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	del, err := t.tx.PrepareContext(ctx, `DELETE FROM pages_fts WHERE rowid = ?`)
	if err != nil {
		return err
	}
	defer del.Close()
	ins, err := t.tx.PrepareContext(ctx, `INSERT INTO pages_fts (rowid, title, body, anchors) VALUES (?1, ?2, ?3, `+anchorsOf("?1")+`)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	// Every page written loses its old row, if it had one.
	for _, id := range ids {
		if _, err := del.ExecContext(ctx, id); err != nil {
			return fmt.Errorf("full-text index %d: %w", id, err)
		}
	}
	for _, id := range ids {
		if op := t.fts[last[id]]; op.insert {
			if _, err := ins.ExecContext(ctx, id, op.title, op.body); err != nil {
				return fmt.Errorf("full-text index %d: %w", id, err)
			}
		}
	}
	t.fts = t.fts[:0]
	return nil
}

// Search work bounds: results are ranked among the best rankCandidates
// text matches (then by link-graph rank), the total is counted up to
// maxTotal, and facets over the first facetSample matches, so a query
// matching most of a large collection stays fast. Below those sizes all
// figures are exact.
const (
	rankCandidates = 200
	maxTotal       = 10_000
	facetSample    = 2_000
)

// Search answers a search from the FTS5 index.
func (db *DB) Search(ctx context.Context, r crawl.SearchRequest) (crawl.SearchResult, error) {
	start := time.Now()
	res := crawl.SearchResult{Facets: crawl.Facets{Host: map[string]int{}, Type: map[string]int{}, Year: map[int]int{}}}
	q := query.Parse(r.Query)
	if q.IsEmpty() {
		res.Took = time.Since(start)
		return res, nil
	}
	match := q.FTS5()
	filtered := r.Host != "" || r.Type != "" || r.Lang != "" || r.YearFrom != 0 || r.YearTo != 0
	where := `pages_fts MATCH ?1 AND (?2 = '' OR p.host = ?2) AND (?3 = '' OR p.doc_type = ?3) AND (?4 = '' OR p.lang = ?4)
		AND (?5 = 0 OR p.year >= ?5) AND (?6 = 0 OR p.year BETWEEN 1 AND ?6)`
	args := []any{match, r.Host, r.Type, r.Lang, r.YearFrom, r.YearTo}
	limit := r.Limit
	if limit <= 0 {
		limit = 10
	}
	k := min(r.Offset+limit+rankCandidates, maxTotal+rankCandidates)

	// Candidates, best text match first (FTS5 ranks with the configured
	// bm25 column weights).
	var candQ string
	var candArgs []any
	if filtered {
		candQ = `SELECT f.rowid, f.rank FROM pages_fts f JOIN pages p ON p.url_id = f.rowid WHERE ` + where + ` ORDER BY f.rank LIMIT ?7`
		candArgs = append(args, k)
	} else {
		candQ = `SELECT rowid, rank FROM pages_fts WHERE pages_fts MATCH ?1 ORDER BY rank LIMIT ?2`
		candArgs = []any{match, k}
	}
	rows, err := db.r.QueryContext(ctx, candQ, candArgs...)
	if err != nil {
		return res, fmt.Errorf("sqlite: search: %w", err)
	}
	type cand struct {
		id    crawl.ID
		score float64
	}
	var cands []cand
	for rows.Next() {
		var c cand
		if err := rows.Scan(&c.id, &c.score); err != nil {
			rows.Close()
			return res, fmt.Errorf("sqlite: search: %w", err)
		}
		c.score = -c.score // bm25 is lower-better
		cands = append(cands, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return res, fmt.Errorf("sqlite: search: %w", err)
	}
	// Blend in link-graph rank and order.
	if r.PageRankWeight > 0 {
		for i := range cands {
			var pr float64
			if err := db.r.QueryRowContext(ctx, `SELECT pagerank FROM pages WHERE url_id = ?`, cands[i].id).Scan(&pr); err != nil {
				return res, fmt.Errorf("sqlite: search: %w", err)
			}
			cands[i].score *= 1 + r.PageRankWeight*math.Log1p(pr)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score > cands[j].score
		}
		return cands[i].id < cands[j].id
	})
	if r.Offset < len(cands) {
		page := cands[r.Offset:min(len(cands), r.Offset+limit)]
		for _, c := range page {
			h, err := db.hit(ctx, match, c.id)
			if err != nil {
				return res, err
			}
			h.Score = c.score
			res.Hits = append(res.Hits, h)
		}
	}
	// Total and facets, bounded.
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM pages_fts f JOIN pages p ON p.url_id = f.rowid
		WHERE `+where+` LIMIT ?7)`, append(args, maxTotal)...).Scan(&res.Total); err != nil {
		return res, fmt.Errorf("sqlite: search count: %w", err)
	}
	if res.Total > 0 {
		frows, err := db.r.QueryContext(ctx, `SELECT p.host, p.doc_type, p.year FROM pages_fts f JOIN pages p ON p.url_id = f.rowid
			WHERE `+where+` LIMIT ?7`, append(args, facetSample)...)
		if err != nil {
			return res, fmt.Errorf("sqlite: search facets: %w", err)
		}
		for frows.Next() {
			var host, typ string
			var year int
			if err := frows.Scan(&host, &typ, &year); err != nil {
				frows.Close()
				return res, fmt.Errorf("sqlite: search facets: %w", err)
			}
			res.Facets.Host[host]++
			if typ != "" {
				res.Facets.Type[typ]++
			}
			if year != 0 {
				res.Facets.Year[year]++
			}
		}
		frows.Close()
		if err := frows.Err(); err != nil {
			return res, fmt.Errorf("sqlite: search facets: %w", err)
		}
		trimFacets(res.Facets.Host)
		trimFacets(res.Facets.Type)
	}
	res.Took = time.Since(start)
	return res, nil
}

// trimFacets keeps the 20 largest values of a facet.
func trimFacets(m map[string]int) {
	if len(m) <= 20 {
		return
	}
	type kv struct {
		k string
		n int
	}
	var all []kv
	for k, n := range m {
		all = append(all, kv{k, n})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].n > all[j].n || all[i].n == all[j].n && all[i].k < all[j].k })
	for _, e := range all[20:] {
		delete(m, e.k)
	}
}

// hit reads one result's fields and snippet.
func (db *DB) hit(ctx context.Context, match string, id crawl.ID) (crawl.SearchHit, error) {
	h := crawl.SearchHit{ID: id}
	var snippet, titleSnip, meta string
	var fetched int64
	err := db.r.QueryRowContext(ctx, `SELECT p.url, p.title, snippet(pages_fts, 1, char(1), char(2), '…', 24),
			snippet(pages_fts, 0, char(1), char(2), '…', 24), p.host, p.doc_type, p.doi, p.metadata, p.year, p.lang, p.fetched_at
		FROM pages_fts f JOIN pages p ON p.url_id = f.rowid WHERE pages_fts MATCH ? AND f.rowid = ?`, match, id).Scan(
		&h.URL, &h.Title, &snippet, &titleSnip, &h.Host, &h.Type, &h.DOI, &meta, &h.Year, &h.Lang, &fetched)
	if err != nil {
		return h, fmt.Errorf("sqlite: search hit %d: %w", id, err)
	}
	h.Snippet = markSnippet(snippet)
	if !strings.Contains(snippet, "\x01") && strings.Contains(titleSnip, "\x01") || h.Snippet == "" {
		h.Snippet = markSnippet(titleSnip)
	}
	h.FetchedAt = fromMS(fetched)
	if meta != "" {
		var m crawl.Metadata
		if json.Unmarshal([]byte(meta), &m) == nil {
			h.Authors = m.Authors
			if h.Title == "" {
				h.Title = m.Title
			}
		}
	}
	return h, nil
}

func asString(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case []byte:
		return string(s)
	}
	return ""
}

// markSnippet escapes a snippet and turns FTS5's match markers into
// <mark> elements.
func markSnippet(s string) string {
	s = html.EscapeString(strings.Join(strings.Fields(s), " "))
	s = strings.ReplaceAll(s, "\x01", "<mark>")
	return strings.ReplaceAll(s, "\x02", "</mark>")
}

// Inlinks returns links to a page.
func (db *DB) Inlinks(ctx context.Context, target crawl.ID, limit int) ([]crawl.Inlink, error) {
	if limit <= 0 {
		limit = 100
	}
	rows, err := db.r.QueryContext(ctx, `SELECT l.source_id, u.url, l.anchor, l.nofollow FROM links l
		JOIN urls u ON u.id = l.source_id WHERE l.target_id = ? ORDER BY u.url LIMIT ?`, target, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: inlinks of %d: %w", target, err)
	}
	defer rows.Close()
	var out []crawl.Inlink
	for rows.Next() {
		var l crawl.Inlink
		var nf int
		if err := rows.Scan(&l.Source, &l.URL, &l.Anchor, &nf); err != nil {
			return nil, fmt.Errorf("sqlite: inlinks of %d: %w", target, err)
		}
		l.NoFollow = nf != 0
		out = append(out, l)
	}
	return out, rows.Err()
}

// LinkGraph streams the links between recorded pages.
func (db *DB) LinkGraph(ctx context.Context) iter.Seq2[[2]crawl.ID, error] {
	return func(yield func([2]crawl.ID, error) bool) {
		const batch = 20000
		var lastS, lastT int64 = -1 << 63, -1 << 63
		first := true
		for {
			cond := `(l.source_id, l.target_id) > (?, ?)`
			if first {
				cond = `(l.source_id, l.target_id) >= (?, ?)`
			}
			rows, err := db.r.QueryContext(ctx, `SELECT l.source_id, l.target_id FROM links l
				WHERE `+cond+` AND EXISTS (SELECT 1 FROM pages p WHERE p.url_id = l.target_id)
				ORDER BY l.source_id, l.target_id LIMIT ?`, lastS, lastT, batch)
			if err != nil {
				yield([2]crawl.ID{}, fmt.Errorf("sqlite: link graph: %w", err))
				return
			}
			var got [][2]crawl.ID
			for rows.Next() {
				var e [2]crawl.ID
				if err := rows.Scan(&e[0], &e[1]); err != nil {
					rows.Close()
					yield([2]crawl.ID{}, fmt.Errorf("sqlite: link graph: %w", err))
					return
				}
				got = append(got, e)
			}
			err = rows.Err()
			rows.Close()
			if err != nil {
				yield([2]crawl.ID{}, fmt.Errorf("sqlite: link graph: %w", err))
				return
			}
			for _, e := range got {
				if !yield(e, nil) {
					return
				}
			}
			if len(got) < batch {
				return
			}
			lastS, lastT, first = int64(got[len(got)-1][0]), int64(got[len(got)-1][1]), false
		}
	}
}

// SetRanks records ranks and refreshes the indexed anchor texts.
func (db *DB) SetRanks(ctx context.Context, ranks map[crawl.ID]float64) error {
	err := db.tx(ctx, func(t *txn) error {
		st, err := t.tx.PrepareContext(ctx, `UPDATE pages SET pagerank = ? WHERE url_id = ?`)
		if err != nil {
			return err
		}
		defer st.Close()
		for id, r := range ranks {
			if _, err := st.ExecContext(ctx, r, id); err != nil {
				return err
			}
		}
		// Only the rows whose anchors changed are rewritten: an FTS5
		// update re-tokenizes the whole row.
		a := anchorsOf("pages_fts.rowid")
		if _, err = t.tx.ExecContext(ctx, `UPDATE pages_fts SET anchors = `+a+` WHERE anchors IS NOT `+a); err != nil {
			return err
		}
		if t.db.outbox {
			// Ranks and anchors are fields of the external documents too.
			_, err = t.tx.ExecContext(ctx, `INSERT INTO outbox (url_id, op, doc_key)
				SELECT url_id, 'upsert', indexed_key FROM pages WHERE indexed_key <> '' ORDER BY url_id`)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: set ranks: %w", err)
	}
	return nil
}

// outboxKey records the document key a page should have in the external
// index and queues the operations that get it there.
func (t *txn) outboxKey(ctx context.Context, id crawl.ID, key string) error {
	var old string
	err := t.tx.QueryRowContext(ctx, `SELECT indexed_key FROM pages WHERE url_id = ?`, id).Scan(&old)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if old != "" && old != key {
		if _, err := t.tx.ExecContext(ctx, `INSERT INTO outbox (url_id, op, doc_key) VALUES (?, 'delete', ?)`, id, old); err != nil {
			return err
		}
	}
	if key != "" {
		if _, err := t.tx.ExecContext(ctx, `INSERT INTO outbox (url_id, op, doc_key) VALUES (?, 'upsert', ?)`, id, key); err != nil {
			return err
		}
	}
	if old != key {
		_, err = t.tx.ExecContext(ctx, `UPDATE pages SET indexed_key = ? WHERE url_id = ?`, key, id)
	}
	return err
}

// unindex takes a page out of the full-text index (and the external one).
func (t *txn) unindex(ctx context.Context, id crawl.ID) error {
	t.fts = append(t.fts, ftsOp{id: id})
	if t.db.outbox {
		return t.outboxKey(ctx, id, "")
	}
	return nil
}

// OutboxNext leases pending external-index operations.
func (db *DB) OutboxNext(ctx context.Context, limit int, lease time.Duration, now time.Time) ([]crawl.OutboxItem, error) {
	var out []crawl.OutboxItem
	err := db.tx(ctx, func(t *txn) error {
		rows, err := t.tx.QueryContext(ctx, `UPDATE outbox SET claimed_until = ? WHERE id IN
			(SELECT id FROM outbox WHERE claimed_until < ? ORDER BY id LIMIT ?) RETURNING id, url_id, op, doc_key`,
			now.Add(lease).UnixMilli(), now.UnixMilli(), limit)
		if err != nil {
			return err
		}
		var ids []crawl.ID
		for rows.Next() {
			var it crawl.OutboxItem
			var id crawl.ID
			if err := rows.Scan(&it.ID, &id, &it.Op, &it.Key); err != nil {
				rows.Close()
				return err
			}
			it.Page = &crawl.Page{ID: id}
			out = append(out, it)
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
		for i := range out {
			if out[i].Op != "upsert" {
				continue
			}
			p, err := scanPage(t.tx.QueryRowContext(ctx, `SELECT `+pageColumns+` FROM pages WHERE url_id = ?`, out[i].Page.ID))
			if err != nil {
				return err
			}
			out[i].Page = p
			out[i].Host = hostOf(p.URL)
			if err := t.tx.QueryRowContext(ctx, `SELECT pagerank FROM pages WHERE url_id = ?`, p.ID).Scan(&out[i].PageRank); err != nil {
				return err
			}
			if err := t.tx.QueryRowContext(ctx, `SELECT coalesce((SELECT anchors FROM pages_fts WHERE rowid = ?), '')`, p.ID).Scan(&out[i].Anchors); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: outbox: %w", err)
	}
	return out, nil
}

// OutboxDone removes delivered operations.
func (db *DB) OutboxDone(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	err := db.tx(ctx, func(t *txn) error {
		args := make([]any, len(ids))
		for i, id := range ids {
			args[i] = id
		}
		_, err := t.tx.ExecContext(ctx, `DELETE FROM outbox WHERE id IN (`+strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")+`)`, args...)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: outbox done: %w", err)
	}
	return nil
}

// RequeueIndex queues every indexed page for the external index again.
func (db *DB) RequeueIndex(ctx context.Context) (int, error) {
	var n int64
	err := db.tx(ctx, func(t *txn) error {
		if _, err := t.tx.ExecContext(ctx, `UPDATE pages SET indexed_key = lower(hex(content_hash))
			WHERE url_id IN (SELECT rowid FROM pages_fts) AND content_hash IS NOT NULL`); err != nil {
			return err
		}
		res, err := t.tx.ExecContext(ctx, `INSERT INTO outbox (url_id, op, doc_key)
			SELECT url_id, 'upsert', indexed_key FROM pages WHERE indexed_key <> '' ORDER BY url_id`)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: requeue index: %w", err)
	}
	return int(n), nil
}

// RebuildIndex rebuilds the full-text index from the pages.
func (db *DB) RebuildIndex(ctx context.Context) (int, error) {
	if err := db.tx(ctx, func(t *txn) error {
		_, err := t.tx.ExecContext(ctx, `DELETE FROM pages_fts`)
		return err
	}); err != nil {
		return 0, fmt.Errorf("sqlite: rebuild index: %w", err)
	}
	n := 0
	var batch []*crawl.Page
	flush := func() error {
		err := db.tx(ctx, func(t *txn) error {
			for _, p := range batch {
				if err := t.indexPage(ctx, p); err != nil {
					return err
				}
			}
			return nil
		})
		batch = batch[:0]
		return err
	}
	for p, err := range db.Pages(ctx) {
		if err != nil {
			return n, err
		}
		if crawl.Indexable(p) {
			n++
		}
		batch = append(batch, p)
		if len(batch) == 500 {
			if err := flush(); err != nil {
				return n, fmt.Errorf("sqlite: rebuild index: %w", err)
			}
		}
	}
	if err := flush(); err != nil {
		return n, fmt.Errorf("sqlite: rebuild index: %w", err)
	}
	return n, nil
}
