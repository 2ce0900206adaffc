package sqlite

// Search over a full-text index kept in two tables. A page's title and text
// are one row of the text table, its inbound anchor texts one row of the
// anchors table, under the same key: links to a page mostly arrive after
// it was indexed, and rewriting its anchors' row alone costs a fraction of
// tokenizing its text again.
//
// A query matches a page when each of its positive terms is in the page's
// text or its anchors, and no excluded term is in either: what one table
// of the three columns matched. It is ranked by FTS5's bm25 over the union,
// computed in Go from the auxiliary functions of fts5aux.go: a row's hits
// and sizes in both tables, and each phrase's number of pages, counted over
// the union (see phraseStats). With the same weights, the scores are those
// of one table holding both.
//
// The matches come in key order from two streams: the pages whose text
// alone holds every positive term (FTS5's own AND over the text table),
// and the pages with a positive term in their anchors (FTS5's OR over the
// small anchors table), whose other terms are then looked up in the text
// table by key. Excluded terms are removed in both.

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
)

// ftsIndex is a full-text index: the table of the pages' titles and texts
// and the table of their anchor texts.
type ftsIndex struct{ text, anchors string }

var (
	fullIndex = ftsIndex{"pages_fts", "anchors_fts"}
	tierIndex = ftsIndex{"pages_top", "anchors_top"}
)

// ftsWeights are the weights of the columns title, body (the text table)
// and anchors (the anchors table).
var ftsWeights = []float64{weightTitle, weightBody, weightAnchors}

// ftsQuery is a query as the two tables are asked it. FTS5 numbers an
// expression's phrases in the order they appear; all, positive and lookup
// list the positive terms first, in the query's order, then (all and
// lookup) the excluded ones, so that a phrase has one number in each.
type ftsQuery struct {
	all      string   // every positive term, no excluded one (q.FTS5())
	positive string   // the positive terms ORed
	excluded string   // the excluded terms ORed; "" if none
	lookup   string   // every term ORed
	terms    []string // each positive term, then each excluded one
	nPos     int
}

func newFTSQuery(q query.Query) ftsQuery {
	fq := ftsQuery{all: q.FTS5()}
	var pos, neg []string
	for _, t := range q.Terms {
		one := query.Query{Terms: []query.Term{{Words: t.Words, Chunks: t.Chunks, Phrase: t.Phrase, Prefix: t.Prefix}}}.FTS5()
		if t.Exclude {
			neg = append(neg, one)
		} else {
			pos = append(pos, one)
		}
	}
	fq.nPos = len(pos)
	fq.terms = append(pos, neg...)
	fq.positive = strings.Join(pos, " OR ")
	fq.excluded = strings.Join(neg, " OR ")
	fq.lookup = strings.Join(fq.terms, " OR ")
	return fq
}

// ftsRow is a match: its key, its hits in each table, and the pages row's
// fields a search reads with it.
type ftsRow struct {
	key          crawl.ID
	text, anchor ftsHits // anchor holds the positive phrases only
	matched              // host, type, year, work
	rank         float64 // link-graph rank
}

// matchOpts selects matches: the request's filters, a range of keys,
// whether pages of the search tier are left out, and how many matches at
// most (0: all); and what is read of them: their works, and what ranking
// them needs (their hits and sizes in both tables, their link-graph rank).
type matchOpts struct {
	filter  []any
	lo, hi  crawl.ID
	notTier bool
	limit   int
	byWork  bool
	rank    bool
}

// rowCols is the SQL of the fields an ftsRow reads from the pages row p.
func (o matchOpts) rowCols() string {
	work := "0"
	if o.byWork {
		// A subquery: a join to work_copies may let SQLite read
		// pages_search first and look each page up in the full-text index.
		work = "coalesce((SELECT c.work_id FROM work_copies c WHERE c.page_id = p.url_id), 0)"
	}
	rank := "0"
	if o.rank {
		rank = pageRank("p")
	}
	return `p.host, p.doc_type, p.year, ` + work + `, ` + rank
}

// matches returns the matches of fq in idx, in key order.
func (db *DB) matches(ctx context.Context, idx ftsIndex, fq ftsQuery, o matchOpts) ([]ftsRow, error) {
	rows, err := db.matchesOf(ctx, db.rs, idx, fq, o)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	return rows, nil
}

