package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const auxSplitTables = `CREATE VIRTUAL TABLE p USING fts5(title, body, content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 0');
CREATE VIRTUAL TABLE a USING fts5(anchors, content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 0')`

// TestFTS5AuxTwoTables splits the index in two, title and body in p, the
// anchor texts in a (a row only for the pages that have some), and checks
// that a search over both, each phrase matched in either table and bm25
// made from both tables' hits, finds the rows the one table finds, with
// its scores.
func TestFTS5AuxTwoTables(t *testing.T) {
	ctx := context.Background()
	db, _ := openAuxDB(t, dsn(filepath.Join(t.TempDir(), "split.db"), false, 2048))
	if _, err := db.ExecContext(ctx, auxTable+";"+auxSplitTables); err != nil {
		t.Fatal(err)
	}
	for id, d := range auxCorpus() {
		if _, err := db.ExecContext(ctx, "INSERT INTO t (rowid, title, body, anchors) VALUES (?, ?, ?, ?)", id, d[0], d[1], d[2]); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, "INSERT INTO p (rowid, title, body) VALUES (?, ?, ?)", id, d[0], d[1]); err != nil {
			t.Fatal(err)
		}
		if d[2] != "" {
			if _, err := db.ExecContext(ctx, "INSERT INTO a (rowid, anchors) VALUES (?, ?)", id, d[2]); err != nil {
				t.Fatal(err)
			}
		}
	}
	queries := append(slices.Clone(auxQueries), auxQuery{match: "alpha gamma", phrases: [][]string{{"alpha"}, {"gamma"}}})
	for _, q := range queries {
		want, err := oneTableSearch(ctx, db, q.match)
		if err != nil {
			t.Fatal(err)
		}
		got, err := splitSearch(ctx, db, q, []float64{10, 1, 4})
		if err != nil {
			t.Fatal(err)
		}
		if ids := slices.Sorted(maps.Keys(got)); !slices.Equal(ids, slices.Sorted(maps.Keys(want))) || len(ids) == 0 {
			t.Errorf("%s: matched %v, want %v", q.match, ids, slices.Sorted(maps.Keys(want)))
		}
		for id, w := range want {
			if g, ok := got[id]; ok && math.Abs(g-w) > 1e-9 {
				t.Errorf("%s: row %d: %.17g, want %.17g", q.match, id, g, w)
			}
		}
	}
}

// oneTableSearch scores by bm25 the rows of t that match.
func oneTableSearch(ctx context.Context, db *sql.DB, match string) (map[int64]float64, error) {
	rows, err := db.QueryContext(ctx, "SELECT rowid, bm25(t, 10, 1, 4) FROM t WHERE t MATCH ?", match)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	scores := map[int64]float64{}
	for rows.Next() {
		var id int64
		var score float64
		if err := rows.Scan(&id, &score); err != nil {
			return nil, err
		}
		scores[id] = score
	}
	return scores, rows.Err()
}

// splitSearch scores by bm25 the rows of p and a that q matches between
// them, from the tables' statistics and each row's hits in both.
func splitSearch(ctx context.Context, db *sql.DB, q auxQuery, weights []float64) (map[int64]float64, error) {
	quoted := make([]string, len(q.phrases))
	for i, p := range q.phrases {
		quoted[i] = `"` + strings.Join(p, " ") + `"`
	}
	any := strings.Join(quoted, " OR ") // every row holding a phrase, in the phrases' order
	stP, err := splitStats(ctx, db, "p")
	if err != nil {
		return nil, err
	}
	stA, err := splitStats(ctx, db, "a")
	if err != nil {
		return nil, err
	}
	hp, err := splitHits(ctx, db, "p", any)
	if err != nil {
		return nil, err
	}
	ha, err := splitHits(ctx, db, "a", any)
	if err != nil {
		return nil, err
	}
	st := ftsStats{rows: stP.rows, colTotal: append(slices.Clone(stP.colTotal), stA.colTotal...),
		phraseRows: make([]int64, len(q.phrases))}
	matched := map[int64]bool{}
	for id := range joinKeys(hp, ha) {
		all, some := true, false
		for i := range q.phrases {
			if hp[id].has(i) || ha[id].has(i) {
				st.phraseRows[i]++
				some = true
			} else {
				all = false
			}
		}
		matched[id] = all || q.any && some
	}
	// The sizes of the matched rows that hold no phrase in one of the tables.
	var missing [2][]int64
	for id, ok := range matched {
		for i, h := range []map[int64]ftsHits{hp, ha} {
			if _, in := h[id]; ok && !in {
				missing[i] = append(missing[i], id)
			}
		}
	}
	for i, table := range []string{"p", "a"} {
		h := []map[int64]ftsHits{hp, ha}[i]
		if err := splitSizes(ctx, db, table, missing[i], len(q.phrases), h); err != nil {
			return nil, err
		}
	}
	scores := map[int64]float64{}
	for id, ok := range matched {
		if ok {
			scores[id] = bm25(st, joinHits(hp[id], ha[id], len(q.phrases)), weights)
		}
	}
	return scores, nil
}

