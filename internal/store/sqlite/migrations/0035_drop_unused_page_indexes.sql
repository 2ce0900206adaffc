-- pages_host and pages_type served no query: every read that filters or
-- groups pages by host or type reaches them through pages_search (which
-- holds both after url_id) or by URL ID. Each cost an index entry per page
-- written.
DROP INDEX IF EXISTS pages_host;
DROP INDEX IF EXISTS pages_type;