func (db *DB) matchesOf(ctx context.Context, rs *readStmts, idx ftsIndex, fq ftsQuery, o matchOpts) ([]ftsRow, error) {
	limit := o.limit
	if limit <= 0 {
		limit = -1
	}
	cond := func(t string) string {
		c := t + ".rowid BETWEEN ?8 AND ?9 AND " + searchFilter
		if o.notTier {
			c += " AND +" + t + ".rowid NOT IN (SELECT url_id FROM search_tier)"
		}
		if fq.excluded != "" {
			// Pages with an excluded term in their anchors.
			c += " AND +" + t + ".rowid NOT IN (SELECT rowid FROM " + idx.anchors + " WHERE " + idx.anchors + " MATCH ?10)"
		}
		return c
	}
	args := func(match string, lo, hi crawl.ID, n int) []any {
		a := append(append([]any{match}, o.filter...), n, lo, hi)
		if fq.excluded != "" {
			a = append(a, fq.excluded)
		}
		return a
	}
	// The pages whose text holds every positive term.
	// Ranked, with their hits and their anchors' sizes (from the anchors
	// table's docsize row; replaced by their hits below when the anchors
	// hold a positive term).
	hits, sizes, sizesJoin := "NULL", "NULL", ""
	if o.rank {
		hits = ftsHitsFunc + "(f." + idx.text + ")"
		sizes, sizesJoin = "s.sz", " LEFT JOIN "+idx.anchors+"_docsize s ON s.id = f.rowid"
	}
	textRows, err := scanRows(ctx, rs, `SELECT f.rowid, `+hits+`, `+sizes+`, `+o.rowCols()+` FROM `+idx.text+` f
		JOIN pages p INDEXED BY pages_search ON p.url_id = `+sqlURLID("f.rowid")+sizesJoin+`
		WHERE `+idx.text+` MATCH ?1 AND `+cond("f")+` ORDER BY f.rowid LIMIT ?7`, args(fq.all, o.lo, o.hi, limit), fq.nPos)
	if err != nil {
		return nil, err
	}
	hi := o.hi
	if limit > 0 && len(textRows) == limit {
		hi = textRows[len(textRows)-1].key
	}
	inText := make(map[crawl.ID]int, len(textRows))
	for i, r := range textRows {
		inText[r.key] = i
	}
	// The pages with a positive term in their anchors, a chunk at a time,
	// until the matches are enough.
	var anchorRows []ftsRow
	const chunk = 500
	for from := o.lo; ; {
		cands, err := scanRows(ctx, rs, `SELECT a.rowid, `+ftsHitsFunc+`(a.`+idx.anchors+`), NULL, `+o.rowCols()+` FROM `+idx.anchors+` a
			JOIN pages p INDEXED BY pages_search ON p.url_id = `+sqlURLID("a.rowid")+`
			WHERE `+idx.anchors+` MATCH ?1 AND `+cond("a")+` ORDER BY a.rowid LIMIT ?7`, args(fq.positive, from, hi, chunk), fq.nPos)
		if err != nil {
			return nil, err
		}
		var lookup []crawl.ID
		for i := range cands {
			if j, ok := inText[cands[i].key]; ok {
				textRows[j].anchor = cands[i].anchor
			} else {
				lookup = append(lookup, cands[i].key)
			}
		}
		texts, err := hitsOf(ctx, rs, idx.text, fq.lookup, lookup, 2, len(fq.terms))
		if err != nil {
			return nil, err
		}
		for _, c := range cands {
			t, ok := texts[c.key]
			if !ok {
				continue
			}
			c.text = t
			if fq.holds(c) {
				anchorRows = append(anchorRows, c)
			}
		}
		if len(cands) < chunk || cands[len(cands)-1].key == math.MaxInt64 {
			break
		}
		from = cands[len(cands)-1].key + 1
		if limit > 0 && countBelow(textRows, from)+len(anchorRows) >= limit {
			break
		}
	}
	out := mergeRows(textRows, anchorRows)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// holds reports whether a page with these hits matches: each positive term
// in its text or anchors, no excluded term in its text (the anchors' are
// left out by the query).
func (fq ftsQuery) holds(r ftsRow) bool {
	for p := range fq.terms {
		in := r.text.has(p) || p < fq.nPos && r.anchor.has(p)
		if in != (p < fq.nPos) {
			return false
		}
	}
	return true
}

func (h ftsHits) has(phrase int) bool {
	n := len(h.colSize)
	if (phrase+1)*n > len(h.hits) {
		return false
	}
	for _, c := range h.hits[phrase*n : phrase*n+n] {
		if c > 0 {
			return true
		}
	}
	return false
}

// countBelow is how many of rows (in key order) have keys below k.
func countBelow(rows []ftsRow, k crawl.ID) int {
	n, _ := slices.BinarySearchFunc(rows, k, func(r ftsRow, k crawl.ID) int {
		switch {
		case r.key < k:
			return -1
		case r.key > k:
			return 1
		}
		return 0
	})
	return n
}

// mergeRows merges two lists of rows in key order, without duplicates.
func mergeRows(a, b []ftsRow) []ftsRow {
	out := make([]ftsRow, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0 || len(a) > 0 && a[0].key < b[0].key:
			out, a = append(out, a[0]), a[1:]
		case len(a) == 0 || b[0].key < a[0].key:
			out, b = append(out, b[0]), b[1:]
		default:
			out, a, b = append(out, a[0]), a[1:], b[1:]
		}
	}
	return out
}

