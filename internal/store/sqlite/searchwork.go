package sqlite

import (
	"context"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
)

// matched is a match of a search as the total and the facets count it: its
// full-text key, the facet fields of its page and the work the page is a
// copy of (0: none; read only for a search by work).
type matched struct {
	key       crawl.ID
	host, typ string
	year      int
	work      int64
}

// result is what a search by work shows once per result: a work, or a
// page that is no copy of a work (by its full-text key).
type result struct {
	work int64
	key  crawl.ID
}

func (m matched) result() result {
	if m.work != 0 {
		return result{work: m.work}
	}
	return result{key: m.key}
}

// countMatches counts the results among the matches: every match, or,
// by work, each result once. A facet value counts the results that have
// a match with that value: what a search filtered by it would find.
func countMatches(ms []matched, byWork bool) (int, crawl.Facets) {
	f := crawl.Facets{Host: map[string]int{}, Type: map[string]int{}, Year: map[int]int{}}
	if !byWork {
		for _, m := range ms {
			countFacets(&f, m)
		}
		return len(ms), f
	}
	// A result counts once per facet value.
	type counted struct {
		r     result
		facet byte
		s     string
		year  int
	}
	all, seen := map[result]bool{}, map[counted]bool{}
	once := func(c counted) bool {
		if seen[c] {
			return false
		}
		seen[c] = true
		return true
	}
	pages := 0 // the matches of no work, each a result of its own
	for _, m := range ms {
		if m.work == 0 {
			pages++
			countFacets(&f, m)
			continue
		}
		r := m.result()
		all[r] = true
		if once(counted{r: r, facet: 'h', s: m.host}) {
			f.Host[m.host]++
		}
		if m.typ != "" && once(counted{r: r, facet: 't', s: m.typ}) {
			f.Type[m.typ]++
		}
		if m.year != 0 && once(counted{r: r, facet: 'y', year: m.year}) {
			f.Year[m.year]++
		}
	}
	return pages + len(all), f
}

// countFacets counts a result in the facets of its values.
func countFacets(f *crawl.Facets, m matched) {
	f.Host[m.host]++
	if m.typ != "" {
		f.Type[m.typ]++
	}
	if m.year != 0 {
		f.Year[m.year]++
	}
}

// firstOfEach keeps, of ranked matches, the first of each result (by
// their works, with the works of cands in works): a work's best-ranked
// copy stands for it.
func firstOfEach(cands []cand, works map[crawl.ID]int64) []cand {
	return firstOfEachUpTo(cands, works, len(cands))
}

// firstOfEachUpTo is firstOfEach up to n results.
func firstOfEachUpTo(cands []cand, works map[crawl.ID]int64, n int) []cand {
	return firstOfEachOf(slices.Values(cands), len(cands), works, n)
}

// firstOfEachOf is firstOfEachUpTo of the candidates ranked gives, in
// their order (size of them at most).
func firstOfEachOf(ranked iter.Seq[cand], size int, works map[crawl.ID]int64, n int) []cand {
	seen := make(map[result]bool, min(n, size))
	out := make([]cand, 0, min(n, size))
	for c := range ranked {
		if len(out) == n {
			break
		}
		r := matched{key: c.id, work: works[c.id]}.result()
		if !seen[r] {
			seen[r] = true
			out = append(out, c)
		}
	}
	return out
}

// workRounds bounds the rounds in which a search by work past exactLimit
// matches ranks more matches for its page of works: each round ranks
// workGrowth times as many as the one before, from offset+limit (plus
// rankCandidates), so at most workGrowth^(workRounds-1) = 16 times
// offset+limit matches.
const (
	workRounds = 3
	workGrowth = 4
)

