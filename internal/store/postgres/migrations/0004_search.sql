-- Search: the embedded full-text index, a tsvector column on pages written
-- by the same statements as the pages (Commit, Reparse) and refreshed by
-- SetRanks, and the link-graph rank of each page.
--
-- The index uses the 'simple' configuration, which lowercases words and
-- does not stem them or drop stop words: pages come in many languages and
-- one language's stemmer would garble the others. Lowercasing follows the
-- database's LC_CTYPE, which should be a UTF-8 locale (C.UTF-8 or a
-- language's), as the query package lowercases every letter.

ALTER TABLE pages ADD COLUMN host TEXT NOT NULL DEFAULT '';                -- the host key: scheme://authority
ALTER TABLE pages ADD COLUMN pagerank DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE pages ADD COLUMN anchors TEXT NOT NULL DEFAULT '';             -- the inbound anchor text indexed
-- NULL: the page is not indexed. Otherwise the title (weight A), the main
-- text or visible text (C) and the anchors (B), in this order, so that
-- ts_filter(search, '{a,c}') is the title and text alone.
ALTER TABLE pages ADD COLUMN search TSVECTOR;

-- The host key and, for the pages indexable by the rules of this version
-- (crawl.Indexable), the index, as Commit writes them.
UPDATE pages p SET host = CASE WHEN strpos(p.url, '://') = 0 THEN '' ELSE left(p.url, strpos(p.url, '://') + 2 +
            coalesce(nullif(strpos(substr(p.url, strpos(p.url, '://') + 3), '/'), 0) - 1, length(p.url))) END,
        anchors = i.anchors,
        search = CASE WHEN i.indexable THEN
            setweight(to_tsvector('simple', left(CASE WHEN p.title <> '' THEN p.title ELSE coalesce(p.metadata->>'title', '') END, 10000)), 'A') ||
            setweight(to_tsvector('simple', left(CASE WHEN p.main_text <> '' THEN p.main_text ELSE p.text END, 100000)), 'C') ||
            setweight(to_tsvector('simple', i.anchors), 'B') END
    FROM (SELECT s.url_id, s.indexable, CASE WHEN s.indexable THEN coalesce((
                SELECT left(string_agg(d.anchor, ' ' ORDER BY d.anchor), 2000) FROM (SELECT DISTINCT l.anchor FROM
                    (SELECT anchor FROM links WHERE target_id = s.url_id AND anchor <> '' LIMIT 200) l) d), '')
            ELSE '' END AS anchors
        FROM (SELECT url_id, status BETWEEN 200 AND 299 AND NOT noindex AND NOT blocked AND duplicate_of = 0
                AND near_duplicate_of = 0 AND (canonical = '' OR canonical = url)
                AND content_type IN ('text/html', 'application/xhtml+xml', 'application/pdf')
                AND (text <> '' OR title <> '') AS indexable
            FROM pages) s) i
    WHERE p.url_id = i.url_id;

CREATE INDEX pages_host ON pages (host);
CREATE INDEX pages_type ON pages (doc_type);
CREATE INDEX pages_search ON pages USING gin (search);
