package postgres

import (
	"strconv"

	"github.com/acrawler/acrawler/internal/crawl"
)

// hostShift and hostLowMask, in SQL: a host or URL ID shifted right by
// hostShift is its host bits (crawl.HostBits); the bits of hostLowMask are
// those it does not take from its host.
var (
	hostShift   = strconv.Itoa(64 - crawl.URLHostBits)
	hostLowMask = "((1::int8 << " + hostShift + ") - 1)"
)

// hostValueSQL revalues the hosts in $1 that recorded responses since they
// were last valued, from their last $2 recorded pages, as the SQLite store
// does (see its hostValueSQL; sitemaps left out, files recorded without
// their text read counted as research): the research pages, the related pages
// (people, publication lists), the copies of another host's pages, and the
// citing pages (of none of those kinds, linking to a URL on another host
// that was recorded as research or, not yet known, ranks 6 — one path
// pattern's bonus — above the page, or above 0 for a page ranking below
// 0), then
// (24·research + 12·related + 12·citing − 24·copies − 6·n) / (n + 4).
// A mirror (MarkMirror) is worth at most crawl.MirrorValue. The hosts
// are locked in ID order, as commits lock them. A link whose
// target has host bits other than the host's (crawl.HostBits) is to
// another host; one whose target has the host's bits is to the host
// itself unless another host has those bits (shared), so its target is
// looked up only then.
var hostValueSQL = `WITH l AS (SELECT id, fetched, EXISTS (SELECT 1 FROM hosts o WHERE o.id <> h.id
			AND o.id BETWEEN h.id & ~` + hostLowMask + ` AND h.id | ` + hostLowMask + `) AS shared
		FROM hosts h WHERE id = ANY($1) AND fetched <> value_fetched ORDER BY id FOR NO KEY UPDATE),
	s AS (SELECT l.id, l.fetched, c.n, c.research, c.related, c.copies, c.citing FROM l, LATERAL (
		SELECT count(*) AS n,
			count(*) FILTER (WHERE k = 1) AS research,
			count(*) FILTER (WHERE k = 2) AS related,
			count(*) FILTER (WHERE k = 3) AS copies,
			count(*) FILTER (WHERE k = 0 AND EXISTS (SELECT 1 FROM links lk JOIN urls t ON t.id = lk.target_id
				WHERE lk.source_id = v.id AND (l.shared OR lk.target_id >> ` + hostShift + ` <> l.id >> ` + hostShift + `) AND t.host_id <> l.id AND (t.priority >= greatest(v.priority, 0) + 6
					OR EXISTS (SELECT 1 FROM pages tp WHERE tp.url_id = t.id
						AND tp.doc_type IN ('article', 'preprint', 'thesis', 'proceedings', 'book', 'dataset')
						AND tp.status BETWEEN 200 AND 299)))) AS citing
		FROM (SELECT u.id, u.priority, CASE
				WHEN p.duplicate_of <> 0 AND coalesce((SELECT host_id FROM urls d WHERE d.id = p.duplicate_of), l.id) <> l.id
					OR p.near_duplicate_of <> 0 AND coalesce((SELECT host_id FROM urls d WHERE d.id = p.near_duplicate_of), l.id) <> l.id THEN 3
				WHEN p.duplicate_of <> 0 OR p.near_duplicate_of <> 0 THEN 4
				WHEN p.doc_type IN ('article', 'preprint', 'thesis', 'proceedings', 'book', 'dataset') OR p.doc_type = '' THEN 1
				WHEN p.doc_type IN ('person', 'listing') THEN 2
				ELSE 0 END AS k
			FROM (SELECT id, priority FROM urls WHERE host_id = l.id AND fetched_at > 0 AND kind = 0 ORDER BY fetched_at DESC LIMIT $2) u
			JOIN pages p ON p.url_id = u.id
			WHERE p.status BETWEEN 200 AND 299) v) c)
	UPDATE hosts SET value = least((24 * s.research + 12 * s.related + 12 * s.citing - 24 * s.copies - 6 * s.n) / (s.n + 4),
			CASE WHEN hosts.mirror_of <> 0 THEN ` + strconv.Itoa(crawl.MirrorValue) + ` END),
		value_fetched = s.fetched, value_pages = s.n, value_research = s.research, value_related = s.related, value_copies = s.copies
	FROM s WHERE hosts.id = s.id`
