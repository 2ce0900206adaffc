-- The full-text indexes keep no copy of the text. FTS5 stored every
-- indexed page's title, text and anchor texts a second time, a quarter of
-- the database; they become contentless tables that take deletes
-- (contentless_delete): a row leaves the index without its old text being
-- read and tokenized again, which halves what rewriting a page costs when
-- its anchor texts grow. A document's text is its page's (pages.main_text,
-- else pages.text); its title and anchor texts, as indexed, are kept in
-- search_docs, one row per page in the index. Search snippets are made from
-- these (see snippets).
DROP TABLE pages_fts;
CREATE VIRTUAL TABLE pages_fts USING fts5(title, body, anchors, content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 0');
INSERT INTO pages_fts (pages_fts, rank) VALUES ('rank', 'bm25(10.0, 1.0, 4.0)');
INSERT INTO pages_fts (pages_fts, rank) VALUES ('hashsize', 8388608);
DROP TABLE pages_top;
CREATE VIRTUAL TABLE pages_top USING fts5(title, body, anchors, content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 0');
INSERT INTO pages_top (pages_top, rank) VALUES ('rank', 'bm25(10.0, 1.0, 4.0)');
INSERT INTO pages_top (pages_top, rank) VALUES ('hashsize', 8388608);
DELETE FROM search_tier;

CREATE TABLE IF NOT EXISTS search_docs (
    key     INTEGER PRIMARY KEY, -- the page's full-text key (ftsKey)
    title   TEXT    NOT NULL,
    anchors TEXT    NOT NULL
);
DELETE FROM search_docs;

-- The index is rebuilt from the pages at the next open.
INSERT OR IGNORE INTO maintenance (task) SELECT 'reindex' WHERE EXISTS (SELECT 1 FROM pages);
