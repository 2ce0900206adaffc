-- The documents written to search_docs whose rows are not yet written to
-- pages_fts (Options.IndexDelay, pending.go), with the time, in Unix
-- milliseconds, their page was committed, and whether pages_fts still
-- holds the row of the page's previous document (written over when this
-- one is). A key of search_docs has its row in pages_fts or is here.
CREATE TABLE IF NOT EXISTS search_pending (
    key     INTEGER PRIMARY KEY,
    at      INTEGER NOT NULL,
    indexed INTEGER NOT NULL DEFAULT 0
);
