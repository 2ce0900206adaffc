package sqlite

import (
	"context"

	"github.com/acrawler/acrawler/internal/crawl"
)

// Discoveries staged. In a large frontier a commit's new URLs fall on
// random pages of urls_id, urls_queue and hosts, a page of 4 KiB written
// for an entry of a few bytes, in every commit (docs/scale.md, "A crawl's
// commits in a large frontier"). Once the store holds findsFrom URLs, a
// commit therefore appends the URLs its pages discovered to the stage of
// offers (offers.go), each with the host of the page that found it, and
// the inbound links it counts for URLs not known to be rows of urls to
// inlink_counts, both in commit order. A merge decides on them as on any
// staged offers, adds those it admits to their finders' discovered
// counts, keeps the texts of the link targets it refuses (link_urls), and
// then applies the counts, sorted by URL.
//
// A commit merges when the stage (offers and counts) holds one entry for
// every findsShare URLs stored, so that a merge writes each index page
// about once for many commits, or as many as the URLs queued, so that a
// crawl whose queue runs short does not wait for its new URLs. ClaimHosts
// merges when it finds no host, and the crawl is not over while URLs are
// staged (Counters.Staged). A smaller store adds a commit's discoveries
// at once: its pages stay in the writer's cache. (The defaults of a
// store's tuning.)
const (
	findsFrom  = 1_000_000
	findsShare = 16
	findsMin   = 1
)

// stagesFinds says whether the commit stages its discoveries, and the
// URLs stored.
func (t *txn) stagesFinds(ctx context.Context) (bool, int64, error) {
	stored, err := t.storedURLs(ctx)
	return err == nil && stored >= t.db.tune.findsFrom, stored, err
}

// stageDiscovered stages the URLs the batch's results discovered, in
// their order, each with the host of the page that found it. The commit's
// stats count them offered and those over depth; a merge counts the
// rest. A target staged needs no text of its own in link_urls: the merge
// writes those it refuses.
func (c *committer) stageDiscovered(ctx context.Context, lim crawl.Limits, st *crawl.CommitStats) error {
	if len(c.offers) == 0 {
		return nil
	}
	by := make([]crawl.ID, len(c.offers))
	for _, d := range c.discovered {
		for i := d.from; i < d.to; i++ {
			by[i] = d.host
		}
	}
	over, err := c.t.stageOffers(ctx, c.offers, lim, func(i int) crawl.ID { return by[i] })
	if err != nil {
		return err
	}
	st.Add.Offered += len(c.offers)
	st.Add.OverDepth += over
	for _, u := range c.offers {
		if !lim.OverDepth(u.Depth) {
			delete(c.linkTexts, u.ID)
		}
	}
	return nil
}

// stageCounts appends to inlink_counts the inbound links counted for
// ids, URLs not known to be rows of urls, under lim's bonus.
func (c *committer) stageCounts(ctx context.Context, ids []crawl.ID, n func(crawl.ID) int, lim crawl.Limits) error {
	bonus, capped := lim.InlinkBonus, lim.MaxInlinkBonus/lim.InlinkBonus
	return c.t.inChunks(ctx, len(ids), 4, `INSERT INTO inlink_counts (id, n, bonus, cap)
		SELECT * FROM (VALUES %s) WHERE column1 IS NOT NULL`, func(i int, a []any) {
		a[0], a[1], a[2], a[3] = ids[i], n(ids[i]), bonus, capped
	}, nil)
}

// mergeFinds merges the stage if it holds one offer or staged count for
// every findsShare URLs stored, or as many as the URLs queued, and adds
// what the merge decided to st. The counts are part of the measure
// because they can grow without offers: a link to a URL out of the
// crawl's scope is counted until the merge finds no row for it. The
// queued are, because a crawl whose queue runs short would wait for its
// new URLs (a store of many URLs fetched, few queued, is the crawl of a
// few sites).
func (c *committer) mergeFinds(ctx context.Context, stored int64, st *crawl.CommitStats) error {
	var n, queued int64
	if err := c.t.queryRow(ctx, `SELECT coalesce((SELECT max(rowid) FROM offers), 0)
		+ coalesce((SELECT max(rowid) FROM inlink_counts), 0), (SELECT value FROM counters WHERE name = 'queued')`).Scan(&n, &queued); err != nil {
		return err
	}
	queued += c.t.delta["queued"]
	tu := &c.t.db.tune
	if n < max(tu.findsMin, min(stored/tu.findsShare, queued)) {
		return nil
	}
	as, err := c.t.mergeOffers(ctx)
	if err != nil {
		return err
	}
	st.Add.Decided(as)
	return nil
}

