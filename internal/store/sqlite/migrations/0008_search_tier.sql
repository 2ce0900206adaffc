-- The search tier: a second, small full-text index with the same columns
-- for the indexed pages of highest link-graph rank (one in 10, at most
-- 10,000: tierShare and tierSize in search.go), chosen by each rank pass.
-- It ranks the matches of queries that match too many pages to rank them
-- all (see Search). search_tier lists its pages; pages_top is their
-- full-text index, ranked like pages_fts.
CREATE TABLE search_tier (url_id INTEGER PRIMARY KEY);
CREATE VIRTUAL TABLE pages_top USING fts5(title, body, anchors, tokenize = 'unicode61 remove_diacritics 0');
INSERT INTO pages_top (pages_top, rank) VALUES ('rank', 'bm25(10.0, 1.0, 4.0)');
INSERT INTO search_tier (url_id)
    SELECT p.url_id FROM pages p WHERE EXISTS (SELECT 1 FROM pages_fts f WHERE f.rowid = p.url_id)
    ORDER BY p.pagerank DESC, p.url_id LIMIT min(10000, ((SELECT count(*) FROM pages_fts_docsize) + 9) / 10);
INSERT INTO pages_top (rowid, title, body, anchors)
    SELECT f.rowid, f.title, f.body, f.anchors FROM search_tier s CROSS JOIN pages_fts f ON f.rowid = s.url_id ORDER BY s.url_id;

-- The columns a search reads for each match (filters, facets, rank) in
-- one covering index: in the table they sit behind the page's text, in
-- overflow pages that a lookup reads through.
CREATE INDEX pages_search ON pages (url_id, host, doc_type, lang, year, pagerank);