// scanRows reads rows of key, hits, an anchors' docsize row and rowCols.
func scanRows(ctx context.Context, rs *readStmts, q string, args []any, nPos int) ([]ftsRow, error) {
	rows, err := rs.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ftsRow
	for rows.Next() {
		var r ftsRow
		var b, sz []byte
		if err := rows.Scan(&r.key, &b, &sz, &r.host, &r.typ, &r.year, &r.work, &r.rank); err != nil {
			return nil, err
		}
		if b != nil {
			h, err := decodeFTSHits(b)
			if err != nil {
				return nil, err
			}
			if len(h.colSize) == 1 {
				r.anchor = h
			} else {
				r.text = h
				// Without anchors, sizes of zero.
				if r.anchor, err = decodeDocsize(sz, 1, nPos); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// hitsOf returns each key's hits in table (of cols columns) for the
// phrases of match. A key whose row holds none of them, or any key when
// match is "", gets its row's sizes and no hits (for phrases phrases); a
// key the table does not hold, sizes of zero.
func hitsOf(ctx context.Context, rs *readStmts, table, match string, keys []crawl.ID, cols, phrases int) (map[crawl.ID]ftsHits, error) {
	out := make(map[crawl.ID]ftsHits, len(keys))
	for part := range slices.Chunk(keys, 500) {
		list, err := json.Marshal(part)
		if err != nil {
			return nil, err
		}
		var rows *sql.Rows
		if match != "" {
			rows, err = rs.QueryContext(ctx, hitsOfSQL(table), string(list), match)
		} else {
			rows, err = rs.QueryContext(ctx, `SELECT d.id, d.sz FROM json_each(?1) j
				JOIN `+table+`_docsize d ON d.id = j.value`, string(list))
		}
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var k crawl.ID
			var b []byte
			if err := rows.Scan(&k, &b); err != nil {
				rows.Close()
				return nil, err
			}
			var h ftsHits
			if match != "" {
				h, err = decodeFTSHits(b)
			} else {
				h, err = decodeDocsize(b, cols, phrases)
			}
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("%s %d: %w", table, k, err)
			}
			out[k] = h
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	// A key without the phrases: its sizes alone.
	if match != "" {
		var rest []crawl.ID
		for _, k := range keys {
			if _, ok := out[k]; !ok {
				rest = append(rest, k)
			}
		}
		sizes, err := hitsOf(ctx, rs, table, "", rest, cols, phrases)
		if err != nil {
			return nil, err
		}
		for k, h := range sizes {
			out[k] = h
		}
	}
	for _, k := range keys {
		if _, ok := out[k]; !ok {
			out[k] = ftsHits{colSize: make([]int, cols), hits: make([]int, cols*phrases)}
		}
	}
	return out, nil
}

// hitsOfSQL is the statement of hitsOf's hits: the keys (?1, a JSON
// array) each looked up in table's matches of ?2. CROSS JOIN keeps the
// keys the outer loop: joined plainly, SQLite read the whole of the
// match's rows (a common word's, in most pages) and the keys for each.
func hitsOfSQL(table string) string {
	return `SELECT t.rowid, ` + ftsHitsFunc + `(t.` + table + `) FROM json_each(?1) j
		CROSS JOIN ` + table + ` t ON t.rowid = j.value WHERE ` + table + ` MATCH ?2`
}

// decodeDocsize reads a row of an FTS5 table's docsize table: the number
// of tokens in each of its cols columns, as SQLite varints (none for a
// nil row).
func decodeDocsize(b []byte, cols, phrases int) (ftsHits, error) {
	h := ftsHits{colSize: make([]int, cols), hits: make([]int, cols*phrases)}
	if b == nil {
		return h, nil // no row: no tokens
	}
	for c := range cols {
		v, n := sqliteVarint(b)
		if n == 0 {
			return h, fmt.Errorf("docsize: malformed")
		}
		h.colSize[c], b = int(v), b[n:]
	}
	return h, nil
}

// sqliteVarint decodes SQLite's variable-length integer (big-endian, seven
// bits a byte, the ninth byte whole); n is 0 if b ends first.
func sqliteVarint(b []byte) (v uint64, n int) {
	for i := 0; i < 9 && i < len(b); i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

// phraseStats is what bm25 needs of an index for a query: its rows, its
// tokens per column (title, body, anchors) and the pages holding each
// phrase. An excluded term, and in the whole index (not the tier, whose
// lists are short) a positive term in more than 60% of the text table's
// pages (estimated from its first rankSample in key order), are counted
// as in every page: bm25 gives them a weight of 1e-6, as FTS5 gives a
// phrase in more than half the rows, and their document lists are not
// read. A
// phrase's pages are those whose text holds it plus those whose anchors
// alone do: the second estimated from the first rankSample of its anchor
// rows in key order when it has more, exact otherwise.
func (db *DB) phraseStats(ctx context.Context, rs *readStmts, idx ftsIndex, fq ftsQuery) (ftsStats, error) {
	text, err := tableStats(ctx, rs, idx.text, "", 0)
	if err != nil {
		return ftsStats{}, err
	}
	anchors, err := tableStats(ctx, rs, idx.anchors, "", 0)
	if err != nil {
		return ftsStats{}, err
	}
	st := ftsStats{rows: text.rows, colTotal: []int64{0, 0, 0}, phraseRows: make([]int64, len(fq.terms))}
	copy(st.colTotal, text.colTotal) // none when the table is empty
	if len(anchors.colTotal) > 0 {
		st.colTotal[2] = anchors.colTotal[0]
	}
	var ranked []int
	for p := range fq.terms {
		st.phraseRows[p] = st.rows
		if p >= fq.nPos {
			continue
		}
		if idx == fullIndex {
			n, err := estimateCount(ctx, rs, `SELECT rowid FROM `+idx.text+` WHERE `+idx.text+` MATCH ? ORDER BY rowid LIMIT ?`, fq.terms[p])
			if err != nil {
				return ftsStats{}, err
			}
			if float64(n) > 0.6*float64(st.rows) {
				continue
			}
		}
		ranked = append(ranked, p)
	}
	if len(ranked) == 0 {
		return st, nil
	}
	var expr []string
	for _, p := range ranked {
		expr = append(expr, fq.terms[p])
	}
	inText, err := tableStats(ctx, rs, idx.text, strings.Join(expr, " OR "), len(expr))
	if err != nil {
		return ftsStats{}, err
	}
	inAnchors, err := tableStats(ctx, rs, idx.anchors, strings.Join(expr, " OR "), len(expr))
	if err != nil {
		return ftsStats{}, err
	}
	for i, p := range ranked {
		n := inText.phraseRows[i]
		if a := inAnchors.phraseRows[i]; a > 0 {
			keys, err := keyList(ctx, rs, `SELECT rowid FROM `+idx.anchors+` WHERE `+idx.anchors+` MATCH ? ORDER BY rowid LIMIT ?`, fq.terms[p], rankSample)
			if err != nil {
				return ftsStats{}, err
			}
			both, err := hitsOf(ctx, rs, idx.text, fq.terms[p], keys, 2, 1)
			if err != nil {
				return ftsStats{}, err
			}
			alone := 0
			for _, k := range keys {
				if !both[k].has(0) {
					alone++
				}
			}
			n += int64(math.Round(float64(a) * float64(alone) / float64(len(keys))))
		}
		st.phraseRows[p] = n
	}
	return st, nil
}

// tableStats is ftsStatsFunc over table for the phrases of match, or, with
// match "", its rows and column totals alone; zeros when nothing matches.
func tableStats(ctx context.Context, rs *readStmts, table, match string, phrases int) (ftsStats, error) {
	var b []byte
	var err error
	if match == "" {
		err = rs.queryRow(ctx, `SELECT `+ftsStatsFunc+`(`+table+`) FROM `+table+` LIMIT 1`, nil, &b)
	} else {
		err = rs.queryRow(ctx, `SELECT `+ftsStatsFunc+`(`+table+`) FROM `+table+` WHERE `+table+` MATCH ? LIMIT 1`, []any{match}, &b)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return ftsStats{phraseRows: make([]int64, phrases)}, nil
	}
	if err != nil {
		return ftsStats{}, err
	}
	return decodeFTSStats(b)
}

func keyList(ctx context.Context, rs *readStmts, q string, args ...any) ([]crawl.ID, error) {
	rows, err := rs.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []crawl.ID
	for rows.Next() {
		var k crawl.ID
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// estimateCount estimates the number of rows of a query that returns
// keys in order, given its arguments and, last, a limit.
func estimateCount(ctx context.Context, rs *readStmts, q string, args ...any) (int, error) {
	keys, err := keyList(ctx, rs, q, append(args, rankSample)...)
	if err != nil || len(keys) < rankSample {
		return len(keys), err
	}
	return estimateMatches(len(keys), keys[len(keys)-1]), nil
}

// rankRows returns the best k of rows by bm25 over idx, then ranked
// again with the link-graph rank blended in, best first.
func (db *DB) rankRows(ctx context.Context, idx ftsIndex, fq ftsQuery, rows []ftsRow, k int, weight float64) ([]cand, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	st, err := db.phraseStats(ctx, db.rs, idx, fq)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	type scored struct {
		cand
		rank float64
	}
	all := make([]scored, len(rows))
	for i, r := range rows {
		all[i] = scored{cand{r.key, -bm25(st, joinHits(r.text, r.anchor, len(fq.terms)), ftsWeights)}, r.rank}
	}
	slices.SortStableFunc(all, func(a, b scored) int { return bestFirst(a.cand, b.cand) })
	all = all[:min(k, len(all))]
	out := make([]cand, len(all))
	for i, s := range all {
		out[i] = s.cand
		if weight > 0 {
			out[i].score *= 1 + weight*math.Log1p(s.rank)
		}
	}
	slices.SortStableFunc(out, bestFirst)
	return out, nil
}

// bestFirst orders candidates by score, best first, then by key.
func bestFirst(a, b cand) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

// joinHits is a row's hits in the columns of the text table then the
// anchors table, for phrases phrases (the anchors' for the positive
// ones; none for the others).
func joinHits(text, anchor ftsHits, phrases int) ftsHits {
	nt, na := len(text.colSize), len(anchor.colSize)
	if nt == 0 {
		nt = 2
		text = ftsHits{colSize: make([]int, 2)}
	}
	if na == 0 {
		na = 1
		anchor = ftsHits{colSize: make([]int, 1)}
	}
	h := ftsHits{colSize: append(slices.Clone(text.colSize), anchor.colSize...), hits: make([]int, 0, (nt+na)*phrases)}
	at := func(x ftsHits, n, p int) []int {
		if (p+1)*n > len(x.hits) {
			return make([]int, n)
		}
		return x.hits[p*n : (p+1)*n]
	}
	for p := range phrases {
		h.hits = append(h.hits, at(text, nt, p)...)
		h.hits = append(h.hits, at(anchor, na, p)...)
	}
	return h
}
