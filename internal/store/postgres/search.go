package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
	"github.com/acrawler/acrawler/internal/snippet"
	"github.com/acrawler/acrawler/internal/store/keyset"
)

// The embedded full-text index is the search column of pages: a tsvector
// holding the title (weight A), the main text, or the visible text when
// there is none (C), and the anchor texts of links to the page (B), in
// this order, so that ts_filter(search, '{a,c}') is the title and text
// alone. It is NULL for pages that are not indexable (crawl.Indexable).
// Its words are the folded words of query.Lexemes, never stemmed nor
// dropped as stop words (pages are in many languages): the crawler builds
// the title and text part (docVector); the anchor part is built by the
// server (anchorVector), whose lower() folds case as the database's
// LC_CTYPE says, which must be a UTF-8 locale for anchors to match beyond
// ASCII.
//
// The lengths indexed keep a tsvector under PostgreSQL's limit of 1 MB of
// lexemes and positions, which an error would make a commit fail on: the
// densest text (distinct words of one 4-byte character) takes 6 bytes per
// character, so 112,000 characters take at most 672 kB. A page's first
// 100,000 characters hold about 16,000 words, the last position a tsvector
// tells apart.
const (
	maxTitle       = 10_000  // characters of the title indexed
	maxBody        = 100_000 // characters of the text indexed
	maxAnchors     = 2_000   // characters of inbound anchor text indexed
	maxAnchorTexts = 200     // distinct inbound anchor texts indexed
)

// Weights of ts_rank_cd for labels D, C, B, A: a word in the title counts
// most, then in the anchor texts of links to the page, then in its text, as
// in the SQLite store.
const rankWeights = `'{0.1, 0.1, 0.4, 1.0}'`

// titleOf and bodyOf are the indexed title and text of a row r with the
// columns of pages.
func titleOf(r string) string {
	return fmt.Sprintf(`left(CASE WHEN %[1]s.title <> '' THEN %[1]s.title ELSE coalesce(%[1]s.metadata::jsonb->>'title', '') END, %[2]d)`,
		r, maxTitle)
}

func bodyOf(r string) string {
	return fmt.Sprintf(`left(CASE WHEN %[1]s.main_text <> '' THEN %[1]s.main_text ELSE %[1]s.text END, %[2]d)`, r, maxBody)
}

// anchorVector is the anchor text part of the search column, for the
// anchor text expression a: to_tsvector of acrawler_words, which folds
// the text as query.Fold does and makes its ASCII punctuation spaces, so
// that PostgreSQL's parser reads the words query.Lexemes reads (a few
// characters aside: see migration 0023).
func anchorVector(a string) string {
	return `setweight(to_tsvector('simple', acrawler_words(` + a + `)), 'B')`
}

// anchorsOf is the inbound anchor text indexed for the page whose ID is
// the expression id, SQLite's: the first maxAnchorTexts distinct
// non-empty anchors of the links to it in the order of their sources'
// IDs, joined in that order and cut to maxAnchors characters.
func anchorsOf(id string) string {
	return fmt.Sprintf(`coalesce((SELECT left(string_agg(d.anchor, ' ' ORDER BY d.first), %d) FROM
		(SELECT anchor, min(source_id) AS first FROM links WHERE target_id = %s AND anchor <> ''
			GROUP BY anchor ORDER BY first LIMIT %d) d), '')`, maxAnchors, id, maxAnchorTexts)
}

// rankedMatches is how many matches of a search at most are ranked by
// their text (see Search).
const rankedMatches = 1000

