package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// Staged offers: the sorted merge of IRLbot's DRUM. A batch of offers
// checked against urls and inserted at once touches a page of urls_id
// (URL IDs are hashes below their host bits), of urls_queue and of hosts
// for each URL, however it is sorted, while the batch is small beside
// the store; each such page goes to the write-ahead log once a batch and
// again at checkpoint. StageURLs appends offers to the table offers
// instead (a few pages a batch, in offer order) and merges them all into
// urls when they are many beside the URLs already stored, reading them
// sorted by host and URL ID, so that each index page is written about
// once a merge.

// Merge thresholds: the stage is merged when it holds at least
// stageMin offers and at least one for each stageShare URLs stored, so
// that a merge writes a bounded number of index pages per offer as the
// store grows (each merge touches at most every page of urls_id, which
// grows with the URLs stored). With stageShare 1 a merge at least
// doubles the URLs stored, and each index page is written a few times
// over a crawl's adds (2,000,000 seeds: 1,187 B written per URL, against
// 1,614 with stageShare 4). The stage's pages are freed by the merge and
// taken again by the next stage or the tables' growth. A merge also
// rewrites the row of each host it admits URLs to (see hostsAdded), and
// counts, sorts and looks up the whole stage a few times, however few
// URLs each host gets: stageMin is large enough that the first merges of
// seeds spread over many hosts hold a few offers per host (2,000,000
// seeds over 200,000 hosts: three merges, where 400,000 took four and
// 12% more CPU). The largest stage is the same (800,000 offers, then
// one as large as the URLs stored), and the merge's sorts spill to
// temporary files past 2 MiB whatever its size. (The defaults of a
// store's tuning.)
const (
	stageMin   = 800_000
	stageShare = 1
)

// StageURLs offers URLs to the frontier as AddURLs does, deciding on them
// later: URLs over lim's depth are refused now, the others are appended
// to the stage, durably, and decided on (known, over the host cap under
// lim, or admitted) when the stage is merged: when it is large (after
// this call's offers), at the next AddURLs or Commit (before their own
// URLs, so that decisions follow the order of the offers), when
// ClaimHosts would find no host, and at MergeStaged. The decisions are
// those AddURLs would have taken, the offers taken in order, but for one:
// a URL refused over its host's cap and offered again in the same stage
// under a larger cap (a resume with another --max-pages-per-host) is
// refused again, where AddURLs would admit it the second time.
//
// The stats count the offers and those over depth, and the URLs added
// by a merge this call made (of this call's offers and earlier ones).
func (db *DB) StageURLs(ctx context.Context, urls []crawl.NewURL, lim crawl.Limits) (crawl.AddStats, error) {
	st := crawl.AddStats{Offered: len(urls)}
	err := db.tx(ctx, func(t *txn) error {
		var err error
		if st.OverDepth, err = t.stageOffers(ctx, urls, lim, nil); err != nil {
			return err
		}
		staged, err := t.stagedOffers(ctx)
		if err != nil {
			return err
		}
		stored, err := t.storedURLs(ctx)
		if err != nil {
			return err
		}
		if staged < max(t.db.tune.stageMin, stored/t.db.tune.stageShare) {
			return nil
		}
		merged, err := t.mergeOffers(ctx)
		st.Added = merged.Added
		return err
	})
	if err != nil {
		return crawl.AddStats{}, fmt.Errorf("sqlite: stage urls: %w", err)
	}
	return st, nil
}

