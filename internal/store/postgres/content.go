package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/bits"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/fingerprint"
	"github.com/acrawler/acrawler/internal/query"
)

// bands returns the four 16-bit bands of a SimHash (fingerprint.Bands),
// as the int columns band0 to band3 hold them.
func bands(fp uint64) [4]int32 {
	var b [4]int32
	for i, v := range fingerprint.Bands(fp) {
		b[i] = int32(v)
	}
	return b
}

// pageCol is a column of the pages table as written: its name, the type
// of the array it is sent in and, when they differ, the column's type.
type pageCol struct{ name, typ, cast string }

// pageCols are the columns pageRows writes, in its order.
var pageCols = []pageCol{
	{"url_id", "bigint", ""}, {"url", "text", ""}, {"status", "int", ""}, {"content_type", "text", ""},
	{"charset", "text", ""}, {"title", "text", ""}, {"text", "text", ""}, {"lang", "text", ""},
	{"content_hash", "bytea", ""}, {"duplicate_of", "bigint", ""}, {"canonical", "text", ""},
	{"redirect_to", "text", ""}, {"noindex", "bool", ""}, {"nofollow", "bool", ""}, {"bytes", "bigint", ""},
	{"wire_bytes", "bigint", ""}, {"etag", "text", ""}, {"last_modified", "text", ""}, {"fetched_at", "bigint", ""},
	{"duration_ms", "bigint", ""}, {"error", "text", ""}, {"blocked", "bool", ""}, {"error_kind", "text", ""},
	{"main_text", "text", ""}, {"doc_type", "text", ""}, {"type_rule", "text", ""}, {"doi", "text", ""},
	{"year", "int", ""}, {"metadata", "text", "jsonb"}, {"simhash", "bigint", ""}, {"band0", "int", ""},
	{"band1", "int", ""}, {"band2", "int", ""}, {"band3", "int", ""}, {"near_duplicate_of", "bigint", ""},
	{"warc_file", "text", ""}, {"warc_offset", "bigint", ""}, {"warc_length", "bigint", ""}, {"host", "text", ""},
}

// pageUpsert writes the pages of a pageRows, one array per column,
// replacing the recorded page of the same URL, and their search index
// entries: an array tells which pages are indexable (crawl.Indexable),
// whose anchors and search columns are computed from the links already
// recorded to them and from the vectors of their indexed title and text
// (another array, built by the crawler, docVector, rather than by the
// server, whose CPU a fleet of crawlers shares), and another lists the
// recorded pages that keep their anchors and search columns as they are
// (a page keeps its rank, schedule and external-index key). The pages of a
// last array get their revisit schedule (checked_at, next_check_at,
// interval_ms, misses, gone), from five more, in the same write: an UPDATE
// after it would make a second version of each page row, with its index
// entries. The rows are
// written, and so locked, in URL ID order, as SetRanks locks them.
var pageUpsert = func() string {
	names, params, sel, set := make([]string, len(pageCols)), make([]string, len(pageCols)), make([]string, len(pageCols)), []string{}
	for i, c := range pageCols {
		names[i] = c.name
		params[i] = fmt.Sprintf("$%d::%s[]", i+1, c.typ)
		sel[i] = "t." + c.name
		if c.cast != "" {
			sel[i] += "::" + c.cast
		}
		if i > 0 {
			set = append(set, c.name+" = excluded."+c.name)
		}
	}
	n := len(pageCols)
	params = append(params, fmt.Sprintf("$%d::bool[]", n+1), fmt.Sprintf("$%d::tsvector[]", n+3),
		fmt.Sprintf("$%d::bigint[]", n+4), fmt.Sprintf("$%d::bigint[]", n+5), fmt.Sprintf("$%d::bigint[]", n+6),
		fmt.Sprintf("$%d::int[]", n+7), fmt.Sprintf("$%d::smallint[]", n+8))
	keep, scheduled := fmt.Sprintf("$%d::bigint[]", n+2), fmt.Sprintf("$%d::bigint[]", n+9)
	set = append(set, "anchors = CASE WHEN pages.url_id = ANY("+keep+") THEN pages.anchors ELSE excluded.anchors END",
		"search = CASE WHEN pages.url_id = ANY("+keep+") THEN pages.search ELSE excluded.search END")
	for _, c := range scheduleCols {
		set = append(set, c+" = CASE WHEN pages.url_id = ANY("+scheduled+") THEN excluded."+c+" ELSE pages."+c+" END")
	}
	return `INSERT INTO pages (` + strings.Join(names, ", ") + `, anchors, search, ` + strings.Join(scheduleCols, ", ") + `)
		SELECT ` + strings.Join(sel, ", ") + `, a.anchors,
			CASE WHEN a.indexed THEN t.doc_vector || ` + anchorVector("a.anchors") + ` END,
			t.` + strings.Join(scheduleCols, ", t.") + `
		FROM unnest(` + strings.Join(params, ", ") + `) AS t(` + strings.Join(names, ", ") + `, indexable, doc_vector,
			` + strings.Join(scheduleCols, ", ") + `)
		CROSS JOIN LATERAL (SELECT t.indexable AND t.url_id <> ALL(` + keep + `) AS indexed) i
		CROSS JOIN LATERAL (SELECT i.indexed, CASE WHEN i.indexed THEN ` + anchorsOf("t.url_id") + ` ELSE '' END AS anchors) a
		ORDER BY t.url_id
		ON CONFLICT (url_id) DO UPDATE SET ` + strings.Join(set, ", ")
}()

