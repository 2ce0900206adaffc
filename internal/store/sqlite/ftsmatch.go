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
// The matches come in key order from a leapfrog over the positive terms'
// lists, each the union of the term's list in the text table and in the
// anchors table, read a chunk at a time through FTS5 with a lower bound
// on the rowid; the excluded terms' lists are sought at each match. When
// ranking, each chunk carries the term's hits in its rows.

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

// ftsQuery is a query as the two tables are asked it: each term alone,
// one FTS5 phrase, the positive ones first in the query's order, then the
// excluded ones; a phrase's number is its index in terms.
type ftsQuery struct {
	terms []string
	nPos  int
}

func newFTSQuery(q query.Query) ftsQuery {
	var fq ftsQuery
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
	lists := make([]*termList, len(fq.terms))
	for p, term := range fq.terms {
		// The positive terms' hits rank the matches: they are read with
		// the keys.
		withHits := o.rank && p < fq.nPos
		lists[p] = &termList{
			phrase:  p,
			text:    ftsCursor{rs: rs, table: idx.text, term: term, hi: o.hi, withHits: withHits},
			anchors: ftsCursor{rs: rs, table: idx.anchors, term: term, hi: o.hi, withHits: withHits},
		}
	}
	m := matcher{rs: rs, idx: idx, fq: fq, o: o, pos: lists[:fq.nPos], neg: lists[fq.nPos:]}
	var out []ftsRow
	for from, more := o.lo, true; more; {
		want := matchBatch
		if o.limit > 0 {
			want = min(want, (o.limit-len(out))*5/4+16)
		}
		var cands []candidate
		var err error
		if cands, from, more, err = m.leapfrog(ctx, from, want); err != nil {
			return nil, err
		}
		rows, err := m.rowsOf(ctx, cands)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
		if o.limit > 0 && len(out) >= o.limit {
			return out[:o.limit], nil
		}
	}
	return out, nil
}

// matchBatch is how many candidate keys a search reads the pages rows
// and hits of at a time.
const matchBatch = 500

// matcher finds a query's matches in an index: pos holds each positive
// term's list, neg each excluded term's.
type matcher struct {
	rs       *readStmts
	idx      ftsIndex
	fq       ftsQuery
	o        matchOpts
	pos, neg []*termList
}

// candidate is a page whose text or anchors hold every positive term, and
// when ranking, the hits of each in its text and in its anchors (the
// encoded ftsHitsFunc of the term alone; nil if it is not there).
type candidate struct {
	key           crawl.ID
	text, anchors [][]byte
}

// leapfrog returns up to n pages, from key from on in key order, that
// every positive term's list holds and no excluded term's, the key to go
// on from, and whether there may be more. Each list is sought to the
// largest key found so far, the sparsest first, until all agree: the work
// follows the skips, not the lists' lengths (a list is read in chunks;
// see ftsCursor).
func (m *matcher) leapfrog(ctx context.Context, from crawl.ID, n int) ([]candidate, crawl.ID, bool, error) {
	var out []candidate
	for len(out) < n {
		x, agreed := from, 0
		for i := 0; agreed < len(m.pos); i = (i + 1) % len(m.pos) {
			y, ok, err := m.pos[i].seek(ctx, x)
			if err != nil || !ok {
				return out, x, false, err
			}
			if y == x {
				agreed++
				continue
			}
			x, agreed = y, 1
		}
		excluded := false
		for _, l := range m.neg {
			y, ok, err := l.seek(ctx, x)
			if err != nil {
				return out, x, false, err
			}
			if excluded = ok && y == x; excluded {
				break
			}
		}
		if !excluded {
			c, err := m.candidate(ctx, x)
			if err != nil {
				return out, x, false, err
			}
			out = append(out, c)
		}
		if x == math.MaxInt64 {
			return out, x, false, nil
		}
		from = x + 1
	}
	return out, from, true, nil
}

// candidate returns the candidate at key x, with its hits when ranking.
// It leaves the lists in the order to seek them next, the sparsest first:
// it skips the furthest.
func (m *matcher) candidate(ctx context.Context, x crawl.ID) (candidate, error) {
	c := candidate{key: x}
	if m.o.rank {
		// The order of the phrases is the query's.
		c.text, c.anchors = make([][]byte, len(m.pos)), make([][]byte, len(m.pos))
		for _, l := range m.pos {
			var err error
			if c.text[l.phrase], err = l.text.hitsAt(ctx, x); err != nil {
				return c, err
			}
			if c.anchors[l.phrase], err = l.anchors.hitsAt(ctx, x); err != nil {
				return c, err
			}
		}
	}
	slices.SortStableFunc(m.pos, func(a, b *termList) int { return cmp.Compare(a.density(), b.density()) })
	return c, nil
}