// MergeStaged decides on every staged offer now (see StageURLs) and
// returns how many URLs it added.
func (db *DB) MergeStaged(ctx context.Context) (int, error) {
	var merged crawl.AddStats
	err := db.tx(ctx, func(t *txn) error {
		var err error
		merged, err = t.mergeOffers(ctx)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: merge staged urls: %w", err)
	}
	return merged.Added, nil
}

// stageOffers appends the offers not over lim's depth to the stage, in
// their order, under lim's host cap, and returns how many were over it.
// foundBy, if not nil, gives the host whose page discovered offer i.
func (t *txn) stageOffers(ctx context.Context, urls []crawl.NewURL, lim crawl.Limits, foundBy func(i int) crawl.ID) (int, error) {
	keep := make([]int, 0, len(urls))
	for i, u := range urls {
		if !lim.OverDepth(u.Depth) {
			keep = append(keep, i)
		}
	}
	first := make(map[crawl.ID]bool)
	nowMS := time.Now().UnixMilli()
	err := t.inChunks(ctx, len(keep), 14, `INSERT INTO offers (id, url, host_id, host, depth, priority, via, parent_id,
			discovered_at, kind, lastmod, changefreq, cap, found_by)
		SELECT * FROM (VALUES %s) WHERE column1 IS NOT NULL`, func(i int, a []any) {
		u := &urls[keep[i]]
		var host, by any
		if !first[u.HostID] {
			first[u.HostID] = true
			host = u.Host
		}
		if foundBy != nil {
			by = foundBy(keep[i])
		}
		a[0], a[1], a[2], a[3], a[4], a[5] = u.ID, crawl.RelURL(u.URL, u.Host), u.HostID, host, u.Depth, u.Priority
		a[6], a[7], a[8], a[9], a[10], a[11] = viaCode(u.Via), u.Parent, nowMS, u.Kind, ms(u.LastMod), u.ChangeFreq
		a[12], a[13] = lim.MaxPagesPerHost, by
	}, nil)
	return len(urls) - len(keep), err
}

// storedURLs is the number of URLs stored: urls's rows (its rowids are
// in arrival order) and the packed ones.
func (t *txn) storedURLs(ctx context.Context) (int64, error) {
	var stored int64
	err := t.queryRow(ctx, `SELECT coalesce((SELECT max(rowid) FROM urls), 0)
		+ (SELECT value FROM counters WHERE name = 'packed')`).Scan(&stored)
	return stored, err
}

// stagedOffers is the number of offers staged. The stage is only
// appended to and emptied whole (which starts its rowids again at 1), so
// its largest rowid is its size.
func (t *txn) stagedOffers(ctx context.Context) (int64, error) {
	var n sql.NullInt64
	err := t.queryRow(ctx, `SELECT max(rowid) FROM offers`).Scan(&n)
	return n.Int64, err
}

// mergeOffers decides on the staged offers, in offer order as addURLs
// does, and empties the stage. An offer is known if its URL is in urls
// or offered earlier in the stage; a host's cap (the offer's) admits its
// first offers; a host's admitted are inserted in offer order (their
// rowids are the order a host's URLs of one priority are fetched in).
// The statements read the stage sorted: the known offers are found and
// deleted from the stage's URL IDs and places alone, sorted by URL ID (the stored URLs looked up in that order, an
// earlier offer of the URL next to each repeat); the rest are counted by
// host, the new hosts inserted from the counts by host ID, and then
// inserted by host ID then offer (URL IDs begin with their host's bits,
// so this is URL ID order to the host's bits), so that the pages of
// urls_id, urls_queue and hosts are each visited about once. The new
// rows go to the end of urls (arrival order), where, when a cap refused
// some, they are found again to count each host's. The offers' columns
// ride through the one sort by host: read back from the stage by rowid
// in host order, each would cost a random read of the stage.
//
// A stage that holds URLs pages discovered, or inbound links counted for
// URLs not yet rows, is merged into rows, and the merge also raises the
// finders' discovered counts, keeps link_urls to the targets urls does
// not hold, and applies the counts (finds.go). It returns what it
// decided; the hosts admitted URLs and those a cap refused only for such
// a stage, whose commit reports them.
func (t *txn) mergeOffers(ctx context.Context) (crawl.AddStats, error) {
	var st crawl.AddStats
	n, err := t.stagedOffers(ctx)
	if err != nil {
		return st, err
	}
	if n == 0 {
		return st, t.applyInlinkCounts(ctx)
	}
	st.Offered = int(n)
	var last sql.NullInt64
	if err := t.queryRow(ctx, `SELECT max(rowid) FROM urls`).Scan(&last); err != nil {
		return st, err
	}
	// The statements sort the stage (by host, by URL, by host and offer),
	// and SQLite gives each sort as much memory as the page cache before
	// it spills to a temporary file: with the writer's cache, the hosts'
	// sort alone grew the process by 64 MB for 400,000 offers.
	// A small cache while they run keeps each sort to 2 MiB; cache_spill
	// keeps the pages they dirty in memory up to the writer's cache (of
	// 4 KiB pages), as before, so that none is written to the log twice.
	if _, err := t.tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_spill = %d`, writerCacheKiB/4)); err != nil {
		return st, err
	}
	if _, err := t.tx.ExecContext(ctx, `PRAGMA cache_size = -2048`); err != nil {
		return st, err
	}
	defer t.tx.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf(`PRAGMA cache_size = -%d`, writerCacheKiB))
	// Offers of URLs already stored, and offers of a URL offered earlier
	// in the stage, go first: the stage's URL IDs and places alone are
	// sorted, by URL, and the stored ones looked up in that order. The
	// insert below then reads no urls (SQLite copies the result of an
	// INSERT whose SELECT reads the table it inserts into to a temporary
	// table first), and sorts the offers' whole rows once, by host. A
	// stage with neither (seeds, mostly) is found so by grouping its URL
	// IDs, which costs half the numbering of every offer that the delete
	// needs.
	var drop bool
	if err := t.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM offers GROUP BY id
		HAVING count(*) > 1 OR EXISTS (SELECT 1 FROM urls WHERE urls.id = offers.id)
			OR EXISTS (SELECT 1 FROM seen WHERE seen.id = offers.id))`).Scan(&drop); err != nil {
		return st, err
	}
	if drop {
		res, err := t.exec(ctx, `DELETE FROM offers WHERE rowid IN (
			SELECT s.ord FROM (SELECT rowid AS ord, id, row_number() OVER (PARTITION BY id ORDER BY rowid) AS d
				FROM offers) AS s
			WHERE s.d > 1 OR EXISTS (SELECT 1 FROM urls WHERE urls.id = s.id)
				OR EXISTS (SELECT 1 FROM seen WHERE seen.id = s.id))`)
		if err != nil {
			return st, err
		}
		known, _ := res.RowsAffected()
		st.Known = int(known)
	}
	// Each host's offers, counted once: whether a host cap can refuse
	// any of them, the hosts to insert (an offer carries its host's name
	// when it is the first of its host in its batch), whether a page's
	// commit discovered any (finds), and, when no cap can refuse, what
	// each host is admitted.
	if _, err := t.exec(ctx, `CREATE TEMP TABLE IF NOT EXISTS merged_hosts
		(host_id INTEGER PRIMARY KEY, n INTEGER NOT NULL, top INTEGER NOT NULL, cap INTEGER, host TEXT, finds INTEGER)`); err != nil {
		return st, err
	}
	if _, err := t.exec(ctx, `INSERT INTO temp.merged_hosts (host_id, n, top, cap, host, finds)
		SELECT host_id, count(*), max(priority), min(CASE WHEN cap > 0 THEN cap END), max(host), max(found_by IS NOT NULL)
		FROM offers GROUP BY host_id ORDER BY host_id`); err != nil {
		return st, err
	}
	const overCap = `FROM temp.merged_hosts AS a LEFT JOIN hosts ON hosts.id = a.host_id
		WHERE a.cap IS NOT NULL AND coalesce(hosts.admitted, 0) + a.n > a.cap`
	var capped, finds bool
	if err := t.queryRow(ctx, `SELECT EXISTS (SELECT 1 `+overCap+`),
		EXISTS (SELECT 1 FROM temp.merged_hosts WHERE finds) OR EXISTS (SELECT 1 FROM inlink_counts)`).Scan(&capped, &finds); err != nil {
		return st, err
	}
	if finds && capped {
		// The commit that merges reports the hosts whose cap refused.
		if err := t.ids(ctx, `SELECT a.host_id `+overCap+` ORDER BY a.host_id`, &st.CappedHosts); err != nil {
			return st, err
		}
	}
	// New hosts. When no cap can refuse, each is admitted URLs: it goes
	// into the ready-host indexes as it is inserted (has_queued, its best
	// priority), so that hostsAdded below only counts its URLs.
	newHosts := `INSERT INTO hosts (id, key, has_queued, top_priority) SELECT host_id, host, 1, top FROM temp.merged_hosts
		WHERE host IS NOT NULL ORDER BY host_id ON CONFLICT (id) DO NOTHING`
	if capped {
		newHosts = `INSERT INTO hosts (id, key) SELECT host_id, host FROM temp.merged_hosts
			WHERE host IS NOT NULL ORDER BY host_id ON CONFLICT (id) DO NOTHING`
	}
	if _, err := t.exec(ctx, newHosts); err != nil {
		return st, err
	}
	if finds {
		if err := t.countFinds(ctx, capped); err != nil {
			return st, err
		}
	}
	if n >= t.db.tune.packMin {
		if finds && capped {
			// The texts of the discovered URLs a cap refuses, while the
			// stage holds them (the pack empties it as it starts).
			if err := t.refusedLinkTexts(ctx); err != nil {
				return st, err
			}
		}
		added, hosts, err := t.packOffers(ctx, capped, finds)
		if err != nil {
			return st, err
		}
		st.Added, st.OverHostCap = int(added), int(n)-st.Known-int(added)
		if capped {
			// Some offers were refused: what each host was admitted.
			if _, err := t.exec(ctx, `DELETE FROM temp.merged_hosts`); err != nil {
				return st, err
			}
			if err := t.inChunks(ctx, len(hosts), 3, `INSERT INTO temp.merged_hosts (host_id, n, top)
				SELECT * FROM (VALUES %s) WHERE column1 IS NOT NULL`, func(i int, a []any) {
				a[0], a[1], a[2] = hosts[i].id, hosts[i].n, hosts[i].top
			}, nil); err != nil {
				return st, err
			}
		}
		if finds {
			// The counts of the URLs that took rows, and of those
			// rows held before.
			if err := t.applyInlinkCounts(ctx); err != nil {
				return st, err
			}
		}
		return st, t.endMerge(ctx, added, finds, &st)
	}
	added, err := t.insertOffers(ctx, capped)
	if err != nil {
		return st, err
	}
	st.Added, st.OverHostCap = int(added), int(n)-st.Known-int(added)
	if capped {
		// Some offers were refused: count what each host was admitted.
		if _, err := t.exec(ctx, `DELETE FROM temp.merged_hosts`); err != nil {
			return st, err
		}
		if _, err := t.exec(ctx, `INSERT INTO temp.merged_hosts (host_id, n, top)
			SELECT host_id, count(*), max(priority) FROM urls WHERE rowid > ? GROUP BY host_id ORDER BY host_id`, last.Int64); err != nil {
			return st, err
		}
	}
	if finds {
		if err := t.findsLinkTexts(ctx, last.Int64, capped); err != nil {
			return st, err
		}
		if err := t.applyInlinkCounts(ctx); err != nil {
			return st, err
		}
	}
	return st, t.endMerge(ctx, added, finds, &st)
}

