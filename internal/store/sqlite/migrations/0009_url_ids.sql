-- URL IDs begin with bits of their host's ID (crawl.URLID), so that the
-- URLs of a host sit together in the tables and indexes ordered by them.
-- Every URL ID is computed again from its URL (acrawler_url_id, a function
-- the store registers), and the columns that refer to URLs follow. The
-- full-text indexes, keyed by a rotation of the URL ID (ftsKey), are
-- emptied here and rebuilt from the pages when the store next opens: the
-- task 'reindex' in the new table maintenance.
CREATE TEMP TABLE idmap (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);
INSERT INTO idmap (old, new) SELECT id, acrawler_url_id(url) FROM urls;
DELETE FROM idmap WHERE old = new;

UPDATE urls SET id = (SELECT new FROM idmap WHERE old = urls.id) WHERE id IN (SELECT old FROM idmap);
UPDATE urls SET parent_id = (SELECT new FROM idmap WHERE old = urls.parent_id) WHERE parent_id IN (SELECT old FROM idmap);
UPDATE pages SET url_id = (SELECT new FROM idmap WHERE old = pages.url_id) WHERE url_id IN (SELECT old FROM idmap);
UPDATE pages SET duplicate_of = (SELECT new FROM idmap WHERE old = pages.duplicate_of) WHERE duplicate_of IN (SELECT old FROM idmap);
UPDATE pages SET near_duplicate_of = (SELECT new FROM idmap WHERE old = pages.near_duplicate_of) WHERE near_duplicate_of IN (SELECT old FROM idmap);
UPDATE content_hashes SET url_id = (SELECT new FROM idmap WHERE old = content_hashes.url_id) WHERE url_id IN (SELECT old FROM idmap);
UPDATE page_history SET url_id = (SELECT new FROM idmap WHERE old = page_history.url_id) WHERE url_id IN (SELECT old FROM idmap);
UPDATE outbox SET url_id = (SELECT new FROM idmap WHERE old = outbox.url_id) WHERE url_id IN (SELECT old FROM idmap);
UPDATE links SET source_id = (SELECT new FROM idmap WHERE old = links.source_id) WHERE source_id IN (SELECT old FROM idmap);
UPDATE links SET target_id = acrawler_url_id(target) WHERE target <> '' AND target_id <> acrawler_url_id(target);
DROP TABLE idmap;

DROP TABLE pages_fts;
CREATE VIRTUAL TABLE pages_fts USING fts5(title, body, anchors, tokenize = 'unicode61 remove_diacritics 0');
INSERT INTO pages_fts (pages_fts, rank) VALUES ('rank', 'bm25(10.0, 1.0, 4.0)');
DROP TABLE pages_top;
CREATE VIRTUAL TABLE pages_top USING fts5(title, body, anchors, tokenize = 'unicode61 remove_diacritics 0');
INSERT INTO pages_top (pages_top, rank) VALUES ('rank', 'bm25(10.0, 1.0, 4.0)');
DELETE FROM search_tier;

CREATE TABLE IF NOT EXISTS maintenance (task TEXT PRIMARY KEY);
INSERT OR IGNORE INTO maintenance (task) SELECT 'reindex' WHERE EXISTS (SELECT 1 FROM pages);
