-- pages_search also holds the columns a host's value is computed from
-- (status, duplicate_of, near_duplicate_of, with doc_type it had): in the
-- table they sit behind the page's text, in overflow pages, and valuing a
-- host read its last 200 pages through them at every claim of it (a
-- third of a crawl's CPU). A search reads the index as before.
DROP INDEX IF EXISTS pages_search;
CREATE INDEX pages_search ON pages (url_id, host, doc_type, lang, year, pagerank, status, duplicate_of, near_duplicate_of);
