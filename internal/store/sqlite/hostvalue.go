package sqlite

// researchTypes are the page types (crawl.Metadata.Type) that count as
// research when a host is valued.
const researchTypes = `('article', 'preprint', 'thesis', 'proceedings', 'book', 'dataset')`

// citeGap is how far above the page linking to it (above 0 for a page
// ranking below 0) a URL on another host ranks when the link counts as
// one to research before the URL is fetched: one path pattern's bonus
// (score's PatternBonus), so a blog post's link to another blog's home
// page does not count and its link to a journal's article does, and a
// shop's product page linking to ordinary pages elsewhere (its template's
// social links) cites nothing.
const citeGap = "6"

// hostValueSQL computes, for host ?1, the pages its value is learned from
// (n: its last pages, not its sitemaps), the research among them (pages
// of a research type, and files recorded without their text read, as
// PDFs are with --no-pdf: on the web most are papers), the related
// pages (people, publication lists), the copies of another host's pages
// (exact or near duplicates: a mirror's; they count as nothing else), and
// the citing pages (of none of those kinds, linking to a URL on another
// host that was recorded as research or, not yet known, ranks citeGap
// above the page, or above 0 for a page ranking below 0: a blog post or
// news item citing a paper), then the
// value: the share of research plus half the shares of related and citing
// pages, less the share of copies, against the quarter of research
// expected of a host not seen yet, with 4 pages of prior, times 24:
// (24·research + 12·related + 12·citing − 24·copies − 6·n) / (n + 4). A
// host of research alone tends to +18, a blog whose posts all cite
// research to +6, one of other pages alone to −6, a mirror to −30. The
// PostgreSQL store computes the same. The pages' columns are read from
// the covering index pages_search: the table row holds them behind the
// page's text.
const hostValueSQL = `SELECT n, research, related, copies, citing,
	(24 * research + 12 * related + 12 * citing - 24 * copies - 6 * n) / (n + 4) FROM (
	SELECT count(*) AS n,
		coalesce(sum(k = 1), 0) AS research, coalesce(sum(k = 2), 0) AS related, coalesce(sum(k = 3), 0) AS copies,
		coalesce(sum(k = 0 AND EXISTS (SELECT 1 FROM outlinks l, json_each(acrawler_link_targets(l.links)) j JOIN urls t ON t.id = j.value
			WHERE l.source_id = c.id AND t.host_id <> ?1 AND (t.priority >= max(c.priority, 0) + ` + citeGap + `
				OR EXISTS (SELECT 1 FROM pages tp INDEXED BY pages_search WHERE tp.url_id = t.id AND tp.doc_type IN ` + researchTypes + `
					AND tp.status BETWEEN 200 AND 299)))), 0) AS citing
	FROM (SELECT u.id, u.priority, CASE
			WHEN p.duplicate_of <> 0 AND coalesce((SELECT host_id FROM urls d WHERE d.id = p.duplicate_of), ?1) <> ?1
				OR p.near_duplicate_of <> 0 AND coalesce((SELECT host_id FROM urls d WHERE d.id = p.near_duplicate_of), ?1) <> ?1 THEN 3
			WHEN p.duplicate_of <> 0 OR p.near_duplicate_of <> 0 THEN 4
			WHEN p.doc_type IN ` + researchTypes + ` OR p.doc_type = '' THEN 1
			WHEN p.doc_type IN ('person', 'listing') THEN 2
			ELSE 0 END AS k
		FROM (SELECT id, priority FROM urls WHERE host_id = ?1 AND fetched_at > 0 AND kind = 0 ORDER BY fetched_at DESC LIMIT ?2) u
		JOIN pages p INDEXED BY pages_search ON p.url_id = u.id
		WHERE p.status BETWEEN 200 AND 299) c)`
