package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
	"github.com/acrawler/acrawler/internal/snippet"
)

// Column weights of the embedded index: a word in the title counts most,
// then the anchor texts of links to the page, then its text.
const (
	weightTitle   = 10.0
	weightBody    = 1.0
	weightAnchors = 4.0
	maxAnchors    = 2000 // characters of inbound anchor text indexed per page
	maxBody       = 200_000
)

// indexPage writes or removes a page's row in the full-text index, and,
// with an outbox, queues the matching operations for the external index.
// The full-text writes wait for the end of the transaction (see ftsOp).
// hasText tells whether the page has a text: its texts may be held apart
// (PrepareResult) when its document waits for the index delay, which
// reads them from its row.
func (t *txn) indexPage(ctx context.Context, p *crawl.Page, hasText bool) error {
	t.fts = append(t.fts, ftsOp{id: ftsKey(p.ID)})
	indexable := crawl.IndexableWith(p, hasText)
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
	t.fts = append(t.fts, ftsOp{id: ftsKey(p.ID), insert: true, title: title, body: body, attrs: pageAttrs(p)})
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
	id          crawl.ID // the page's full-text key (ftsKey)
	insert      bool     // insert the row; else delete it
	title, body string
	attrs       *docAttrs // the page's, for the segments engine
}

