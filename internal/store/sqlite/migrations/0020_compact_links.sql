-- Compact links: a page's outlinks become one row, the targets as sorted
-- uvarint deltas of their URL IDs with their anchors and nofollow flags
-- (package outlinks), instead of a row per link carrying the target's URL
-- text and an entry in links_target. Inbound links are (target, source)
-- pairs in inlinks; the text of a target that urls does not hold (a link
-- out of the crawl) is kept once in link_urls. The old table stays,
-- empty and without its index, for the migrations before this one, which
-- read and write it when they run again; every insert here skips what is
-- there, so this one runs again too.
CREATE TABLE IF NOT EXISTS outlinks (
    source_id INTEGER PRIMARY KEY,
    links     BLOB    NOT NULL
);
CREATE TABLE IF NOT EXISTS inlinks (
    target_id INTEGER NOT NULL,
    source_id INTEGER NOT NULL,
    PRIMARY KEY (target_id, source_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS link_urls (
    id  INTEGER PRIMARY KEY,
    url TEXT    NOT NULL
);
INSERT INTO outlinks (source_id, links)
    SELECT source_id, acrawler_outlinks(target_id, anchor, nofollow) FROM links GROUP BY source_id ORDER BY source_id
    ON CONFLICT (source_id) DO NOTHING;
INSERT INTO inlinks (target_id, source_id)
    SELECT target_id, source_id FROM links ORDER BY target_id, source_id
    ON CONFLICT (target_id, source_id) DO NOTHING;
INSERT INTO link_urls (id, url)
    SELECT target_id, min(target) FROM links
    WHERE target <> '' AND NOT EXISTS (SELECT 1 FROM urls u WHERE u.id = links.target_id)
    GROUP BY target_id ORDER BY target_id
    ON CONFLICT (id) DO NOTHING;
DROP INDEX IF EXISTS links_target;
DELETE FROM links;
