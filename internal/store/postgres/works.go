package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/keyset"
	"github.com/acrawler/acrawler/internal/works"
	"github.com/jackc/pgx/v5"
)

// workPage is what package works reads of a recorded page.
func workPage(p *crawl.Page) works.Page {
	wp := works.Page{ID: int64(p.ID), URL: p.URL, ContentType: p.ContentType, Status: p.Status, Blocked: p.Blocked}
	if m := p.Meta; m != nil {
		wp.Meta = &works.Meta{Title: m.Title, Authors: m.Authors, Date: m.Date, Year: m.Year, Venue: m.Venue, Volume: m.Volume,
			Issue: m.Issue, FirstPage: m.FirstPage, LastPage: m.LastPage, Publisher: m.Publisher, DOI: m.DOI, PDFURL: m.PDFURL,
			Abstract: m.Abstract, Type: m.Type, Keywords: m.Keywords, Sources: m.Sources}
	}
	return wp
}

// worksLock is the advisory lock under which a transaction changes the
// works: a copy finds its work and joins it as one step, whichever
// process commits it.
func (db *DB) worksLock() int64 {
	return db.lockKey("works")
}

// joinWorks records the pages of a commit in the works, in the commit's
// transaction (works.Add). Pages that may be copies take the works lock
// and a round trip or a few each; the others one query for the batch.
func (t *txn) joinWorks(ctx context.Context, db *DB, pages []*crawl.Page) error {
	if len(pages) == 0 {
		return nil
	}
	ids := make([]int64, len(pages))
	for i, p := range pages {
		ids[i] = int64(p.ID)
	}
	// Pages that are no copy and were none need nothing.
	were := map[int64]bool{}
	rows, err := t.conn.Query(ctx, `SELECT page_id FROM work_copies WHERE page_id = ANY($1)`, ids)
	if err != nil {
		return fmt.Errorf("works: %w", err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("works: %w", err)
		}
		were[id] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("works: %w", err)
	}
	locked := false
	st := &workTx{ctx: ctx, t: t}
	for _, p := range pages {
		wp := workPage(p)
		if _, ok := works.CopyOf(wp); !ok && !were[wp.ID] {
			continue
		}
		if !locked {
			if _, err := t.conn.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, db.worksLock()); err != nil {
				return fmt.Errorf("works: %w", err)
			}
			locked = true
		}
		if _, err := works.Add(st, wp); err != nil {
			return fmt.Errorf("works: %s: %w", p.URL, err)
		}
	}
	return nil
}

// workTx is works.Store over a write transaction.
type workTx struct {
	ctx context.Context
	t   *txn
}

func (w *workTx) CopyWork(page int64) (int64, works.Copy, bool, error) {
	var work int64
	var js string
	err := w.t.conn.QueryRow(w.ctx, `SELECT work_id, copy FROM work_copies WHERE page_id = $1`, page).Scan(&work, &js)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, works.Copy{}, false, nil
	}
	if err != nil {
		return 0, works.Copy{}, false, err
	}
	var c works.Copy
	if err := json.Unmarshal([]byte(js), &c); err != nil {
		return 0, works.Copy{}, false, err
	}
	return work, c, true, nil
}

func (w *workTx) KeyWorks(keys []string) ([]int64, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	rows, err := w.t.conn.Query(w.ctx, `SELECT DISTINCT c.work_id FROM work_keys k JOIN work_copies c ON c.page_id = k.page_id
		WHERE k.key = ANY($1) ORDER BY c.work_id`, keys)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

func (w *workTx) Copies(work int64) ([]works.Copy, error) {
	rows, err := w.t.conn.Query(w.ctx, `SELECT copy FROM work_copies WHERE work_id = $1 ORDER BY page_id`, work)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (works.Copy, error) {
		var js string
		var c works.Copy
		if err := row.Scan(&js); err != nil {
			return c, err
		}
		return c, json.Unmarshal([]byte(js), &c)
	})
}

func (w *workTx) NewWork() (int64, error) {
	var id int64
	err := w.t.conn.QueryRow(w.ctx, `INSERT INTO works (record) VALUES ('') RETURNING id`).Scan(&id)
	return id, err
}