// flushFTS applies the transaction's full-text writes: the last write of
// each page decides. The anchors of an inserted row are read then, so they
// include the links the transaction recorded. The statements on search_docs
// all come first, then FTS5's deletes, then its inserts, each in key order
// (see ftsOp).
//
// With an index delay (pending.go), an inserted row waits in
// search_pending instead, and a commit's transaction writes the rows that
// have waited long enough.
func (t *txn) flushFTS(ctx context.Context) error {
	if len(t.fts) == 0 && !t.indexDue {
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
	delDoc, err := t.prep(ctx, `DELETE FROM search_docs WHERE key = ?`)
	if err != nil {
		return err
	}
	insDoc, err := t.prep(ctx, `INSERT INTO search_docs (key, title, anchors) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	readAnchors, err := t.prep(ctx, anchorsRead)
	if err != nil {
		return err
	}
	delPending, err := t.prep(ctx, `DELETE FROM search_pending WHERE key = ? RETURNING indexed`)
	if err != nil {
		return err
	}
	insPending, err := t.prep(ctx, `INSERT INTO search_pending (key, at, indexed) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	now := time.Now().UnixMilli()
	// Every page written loses its old document, if it had one: its row in
	// pages_fts (or, with an index delay, when its new row is written), and
	// its place among the rows waiting.
	var gone []crawl.ID
	anchors := map[crawl.ID]string{}
	for _, id := range ids {
		res, err := delDoc.ExecContext(ctx, id)
		if err != nil {
			return fmt.Errorf("full-text index %d: %w", id, err)
		}
		inFTS := false
		if n, _ := res.RowsAffected(); n > 0 {
			waited := false
			switch err := delPending.QueryRowContext(ctx, id).Scan(&waited); {
			case errors.Is(err, sql.ErrNoRows):
				inFTS = true
			case err != nil:
				return fmt.Errorf("full-text index %d: %w", id, err)
			default:
				inFTS = waited
			}
		}
		op := t.fts[last[id]]
		if op.insert && t.db.indexDelay > 0 {
			if _, err := insPending.ExecContext(ctx, id, now, inFTS); err != nil {
				return fmt.Errorf("full-text index %d: %w", id, err)
			}
		} else if inFTS {
			gone = append(gone, id)
		}
		if op.insert {
			// A row that waits gets its anchors when it is written; they
			// are read now only for a previous row that stays found
			// meanwhile, or for the external index.
			a := ""
			if t.db.indexDelay == 0 || inFTS || t.db.outbox {
				if a, err = t.anchorsFor(ctx, readAnchors, urlIDOfKey(id)); err != nil {
					return fmt.Errorf("full-text index %d: anchor texts: %w", id, err)
				}
				anchors[id] = a
			}
			if _, err := insDoc.ExecContext(ctx, id, op.title, a); err != nil {
				return fmt.Errorf("full-text index %d: %w", id, err)
			}
		}
	}
	text, err := t.text(ctx)
	if err != nil {
		return err
	}
	for _, id := range gone {
		if err := text.delete(ctx, id); err != nil {
			return err
		}
	}
	if t.db.indexDelay > 0 {
		due, err := t.due(ctx, now)
		if err != nil {
			return err
		}
		if err := t.indexDocs(ctx, due); err != nil {
			return err
		}
	} else {
		for _, id := range ids {
			if op := t.fts[last[id]]; op.insert {
				if err := text.insert(ctx, foldedDoc{key: id, title: query.Fold(op.title), body: query.Fold(op.body), anchors: query.Fold(anchors[id]), attrs: op.attrs}); err != nil {
					return err
				}
			}
		}
	}
	anchorsOf := func(id crawl.ID) (string, error) {
		if a, ok := anchors[id]; ok {
			return a, nil
		}
		return t.anchorsFor(ctx, readAnchors, urlIDOfKey(id))
	}
	if err := t.flushTier(ctx, ids, func(id crawl.ID) ftsOp { return t.fts[last[id]] }, anchorsOf); err != nil {
		return err
	}
	t.fts = t.fts[:0]
	return nil
}

// flushTier applies the transaction's full-text writes to the search
// tier: a page in it is written again, or leaves it when it leaves the
// index. Pages join the tier only when the rank pass (SetRanks) or a
// rebuild chooses it again.
func (t *txn) flushTier(ctx context.Context, ids []crawl.ID, op func(crawl.ID) ftsOp, anchorsOf func(crawl.ID) (string, error)) error {
	if t.db.engine != EngineFTS5 {
		return nil
	}
	in, err := t.prep(ctx, `SELECT count(*) FROM search_tier WHERE url_id = ?`)
	if err != nil {
		return err
	}
	var members, leave, write []crawl.ID
	for _, id := range ids {
		var n int
		if err := in.QueryRowContext(ctx, id).Scan(&n); err != nil {
			return fmt.Errorf("search tier %d: %w", id, err)
		}
		if n == 0 {
			continue
		}
		members = append(members, id)
		if op(id).insert {
			write = append(write, id)
		} else {
			leave = append(leave, id)
		}
	}
	if len(members) == 0 {
		return nil
	}
	if err := t.setTier(ctx, members, leave, nil, nil); err != nil {
		return err
	}
	ins, err := t.prep(ctx, tierInsert)
	if err != nil {
		return err
	}
	for _, id := range write {
		anchors, err := anchorsOf(id)
		if err != nil {
			return fmt.Errorf("search tier %d: anchor texts: %w", id, err)
		}
		if _, err := ins.ExecContext(ctx, id, query.Fold(op(id).title), query.Fold(op(id).body), query.Fold(anchors)); err != nil {
			return fmt.Errorf("search tier %d: %w", id, err)
		}
	}
	return nil
}

// docBody is the SQL expression of the indexed text of the page row p: its
// main text, else its visible text, cut at maxBody bytes as indexPage cuts
// it.
func docBody(p string) string {
	return fmt.Sprintf(`acrawler_body(%[1]s.main_text, %[1]s.text, %[2]d)`, p, maxBody)
}

// docFrom is the SQL of the indexed documents: search_docs d joined to
// their pages p.
var docFrom = `search_docs d JOIN pages p ON p.url_id = ` + sqlURLID("d.key")

// The statements that read a document to index (its title, its page's
// stored texts and its anchor texts, by full-text key: readDocRow),
// record its anchor texts, and write and delete its row.
var (
	docRead       = `SELECT d.title, p.text, p.main_text, d.anchors, p.host, p.doc_type, p.lang, p.year FROM ` + docFrom + ` WHERE d.key = ?`
	docAnchorsSet = `UPDATE search_docs SET anchors = ? WHERE key = ?`
	ftsInsert     = `INSERT INTO pages_fts (rowid, title, body, anchors) VALUES (?, ?, ?, ?)`
	tierInsert    = `INSERT INTO pages_top (rowid, title, body, anchors) VALUES (?, ?, ?, ?)`
	ftsDelete     = `DELETE FROM pages_fts WHERE rowid = ?`
	tierDelete    = `DELETE FROM pages_top WHERE rowid = ?`
)

// tierText returns the transaction's writer of the search tier's FTS5
// table.
func (t *txn) tierText(ctx context.Context) (fullText, error) {
	return t.ftsTable(ctx, tierDelete, tierInsert)
}

// setTier updates the search tier: the pages del leave the tier's
// full-text index, those of leave leave the tier, and those of join (in
// key order) join it, written from their documents as committed, read
// ahead on a reader (writeDocs), with the anchor texts of anchors where it
// has them (those the transaction changed).
func (t *txn) setTier(ctx context.Context, del, leave, join []crawl.ID, anchors map[crawl.ID]string) error {
	for _, step := range []struct {
		sql string
		ids []crawl.ID
	}{
		{tierDelete, del},
		{`DELETE FROM search_tier WHERE url_id = ?`, leave},
		{`INSERT INTO search_tier (url_id) VALUES (?)`, join},
	} {
		if len(step.ids) == 0 {
			continue
		}
		st, err := t.prep(ctx, step.sql)
		if err != nil {
			return fmt.Errorf("search tier: %w", err)
		}
		for _, id := range step.ids {
			if _, err := st.ExecContext(ctx, id); err != nil {
				return fmt.Errorf("search tier %d: %w", id, err)
			}
		}
	}
	if len(join) == 0 {
		return nil
	}
	text, err := t.tierText(ctx)
	if err != nil {
		return fmt.Errorf("search tier: %w", err)
	}
	if err := t.writeDocs(ctx, text, join, anchors); err != nil {
		return fmt.Errorf("search tier: %w", err)
	}
	return nil
}

// refreshTier makes the search tier the indexed pages of highest
// link-graph rank (ties broken by URL ID), one in tierShare of them and at
// most tierSize, rewriting only the pages that join it. (Those that stay
// are rewritten with their main documents: flushFTS, refreshAnchors.)
// anchors are the anchor texts the transaction changed (refreshAnchors).
func (t *txn) refreshTier(ctx context.Context, anchors map[crawl.ID]string) error {
	if t.db.engine != EngineFTS5 {
		return nil
	}
	var indexed int
	if err := t.tx.QueryRowContext(ctx, `SELECT count(*) FROM search_docs`).Scan(&indexed); err != nil {
		return fmt.Errorf("search tier: %w", err)
	}
	size := min(tierSize, (indexed+tierShare-1)/tierShare)
	ids := func(q string, args ...any) (map[crawl.ID]bool, error) {
		rows, err := t.tx.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := map[crawl.ID]bool{}
		for rows.Next() {
			var id crawl.ID
			if err := rows.Scan(&id); err != nil {
				return nil, err
			}
			out[id] = true
		}
		return out, rows.Err()
	}
	want, err := ids(`SELECT `+sqlFTSKey("p.url_id")+` FROM pages p INDEXED BY pages_search
		LEFT JOIN ranks r ON r.url_id = p.url_id
		WHERE EXISTS (SELECT 1 FROM search_docs d WHERE d.key = `+sqlFTSKey("p.url_id")+`)
		ORDER BY coalesce(r.rank, 0) DESC, p.url_id LIMIT ?`, size)
	if err != nil {
		return fmt.Errorf("search tier: %w", err)
	}
	have, err := ids(`SELECT url_id FROM search_tier`)
	if err != nil {
		return fmt.Errorf("search tier: %w", err)
	}
	var leave, join []crawl.ID
	for id := range have {
		if !want[id] {
			leave = append(leave, id)
		}
	}
	for id := range want {
		if !have[id] {
			join = append(join, id)
		}
	}
	slices.Sort(leave)
	slices.Sort(join)
	return t.setTier(ctx, leave, leave, join, anchors)
}

// How a search is answered. The matches are first read in full-text key
// order, up to exactLimit+1, with the fields the facets need. The keys
// begin with bits of a SHA-256 of the URL (ftsKey), so these are a uniform
// random sample of the matches.
//
//   - At most exactLimit matches: every figure is exact. FTS5 ranks all
//     the matches by bm25 (a cost proportional to their number), the total
//     is their number and the facets count them all.
//   - More: the total and the facet counts are estimated from the sample
//     (SearchResult.Estimated), and the search tier ranks the matches: a
//     second full-text index of the tierSize pages of highest link-graph
//     rank, whose size bounds the ranking work. Results are the tier's
//     matches, best first, then, on the pages past them, the other
//     matches ranked over the whole index. When fewer than tierCandidates
//     of the matches are in the tier, the whole index ranks them all
//     instead, as for fewer matches.
//
// Ranking over the whole index leaves out the words of the query that
// FTS5's bm25 gives no weight (see rankingExpr).
var (
	exactLimit     = 1_000
	tierShare      = 10     // one indexed page in tierShare is in the tier,
	tierSize       = 10_000 // up to tierSize (both also in migration 0008)
	tierScored     = 1_000
	tierCandidates = 100
)

// rankCandidates is how many text matches beyond the requested page are
// ranked again with the link-graph rank blended in.
const rankCandidates = 200

// cand is a ranked match.
type cand struct {
	id    crawl.ID
	score float64
}

// searchFilter is the SQL condition of a request's filters on the pages
// row p, with parameters ?2 to ?6.
const searchFilter = `(?2 = '' OR p.host = ?2) AND (?3 = '' OR p.doc_type = ?3) AND (?4 = '' OR p.lang = ?4)
		AND (?5 = 0 OR p.year >= ?5) AND (?6 = 0 OR p.year BETWEEN 1 AND ?6)`

// Search answers a search from the FTS5 index.
func (db *DB) Search(ctx context.Context, r crawl.SearchRequest) (crawl.SearchResult, error) {
	start := time.Now()
	res := crawl.SearchResult{Facets: crawl.Facets{Host: map[string]int{}, Type: map[string]int{}, Year: map[int]int{}}}
	q := query.Parse(r.Query)
	if err := q.Check(); err != nil {
		return res, fmt.Errorf("sqlite: search: %w", err)
	}
	if q.IsEmpty() {
		res.Took = time.Since(start)
		return res, nil
	}
	if db.engine == EngineSegments {
		return db.searchSegments(ctx, r, q, res, start)
	}
	match := q.FTS5()
	filter := []any{r.Host, r.Type, r.Lang, r.YearFrom, r.YearTo}
	limit := r.Limit
	if limit <= 0 {
		limit = 10
	}
	need := r.Offset + limit

	// The matches in URL ID order, for the total and the facets (by
	// work: with the work of each, read by a subquery: a join to
	// work_copies may let SQLite read pages_search first and look each
	// page up in the full-text index).
	work := "0"
	if r.ByWork {
		work = "coalesce((SELECT c.work_id FROM work_copies c WHERE c.page_id = p.url_id), 0)"
	}
	rows, err := db.r.QueryContext(ctx, `SELECT f.rowid, p.host, p.doc_type, p.year, `+work+`
		FROM pages_fts f JOIN pages p INDEXED BY pages_search ON p.url_id = `+sqlURLID("f.rowid")+`
		WHERE pages_fts MATCH ?1 AND `+searchFilter+` ORDER BY f.rowid LIMIT ?7`, append([]any{match}, append(filter, exactLimit+1)...)...)
	if err != nil {
		return res, fmt.Errorf("sqlite: search: %w", err)
	}
	var ms []matched
	for rows.Next() {
		var m matched
		if err := rows.Scan(&m.key, &m.host, &m.typ, &m.year, &m.work); err != nil {
			rows.Close()
			return res, fmt.Errorf("sqlite: search: %w", err)
		}
		ms = append(ms, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return res, fmt.Errorf("sqlite: search: %w", err)
	}
	n := len(ms)
	matches := make(map[crawl.ID]bool, n)
	for _, m := range ms {
		matches[m.key] = true
	}
	res.ByWork = r.ByWork
	res.Total, res.Facets = countMatches(ms, r.ByWork)
	if n > exactLimit {
		// Estimates from the sample.
		est := estimateMatches(n, ms[n-1].key)
		res.Estimated = true
		if r.ByWork {
			if res.Total, res.Facets, err = db.estimateByWork(ctx, ms, filter, est); err != nil {
				return res, err
			}
		} else {
			res.Total = est
			scaleFacets(&res.Facets, float64(est)/float64(n))
		}
	}
	// Hosts and types: the 20 most frequent. Years: all of them.
	trimFacets(res.Facets.Host)
	trimFacets(res.Facets.Type)

	// The ranking. By work, every match is ranked when there are at most
	// exactLimit (so that the order, and which copy stands for a work,
	// does not depend on the page asked for), and the first of each
	// result kept.
	var cands []cand
	switch {
	case n == 0 || !res.Estimated && r.Offset >= res.Total:
	case !res.Estimated && r.ByWork:
		if cands, err = db.rankAll(ctx, q, filter, n, matches, false, r.PageRankWeight); err == nil {
			byKey := make(map[crawl.ID]int64, n)
			for _, m := range ms {
				byKey[m.key] = m.work
			}
			cands = firstOfEach(cands, byKey)
		}
	case !res.Estimated:
		cands, err = db.rankAll(ctx, q, filter, need+rankCandidates, matches, false, r.PageRankWeight)
	case r.ByWork:
		cands, err = db.rankLargeByWork(ctx, q, filter, need, r.PageRankWeight)
	default:
		cands, err = db.rankLarge(ctx, q, filter, need, r.PageRankWeight)
	}
	if err != nil {
		return res, err
	}
	if res.Hits, err = db.hits(ctx, q, cands, r.Offset, need); err != nil {
		return res, err
	}
	res.Took = time.Since(start)
	return res, nil
}

// hits returns the results of the ranked candidates from offset to
// need, with their fields and snippets.
func (db *DB) hits(ctx context.Context, q query.Query, cands []cand, offset, need int) ([]crawl.SearchHit, error) {
	var out []crawl.SearchHit
	if offset < len(cands) {
		for _, c := range cands[offset:min(len(cands), need)] {
			h, err := db.hit(ctx, q, c.id)
			if err != nil {
				return nil, err
			}
			h.Score = c.score
			out = append(out, h)
		}
	}
	return out, nil
}

// estimateMatches estimates the number of matches from the n-th smallest
// matching URL ID, last: IDs are uniform over the 64-bit range, so the n
// smallest of them span about n/total of it.
func estimateMatches(n int, last crawl.ID) int {
	span := (float64(last) - math.MinInt64 + 1) / (1 << 64) // the share of the range up to last
	return max(n, int(math.Round(float64(n-1)/span)))
}

// scaleFacets scales sampled facet counts to the estimated total.
func scaleFacets(f *crawl.Facets, by float64) {
	for k, v := range f.Host {
		f.Host[k] = int(math.Round(float64(v) * by))
	}
	for k, v := range f.Type {
		f.Type[k] = int(math.Round(float64(v) * by))
	}
	for k, v := range f.Year {
		f.Year[k] = int(math.Round(float64(v) * by))
	}
}

// rankLarge ranks the matches of a query that has more than exactLimit
// of them, enough for a page ending at need, in levels, each ranked
// after the one before: the tier's first tierScored matches in URL ID
// order (a uniform sample of them), its other matches, and the matches
// outside the tier.
func (db *DB) rankLarge(ctx context.Context, q query.Query, filter []any, need int, weight float64) ([]cand, error) {
	match := q.FTS5()
	// The URL ID that starts the second level, if the tier has more
	// matches.
	split := crawl.ID(math.MaxInt64)
	inTier := tierScored + 1
	err := db.r.QueryRowContext(ctx, `SELECT rowid FROM pages_top WHERE pages_top MATCH ? ORDER BY rowid LIMIT 1 OFFSET ?`,
		match, tierScored).Scan(&split)
	if errors.Is(err, sql.ErrNoRows) {
		err = db.r.QueryRowContext(ctx, `SELECT count(*) FROM pages_top WHERE pages_top MATCH ?`, match).Scan(&inTier)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	enough := inTier >= tierCandidates
	if enough && slices.ContainsFunc(filter, func(v any) bool { return v != "" && v != 0 }) {
		var n int
		if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM pages_top f JOIN pages p INDEXED BY pages_search ON p.url_id = `+sqlURLID("f.rowid")+`
			WHERE pages_top MATCH ?1 AND `+searchFilter+` LIMIT ?7)`, append(append([]any{match}, filter...), tierCandidates)...).Scan(&n); err != nil {
			return nil, fmt.Errorf("sqlite: search: %w", err)
		}
		enough = n >= tierCandidates
	}
	if !enough {
		// Too few of the matches are in the tier for its best to be the
		// best: rank them all.
		return db.rankAll(ctx, q, filter, need+rankCandidates, nil, false, weight)
	}
	end := crawl.ID(math.MaxInt64) // of the first level
	if inTier > tierScored {
		end = split - 1
	}
	levels := []func(k int) ([]cand, error){
		func(k int) ([]cand, error) { return db.rankTier(ctx, match, filter, math.MinInt64, end, k, weight) },
		func(k int) ([]cand, error) {
			if end == math.MaxInt64 {
				return nil, nil
			}
			return db.rankTier(ctx, match, filter, split, math.MaxInt64, k, weight)
		},
		func(k int) ([]cand, error) { return db.rankAll(ctx, q, filter, k, nil, true, weight) },
	}
	var out []cand
	for _, level := range levels {
		k := need - len(out) + rankCandidates
		cs, err := level(k)
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
		if len(cs) == k || len(out) >= need {
			break
		}
	}
	return out, nil
}

// rankTier returns the best k matches in the search tier with URL IDs
// from first to last, ranked as rank does. FTS5 ranks only the matches in
// that range.
func (db *DB) rankTier(ctx context.Context, match string, filter []any, first, last crawl.ID, k int, weight float64) ([]cand, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT f.rowid, f.rank, `+pageRank("p")+` FROM pages_top f
		JOIN pages p INDEXED BY pages_search ON p.url_id = `+sqlURLID("f.rowid")+`
		WHERE pages_top MATCH ?1 AND f.rowid BETWEEN ?8 AND ?9 AND `+searchFilter+`
		ORDER BY f.rank LIMIT ?7`,
		append(append([]any{match}, filter...), k, first, last)...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	return scanCands(rows, k, nil, weight)
}

// rankAll ranks a query's matches over the whole index (outside the tier
// with notTier), best first, and returns the best k. A caller that has
// all the matches passes them.
func (db *DB) rankAll(ctx context.Context, q query.Query, filter []any, k int, matches map[crawl.ID]bool, notTier bool, weight float64) ([]cand, error) {
	match := q.FTS5()
	rankBy, err := db.rankingExpr(ctx, q)
	if err != nil {
		return nil, err
	}
	if rankBy == match {
		rankBy = ""
	}
	return db.rank(ctx, match, rankBy, filter, k, matches, notTier, weight)
}

// rank returns the best k matches of match in the whole index by bm25
// (outside the tier with notTier), ranked again with the link-graph rank
// blended in. With rankBy set, FTS5 ranks the matches of rankBy (a query
// with fewer words) and those of match are kept: the given matches or,
// without them, those found again.
func (db *DB) rank(ctx context.Context, match, rankBy string, filter []any, k int, matches map[crawl.ID]bool, notTier bool, weight float64) ([]cand, error) {
	cond := `pages_fts MATCH ?1`
	args := append([]any{match}, filter...)
	limit := ` LIMIT ?7`
	switch {
	case rankBy != "" && matches != nil:
		// Filtered here: they are few, and finding them again would mean
		// reading the left-out words' long document lists.
		cond, limit = `pages_fts MATCH ?8`, ""
	case rankBy != "":
		// The unary + keeps the condition out of the full-text table's
		// plan: it filters the rows FTS5 ranks.
		cond = `pages_fts MATCH ?8 AND +f.rowid IN (SELECT rowid FROM pages_fts WHERE pages_fts MATCH ?1)`
	}
	if notTier {
		cond += ` AND +f.rowid NOT IN (SELECT url_id FROM search_tier)`
	}
	args = append(args, k)
	if rankBy != "" {
		args = append(args, rankBy)
	}
	rows, err := db.r.QueryContext(ctx, `SELECT f.rowid, f.rank, `+pageRank("p")+` FROM pages_fts f
		JOIN pages p INDEXED BY pages_search ON p.url_id = `+sqlURLID("f.rowid")+`
		WHERE `+cond+` AND `+searchFilter+` ORDER BY f.rank`+limit, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	var keep map[crawl.ID]bool
	if rankBy != "" {
		keep = matches
	}
	return scanCands(rows, k, keep, weight)
}

// scanCands reads up to k ranked matches (those in keep, if given), blends
// in their link-graph rank and orders them, best first.
func scanCands(rows *sql.Rows, k int, keep map[crawl.ID]bool, weight float64) ([]cand, error) {
	defer rows.Close()
	var cands []cand
	for len(cands) < k && rows.Next() {
		var c cand
		var pr float64
		if err := rows.Scan(&c.id, &c.score, &pr); err != nil {
			return nil, fmt.Errorf("sqlite: search: %w", err)
		}
		if keep != nil && !keep[c.id] {
			continue
		}
		c.score = -c.score // bm25 is lower-better
		if weight > 0 {
			c.score *= 1 + weight*math.Log1p(pr)
		}
		cands = append(cands, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score > cands[j].score
		}
		return cands[i].id < cands[j].id
	})
	return cands, nil
}

// rankingExpr is the FTS5 expression whose bm25 ranks the matches of q
// over the whole index, the same ranking as q's own for less work. FTS5
// computes each phrase's inverse document frequency by reading the
// phrase's whole document list once per query: for a word in most pages,
// that is most of the cost of a query that matches few pages. bm25 gives
// a phrase in more than half of the pages (and an excluded one) a weight
// of 1e-6, nothing next to any other phrase, so these are left out of the
// ranking (and still filter). The number of pages holding a phrase is
// estimated from its first matches in URL ID order, as for totals, with a
// margin: a phrase is left out above 60% of the pages.
func (db *DB) rankingExpr(ctx context.Context, q query.Query) (string, error) {
	var keep query.Query
	dropped := false
	var pages int
	for _, t := range q.Terms {
		if t.Exclude {
			dropped = true
			continue
		}
		one := query.Query{Terms: []query.Term{t}}
		n, err := db.estimateCount(ctx, `SELECT rowid FROM pages_fts WHERE pages_fts MATCH ? ORDER BY rowid LIMIT ?`, one.FTS5())
		if err != nil {
			return "", err
		}
		if n > 0 && pages == 0 {
			if pages, err = db.estimateCount(ctx, `SELECT id FROM pages_fts_docsize ORDER BY id LIMIT ?`); err != nil {
				return "", err
			}
		}
		if pages > 0 && float64(n) > 0.6*float64(pages) {
			dropped = true
			continue
		}
		keep.Terms = append(keep.Terms, t)
	}
	if !dropped || keep.IsEmpty() {
		return q.FTS5(), nil
	}
	return keep.FTS5(), nil
}

// rankSample is how many of the first rows in URL ID order estimate a
// phrase's or the index's number of pages (±5%).
const rankSample = 500

// estimateCount estimates the number of rows of a query that returns
// URL IDs in order, given its arguments and, last, a limit.
func (db *DB) estimateCount(ctx context.Context, sqlq string, args ...any) (int, error) {
	rows, err := db.r.QueryContext(ctx, sqlq, append(args, rankSample)...)
	if err != nil {
		return 0, fmt.Errorf("sqlite: search: %w", err)
	}
	defer rows.Close()
	n := 0
	var last crawl.ID
	for rows.Next() {
		if err := rows.Scan(&last); err != nil {
			return 0, fmt.Errorf("sqlite: search: %w", err)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("sqlite: search: %w", err)
	}
	if n < rankSample {
		return n, nil
	}
	return estimateMatches(n, last), nil
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
func (db *DB) hit(ctx context.Context, q query.Query, id crawl.ID) (crawl.SearchHit, error) {
	h := crawl.SearchHit{ID: urlIDOfKey(id)}
	var textSnip, titleSnip, meta string
	var fetched int64
	var docTitle, body, anchors string
	err := db.r.QueryRowContext(ctx, `SELECT p.url, p.title, d.title, `+docBody("p")+`, d.anchors,
			p.host, p.doc_type, p.doi, p.metadata, p.year, p.lang, p.fetched_at
		FROM `+docFrom+` WHERE d.key = ?`, id).Scan(
		&h.URL, &h.Title, &docTitle, &body, &anchors, &h.Host, &h.Type, &h.DOI, &meta, &h.Year, &h.Lang, &fetched)
	if err == nil {
		textSnip, titleSnip, err = db.snippets.Of(ctx, q, docTitle, body, anchors)
	}
	if err != nil {
		return h, fmt.Errorf("sqlite: search hit %d: %w", id, err)
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
	snippet.Set(&h, textSnip, titleSnip)
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

// SetRanks records ranks and refreshes the indexed anchor texts.
//
// It rewrites most of the full-text index in one transaction, and what
// SQLite stages for that came on top of the writer's page cache, full
// after a crawl: the crawler's peak memory rose from about 140 to 200 MiB
// at the end of some 20,000-page crawls. The pass runs with the readers'
// smaller page cache instead (no slower: it reads each page once), which
// frees the rest of the writer's for it.
func (db *DB) SetRanks(ctx context.Context, ranks map[crawl.ID]float64) error {
	return db.passTx(ctx, "set ranks", func(t *txn) error {
		// The end-of-crawl pass leaves every inbound link in inlinks.
		if err := t.mergeStaged(ctx); err != nil {
			return err
		}
		if err := t.setRanks(ctx, ranks); err != nil {
			return err
		}
		// The rows waiting for the index delay are written with their
		// final anchors by the pass, among the rows it writes again; none
		// wait and no anchors changed if nothing was written since
		// RefreshAnchors ran (the rank pass runs it first).
		var changed map[crawl.ID]string
		if !t.db.anchorsFresh {
			waiting, err := t.takeWaiting(ctx)
			if err != nil {
				return err
			}
			if changed, err = t.refreshAnchors(ctx, waiting); err != nil {
				return err
			}
		}
		if err := t.refreshTier(ctx, changed); err != nil {
			return err
		}
		if t.db.outbox {
			// Ranks and anchors are fields of the external documents too.
			_, err := t.tx.ExecContext(ctx, `INSERT INTO outbox (url_id, op, doc_key)
				SELECT url_id, 'upsert', indexed_key FROM pages WHERE indexed_key <> '' ORDER BY url_id`)
			return err
		}
		return nil
	})
}

// RefreshAnchors is the part of SetRanks that needs no ranks, in a
// transaction of its own: the documents whose inbound anchor texts
// changed since they were indexed, and those waiting for the index delay,
// written into the full-text index, most of the pass's work. The rank pass
// runs it while it reads and ranks the link graph (on the other core);
// SetRanks then writes only what changed since.
func (db *DB) RefreshAnchors(ctx context.Context) error {
	return db.passTx(ctx, "refresh anchor texts", func(t *txn) error {
		if err := t.mergeStaged(ctx); err != nil {
			return err
		}
		waiting, err := t.takeWaiting(ctx)
		if err != nil {
			return err
		}
		_, err = t.refreshAnchors(ctx, waiting)
		t.anchorsFresh = err == nil
		return err
	})
}

// passTx runs a transaction of the rank pass with the readers' page cache
// (see SetRanks).
func (db *DB) passTx(ctx context.Context, op string, fn func(*txn) error) (err error) {
	if err := db.cacheSize(ctx, readerCacheKiB); err != nil {
		return fmt.Errorf("sqlite: %s: %w", op, err)
	}
	defer func() {
		if cerr := db.cacheSize(context.WithoutCancel(ctx), writerCacheKiB); cerr != nil && err == nil {
			err = fmt.Errorf("sqlite: %s: %w", op, cerr)
		}
	}()
	if err := db.tx(ctx, fn); err != nil {
		return fmt.Errorf("sqlite: %s: %w", op, err)
	}
	return nil
}

// pageRank is the SQL expression of the link-graph rank of the pages row
// p: 0 for a page that has none.
func pageRank(p string) string {
	return `coalesce((SELECT rank FROM ranks WHERE url_id = ` + p + `.url_id), 0)`
}

// ranksRows is how many ranks one multi-row insert writes.
const ranksRows = 200

// setRanks writes the ranks of the recorded pages among ranks into the
// narrow ranks table, in URL ID order and many rows per statement, so that
// its b-tree grows at the end when it is new: what updating every wide
// page row (and its pages_search entry) cost is gone. A URL that is not a
// recorded page gets no rank, as before ranks had a table of their own. A
// recorded rank within crawl.RankTolerance of the new one is kept: the
// recorded ranks are read first, in one pass over the narrow table, so
// that a pass after a small crawl writes, and looks up, only the ranks
// that moved.
func (t *txn) setRanks(ctx context.Context, ranks map[crawl.ID]float64) error {
	rows, err := t.tx.QueryContext(ctx, `SELECT url_id, rank FROM ranks ORDER BY url_id`)
	if err != nil {
		return fmt.Errorf("ranks: %w", err)
	}
	ids, err := crawl.MovedRanks(ranks, rows)
	if err == nil {
		err = rows.Err()
	}
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("ranks: %w", err)
	}
	stmts := map[int]*sql.Stmt{}
	args := make([]any, 0, 2*ranksRows)
	for len(ids) > 0 {
		n := min(len(ids), ranksRows)
		st := stmts[n]
		if st == nil {
			var b strings.Builder
			b.WriteString(`INSERT INTO ranks (url_id, rank) SELECT v.column1, v.column2 FROM (VALUES `)
			for i := range n {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(`(?, ?)`)
			}
			b.WriteString(`) v WHERE EXISTS (SELECT 1 FROM pages p WHERE p.url_id = v.column1)
				ON CONFLICT (url_id) DO UPDATE SET rank = excluded.rank`)
			var err error
			if st, err = t.tx.PrepareContext(ctx, b.String()); err != nil {
				return fmt.Errorf("ranks: %w", err)
			}
			defer st.Close()
			stmts[n] = st
		}
		args = args[:0]
		for _, id := range ids[:n] {
			args = append(args, id, ranks[id])
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("ranks: %w", err)
		}
		ids = ids[n:]
	}
	return nil
}

// anchorDoc is a document whose inbound anchor texts changed.
type anchorDoc struct {
	key     crawl.ID // full-text key
	anchors string   // the anchor texts to index
	tier    bool     // the page is in the search tier
}

// refreshAnchors writes again the documents whose inbound anchor texts
// changed since they were indexed (only those: FTS5 tokenizes a whole row
// again), in the main index and in the search tier. Each index takes all
// its deletes, then all its inserts, in key order, so that FTS5 writes
// them out as two segments (see ftsOp); a document's text is read just
// before it is inserted, so memory holds only the keys and anchor texts.
// The documents waiting (in key order, taken from search_pending) get
// their rows among the others, once, in place of their previous
// documents' rows. It returns the anchor texts it changed, by key.
func (t *txn) refreshAnchors(ctx context.Context, waiting []waitingDoc) (map[crawl.ID]string, error) {
	docs, err := t.changedAnchors(ctx)
	if err != nil {
		return nil, fmt.Errorf("anchor texts: %w", err)
	}
	if len(docs) == 0 && len(waiting) == 0 {
		return nil, nil
	}
	// The keys pages_fts gets rows for, in key order: the changed
	// documents and the waiting ones.
	writes := make([]crawl.ID, 0, len(docs)+len(waiting))
	waits := make(map[crawl.ID]bool, len(waiting)) // whether pages_fts has its previous row
	for _, w := range waiting {
		writes = append(writes, w.key)
		waits[w.key] = w.indexed
	}
	for _, d := range docs {
		if _, ok := waits[d.key]; !ok {
			writes = append(writes, d.key)
		}
	}
	slices.Sort(writes)
	set, err := t.prep(ctx, docAnchorsSet)
	if err != nil {
		return nil, err
	}
	// The pass runs a statement or more a document, some 60,000 on a crawl
	// of 20,000 pages: they run under perRow(ctx), and the loops check ctx
	// between documents.
	row := perRow(ctx)
	changed := make(map[crawl.ID]string, len(docs))
	for _, d := range docs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if _, err := set.ExecContext(row, d.anchors, d.key); err != nil {
			return nil, fmt.Errorf("anchor texts %d: %w", d.key, err)
		}
		changed[d.key] = d.anchors
	}
	if t.db.engine == EngineSegments {
		// The segments keep anchor texts apart: a document whose anchors
		// changed gets them alone, and only the waiting documents are read
		// and written whole.
		w := t.segWriter()
		for _, d := range docs {
			if _, ok := waits[d.key]; !ok {
				if err := w.setAnchors(row, d.key, query.Fold(d.anchors)); err != nil {
					return nil, fmt.Errorf("anchor texts: %w", err)
				}
			}
		}
		keys := make([]crawl.ID, len(waiting))
		for i, d := range waiting {
			keys[i] = d.key
		}
		if err := t.writeDocs(ctx, w, keys, changed); err != nil {
			return nil, fmt.Errorf("anchor texts: %w", err)
		}
		return changed, nil
	}
	for _, table := range []string{"pages_fts", "pages_top"} {
		// FTS5 merges segments as it writes them out (automerge, 4 at a
		// level): here that rewrote large parts of an index that had just
		// grown by a crawl, a third of the rank pass. Merging is left to the
		// writes that follow.
		if err := t.automerge(ctx, table, 0); err != nil {
			return nil, err
		}
		var text fullText
		if table == "pages_fts" {
			text, err = t.text(ctx)
		} else {
			text, err = t.tierText(ctx)
		}
		if err != nil {
			return nil, err
		}
		var keys []crawl.ID
		if table == "pages_fts" {
			for _, key := range writes {
				if indexed, ok := waits[key]; ok && !indexed {
					continue
				}
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				if err := text.delete(row, key); err != nil {
					return nil, fmt.Errorf("anchor texts: %w", err)
				}
			}
			keys = writes
		} else {
			for _, d := range docs {
				if d.tier {
					if err := ctx.Err(); err != nil {
						return nil, err
					}
					if err := text.delete(row, d.key); err != nil {
						return nil, fmt.Errorf("anchor texts: %w", err)
					}
					keys = append(keys, d.key)
				}
			}
		}
		if err := t.writeDocs(ctx, text, keys, changed); err != nil {
			return nil, fmt.Errorf("anchor texts: %w", err)
		}
		if err := t.automerge(ctx, table, ftsAutomerge); err != nil {
			return nil, err
		}
	}
	return changed, nil
}

// writeDocs inserts the documents of keys into text, read ahead
// (readDocs), their anchor texts those of changed where it has them.
func (t *txn) writeDocs(ctx context.Context, text fullText, keys []crawl.ID, changed map[crawl.ID]string) error {
	if len(keys) == 0 {
		return nil
	}
	if w, ok := text.(*segWriter); ok {
		if err := w.know(ctx, keys); err != nil {
			return err
		}
		defer w.forget()
	}
	next, stop := t.readDocs(ctx, keys, changed)
	defer stop()
	row := perRow(ctx)
	for range keys {
		d, err := next()
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := text.insert(row, d); err != nil {
			return err
		}
	}
	return nil
}

// perRow is the context of statements a loop runs one or a few a row:
// ctx without its end, which the loop checks between rows instead.
// modernc.org/sqlite watches a context that can end with a goroutine of
// its own for every statement it runs.
func perRow(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

// ftsAutomerge is FTS5's default automerge setting.
const ftsAutomerge = 4

// automerge sets the automerge option of the full-text table (see FTS5's
// documentation), in the transaction.
func (t *txn) automerge(ctx context.Context, table string, n int) error {
	_, err := t.tx.ExecContext(ctx, fmt.Sprintf(`INSERT INTO %[1]s (%[1]s, rank) VALUES ('automerge', %[2]d)`, table, n))
	if err != nil {
		return fmt.Errorf("%s automerge: %w", table, err)
	}
	return nil
}

// cacheSize sets the writer connection's page cache, in KiB.
func (db *DB) cacheSize(ctx context.Context, kib int) error {
	if db.w == nil {
		return errors.New("database is open read-only")
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	_, err := db.w.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = -%d`, kib))
	return err
}

// outboxKey records the document key a page should have in the external
// index and queues the operations that get it there.
func (t *txn) outboxKey(ctx context.Context, id crawl.ID, key string) error {
	var old string
	err := t.queryRow(ctx, `SELECT indexed_key FROM pages WHERE url_id = ?`, id).Scan(&old)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if old != "" && old != key {
		if _, err := t.exec(ctx, `INSERT INTO outbox (url_id, op, doc_key) VALUES (?, 'delete', ?)`, id, old); err != nil {
			return err
		}
	}
	if key != "" {
		if _, err := t.exec(ctx, `INSERT INTO outbox (url_id, op, doc_key) VALUES (?, 'upsert', ?)`, id, key); err != nil {
			return err
		}
	}
	if old != key {
		_, err = t.exec(ctx, `UPDATE pages SET indexed_key = ? WHERE url_id = ?`, key, id)
	}
	return err
}

// unindex takes a page out of the full-text index (and the external one).
func (t *txn) unindex(ctx context.Context, id crawl.ID) error {
	t.fts = append(t.fts, ftsOp{id: ftsKey(id)})
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
			out[i].Host = crawl.HostKey(p.URL)
			if err := t.tx.QueryRowContext(ctx, `SELECT coalesce((SELECT rank FROM ranks WHERE url_id = ?), 0)`, p.ID).Scan(&out[i].PageRank); err != nil {
				return err
			}
			if err := t.tx.QueryRowContext(ctx, `SELECT coalesce((SELECT anchors FROM search_docs WHERE key = ?), '')`, ftsKey(p.ID)).Scan(&out[i].Anchors); err != nil {
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
			WHERE `+sqlFTSKey("url_id")+` IN (SELECT key FROM search_docs) AND content_hash IS NOT NULL`); err != nil {
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
		_, err := t.tx.ExecContext(ctx, `INSERT INTO pages_fts (pages_fts) VALUES ('delete-all');
			INSERT INTO pages_top (pages_top) VALUES ('delete-all'); DELETE FROM search_docs; DELETE FROM search_tier;
			DELETE FROM search_pending; DELETE FROM index_docs; DELETE FROM index_deleted;
			UPDATE index_segments SET retired = ? WHERE retired = 0; UPDATE index_state SET gen = gen + 1`, time.Now().UnixMilli())
		return err
	}); err != nil {
		return 0, fmt.Errorf("sqlite: rebuild index: %w", err)
	}
	n := 0
	var batch []*crawl.Page
	flush := func() error {
		err := db.tx(ctx, func(t *txn) error {
			for _, p := range batch {
				if err := t.indexPage(ctx, p, p.Text != ""); err != nil {
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
	// The tier filled up with the first pages: make it the best ranked.
	if err := db.tx(ctx, func(t *txn) error { return t.refreshTier(ctx, nil) }); err != nil {
		return n, fmt.Errorf("sqlite: rebuild index: %w", err)
	}
	return n, nil
}
