-- ANALYZE keeps no statistics of the search vectors. Their statistics (the
-- most common lexemes) took nearly all of an analysis of pages: each
-- sampled row's vector read whole and counted, 0.6 s for 8,000 pages of
-- 7 KB, against 2 ms with them left out; the store analyzes pages each
-- time the table grows by a fifth. No plan reads them: the one statement
-- that matches vectors (search) takes its query from a CTE, and
-- PostgreSQL estimates such a match with a fixed selectivity, whatever
-- the statistics hold. Statistics an earlier analysis kept stay as they
-- are, unused.
ALTER TABLE pages ALTER COLUMN search SET STATISTICS 0;
