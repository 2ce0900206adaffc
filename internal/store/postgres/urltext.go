package postgres

// urls keeps a URL's text without its host's origin (migration 0018,
// crawl.RelURL), as the SQLite store does: hosts.key holds the origin once
// for all the host's URLs. A URL is cut by the key it is offered with
// (NewURL.Host; a merge of staged offers, by its host's row, which was
// inserted with that key) and made whole with its host's row: the two
// agree, the host ID being the key's hash.

// fullURLSQL is crawl.FullURL in SQL: the URL whose text is the
// expression rel, of the host whose key is the expression key (NULL
// counts as "").
func fullURLSQL(rel, key string) string {
	return `CASE WHEN left(` + rel + `, 1) = '!' THEN substr(` + rel + `, 2) ELSE coalesce(` + key + `, '') || ` + rel + ` END`
}

// relURLSQL is crawl.RelURL in SQL: the text kept of the URL u (an
// expression) of the host whose key is the expression key.
func relURLSQL(u, key string) string {
	return `CASE WHEN starts_with(` + u + `, ` + key + `) AND substr(` + u + `, length(` + key + `) + 1, 1) IN ('', '/', '?', '#')
		THEN substr(` + u + `, length(` + key + `) + 1) ELSE '!' || ` + u + ` END`
}