// scheduleCols are the columns of a page's revisit schedule, which
// pageUpsert writes for the pages that have one.
var scheduleCols = []string{"checked_at", "next_check_at", "interval_ms", "misses", "gone"}

// pageRows are pages as column arrays, in pageCols order.
type pageRows struct {
	ids, dups, bytes, wire, fetched, dur, simhash, near, warcOff, warcLen []int64
	status, year, b0, b1, b2, b3                                          []int32
	urls, ctype, charset, title, text, lang, canonical, redirect          []string
	etag, lastMod, errText, errKind, mainText, docType, rule, doi, file   []string
	host                                                                  []string
	meta                                                                  []*string
	hashes                                                                [][]byte
	noindex, nofollow, blocked, indexable                                 []bool
	vectors                                                               []pgtype.TSVector // of the pages indexed: docVector
	keep                                                                  []int64           // recorded pages keeping their index entries
	textBytes                                                             int               // of the texts added
	// The revisit schedules (scheduleCols) of the pages in scheduled,
	// zero for the others.
	checked, next, interval []int64
	misses                  []int32
	gone                    []int16
	scheduled               []int64
}

// schedule sets the revisit schedule of the page added last: rv, the
// page checked at p.FetchedAt (now when unset), as the schedule UPDATE
// records it (scheduleRows).
func (r *pageRows) schedule(p *crawl.Page, rv *crawl.Revisit, now time.Time) {
	i := len(r.ids) - 1
	r.checked[i], r.next[i], r.interval[i] = checkedAt(p, now), ms(rv.NextCheck), rv.Interval.Milliseconds()
	r.misses[i], r.gone[i] = int32(rv.Misses), int16(rv.Gone)
	r.scheduled = append(r.scheduled, int64(p.ID))
}

// add appends a page, whose duplicate marks are set: they decide whether
// it is indexed.
func (r *pageRows) add(p *crawl.Page) error { return r.addIndexed(p, crawl.Indexable(p)) }

