package postgres

import (
	"cmp"
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/acrawler/acrawler/internal/crawl"
)

// indexKey is the document key a page has in the external index: the hex
// content hash when the page is indexable, else "" (none).
func indexKey(p *crawl.Page, indexable bool) string {
	if !indexable || len(p.ContentHash) == 0 {
		return ""
	}
	return hex.EncodeToString(p.ContentHash)
}

// OutboxNext leases up to limit pending external-index operations whose
// lease (if any) ended, oldest first, in one transaction of two round
// trips: lease them, skipping the rows another process is leasing at the
// same moment (FOR UPDATE SKIP LOCKED), so that no operation goes to two
// processes within a lease; then load the pages of the upserts with their
// host, rank and indexed anchor texts. Item.Page is never nil: a delete
// (or an upsert of a page without a row) carries only the page's ID.
func (db *DB) OutboxNext(ctx context.Context, limit int, lease time.Duration, now time.Time) ([]crawl.OutboxItem, error) {
	if limit <= 0 {
		return nil, nil
	}
	var out []crawl.OutboxItem
	err := db.write(ctx, lazy, func(ctx context.Context, t *txn) error {
		out = out[:0]
		var pageIDs []int64
		b := t.batch()
		b.Queue(`WITH c AS (SELECT id FROM outbox WHERE claimed_until < $1 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
			UPDATE outbox o SET claimed_until = $3 FROM c WHERE o.id = c.id RETURNING o.id, o.url_id, o.op, o.doc_key`,
			now.UnixMilli(), int64(limit), now.Add(lease).UnixMilli()).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var it crawl.OutboxItem
				var id crawl.ID
				if err := rows.Scan(&it.ID, &id, &it.Op, &it.Key); err != nil {
					return err
				}
				it.Page = &crawl.Page{ID: id}
				if it.Op == "upsert" {
					pageIDs = append(pageIDs, int64(id))
				}
				out = append(out, it)
			}
			return nil
		})
		if err := t.send(ctx, b); err != nil {
			return err
		}
		slices.SortFunc(out, func(a, b crawl.OutboxItem) int { return cmp.Compare(a.ID, b.ID) })
		if len(pageIDs) == 0 {
			return t.commit(ctx, t.batch())
		}
		type loaded struct {
			p       *crawl.Page
			rank    float64
			anchors string
		}
		pages := map[crawl.ID]loaded{}
		b = t.batch()
		b.Queue(`SELECT `+pageColumns+`, coalesce((SELECT rank FROM ranks WHERE url_id = pages.url_id), 0), anchors
			FROM pages WHERE url_id = ANY($1)`, pageIDs).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var l loaded
				p, err := scanPage(extraScan{rows, []any{&l.rank, &l.anchors}})
				if err != nil {
					return err
				}
				l.p = p
				pages[p.ID] = l
			}
			return nil
		})
		if err := t.commit(ctx, b); err != nil {
			return err
		}
		for i := range out {
			if out[i].Op != "upsert" {
				continue
			}
			l, ok := pages[out[i].Page.ID]
			if !ok {
				continue // no page row (pages are never deleted): only its ID
			}
			out[i].Page, out[i].Host, out[i].PageRank, out[i].Anchors = l.p, crawl.HostKey(l.p.URL), l.rank, l.anchors
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: outbox: %w", err)
	}
	return out, nil
}

// extraScan scans a row's first columns into the destinations given to
// Scan and the rest into extra.
type extraScan struct {
	row   pgx.Row
	extra []any
}

func (s extraScan) Scan(dst ...any) error { return s.row.Scan(append(dst, s.extra...)...) }

// OutboxDone removes delivered operations.
func (db *DB) OutboxDone(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	if db.readOnly {
		return fmt.Errorf("postgres: outbox done: store is open read-only")
	}
	if _, err := db.pool.Exec(ctx, `DELETE FROM outbox WHERE id = ANY($1)`, ids); err != nil {
		return fmt.Errorf("postgres: outbox done: %w", err)
	}
	return nil
}