// endMerge records what a merge admitted to each host (temp.merged_hosts)
// and in all, and empties the stage. With report (the stage held URLs
// that pages discovered), the hosts admitted URLs go to st.Hosts.
func (t *txn) endMerge(ctx context.Context, added int64, report bool, st *crawl.AddStats) error {
	if report {
		if err := t.ids(ctx, `SELECT host_id FROM temp.merged_hosts WHERE n > 0 ORDER BY host_id`, &st.Hosts); err != nil {
			return err
		}
	}
	for _, q := range hostsAdded(`SELECT host_id, n, top FROM temp.merged_hosts`) {
		if _, err := t.exec(ctx, q); err != nil {
			return err
		}
	}
	if _, err := t.exec(ctx, `DELETE FROM temp.merged_hosts`); err != nil {
		return err
	}
	if _, err := t.exec(ctx, `DELETE FROM offers`); err != nil {
		return err
	}
	t.add("queued", added)
	t.db.log.Debug("sqlite: staged URLs merged", "offers", st.Offered, "added", added, "known", st.Known,
		"over_host_cap", st.OverHostCap, "discovered", report)
	return nil
}

// ids appends the IDs q returns to dst.
func (t *txn) ids(ctx context.Context, q string, dst *[]crawl.ID) error {
	rows, err := t.query(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id crawl.ID
		if err := rows.Scan(&id); err != nil {
			return err
		}
		*dst = append(*dst, id)
	}
	return rows.Err()
}

