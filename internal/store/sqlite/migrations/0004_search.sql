-- Search: the embedded full-text index (FTS5), written in the same
-- transactions as the pages, and the link-graph rank of each page.

ALTER TABLE pages ADD COLUMN host TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN pagerank REAL NOT NULL DEFAULT 0;
UPDATE pages SET host = substr(url, 1, instr(substr(url, instr(url, '://') + 3), '/') + instr(url, '://') + 1);
CREATE INDEX pages_host ON pages (host);
CREATE INDEX pages_type ON pages (doc_type);

-- One row per indexable page (rowid = the page's URL ID): its title, its
-- main text (or visible text) and the anchor texts of links to it.
CREATE VIRTUAL TABLE pages_fts USING fts5(title, body, anchors, tokenize = 'unicode61 remove_diacritics 0');
-- Rank with bm25 weighted by column: title 10, body 1, anchors 4.
INSERT INTO pages_fts (pages_fts, rank) VALUES ('rank', 'bm25(10.0, 1.0, 4.0)');