func (h ftsHits) has(phrase int) bool {
	n := len(h.colSize)
	for _, c := range h.hits[phrase*n : phrase*n+n] {
		if c > 0 {
			return true
		}
	}
	return false
}

func joinKeys(a, b map[int64]ftsHits) map[int64]struct{} {
	keys := map[int64]struct{}{}
	for id := range a {
		keys[id] = struct{}{}
	}
	for id := range b {
		keys[id] = struct{}{}
	}
	return keys
}

// joinHits is the hits of one row of the columns of a then b.
func joinHits(a, b ftsHits, phrases int) ftsHits {
	n := len(a.colSize) + len(b.colSize)
	h := ftsHits{colSize: append(slices.Clone(a.colSize), b.colSize...), hits: make([]int, 0, n*phrases)}
	for p := range phrases {
		h.hits = append(h.hits, a.hits[p*len(a.colSize):(p+1)*len(a.colSize)]...)
		h.hits = append(h.hits, b.hits[p*len(b.colSize):(p+1)*len(b.colSize)]...)
	}
	return h
}

// splitStats is table's row count and column totals: its auxiliary
// functions answer on a scan without a query too.
func splitStats(ctx context.Context, db *sql.DB, table string) (ftsStats, error) {
	var b []byte
	err := db.QueryRowContext(ctx, fmt.Sprintf("SELECT %s(%s) FROM %[2]s LIMIT 1", ftsStatsFunc, table)).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		n, err := splitColumns(ctx, db, table)
		return ftsStats{colTotal: make([]int64, n)}, err
	}
	if err != nil {
		return ftsStats{}, fmt.Errorf("stats of %s: %w", table, err)
	}
	return decodeFTSStats(b)
}

func splitColumns(ctx context.Context, db *sql.DB, table string) (int, error) {
	var n int
	err := db.QueryRowContext(ctx, "SELECT count(*) FROM pragma_table_info(?)", table).Scan(&n)
	return n, err
}

func splitHits(ctx context.Context, db *sql.DB, table, match string) (map[int64]ftsHits, error) {
	rows, err := db.QueryContext(ctx, fmt.Sprintf("SELECT rowid, %s(%s) FROM %[2]s WHERE %[2]s MATCH ?", ftsHitsFunc, table), match)
	if err != nil {
		return nil, fmt.Errorf("hits in %s: %w", table, err)
	}
	defer rows.Close()
	hits := map[int64]ftsHits{}
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return nil, err
		}
		if hits[id], err = decodeFTSHits(b); err != nil {
			return nil, err
		}
	}
	return hits, rows.Err()
}

// splitSizes adds to hits the column sizes of the rows ids, which hold no
// phrase in table (zero if table has no such row), with no hits.
func splitSizes(ctx context.Context, db *sql.DB, table string, ids []int64, phrases int, hits map[int64]ftsHits) error {
	if len(ids) == 0 {
		return nil
	}
	n, err := splitColumns(ctx, db, table)
	if err != nil {
		return err
	}
	for _, id := range ids {
		hits[id] = ftsHits{colSize: make([]int, n), hits: make([]int, n*phrases)}
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	rows, err := db.QueryContext(ctx, fmt.Sprintf("SELECT %[2]s.rowid, %[1]s(%[2]s) FROM json_each(?) j JOIN %[2]s ON %[2]s.rowid = j.value", ftsHitsFunc, table), list)
	if err != nil {
		return fmt.Errorf("sizes in %s: %w", table, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return err
		}
		h, err := decodeFTSHits(b)
		if err != nil {
			return err
		}
		h.hits = make([]int, len(h.colSize)*phrases)
		hits[id] = h
	}
	return rows.Err()
}