// Search answers a search from the embedded index: the matching pages by
// ts_rank_cd (times 1 + PageRankWeight·ln(1 + rank)), then ID, the
// rankedMatches of highest link-graph rank first when more match, with
// the total and facets of all matches. Any query text is valid: what holds no
// word gives an empty result. The hits and the facets are two statements
// sent in one round trip.
func (db *DB) Search(ctx context.Context, r crawl.SearchRequest) (crawl.SearchResult, error) {
	start := time.Now()
	res := crawl.SearchResult{Facets: crawl.Facets{Host: map[string]int{}, Type: map[string]int{}, Year: map[int]int{}}}
	q := query.Parse(r.Query)
	if err := q.Check(); err != nil {
		return res, fmt.Errorf("postgres: search: %w", err)
	}
	if q.IsEmpty() {
		res.Took = time.Since(start)
		return res, nil
	}
	// A query of exclusions alone (its positive words hold no lexeme)
	// has the query tree 'T', which matches nothing here, as an empty
	// query does.
	args := []any{q.TSQuery()}
	where := []string{`p.search @@ q.q`, `querytree(q.q) <> 'T'`}
	filter := func(cond string, v any) {
		args = append(args, v)
		where = append(where, fmt.Sprintf(cond, len(args)))
	}
	if r.Host != "" {
		filter(`p.host = $%d`, clean(r.Host))
	}
	if r.Type != "" {
		filter(`p.doc_type = $%d`, clean(r.Type))
	}
	if r.Lang != "" {
		filter(`p.lang = $%d`, clean(r.Lang))
	}
	if r.YearFrom != 0 {
		filter(`p.year >= $%d::bigint`, int64(r.YearFrom))
	}
	if r.YearTo != 0 {
		filter(`p.year <= $%d::bigint`, int64(r.YearTo))
	}
	matches := `WITH q AS MATERIALIZED (SELECT $1::tsquery AS q)`
	cond := strings.Join(where, " AND ")
	limit := int64(r.Limit)
	if limit <= 0 {
		limit = 10
	}
	weight := r.PageRankWeight
	if math.IsNaN(weight) || math.IsInf(weight, 0) {
		weight = 0
	}
	hitArgs := slices.Clip(args)
	param := func(v any) string {
		hitArgs = append(hitArgs, v)
		return fmt.Sprintf("$%d", len(hitArgs))
	}
	offset := max(int64(r.Offset), 0)
	// Ranking reads each match's whole tsvector, a cost proportional to
	// the number of matches: words in most of 100,000 pages took up to a
	// second. So the results are first the rankedMatches matches of
	// highest link-graph rank (all of them when there are no more), by
	// score, as the SQLite search tier does; then, for a page of results
	// that reaches past them, the other matches by score. The total and the
	// facets count every match.
	// Ranks are divided by 1 + the log of the document's length
	// (normalization 1). Snippets are made here, not by the server
	// (package snippet), from the indexed text, title and anchor texts.
	score := `ts_rank_cd(` + rankWeights + `, p.search, q.q, 1)
				* (1 + ` + param(weight) + `::float8 * ln(1 + greatest(coalesce(pr.rank, 0), 0)))`
	// By work, the other matches are ranked when the first rankedMatches
	// hold fewer results than the page needs, and a result is its first
	// match (the matches of rankedMatches come first): every match of
	// the page's results, and no other, has row number 1 in its result.
	var deep string
	if !r.ByWork {
		deep = param(limit+offset > rankedMatches)
	} else {
		deep = `(SELECT count(DISTINCT (` + resultKey("c.url_id") + `)) FROM cand c
			LEFT JOIN work_copies wc ON wc.page_id = c.url_id) < ` + param(limit+offset)
	}
	ranked := `(SELECT p.url_id, 0 AS tier, ` + score + ` AS score
				FROM cand JOIN pages p ON p.url_id = cand.url_id LEFT JOIN ranks pr ON pr.url_id = p.url_id, q)
			UNION ALL
			(SELECT p.url_id, 1, ` + score + `
				FROM pages p LEFT JOIN ranks pr ON pr.url_id = p.url_id, q WHERE ` + deep + ` AND ` + cond + `
				AND p.url_id NOT IN (SELECT url_id FROM cand))`
	if r.ByWork {
		ranked = `SELECT r.url_id, r.tier, r.score FROM (SELECT r.*, row_number() OVER (PARTITION BY ` + resultKey("r.url_id") + `
				ORDER BY r.tier, r.score DESC, r.url_id) AS n
			FROM (` + ranked + `) r LEFT JOIN work_copies wc ON wc.page_id = r.url_id) r WHERE r.n = 1`
	}
	hitsSQL := matches + `,
		cand AS MATERIALIZED (SELECT p.url_id FROM pages p LEFT JOIN ranks pr ON pr.url_id = p.url_id, q WHERE ` + cond + `
			ORDER BY coalesce(pr.rank, 0) DESC, p.url_id LIMIT ` + param(rankedMatches) + `),
		top AS (SELECT url_id, tier, score FROM (` + ranked + `) r
			ORDER BY tier, score DESC, url_id LIMIT ` + param(limit) + ` OFFSET ` + param(offset) + `)
		SELECT p.url_id, p.url, p.title, coalesce(p.metadata->>'title', ''), ` + bodyOf("p") + `, ` + titleOf("p") + `, p.anchors,
			top.score, p.host, p.doc_type, p.doi, p.metadata->'authors', p.year, p.lang, p.fetched_at
		FROM top JOIN pages p ON p.url_id = top.url_id
		ORDER BY top.tier, top.score DESC, top.url_id`
	// Total and facets: counts of the top 20 hosts and types, of every
	// year (the unknown type and year left out; years are few, and a
	// year's results are as worth filtering for as a frequent one's, as
	// the SQLite store counts them), and of all matches; by work, of the
	// results among them (a facet value counts the results with a match
	// of that value).
	from, result, count := `pages p, q`, ``, `count(*)`
	if r.ByWork {
		from = `pages p CROSS JOIN q LEFT JOIN work_copies wc ON wc.page_id = p.url_id`
		result, count = `, (`+resultKey("p.url_id")+`) AS result`, `count(DISTINCT result)`
	}
	facetsSQL := matches + `,
		m AS MATERIALIZED (SELECT p.host, p.doc_type, p.year` + result + ` FROM ` + from + ` WHERE ` + cond + `)
		(SELECT 0, host, 0, ` + count + ` FROM m GROUP BY host ORDER BY 4 DESC, 2 LIMIT 20)
		UNION ALL (SELECT 1, doc_type, 0, ` + count + ` FROM m WHERE doc_type <> '' GROUP BY doc_type ORDER BY 4 DESC, 2 LIMIT 20)
		UNION ALL (SELECT 2, '', year, ` + count + ` FROM m WHERE year <> 0 GROUP BY year)
		UNION ALL SELECT 3, '', 0, ` + count + ` FROM m`

	b := &pgx.Batch{}
	// The hits' texts, for their snippets, made once the statements ran.
	type texts struct{ title, body, anchors string }
	var shown []texts
	b.Queue(hitsSQL, hitArgs...).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var h crawl.SearchHit
			var metaTitle string
			var t texts
			var authors []byte
			var year int32
			var fetched int64
			if err := rows.Scan(&h.ID, &h.URL, &h.Title, &metaTitle, &t.body, &t.title, &t.anchors, &h.Score, &h.Host, &h.Type,
				&h.DOI, &authors, &year, &h.Lang, &fetched); err != nil {
				return err
			}
			if h.Title == "" {
				h.Title = metaTitle
			}
			if authors != nil {
				// Metadata written by this store: a list of strings.
				_ = json.Unmarshal(authors, &h.Authors)
			}
			h.Year, h.FetchedAt = int(year), fromMS(fetched)
			res.Hits = append(res.Hits, h)
			shown = append(shown, t)
		}
		return rows.Err()
	})
	b.Queue(facetsSQL, args...).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var kind, year int32
			var key string
			var count int64
			if err := rows.Scan(&kind, &key, &year, &count); err != nil {
				return err
			}
			switch kind {
			case 0:
				res.Facets.Host[key] = int(count)
			case 1:
				res.Facets.Type[key] = int(count)
			case 2:
				res.Facets.Year[int(year)] = int(count)
			case 3:
				res.Total = int(count)
			}
		}
		return rows.Err()
	})
	if err := db.pool.SendBatch(ctx, b).Close(); err != nil {
		return crawl.SearchResult{}, fmt.Errorf("postgres: search: %w", err)
	}
	for i, t := range shown {
		text, title, err := db.snippets.Of(ctx, q, t.title, t.body, t.anchors)
		if err != nil {
			return crawl.SearchResult{}, fmt.Errorf("postgres: search: snippet of %s: %w", res.Hits[i].URL, err)
		}
		snippet.Set(&res.Hits[i], text, title)
	}
	res.Took = time.Since(start)
	res.ByWork = r.ByWork
	return res, nil
}

