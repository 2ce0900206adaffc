package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"strings"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/keyset"
	"github.com/acrawler/acrawler/internal/works"
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

// noWorks turns the works off, for BenchmarkCommitWorks to measure what
// they cost.
var noWorks bool

// joinWork records the page in the works, in the transaction that records
// the page: a copy of a work joins it (works.Add).
func (t *txn) joinWork(ctx context.Context, p *crawl.Page) error {
	if noWorks {
		return nil
	}
	if _, err := works.Add(&workTx{ctx: ctx, t: t}, workPage(p)); err != nil {
		return fmt.Errorf("works: %w", err)
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
	err := w.t.queryRow(w.ctx, `SELECT work_id, copy FROM work_copies WHERE page_id = ?`, page).Scan(&work, &js)
	if errors.Is(err, sql.ErrNoRows) {
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
	args := make([]any, len(keys))
	for i, k := range keys {
		args[i] = k
	}
	rows, err := w.t.query(w.ctx, `SELECT DISTINCT c.work_id FROM work_keys k JOIN work_copies c ON c.page_id = k.page_id
		WHERE k.key IN (?`+strings.Repeat(", ?", len(keys)-1)+`) ORDER BY c.work_id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

func (w *workTx) Copies(work int64) ([]works.Copy, error) {
	rows, err := w.t.query(w.ctx, `SELECT copy FROM work_copies WHERE work_id = ? ORDER BY page_id`, work)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []works.Copy
	for rows.Next() {
		var js string
		var c works.Copy
		if err := rows.Scan(&js); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(js), &c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func (w *workTx) NewWork() (int64, error) {
	var id int64
	err := w.t.queryRow(w.ctx, `INSERT INTO works (record) VALUES ('') RETURNING id`).Scan(&id)
	return id, err
}

func (w *workTx) PutCopy(work int64, c works.Copy, keys []string) error {
	js, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if _, err := w.t.exec(w.ctx, `INSERT INTO work_copies (page_id, work_id, copy) VALUES (?, ?, ?)
		ON CONFLICT (page_id) DO UPDATE SET work_id = excluded.work_id, copy = excluded.copy`, c.PageID, work, string(js)); err != nil {
		return err
	}
	for _, k := range keys {
		if _, err := w.t.exec(w.ctx, `INSERT INTO work_keys (key, page_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, k, c.PageID); err != nil {
			return err
		}
	}
	return nil
}

func (w *workTx) DeleteCopy(page int64) error {
	if _, err := w.t.exec(w.ctx, `DELETE FROM work_keys WHERE page_id = ?`, page); err != nil {
		return err
	}
	_, err := w.t.exec(w.ctx, `DELETE FROM work_copies WHERE page_id = ?`, page)
	return err
}

func (w *workTx) MoveCopies(from, to int64) error {
	_, err := w.t.exec(w.ctx, `UPDATE work_copies SET work_id = ? WHERE work_id = ?`, to, from)
	return err
}

func (w *workTx) PutWork(wk works.Work) error {
	js, err := json.Marshal(wk)
	if err != nil {
		return err
	}
	_, err = w.t.exec(w.ctx, `INSERT INTO works (id, title, year, doi, copies, record) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET title = excluded.title, year = excluded.year, doi = excluded.doi,
		copies = excluded.copies, record = excluded.record`, wk.ID, wk.Title, wk.Year, wk.DOI, len(wk.Copies), string(js))
	return err
}

func (w *workTx) DeleteWork(id int64) error {
	_, err := w.t.exec(w.ctx, `DELETE FROM works WHERE id = ?`, id)
	return err
}

// Work returns a work by ID.
func (db *DB) Work(ctx context.Context, id int64) (*crawl.Work, error) {
	return db.readWork(ctx, `SELECT record FROM works WHERE id = ?`, id)
}

// WorkOf returns the work a page is a copy of.
func (db *DB) WorkOf(ctx context.Context, page crawl.ID) (*crawl.Work, error) {
	return db.readWork(ctx, `SELECT w.record FROM work_copies c JOIN works w ON w.id = c.work_id WHERE c.page_id = ?`, page)
}

func (db *DB) readWork(ctx context.Context, q string, arg any) (*crawl.Work, error) {
	var js string
	err := db.r.QueryRowContext(ctx, q, arg).Scan(&js)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: work of %v: %w", arg, crawl.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: work of %v: %w", arg, err)
	}
	var w crawl.Work
	if err := json.Unmarshal([]byte(js), &w); err != nil {
		return nil, fmt.Errorf("sqlite: work of %v: %w", arg, err)
	}
	return &w, nil
}

// Works streams every work in ID order.
func (db *DB) Works(ctx context.Context) iter.Seq2[*crawl.Work, error] {
	return keyset.Stream(ctx, 500, int64(math.MinInt64), func(ctx context.Context, op string, after int64, batch int) ([]*crawl.Work, error) {
		rows, err := db.r.QueryContext(ctx, `SELECT record FROM works WHERE id `+op+` ? ORDER BY id LIMIT ?`, after, batch)
		if err != nil {
			return nil, fmt.Errorf("sqlite: works: %w", err)
		}
		defer rows.Close()
		var got []*crawl.Work
		for rows.Next() {
			var js string
			if err := rows.Scan(&js); err != nil {
				return nil, fmt.Errorf("sqlite: works: %w", err)
			}
			w := &crawl.Work{}
			if err := json.Unmarshal([]byte(js), w); err != nil {
				return nil, fmt.Errorf("sqlite: works: %w", err)
			}
			got = append(got, w)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("sqlite: works: %w", err)
		}
		return got, nil
	}, func(w *crawl.Work) int64 { return w.ID })
}

// WorkCount returns how many works there are.
func (db *DB) WorkCount(ctx context.Context) (int64, error) {
	var n int64
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM works`).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite: work count: %w", err)
	}
	return n, nil
}

// AddRecords records harvested records in the works (works.AddRecord), in
// one transaction.
func (db *DB) AddRecords(ctx context.Context, records []works.Record) error {
	if len(records) == 0 {
		return nil
	}
	err := db.tx(ctx, func(t *txn) error {
		return works.AddRecords(&workTx{ctx: ctx, t: t}, records)
	})
	if err != nil {
		return fmt.Errorf("sqlite: works of records: %w", err)
	}
	return nil
}
