-- Near-duplicate candidates come from four covering band indexes, each
-- holding only the pages a new page can be a near-duplicate of (SimHash
-- set, not a duplicate or near-duplicate itself). The lookup reads one
-- range of each index and no table row (the duplicate columns are in the
-- index, always 0, so that SQLite sees it covers the query); the
-- single-column indexes of
-- 0003 let the planner answer the four-way OR with a scan of one whole
-- index and a table row per page, quadratic over a crawl.
DROP INDEX pages_band0;
DROP INDEX pages_band1;
DROP INDEX pages_band2;
DROP INDEX pages_band3;
CREATE INDEX pages_near0 ON pages (band0, simhash, duplicate_of, near_duplicate_of) WHERE simhash <> 0 AND duplicate_of = 0 AND near_duplicate_of = 0;
CREATE INDEX pages_near1 ON pages (band1, simhash, duplicate_of, near_duplicate_of) WHERE simhash <> 0 AND duplicate_of = 0 AND near_duplicate_of = 0;
CREATE INDEX pages_near2 ON pages (band2, simhash, duplicate_of, near_duplicate_of) WHERE simhash <> 0 AND duplicate_of = 0 AND near_duplicate_of = 0;
CREATE INDEX pages_near3 ON pages (band3, simhash, duplicate_of, near_duplicate_of) WHERE simhash <> 0 AND duplicate_of = 0 AND near_duplicate_of = 0;