// addIndexed appends a page, indexed when indexable is set.
func (r *pageRows) addIndexed(p *crawl.Page, indexable bool) error {
	meta, err := metadataJSON(p.Meta)
	if err != nil {
		return fmt.Errorf("metadata of %s: %w", p.URL, err)
	}
	var hash []byte
	if len(p.ContentHash) > 0 {
		hash = p.ContentHash
	}
	var docType, rule, doi string
	year := 0
	if m := p.Meta; m != nil {
		docType, rule, doi, year = m.Type, m.TypeRule, m.DOI, m.Year
	}
	var b [4]int32
	if p.SimHash != 0 {
		b = bands(p.SimHash)
	}
	r.ids, r.dups, r.bytes = append(r.ids, int64(p.ID)), append(r.dups, int64(p.DuplicateOf)), append(r.bytes, p.Bytes)
	r.wire, r.fetched, r.dur = append(r.wire, p.WireBytes), append(r.fetched, ms(p.FetchedAt)), append(r.dur, p.Duration.Milliseconds())
	r.simhash, r.near = append(r.simhash, int64(p.SimHash)), append(r.near, int64(p.NearDuplicateOf))
	r.warcOff, r.warcLen = append(r.warcOff, p.WARC.Offset), append(r.warcLen, p.WARC.Length)
	r.status, r.year = append(r.status, int32(p.Status)), append(r.year, int32(year))
	r.b0, r.b1, r.b2, r.b3 = append(r.b0, b[0]), append(r.b1, b[1]), append(r.b2, b[2]), append(r.b3, b[3])
	r.urls, r.ctype, r.charset = append(r.urls, clean(p.URL)), append(r.ctype, clean(p.ContentType)), append(r.charset, clean(p.Charset))
	r.title, r.text, r.lang = append(r.title, clean(p.Title)), append(r.text, clean(p.Text)), append(r.lang, clean(p.Lang))
	r.canonical, r.redirect = append(r.canonical, clean(p.Canonical)), append(r.redirect, clean(p.RedirectTo))
	r.etag, r.lastMod, r.errText = append(r.etag, clean(p.ETag)), append(r.lastMod, clean(p.LastModified)), append(r.errText, clean(p.Error))
	r.errKind, r.mainText = append(r.errKind, clean(p.ErrorKind)), append(r.mainText, clean(p.MainText))
	r.docType, r.rule, r.doi = append(r.docType, clean(docType)), append(r.rule, clean(rule)), append(r.doi, clean(doi))
	r.file, r.meta, r.hashes = append(r.file, clean(p.WARC.File)), append(r.meta, meta), append(r.hashes, hash)
	r.noindex, r.nofollow, r.blocked = append(r.noindex, p.NoIndex), append(r.nofollow, p.NoFollow), append(r.blocked, p.Blocked)
	r.host, r.indexable = append(r.host, clean(crawl.HostKey(p.URL))), append(r.indexable, indexable)
	var vec pgtype.TSVector
	if indexable {
		vec = docVector(foldedDoc(r.title[len(r.title)-1], meta, r.mainText[len(r.mainText)-1], r.text[len(r.text)-1]))
	}
	r.vectors = append(r.vectors, vec)
	r.checked, r.next, r.interval = append(r.checked, 0), append(r.next, 0), append(r.interval, 0)
	r.misses, r.gone = append(r.misses, 0), append(r.gone, 0)
	r.textBytes += len(r.title[len(r.title)-1]) + len(r.text[len(r.text)-1]) + len(r.mainText[len(r.mainText)-1]) + vectorBytes(vec)
	if meta != nil {
		r.textBytes += len(*meta)
	}
	return nil
}

// foldedDoc returns the title and text that docVector indexes for a page
// of the given (stored) title, metadata, main text and text, folded by
// query.Fold: the title, or the metadata's, and the main text, or the
// visible text when there is none, cut to maxTitle and maxBody characters.
func foldedDoc(title string, meta *string, mainText, text string) (string, string) {
	if title == "" && meta != nil {
		var m struct {
			Title string `json:"title"`
		}
		if json.Unmarshal([]byte(*meta), &m) == nil {
			title = m.Title
		}
	}
	body := mainText
	if body == "" {
		body = text
	}
	return query.Fold(firstRunes(title, maxTitle)), query.Fold(firstRunes(body, maxBody))
}

