-- Inbound anchor texts get full-text tables of their own. A page's title
-- and text are indexed in pages_fts (pages_top for the search tier), its
-- anchor texts in anchors_fts (anchors_top), under the same key. Links to
-- a page mostly arrive after it was indexed: with one table, the rank
-- pass deleted and tokenized again each such page's whole text to change
-- its anchors; now it rewrites the anchors' row alone. Search evaluates a
-- query over both tables and ranks by bm25 over their union (see
-- ftsmatch.go), so what matches and how it scores are as with one table.
DROP TABLE pages_fts;
CREATE VIRTUAL TABLE pages_fts USING fts5(title, body, content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 0');
INSERT INTO pages_fts (pages_fts, rank) VALUES ('hashsize', 8388608);
DROP TABLE pages_top;
CREATE VIRTUAL TABLE pages_top USING fts5(title, body, content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 0');
INSERT INTO pages_top (pages_top, rank) VALUES ('hashsize', 8388608);
DROP TABLE IF EXISTS anchors_fts;
CREATE VIRTUAL TABLE anchors_fts USING fts5(anchors, content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 0');
DROP TABLE IF EXISTS anchors_top;
CREATE VIRTUAL TABLE anchors_top USING fts5(anchors, content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 0');
DELETE FROM search_tier;
DELETE FROM search_docs;

-- The index is rebuilt from the pages at the next open.
INSERT OR IGNORE INTO maintenance (task) SELECT 'reindex' WHERE EXISTS (SELECT 1 FROM pages);