// termList is the pages holding a term (the query's phrase phrase) in
// their text or their anchors.
type termList struct {
	phrase        int
	text, anchors ftsCursor
}

// seek returns the smallest key at least x that holds the term, and
// whether there is one.
func (l *termList) seek(ctx context.Context, x crawl.ID) (crawl.ID, bool, error) {
	t, tok, err := l.text.seek(ctx, x)
	if err != nil || tok && t == x {
		return t, tok, err
	}
	a, aok, err := l.anchors.seek(ctx, x)
	switch {
	case err != nil:
		return 0, false, err
	case !aok:
		return t, tok, nil
	case !tok:
		return a, true, nil
	}
	return min(t, a), true, nil
}

// density is the estimated number of pages the list holds.
func (l *termList) density() float64 { return l.text.density() + l.anchors.density() }

// ftsCursor reads the keys of a full-text table's matches of a term in
// key order (withHits, with the term's hits in each), a chunk at a time:
// the keys from a sought key on, as many as the chunk (FTS5 seeks its
// lists to a lower bound on the rowid). A seek within what was read is
// answered from it; a seek just past it reads a chunk twice as large (the
// list is being read through), and one further away, a smaller one (the
// list is being skipped over).
type ftsCursor struct {
	rs          *readStmts
	table, term string
	hi          crawl.ID
	withHits    bool
	buf         []crawl.ID
	hits        [][]byte // withHits: buf[i]'s at i
	from, to    crawl.ID // buf holds every key from..to; to is hi when the list ends there
	read        bool     // buf was read
	chunk       int
	seen        int     // keys read in all,
	span        float64 // over this share of the key range
}

const (
	cursorMinChunk = 32
	cursorMaxChunk = 4096
)

// seek returns the smallest key at least x in the list, and whether
// there is one.
func (c *ftsCursor) seek(ctx context.Context, x crawl.ID) (crawl.ID, bool, error) {
	i, err := c.at(ctx, x)
	if err != nil || i == len(c.buf) {
		return 0, false, err // the list ends before x (or at hi)
	}
	return c.buf[i], true, nil
}

// hitsAt returns the term's hits in the row of key x (read withHits),
// nil if the term is not in it.
func (c *ftsCursor) hitsAt(ctx context.Context, x crawl.ID) ([]byte, error) {
	i, err := c.at(ctx, x)
	if err != nil || i == len(c.buf) || c.buf[i] != x || !c.withHits {
		return nil, err
	}
	return c.hits[i], nil
}

// at reads the chunk holding x if need be and returns the index in buf
// of the smallest key at least x (len(buf) if none).
func (c *ftsCursor) at(ctx context.Context, x crawl.ID) (int, error) {
	if x > c.hi {
		return len(c.buf), nil
	}
	if !c.read || x < c.from || x > c.to {
		switch {
		case c.chunk == 0:
			c.chunk = cursorMinChunk
		case c.read && x > c.to && float64(x)-float64(c.to) <= float64(c.to)-float64(c.from)+1:
			c.chunk = min(2*c.chunk, cursorMaxChunk)
		default:
			c.chunk = max(c.chunk/2, cursorMinChunk)
		}
		if err := c.fill(ctx, x); err != nil {
			return 0, err
		}
	}
	i, _ := slices.BinarySearch(c.buf, x)
	return i, nil
}