// firstRunes returns the first n characters of s, as left(s, n) does.
func firstRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// queue queues the upsert of the pages, if any.
func (r *pageRows) queue(b *pgx.Batch) {
	if len(r.ids) == 0 {
		return
	}
	if r.keep == nil {
		r.keep = []int64{} // not NULL, which <> ALL would make NULL
	}
	if r.scheduled == nil {
		r.scheduled = []int64{}
	}
	b.Queue(pageUpsert, r.ids, r.urls, r.status, r.ctype, r.charset, r.title, r.text, r.lang, r.hashes, r.dups,
		r.canonical, r.redirect, r.noindex, r.nofollow, r.bytes, r.wire, r.etag, r.lastMod, r.fetched, r.dur, r.errText,
		r.blocked, r.errKind, r.mainText, r.docType, r.rule, r.doi, r.year, r.meta, r.simhash, r.b0, r.b1, r.b2, r.b3,
		r.near, r.file, r.warcOff, r.warcLen, r.host, r.indexable, r.keep, r.vectors,
		r.checked, r.next, r.interval, r.misses, r.gone, r.scheduled)
}

// metadataJSON encodes metadata for the JSONB column (nil: none). Each
// invalid UTF-8 byte becomes U+FFFD, as encoding/json makes it; JSONB
// refuses the escaped NUL character, which is dropped.
func metadataJSON(m *crawl.Metadata) (*string, error) {
	if m == nil {
		return nil, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if bytes.Contains(b, []byte(`\u0000`)) {
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			return nil, err
		}
		if b, err = json.Marshal(cleanJSON(v)); err != nil {
			return nil, err
		}
	}
	s := string(b)
	return &s, nil
}

// cleanJSON makes every string of a decoded JSON value storable.
func cleanJSON(v any) any {
	switch v := v.(type) {
	case string:
		return clean(v)
	case []any:
		for i := range v {
			v[i] = cleanJSON(v[i])
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[clean(k)] = cleanJSON(x)
		}
		return out
	}
	return v
}

// nearSQL finds, for each page given ($1 its position in the batch, $2
// its SimHash, $3 to $6 its bands), the closest recorded page within
// distance $8 that is neither a duplicate nor a near-duplicate, the
// smallest ID among the closest: four probes of the band indexes (band,
// duplicate_of = 0, near_duplicate_of = 0) and a distance check
// (bit_count needs PostgreSQL 14). The pages of the batch ($7, in batch
// order) up to the page itself are left out: they are judged in Go, as
// the batch records them.
var nearSQL = `SELECT q.pos, n.url_id, n.simhash
	FROM unnest($1::int[], $2::bigint[], $3::int[], $4::int[], $5::int[], $6::int[]) AS q(pos, fp, b0, b1, b2, b3)
	CROSS JOIN LATERAL (
		SELECT p.url_id, p.simhash FROM pages p
		WHERE p.simhash <> 0 AND p.duplicate_of = 0 AND p.near_duplicate_of = 0
		  AND (p.canonical = '' OR p.canonical = p.url)
		  AND (p.band0 = q.b0 OR p.band1 = q.b1 OR p.band2 = q.b2 OR p.band3 = q.b3)
		  AND bit_count((p.simhash # q.fp)::bit(64)) <= $8
		  AND p.url_id <> ALL (($7::bigint[])[1:q.pos])
		ORDER BY bit_count((p.simhash # q.fp)::bit(64)), p.url_id
		LIMIT 1) n`

// nearMatch is a near-duplicate candidate; ID 0 is none.
type nearMatch = fingerprint.Match

// queueNear queues the lookup of the recorded near-duplicate candidates of
// pages (a batch, in order) and returns them, per page, once b has run.
func queueNear(b *pgx.Batch, pages []*crawl.Page, dist int) []nearMatch {
	out := make([]nearMatch, len(pages))
	if dist < 0 {
		return out
	}
	var pos, b0, b1, b2, b3 []int32
	var fps []int64
	all := make([]int64, len(pages))
	for i, p := range pages {
		all[i] = int64(p.ID)
		if p.SimHash == 0 {
			continue
		}
		bs := bands(p.SimHash)
		pos, fps = append(pos, int32(i+1)), append(fps, int64(p.SimHash))
		b0, b1, b2, b3 = append(b0, bs[0]), append(b1, bs[1]), append(b2, bs[2]), append(b3, bs[3])
	}
	if len(pos) == 0 {
		return out
	}
	b.Queue(nearSQL, pos, fps, b0, b1, b2, b3, all, int32(dist)).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var i int32
			var id crawl.ID
			var fp int64
			if err := rows.Scan(&i, &id, &fp); err != nil {
				return err
			}
			out[i-1] = nearMatch{ID: int64(id), Dist: bits.OnesCount64(uint64(fp) ^ pages[i-1].SimHash)}
		}
		return nil
	})
	return out
}

