-- Link-graph ranks move out of the page rows into a narrow table. Setting
-- the ranks after a crawl updated every page row (about 1 KB each, with
-- nine indexes, pages_search holding the rank) one at a time; ranks is
-- written by one insert in URL ID order instead. pages.pagerank stays, 0,
-- for older programs' queries.
CREATE TABLE IF NOT EXISTS ranks (
    url_id INTEGER PRIMARY KEY,
    rank   REAL    NOT NULL
);
INSERT INTO ranks (url_id, rank)
    SELECT url_id, pagerank FROM pages WHERE pagerank <> 0 ORDER BY url_id
    ON CONFLICT (url_id) DO UPDATE SET rank = excluded.rank;
UPDATE pages SET pagerank = 0 WHERE pagerank <> 0;