// insertOffers inserts the staged offers into urls, sorted by host and
// offer. When a host's cap may refuse some (capped), each host's offers
// are numbered with a window and only its first are admitted; that
// numbering, the copy of the sorted rows SQLite makes for the join with
// hosts, and the sort of the admitted by host and offer again (their
// rowids are the claim order: SQLite does not carry the window's order
// out of the copy) cost more than the sort and the insert, so a stage
// that no cap can touch (seeds, mostly) goes without.
func (t *txn) insertOffers(ctx context.Context, capped bool) (int64, error) {
	q := `INSERT INTO urls (id, url, host_id, depth, priority, state, via, parent_id,
			discovered_at, kind, lastmod, changefreq)
		SELECT n.id, n.url, n.host_id, n.depth, n.priority, 0, n.via, n.parent_id,
			n.discovered_at, n.kind, n.lastmod, n.changefreq
		FROM offers AS n ORDER BY n.host_id, n.rowid`
	if capped {
		q = `INSERT INTO urls (id, url, host_id, depth, priority, state, via, parent_id,
			discovered_at, kind, lastmod, changefreq)
		SELECT n.id, n.url, n.host_id, n.depth, n.priority, 0, n.via, n.parent_id,
			n.discovered_at, n.kind, n.lastmod, n.changefreq
		FROM (SELECT rowid AS ord, id, url, host_id, depth, priority, via, parent_id, discovered_at, kind, lastmod,
					changefreq, cap, row_number() OVER (PARTITION BY host_id ORDER BY rowid) AS k
				FROM offers) AS n
			JOIN hosts ON hosts.id = n.host_id
			WHERE n.cap <= 0 OR hosts.admitted + n.k <= n.cap
			ORDER BY n.host_id, n.ord`
	}
	res, err := t.exec(ctx, q)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