// judgeNear sets the near-duplicate mark of each page of a batch (in
// order; their exact-duplicate marks set): the best of its recorded
// candidate and the earlier pages of the batch that are neither
// duplicates nor near-duplicates.
func judgeNear(pages []*crawl.Page, stored []nearMatch, dist int) {
	for i, p := range pages {
		p.NearDuplicateOf = 0
		if p.SimHash == 0 || p.DuplicateOf != 0 || dist < 0 {
			continue
		}
		best := stored[i]
		for _, q := range pages[:i] {
			if q.SimHash == 0 || q.DuplicateOf != 0 || q.NearDuplicateOf != 0 || q.ID == p.ID || crawl.IsAlias(q) {
				continue
			}
			m := nearMatch{ID: int64(q.ID), Dist: bits.OnesCount64(q.SimHash ^ p.SimHash)}
			if m.Dist <= dist && (best.ID == 0 || m.Compare(best) < 0) {
				best = m
			}
		}
		p.NearDuplicateOf = crawl.ID(best.ID)
	}
}

// Reparse replaces a recorded page's extraction (everything but its fetch
// record: URL, status, content type, sizes, validators, fetch time and
// duration, WARC location, and its revisit schedule and existence, which p
// receives from the store) and its outlinks, judging duplicates and
// near-duplicates again, and indexes it again (with an outbox, queueing
// the external-index operations), in one transaction of two round trips.
// It locks the page's host, then its URL row (so that a commit of the same
// URL waits or is waited for), then the content hash, as commits do.
func (db *DB) Reparse(ctx context.Context, p *crawl.Page, links []crawl.Link) error {
	err := db.write(ctx, durable, func(ctx context.Context, t *txn) error {
		var old *crawl.Page
		var host crawl.ID
		var first crawl.ID
		var deleted, added int64
		b := t.batch()
		b.Queue(`SELECT id FROM hosts WHERE id = (SELECT host_id FROM urls WHERE id = $1) FOR NO KEY UPDATE`,
			int64(p.ID)).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				if err := rows.Scan(&host); err != nil {
					return err
				}
			}
			return nil
		})
		b.Queue(`SELECT 1 FROM urls WHERE id = $1 FOR NO KEY UPDATE`, int64(p.ID))
		b.Queue(`SELECT `+pageColumns+` FROM pages WHERE url_id = $1`, int64(p.ID)).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var err error
				if old, err = scanPage(rows); err != nil {
					return err
				}
			}
			return nil
		})
		if len(p.ContentHash) > 0 {
			if !crawl.IsAlias(p) {
				// An alias does not own its content: its canonical page does.
				b.Queue(`INSERT INTO content_hashes (hash, url_id) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING`,
					p.ContentHash, int64(p.ID))
			}
			b.Queue(`SELECT coalesce((SELECT url_id FROM content_hashes WHERE hash = $1), 0)`, p.ContentHash).QueryRow(func(row pgx.Row) error {
				return row.Scan(&first)
			})
		}
		near := queueNear(b, []*crawl.Page{p}, db.near)
		b.Queue(deleteLinksSQL, []int64{int64(p.ID)}).QueryRow(func(row pgx.Row) error {
			return row.Scan(&deleted)
		})
		var lr linkRows
		lr.add(p.ID, links)
		lr.queue(t, b, true, &added) // the page's links are deleted first
		if err := t.send(ctx, b); err != nil {
			return err
		}
		if old == nil {
			return crawl.ErrNotFound
		}
		// The fetch record stays as fetched.
		p.URL, p.Status, p.ContentType, p.Bytes, p.WireBytes = old.URL, old.Status, old.ContentType, old.Bytes, old.WireBytes
		p.ETag, p.LastModified, p.FetchedAt, p.Duration, p.WARC = old.ETag, old.LastModified, old.FetchedAt, old.Duration, old.WARC
		p.Gone, p.CheckedAt, p.NextCheckAt = old.Gone, old.CheckedAt, old.NextCheckAt
		p.DuplicateOf = 0
		if first != 0 && first != p.ID {
			p.DuplicateOf = first
		}
		judgeNear([]*crawl.Page{p}, near, db.near)
		if err := t.joinWorks(ctx, db, []*crawl.Page{p}); err != nil {
			return err
		}
		var rows pageRows
		if err := rows.add(p); err != nil {
			return err
		}
		b = t.batch()
		rows.queue(b)
		db.queueOutbox(b, []int64{int64(p.ID)}, []string{indexKey(p, crawl.Indexable(p))})
		dups := b2i64(p.DuplicateOf != 0) - b2i64(old.DuplicateOf != 0)
		if dups != 0 && host != 0 {
			b.Queue(`UPDATE hosts SET duplicates = duplicates + $1 WHERE id = $2`, dups, int64(host))
		}
		t.delta.duplicates += dups
		t.delta.links += added - deleted
		return t.commit(ctx, b)
	})
	if err != nil {
		return fmt.Errorf("postgres: reparse %d: %w", p.ID, err)
	}
	return nil
}