func (w *workTx) PutCopy(work int64, c works.Copy, keys []string) error {
	js, err := json.Marshal(c)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO work_copies (page_id, work_id, copy) VALUES ($1, $2, $3)
		ON CONFLICT (page_id) DO UPDATE SET work_id = excluded.work_id, copy = excluded.copy`, c.PageID, work, string(js))
	if len(keys) > 0 {
		b.Queue(`INSERT INTO work_keys (key, page_id) SELECT k, $2 FROM unnest($1::text[]) k ON CONFLICT DO NOTHING`, keys, c.PageID)
	}
	return w.t.conn.SendBatch(w.ctx, b).Close()
}

func (w *workTx) DeleteCopy(page int64) error {
	b := &pgx.Batch{}
	b.Queue(`DELETE FROM work_keys WHERE page_id = $1`, page)
	b.Queue(`DELETE FROM work_copies WHERE page_id = $1`, page)
	return w.t.conn.SendBatch(w.ctx, b).Close()
}

func (w *workTx) MoveCopies(from, to int64) error {
	_, err := w.t.conn.Exec(w.ctx, `UPDATE work_copies SET work_id = $1 WHERE work_id = $2`, to, from)
	return err
}

func (w *workTx) PutWork(wk works.Work) error {
	js, err := json.Marshal(wk)
	if err != nil {
		return err
	}
	_, err = w.t.conn.Exec(w.ctx, `INSERT INTO works (id, title, year, doi, copies, record) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (id) DO UPDATE SET title = excluded.title, year = excluded.year, doi = excluded.doi,
		copies = excluded.copies, record = excluded.record`, wk.ID, clean(wk.Title), wk.Year, clean(wk.DOI), len(wk.Copies), string(js))
	return err
}

func (w *workTx) DeleteWork(id int64) error {
	_, err := w.t.conn.Exec(w.ctx, `DELETE FROM works WHERE id = $1`, id)
	return err
}

// Work returns a work by ID.
func (db *DB) Work(ctx context.Context, id int64) (*crawl.Work, error) {
	return db.readWork(ctx, `SELECT record FROM works WHERE id = $1`, id)
}

// WorkOf returns the work a page is a copy of.
func (db *DB) WorkOf(ctx context.Context, page crawl.ID) (*crawl.Work, error) {
	return db.readWork(ctx, `SELECT w.record FROM work_copies c JOIN works w ON w.id = c.work_id WHERE c.page_id = $1`, int64(page))
}

func (db *DB) readWork(ctx context.Context, q string, arg int64) (*crawl.Work, error) {
	var js string
	err := db.pool.QueryRow(ctx, q, arg).Scan(&js)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("postgres: work of %d: %w", arg, crawl.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: work of %d: %w", arg, err)
	}
	var w crawl.Work
	if err := json.Unmarshal([]byte(js), &w); err != nil {
		return nil, fmt.Errorf("postgres: work of %d: %w", arg, err)
	}
	return &w, nil
}

// Works streams every work in ID order.
func (db *DB) Works(ctx context.Context) iter.Seq2[*crawl.Work, error] {
	return keyset.Stream(ctx, 500, int64(math.MinInt64), func(ctx context.Context, op string, after int64, batch int) ([]*crawl.Work, error) {
		rows, err := db.pool.Query(ctx, `SELECT record FROM works WHERE id `+op+` $1 ORDER BY id LIMIT $2`, after, batch)
		if err != nil {
			return nil, fmt.Errorf("postgres: works: %w", err)
		}
		got, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*crawl.Work, error) {
			var js string
			if err := row.Scan(&js); err != nil {
				return nil, err
			}
			w := &crawl.Work{}
			return w, json.Unmarshal([]byte(js), w)
		})
		if err != nil {
			return nil, fmt.Errorf("postgres: works: %w", err)
		}
		return got, nil
	}, func(w *crawl.Work) int64 { return w.ID })
}

// WorkCount returns how many works there are.
func (db *DB) WorkCount(ctx context.Context) (int64, error) {
	var n int64
	if err := db.pool.QueryRow(ctx, `SELECT count(*) FROM works`).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: work count: %w", err)
	}
	return n, nil
}

// AddRecords records harvested records in the works (works.AddRecord), in
// one transaction under the works lock.
func (db *DB) AddRecords(ctx context.Context, records []works.Record) error {
	if len(records) == 0 {
		return nil
	}
	err := db.write(ctx, durable, func(ctx context.Context, t *txn) error {
		b := t.batch()
		b.Queue(`SELECT pg_advisory_xact_lock($1)`, db.worksLock())
		if err := t.send(ctx, b); err != nil {
			return err
		}
		return works.AddRecords(&workTx{ctx: ctx, t: t}, records)
	})
	if err != nil {
		return fmt.Errorf("postgres: works of records: %w", err)
	}
	return nil
}