// resultKey is what a search by work shows once, for the page whose ID
// is the expression id, with its row of work_copies wc (NULL when the
// page is no copy of a work): the work, or the page itself, as two
// expressions.
func resultKey(id string) string {
	return `coalesce(wc.work_id, 0), CASE WHEN wc.work_id IS NULL THEN ` + id + ` END`
}

// Inlinks returns up to limit (100 when not positive) links to a page, by
// source URL.
func (db *DB) Inlinks(ctx context.Context, target crawl.ID, limit int) ([]crawl.Inlink, error) {
	if limit <= 0 {
		limit = 100
	}
	rows, err := db.pool.Query(ctx, `SELECT l.source_id, `+fullURLSQL("u.url", "h.key")+` AS url, l.anchor, l.nofollow FROM links l
		JOIN urls u ON u.id = l.source_id LEFT JOIN hosts h ON h.id = u.host_id
		WHERE l.target_id = $1 ORDER BY `+fullURLSQL("u.url", "h.key")+` COLLATE "C", l.source_id LIMIT $2`, int64(target), int64(limit))
	if err != nil {
		return nil, fmt.Errorf("postgres: inlinks of %d: %w", target, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (crawl.Inlink, error) {
		var l crawl.Inlink
		err := row.Scan(&l.Source, &l.URL, &l.Anchor, &l.NoFollow)
		return l, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: inlinks of %d: %w", target, err)
	}
	return out, nil
}

// linkGraphBatch is the number of links LinkGraph reads per query.
const linkGraphBatch = 20_000

// LinkGraph streams the links whose target has a page row, by source and
// target, a batch per query (keyset pagination), so that no transaction
// or connection is held while the caller works. Which targets have a
// page row is read first, 8 bytes a page, and the links are kept by a
// search of it, as the SQLite store does: a look-up of each link's target
// in pages by the server was most of the reading (1.1 s against 0.17 s
// for 485,000 links).
func (db *DB) LinkGraph(ctx context.Context) iter.Seq2[[2]crawl.ID, error] {
	return func(yield func([2]crawl.ID, error) bool) {
		pages, err := db.pageIDs(ctx)
		if err != nil {
			yield([2]crawl.ID{}, fmt.Errorf("postgres: link graph: %w", err))
			return
		}
		lowest := [2]int64{math.MinInt64, math.MinInt64}
		links := keyset.Stream(ctx, linkGraphBatch, lowest, func(ctx context.Context, op string, after [2]int64, batch int) ([][2]crawl.ID, error) {
			rows, err := db.pool.Query(ctx, `SELECT l.source_id, l.target_id FROM links l
				WHERE (l.source_id, l.target_id) `+op+` ($1, $2) ORDER BY l.source_id, l.target_id LIMIT $3`, after[0], after[1], batch)
			if err != nil {
				return nil, fmt.Errorf("postgres: link graph: %w", err)
			}
			got, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) ([2]crawl.ID, error) {
				var e [2]crawl.ID
				err := row.Scan(&e[0], &e[1])
				return e, err
			})
			if err != nil {
				return nil, fmt.Errorf("postgres: link graph: %w", err)
			}
			return got, nil
		}, func(e [2]crawl.ID) [2]int64 { return [2]int64{int64(e[0]), int64(e[1])} })
		for e, err := range links {
			if err != nil {
				yield(e, err)
				return
			}
			if _, ok := slices.BinarySearch(pages, int64(e[1])); ok && !yield(e, nil) {
				return
			}
		}
	}
}