// worksOf returns the work of each full-text key whose page is a copy of
// one; keys of no work are left out.
func (db *DB) worksOf(ctx context.Context, keys []crawl.ID, into map[crawl.ID]int64) error {
	const chunk = 500
	if len(keys) > 8*chunk {
		// Many: one reading of every copy costs less than the look-ups.
		byPage := make(map[crawl.ID]crawl.ID, len(keys))
		for _, k := range keys {
			byPage[urlIDOfKey(k)] = k
		}
		rows, err := db.r.QueryContext(ctx, `SELECT page_id, work_id FROM work_copies`)
		if err != nil {
			return fmt.Errorf("sqlite: search: works: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var page crawl.ID
			var work int64
			if err := rows.Scan(&page, &work); err != nil {
				return fmt.Errorf("sqlite: search: works: %w", err)
			}
			if k, ok := byPage[page]; ok {
				into[k] = work
			}
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("sqlite: search: works: %w", err)
		}
		return nil
	}
	for len(keys) > 0 {
		n := min(len(keys), chunk)
		args := make([]any, n)
		byPage := make(map[crawl.ID]crawl.ID, n)
		for i, k := range keys[:n] {
			id := urlIDOfKey(k)
			args[i], byPage[id] = id, k
		}
		rows, err := db.r.QueryContext(ctx, `SELECT page_id, work_id FROM work_copies WHERE page_id IN (?`+strings.Repeat(", ?", n-1)+`)`, args...)
		if err != nil {
			return fmt.Errorf("sqlite: search: works: %w", err)
		}
		for rows.Next() {
			var page crawl.ID
			var work int64
			if err := rows.Scan(&page, &work); err != nil {
				rows.Close()
				return fmt.Errorf("sqlite: search: works: %w", err)
			}
			into[byPage[page]] = work
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("sqlite: search: works: %w", err)
		}
		keys = keys[n:]
	}
	return nil
}

// rankLargeByWork ranks the matches of a search by work that has more
// than exactLimit of them (rankLarge), enough for need results, in up to
// workRounds rounds, and returns the first match of each result.
func (db *DB) rankLargeByWork(ctx context.Context, q query.Query, filter []any, need int, weight float64) ([]cand, error) {
	works := map[crawl.ID]int64{}
	pages := need
	for round := 1; ; round++ {
		cands, err := db.rankLarge(ctx, q, filter, pages, weight)
		if err != nil {
			return nil, err
		}
		var unknown []crawl.ID
		for _, c := range cands {
			if _, ok := works[c.id]; !ok {
				unknown = append(unknown, c.id)
				works[c.id] = 0
			}
		}
		if err := db.worksOf(ctx, unknown, works); err != nil {
			return nil, err
		}
		firsts := firstOfEach(cands, works)
		// Fewer than asked for: every match is ranked.
		if len(firsts) >= need || len(cands) < pages || round == workRounds {
			return firsts, nil
		}
		pages *= workGrowth
	}
}

// estimateByWork estimates the results of a search by work, and their
// facets, from a sample of its matches ms (the first in full-text key
// order: each match is in it with the chance n/est). A work is in the
// sample when one of its matching copies is, with the chance
// 1-(1-n/est)^copies, taking the copies that pass the filters as its
// matches (the text of the others is not read again): each work found
// counts for the inverse of that chance (Horvitz-Thompson), in the total
// and in every facet value one of those copies has; a page of no work
// counts est/n. A query that matches only some of a work's copies is
// therefore under-counted, at most by the number of its copies.
func (db *DB) estimateByWork(ctx context.Context, ms []matched, filter []any, est int) (int, crawl.Facets, error) {
	f := crawl.Facets{Host: map[string]int{}, Type: map[string]int{}, Year: map[int]int{}}
	share := float64(len(ms)) / float64(est)
	var total float64
	host, typ, year := map[string]float64{}, map[string]float64{}, map[int]float64{}
	var works []any
	seen := map[int64]bool{}
	for _, m := range ms {
		if m.work == 0 {
			total += 1 / share
			host[m.host] += 1 / share
			if m.typ != "" {
				typ[m.typ] += 1 / share
			}
			if m.year != 0 {
				year[m.year] += 1 / share
			}
		} else if !seen[m.work] {
			seen[m.work] = true
			works = append(works, m.work)
		}
	}
	const chunk = 500
	for len(works) > 0 {
		n := min(len(works), chunk)
		// ?1 is unused: the filter's parameters are ?2 to ?6.
		rows, err := db.r.QueryContext(ctx, `SELECT c.work_id, p.host, p.doc_type, p.year FROM work_copies c
			JOIN pages p ON p.url_id = c.page_id WHERE c.work_id IN (?7`+strings.Repeat(", ?", n-1)+`) AND `+searchFilter+`
			ORDER BY c.work_id`, append(append([]any{nil}, filter...), works[:n]...)...)
		if err != nil {
			return 0, f, fmt.Errorf("sqlite: search: works: %w", err)
		}
		type copyFacets struct {
			host, typ string
			year      int
		}
		var cur int64
		var copies []copyFacets
		flush := func() {
			if len(copies) == 0 {
				return
			}
			w := 1 / (1 - math.Pow(1-share, float64(len(copies))))
			total += w
			hs, ts, ys := map[string]bool{}, map[string]bool{}, map[int]bool{}
			for _, c := range copies {
				if !hs[c.host] {
					hs[c.host] = true
					host[c.host] += w
				}
				if c.typ != "" && !ts[c.typ] {
					ts[c.typ] = true
					typ[c.typ] += w
				}
				if c.year != 0 && !ys[c.year] {
					ys[c.year] = true
					year[c.year] += w
				}
			}
			copies = copies[:0]
		}
		for rows.Next() {
			var work int64
			var c copyFacets
			if err := rows.Scan(&work, &c.host, &c.typ, &c.year); err != nil {
				rows.Close()
				return 0, f, fmt.Errorf("sqlite: search: works: %w", err)
			}
			if work != cur {
				flush()
				cur = work
			}
			copies = append(copies, c)
		}
		flush()
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, f, fmt.Errorf("sqlite: search: works: %w", err)
		}
		works = works[n:]
	}
	for k, v := range host {
		f.Host[k] = int(math.Round(v))
	}
	for k, v := range typ {
		f.Type[k] = int(math.Round(v))
	}
	for k, v := range year {
		f.Year[k] = int(math.Round(v))
	}
	return max(len(seen), int(math.Round(total))), f, nil
}