// RequeueIndex queues an upsert of every page in the embedded index for
// the external index, in one transaction: the pages' document keys
// become their content hashes (locking, in URL ID order, the rows whose
// key changes), then an upsert per page with a key is queued, in page
// order.
func (db *DB) RequeueIndex(ctx context.Context) (int, error) {
	var n int64
	err := db.write(ctx, durable, func(ctx context.Context, t *txn) error {
		n = 0
		b := t.batch()
		b.Queue(`WITH k AS (SELECT url_id, encode(content_hash, 'hex') AS key FROM pages
				WHERE search IS NOT NULL AND content_hash IS NOT NULL AND indexed_key <> encode(content_hash, 'hex')
				ORDER BY url_id FOR NO KEY UPDATE)
			UPDATE pages p SET indexed_key = k.key FROM k WHERE p.url_id = k.url_id`)
		b.Queue(`INSERT INTO outbox (url_id, op, doc_key)
			SELECT url_id, 'upsert', indexed_key FROM pages WHERE indexed_key <> '' ORDER BY url_id`).Exec(execRows(&n))
		return t.commit(ctx, b)
	})
	if err != nil {
		return 0, fmt.Errorf("postgres: requeue index: %w", err)
	}
	return int(n), nil
}

// rebuildBatch is the number of pages RebuildIndex rewrites per
// transaction.
const rebuildBatch = 500

// RebuildIndex rebuilds the embedded index of every page from its columns
// and returns how many pages are indexed. It goes through the pages in
// URL ID order, a batch per transaction of two round trips: lock and read
// the batch's page rows in that order, then write the search column (and
// anchors) of each, indexed when crawl.Indexable says so, and, with an
// outbox, queue the external-index operations. Like SetRanks, it is not
// atomic: after an error, calling it again completes the work.
func (db *DB) RebuildIndex(ctx context.Context) (int, error) {
	after, op := int64(math.MinInt64), ">="
	total := 0
	for {
		var ids []int64
		var indexed int
		err := db.write(ctx, durable, func(ctx context.Context, t *txn) error {
			ids, indexed = ids[:0], 0
			var pages []*crawl.Page
			b := t.batch()
			b.Queue(`SELECT `+pageColumns+` FROM pages WHERE url_id `+op+` $1 ORDER BY url_id LIMIT $2 FOR NO KEY UPDATE`,
				after, rebuildBatch).Query(func(rows pgx.Rows) error {
				for rows.Next() {
					p, err := scanPage(rows)
					if err != nil {
						return err
					}
					pages = append(pages, p)
				}
				return nil
			})
			if err := t.send(ctx, b); err != nil {
				return err
			}
			flags := make([]bool, len(pages))
			keys := make([]string, len(pages))
			vectors := make([]pgtype.TSVector, len(pages))
			for i, p := range pages {
				ids = append(ids, int64(p.ID))
				flags[i] = crawl.Indexable(p)
				keys[i] = indexKey(p, flags[i])
				if flags[i] {
					indexed++
					meta, err := metadataJSON(p.Meta)
					if err != nil {
						return fmt.Errorf("metadata of %s: %w", p.URL, err)
					}
					vectors[i] = docVector(foldedDoc(p.Title, meta, p.MainText, p.Text))
				}
			}
			b = t.batch()
			if len(ids) > 0 {
				b.Queue(`UPDATE pages p SET anchors = a.anchors,
						search = CASE WHEN v.indexable THEN v.doc || `+anchorVector("a.anchors")+` END
					FROM unnest($1::bigint[], $2::bool[], $3::tsvector[]) AS v(id, indexable, doc)
					CROSS JOIN LATERAL (SELECT CASE WHEN v.indexable THEN `+anchorsOf("v.id")+` ELSE '' END AS anchors) a
					WHERE p.url_id = v.id`, ids, flags, vectors)
				db.queueOutbox(b, ids, keys)
			}
			return t.commit(ctx, b)
		})
		if err != nil {
			return total, fmt.Errorf("postgres: rebuild index: %w", err)
		}
		total += indexed
		if len(ids) == 0 {
			return total, nil
		}
		after, op = ids[len(ids)-1], ">"
	}
}