func b2i64(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// linkRows are links as column arrays, each (source, target) once: the
// first of a page's links to a target, which is the one an insert that
// skips recorded links keeps.
type linkRows struct {
	src, dst       []int64
	target, anchor []string
	nofollow       []bool
}

// add appends the links of page source.
func (r *linkRows) add(source crawl.ID, links []crawl.Link) {
	var seen map[crawl.ID]bool
	if len(links) > 1 {
		seen = make(map[crawl.ID]bool, len(links))
	}
	for _, l := range links {
		if seen != nil {
			if seen[l.TargetID] {
				continue
			}
			seen[l.TargetID] = true
		}
		r.src, r.dst = append(r.src, int64(source)), append(r.dst, int64(l.TargetID))
		r.target, r.anchor = append(r.target, clean(l.Target)), append(r.anchor, clean(l.Anchor))
		r.nofollow = append(r.nofollow, l.NoFollow)
	}
}

// queue queues the insert of the rows, if any, adding the number
// inserted to *n. Fresh rows are of pages none of whose links is recorded:
// they are inserted without ON CONFLICT, whose speculative insertion took
// a third of the statement's time (300,000 rows: 1.7–1.9 s against
// 1.1–1.2), unless an earlier run of the transaction failed. Should a link
// be recorded after all (another process recorded the page meanwhile),
// the unique violation runs the transaction again (retryable), and that
// run skips the links recorded, as other rows always do.
func (r *linkRows) queue(t *txn, b *pgx.Batch, fresh bool, n *int64) {
	if len(r.src) == 0 {
		return
	}
	q := `INSERT INTO links (source_id, target_id, target, anchor, nofollow)
		SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::bool[])`
	if !fresh || t.again {
		q += ` ON CONFLICT (source_id, target_id) DO NOTHING`
	}
	b.Queue(q, r.src, r.dst, r.target, r.anchor, r.nofollow).Exec(func(ct pgconn.CommandTag) error {
		*n += ct.RowsAffected()
		return nil
	})
	// Their targets may have new anchor texts: the rank pass looks at the
	// sources' links (SetRanks).
	b.Queue(`INSERT INTO anchors_sources (source_id) SELECT DISTINCT unnest($1::bigint[]) ORDER BY 1 ON CONFLICT DO NOTHING`, r.src)
}

// deleteLinksSQL deletes the links of the pages $1 and marks their targets
// for the rank pass (SetRanks), which looks at the anchor texts of those
// that lost a link; it returns how many links it deleted.
const deleteLinksSQL = `WITH d AS (DELETE FROM links WHERE source_id = ANY($1) RETURNING target_id),
	m AS (INSERT INTO anchors_stale (url_id) SELECT DISTINCT target_id FROM d ORDER BY 1 ON CONFLICT DO NOTHING)
	SELECT count(*) FROM d`