// heldOver keeps what a merge of discoveries that ClaimHosts ran decided
// for the next commit to report: a claim has no figures to give, and the
// crawl's count of new URLs and the hosts woken for them come from
// commits. A merge gives hosts only for a stage of discoveries (not of
// seeds alone); one that admitted no URL and met no cap is not kept.
func (db *DB) heldOver(as crawl.AddStats) {
	if as.Hosts == nil && as.CappedHosts == nil {
		return
	}
	db.mu.Lock()
	db.claimMerges.Decided(as)
	db.mu.Unlock()
}

// reportHeldOver adds to st what merges that ClaimHosts ran decided since
// the last commit. It runs after the commit's transaction.
func (db *DB) reportHeldOver(st *crawl.CommitStats) {
	db.mu.Lock()
	defer db.mu.Unlock()
	st.Add.Decided(db.claimMerges)
	db.claimMerges = crawl.AddStats{}
}

// countFinds adds to each finder's discovered count the staged offers it
// found that the merge admits: all of them, or, when a host cap refuses
// some (capped), those within their host's cap in stage order, as
// insertOffers admits them. It runs before the insert, while the hosts'
// admitted counts are those before the merge.
func (t *txn) countFinds(ctx context.Context, capped bool) error {
	src := `SELECT found_by AS host_id, count(*) AS n FROM offers WHERE found_by IS NOT NULL GROUP BY found_by`
	if capped {
		src = `SELECT o.found_by AS host_id, count(*) AS n
			FROM (SELECT found_by, host_id, cap, row_number() OVER (PARTITION BY host_id ORDER BY rowid) AS k FROM offers) AS o
			JOIN hosts AS h ON h.id = o.host_id
			WHERE o.found_by IS NOT NULL AND (o.cap <= 0 OR h.admitted + o.k <= o.cap)
			GROUP BY o.found_by`
	}
	_, err := t.exec(ctx, `UPDATE hosts SET discovered = discovered + a.n FROM (`+src+`) AS a WHERE hosts.id = a.host_id`)
	return err
}

// findsLinkTexts keeps link_urls to the link targets urls does not hold,
// after a merge that inserted the rows past rowid last: the URLs it
// admitted lose the texts that commits wrote while they were staged, and
// the discovered URLs a cap refused (capped) get theirs.
func (t *txn) findsLinkTexts(ctx context.Context, last int64, capped bool) error {
	if _, err := t.exec(ctx, `DELETE FROM link_urls WHERE id IN (SELECT id FROM urls WHERE rowid > ?)`, last); err != nil {
		return err
	}
	if !capped {
		return nil
	}
	_, err := t.exec(ctx, `INSERT INTO link_urls (id, url) SELECT u.id, `+fullURLSQL+`
		FROM offers AS u LEFT JOIN hosts AS h ON h.id = u.host_id
		WHERE u.found_by IS NOT NULL AND NOT EXISTS (SELECT 1 FROM urls WHERE urls.id = u.id)
		ORDER BY u.id ON CONFLICT (id) DO NOTHING`)
	return err
}

// refusedLinkTexts writes the texts of the discovered URLs of the stage
// that their host's cap refuses (the complement of what packOffers
// admits when capped), before a packing merge: the URLs it admits lose
// theirs as it writes them.
func (t *txn) refusedLinkTexts(ctx context.Context) error {
	_, err := t.exec(ctx, `INSERT INTO link_urls (id, url) SELECT u.id, `+fullURLSQL+`
		FROM (SELECT id, url, host_id, found_by, cap, row_number() OVER (PARTITION BY host_id ORDER BY rowid) AS k FROM offers) AS u
		JOIN hosts AS h ON h.id = u.host_id
		WHERE u.found_by IS NOT NULL AND NOT (u.cap <= 0 OR h.admitted + u.k <= u.cap)
		ORDER BY u.id ON CONFLICT (id) DO NOTHING`)
	return err
}

// applyInlinkCounts applies the inbound links staged in inlink_counts to
// the URLs' rows, sorted by URL, as countInlinks applies a commit's: the
// count grows by the links, and a queued URL's priority by the bonus for
// each link while its count is below the cap. Counts of URLs that are not
// rows (refused, or never offered) are dropped.
func (t *txn) applyInlinkCounts(ctx context.Context) error {
	var staged bool
	if err := t.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM inlink_counts)`).Scan(&staged); err != nil || !staged {
		return err
	}
	if _, err := t.exec(ctx, `UPDATE OR FAIL urls SET
			inlinks = inlinks + a.n,
			priority = priority + CASE WHEN state = 0 AND a.cap - inlinks > 0
				THEN a.bonus * CASE WHEN a.n < a.cap - inlinks THEN a.n ELSE a.cap - inlinks END ELSE 0 END
		FROM (SELECT id, sum(n) AS n, max(bonus) AS bonus, max(cap) AS cap FROM inlink_counts GROUP BY id ORDER BY id) AS a
		WHERE urls.id = a.id`); err != nil {
		return err
	}
	_, err := t.exec(ctx, `DELETE FROM inlink_counts`)
	return err
}