// pageIDs returns the IDs of the pages recorded, in increasing order.
func (db *DB) pageIDs(ctx context.Context) ([]int64, error) {
	rows, err := db.pool.Query(ctx, `SELECT url_id FROM pages ORDER BY url_id`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// setRanksBatch is the number of pages SetRanks rewrites per
// transaction; rankBatch is the number of ranks it writes per statement.
const (
	setRanksBatch = 1_000
	rankBatch     = 10_000
)

// setAnchorsSQL takes the marks $1 (anchors_stale) and rewrites the pages
// among $2 (locked by the transaction) that are marked, or all of them
// with $3, whose anchor text changed, and with $4 queues the external
// documents of those and returns their IDs. a is MATERIALIZED so that
// each page's anchors are gathered once: inlined, the subquery ran once
// for each place that names a.anchors.
var setAnchorsSQL = `WITH st AS (DELETE FROM anchors_stale WHERE url_id = ANY($1) RETURNING url_id)
	, a AS MATERIALIZED (SELECT p.url_id,
		CASE WHEN p.search IS NULL THEN '' ELSE ` + anchorsOf("p.url_id") + ` END AS anchors
	FROM pages p WHERE p.url_id = ANY($2) AND ($3 OR p.url_id IN (SELECT url_id FROM st)))
	, u AS (UPDATE pages p SET anchors = a.anchors, search = ts_filter(p.search, '{a,c}') || ` + anchorVector("a.anchors") + `
		FROM a WHERE p.url_id = a.url_id AND p.anchors <> a.anchors
		RETURNING p.url_id, p.indexed_key)
	, o AS (INSERT INTO outbox (url_id, op, doc_key)
		SELECT url_id, 'upsert', indexed_key FROM u WHERE $4 AND indexed_key <> '' ORDER BY url_id
		RETURNING url_id)
	SELECT url_id FROM o`

// setRanksSQL records the ranks $2 of the URLs $1 that are recorded pages
// (where only a rank that moved by more than crawl.RankTolerance is
// written), and with $3 queues the
// external documents of the pages whose rank it wrote, but those of $4
// (queued by the pass already). It locks no page: ranks are rows of their
// own.
var setRanksSQL = `WITH r AS (INSERT INTO ranks (url_id, rank)
		SELECT v.id, v.rank FROM unnest($1::bigint[], $2::float8[]) AS v(id, rank)
		WHERE EXISTS (SELECT 1 FROM pages p WHERE p.url_id = v.id) ORDER BY v.id
		ON CONFLICT (url_id) DO UPDATE SET rank = excluded.rank WHERE ` + crawl.RankMovedSQL("ranks.rank", "excluded.rank") + `
		RETURNING url_id)
	INSERT INTO outbox (url_id, op, doc_key)
		SELECT p.url_id, 'upsert', p.indexed_key FROM pages p
		WHERE $3 AND p.indexed_key <> '' AND p.url_id IN (SELECT url_id FROM r) AND NOT p.url_id = ANY(coalesce($4::bigint[], '{}'))
		ORDER BY p.url_id`

// anchorsFullShare decides where SetRanks looks for changed anchor texts:
// at every page, when the pages marked (sources and targets) are a
// 1/anchorsFullShare share of the pages or more; else only at the targets
// of the marks.
var anchorsFullShare int64 = 4

// markStaleSQL turns the marks of pages whose links were recorded
// (anchors_sources) into marks of the targets of their links with an
// anchor text (anchors_stale), where SetRanks looks for changed anchor
// texts. A mark made meanwhile stays for the next pass.
const markStaleSQL = `WITH s AS (DELETE FROM anchors_sources RETURNING source_id)
	INSERT INTO anchors_stale (url_id)
	SELECT DISTINCT l.target_id FROM links l WHERE l.source_id IN (SELECT source_id FROM s) AND l.anchor <> ''
	ORDER BY 1
	ON CONFLICT DO NOTHING`

// noJIT turns JIT compilation off for the rest of a transaction. The
// planner's cost estimates of the rank pass's and the inlinks merge's
// statements pass jit_above_cost, and the server then compiled their
// expressions at every execution (25–50 ms each, measured) for row counts
// at which compiled code gains nothing.
const noJIT = `SET LOCAL jit = off`

// SetRanks records ranks (a rank that is not a finite non-negative number
// is recorded as 0) and refreshes the indexed anchor text of the indexed
// pages that may have a new one: the targets of links recorded or
// deleted since the last pass, which commits mark (markStaleSQL), or
// every page when the marks are many (anchorsFullShare).
//
// The anchor texts go a batch of pages (or of marks) per transaction of
// two round trips, in URL ID order: lock the batch's page rows in that
// order (as commits lock theirs), then take their marks and rewrite those
// whose anchors changed, and, with an outbox, queue an upsert of their
// external documents. The ranks then go rankBatch a statement, locking no page
// (with an outbox, queueing the external documents of the pages whose
// rank changed: ranks and anchors are fields of theirs). Commits
// therefore wait for one batch at most, but SetRanks is not atomic: after
// an error, some pages have their new rank and anchors, and calling it
// again completes the work (a batch's marks go with its transaction).
func (db *DB) SetRanks(ctx context.Context, ranks map[crawl.ID]float64) error {
	var marked, pages int64
	if err := db.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM anchors_sources) + (SELECT count(*) FROM anchors_stale),
		(SELECT coalesce(sum(pages), 0) FROM counters)`).Scan(&marked, &pages); err != nil {
		return fmt.Errorf("postgres: set ranks: %w", err)
	}
	// Many marks: every page is looked at, and the marks made until now
	// are taken at once; those made meanwhile stay for the next pass.
	all := marked*anchorsFullShare >= pages
	// A commit that replaces a page's links marks targets, then sources,
	// and this takes sources, then marks targets: the two can deadlock,
	// and the loser runs again.
	if err := db.write(ctx, durable, func(ctx context.Context, t *txn) error {
		b := t.batch()
		if all {
			b.Queue(`DELETE FROM anchors_sources`)
			b.Queue(`DELETE FROM anchors_stale`)
		} else {
			b.Queue(markStaleSQL)
		}
		return t.commit(ctx, b)
	}); err != nil {
		return fmt.Errorf("postgres: set ranks: %w", err)
	}
	queued, err := db.setAnchors(ctx, all)
	if err != nil {
		return fmt.Errorf("postgres: set ranks: %w", err)
	}
	slices.Sort(queued)
	ids, err := db.movedRanks(ctx, ranks)
	if err != nil {
		return fmt.Errorf("postgres: set ranks: %w", err)
	}
	for len(ids) > 0 {
		n := min(len(ids), rankBatch)
		// The batch's pages whose documents the anchors' batches queued.
		lo, _ := slices.BinarySearch(queued, int64(ids[0]))
		hi, _ := slices.BinarySearch(queued, int64(ids[n-1])+1)
		if ids[n-1] == math.MaxInt64 {
			hi = len(queued)
		}
		rankIDs, vals := make([]int64, n), make([]float64, n)
		for i, id := range ids[:n] {
			v := ranks[id]
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				v = 0
			}
			rankIDs[i], vals[i] = int64(id), v
		}
		if err := db.write(ctx, durable, func(ctx context.Context, t *txn) error {
			b := t.batch()
			b.Queue(noJIT)
			b.Queue(setRanksSQL, rankIDs, vals, db.outbox, queued[lo:hi])
			return t.commit(ctx, b)
		}); err != nil {
			return fmt.Errorf("postgres: set ranks: %w", err)
		}
		ids = ids[n:]
	}
	return nil
}

// movedRanks returns, in ID order, the pages of ranks whose rank is to be
// written (crawl.MovedRanks): the recorded ranks are read in one pass over
// the narrow table, so that a pass after a small crawl sends, and the
// server looks up, only the ranks that moved. (setRanksSQL compares
// again, for a rank another process wrote since.)
func (db *DB) movedRanks(ctx context.Context, ranks map[crawl.ID]float64) ([]crawl.ID, error) {
	rows, err := db.pool.Query(ctx, `SELECT url_id, rank FROM ranks ORDER BY url_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids, err := crawl.MovedRanks(ranks, rows)
	if err == nil {
		err = rows.Err()
	}
	return ids, err
}

// setAnchors rewrites the anchor texts of SetRanks: with all, of every
// page, a batch of pages at a time; else of the marked pages, a batch of
// marks at a time (a mark of a URL that is no page goes with its batch).
// The URL IDs are split into anchorRanges ranges (hostRange: a host's
// pages fall in one), rewritten at once, each on a connection of the pool
// and a server process of its own: a batch's rewrite runs on one core of
// the server, and the ranges lock pages no other range locks. It returns
// the pages whose external documents it queued.
func (db *DB) setAnchors(ctx context.Context, all bool) ([]int64, error) {
	queued := make([][]int64, anchorRanges)
	g, gctx := errgroup.WithContext(ctx)
	for r := range anchorRanges {
		lo, hi := hostRange(r, anchorRanges)
		g.Go(func() (err error) {
			queued[r], err = db.setAnchorsIn(gctx, all, lo, hi)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return slices.Concat(queued...), nil
}

// anchorRanges is how many ranges of URL IDs setAnchors rewrites at once.
const anchorRanges = 2

// setAnchorsIn is setAnchors for the URL IDs from lo to hi.
func (db *DB) setAnchorsIn(ctx context.Context, all bool, lo, hi int64) ([]int64, error) {
	var queued []int64
	// A batch's rows, in ID order from after (op) to hi: the pages,
	// locked, or the marks, each with its page locked if it is one.
	batch := func(op string) string {
		if all {
			return `SELECT url_id, true FROM pages WHERE url_id ` + op + ` $1 AND url_id <= $3 ORDER BY url_id LIMIT $2 FOR NO KEY UPDATE`
		}
		return `SELECT m.url_id, p.url_id IS NOT NULL FROM
			(SELECT url_id FROM anchors_stale WHERE url_id ` + op + ` $1 AND url_id <= $3 ORDER BY url_id LIMIT $2) m
			LEFT JOIN LATERAL (SELECT url_id FROM pages WHERE url_id = m.url_id FOR NO KEY UPDATE) p ON true
			ORDER BY m.url_id`
	}
	after, op := lo, ">="
	for {
		var ids, pages, batchQueued []int64
		err := db.write(ctx, durable, func(ctx context.Context, t *txn) error {
			ids, pages, batchQueued = ids[:0], pages[:0], batchQueued[:0]
			b := t.batch()
			b.Queue(batch(op), after, setRanksBatch, hi).Query(func(rows pgx.Rows) error {
				for rows.Next() {
					var id int64
					var page bool
					if err := rows.Scan(&id, &page); err != nil {
						return err
					}
					ids = append(ids, id)
					if page {
						pages = append(pages, id)
					}
				}
				return nil
			})
			if err := t.send(ctx, b); err != nil {
				return err
			}
			b = t.batch()
			if len(ids) > 0 {
				marks := ids
				if all {
					marks = nil // taken at the start
				}
				b.Queue(noJIT)
				b.Queue(setAnchorsSQL, marks, pages, all, db.outbox).Query(func(rows pgx.Rows) error {
					for rows.Next() {
						var id int64
						if err := rows.Scan(&id); err != nil {
							return err
						}
						batchQueued = append(batchQueued, id)
					}
					return nil
				})
			}
			return t.commit(ctx, b)
		})
		if err != nil {
			return nil, err
		}
		queued = append(queued, batchQueued...)
		// The batches end on an empty one: a batch of pages is short when
		// a page went away while it waited for its lock.
		if len(ids) == 0 {
			return queued, nil
		}
		after, op = ids[len(ids)-1], ">"
	}
}