// fill reads a chunk from key x on.
func (c *ftsCursor) fill(ctx context.Context, x crawl.ID) error {
	hits := "NULL"
	if c.withHits {
		hits = ftsHitsFunc + "(" + c.table + ")"
	}
	rows, err := c.rs.QueryContext(ctx, `SELECT rowid, `+hits+` FROM `+c.table+` WHERE `+c.table+` MATCH ?1 AND rowid >= ?2 AND rowid <= ?3 ORDER BY rowid LIMIT ?4`,
		c.term, x, c.hi, c.chunk)
	if err != nil {
		return err
	}
	defer rows.Close()
	c.buf, c.hits = c.buf[:0], c.hits[:0]
	for rows.Next() {
		var k crawl.ID
		var b []byte
		if err := rows.Scan(&k, &b); err != nil {
			return err
		}
		c.buf, c.hits = append(c.buf, k), append(c.hits, b)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	c.from, c.to, c.read = x, c.hi, true
	if len(c.buf) == c.chunk {
		c.to = c.buf[len(c.buf)-1]
	}
	c.seen += len(c.buf)
	c.span += keyShare(x, c.to)
	return nil
}

// density is the estimated number of rows of the table the term is in.
func (c *ftsCursor) density() float64 {
	if c.span <= 0 {
		return 0
	}
	return float64(c.seen) / c.span
}

// keyShare is the share of the 64-bit key range from lo to hi.
func keyShare(lo, hi crawl.ID) float64 { return (float64(hi) - float64(lo) + 1) / (1 << 64) }

// rowsOf returns the matches among cands (in key order) with the pages
// row's fields and, when ranking, their hits of the positive terms in
// both tables. Pages left out by the request's filters are dropped.
func (m *matcher) rowsOf(ctx context.Context, cands []candidate) ([]ftsRow, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	keys := make([]crawl.ID, len(cands))
	for i, c := range cands {
		keys[i] = c.key
	}
	list, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	notTier := ""
	if m.o.notTier {
		notTier = " AND j.value NOT IN (SELECT url_id FROM search_tier)"
	}
	rows, err := m.rs.QueryContext(ctx, `SELECT j.key, `+m.o.rowCols()+` FROM json_each(?1) j
		CROSS JOIN pages p INDEXED BY pages_search ON p.url_id = `+sqlURLID("j.value")+`
		WHERE `+searchFilter+notTier+` ORDER BY j.key`, append([]any{string(list)}, m.o.filter...)...)
	if err != nil {
		return nil, err
	}
	var out []ftsRow
	var at []int // out[i] is cands[at[i]]
	for rows.Next() {
		var r ftsRow
		var i int
		if err := rows.Scan(&i, &r.host, &r.typ, &r.year, &r.work, &r.rank); err != nil {
			rows.Close()
			return nil, err
		}
		r.key = keys[i]
		out, at = append(out, r), append(at, i)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if !m.o.rank {
		return out, nil
	}
	// A page's sizes come with any of its hits; a table holding none of
	// the terms for the page gives its sizes from its docsize row.
	var noText, noAnchors []crawl.ID
	for i := range out {
		c := cands[at[i]]
		var err error
		if out[i].text, err = joinTermHits(c.text); err != nil {
			return nil, fmt.Errorf("%s %d: %w", m.idx.text, c.key, err)
		}
		if out[i].anchor, err = joinTermHits(c.anchors); err != nil {
			return nil, fmt.Errorf("%s %d: %w", m.idx.anchors, c.key, err)
		}
		if out[i].text.colSize == nil {
			noText = append(noText, c.key)
		}
		if out[i].anchor.colSize == nil {
			noAnchors = append(noAnchors, c.key)
		}
	}
	texts, err := hitsOf(ctx, m.rs, m.idx.text, "", noText, 2, m.fq.nPos)
	if err != nil {
		return nil, err
	}
	anchors, err := hitsOf(ctx, m.rs, m.idx.anchors, "", noAnchors, 1, m.fq.nPos)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if h, ok := texts[out[i].key]; ok && out[i].text.colSize == nil {
			out[i].text = h
		}
		if h, ok := anchors[out[i].key]; ok && out[i].anchor.colSize == nil {
			out[i].anchor = h
		}
	}
	return out, nil
}

// joinTermHits joins the hits of each phrase alone in one row (nil where
// the row does not hold it) into the row's hits of them all; without any,
// no sizes.
func joinTermHits(each [][]byte) (ftsHits, error) {
	var h ftsHits
	for p, b := range each {
		if b == nil {
			continue
		}
		one, err := decodeFTSHits(b)
		if err != nil {
			return h, err
		}
		if h.colSize == nil {
			h = ftsHits{colSize: one.colSize, hits: make([]int, len(one.colSize)*len(each))}
		}
		copy(h.hits[p*len(h.colSize):], one.hits[:min(len(one.hits), len(h.colSize))])
	}
	return h, nil
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
			keys, err := keyList(ctx, rs, `SELECT rowid FROM `+idx.anchors+` WHERE `+idx.anchors+` MATCH ? ORDER BY rowid LIMIT ?`, fq.terms[p], min(rankSample, aloneSample))
			if err != nil {
				return ftsStats{}, err
			}
			text := ftsCursor{rs: rs, table: idx.text, term: fq.terms[p], hi: math.MaxInt64}
			alone := 0
			for _, k := range keys {
				y, ok, err := text.seek(ctx, k)
				if err != nil {
					return ftsStats{}, err
				}
				if !ok || y != k {
					alone++
				}
			}
			n += int64(math.Round(float64(a) * float64(alone) / float64(len(keys))))
		}
		st.phraseRows[p] = n
	}
	return st, nil
}

// aloneSample bounds the anchor rows a phrase's share of pages holding
// it in their anchors alone is estimated from: each is sought in the text
// table's list of the phrase.
const aloneSample = 100

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
