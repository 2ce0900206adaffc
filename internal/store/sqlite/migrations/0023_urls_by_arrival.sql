-- urls is stored in the order URLs arrive, not by URL ID: a batch of new
-- URLs is appended to a few pages at the end of the table, instead of
-- dirtying one page for each URL (URL IDs are hashes below their host
-- bits, so a batch falls on as many table pages as it has URLs, each
-- written to the write-ahead log and again at checkpoint). The table's
-- rowid is implicit, assigned in arrival order; urls_id finds a URL by ID
-- (its entries are a tenth of a row: the page per URL that remains is
-- that index's). Existing rows are copied host by host in their queue
-- order, so that a host's URLs start out together. Re-runnable: a second
-- run copies the table again.
-- (A database made older by lowering its version, as tests do, may lack
-- seq, which migration 0037 drops: it is added back, and the rowid breaks
-- the ties.)
ALTER TABLE urls ADD COLUMN IF NOT EXISTS seq INTEGER NOT NULL DEFAULT 0;
DROP TABLE IF EXISTS urls_by_arrival;
CREATE TABLE urls_by_arrival (
    id            INTEGER NOT NULL,
    url           TEXT    NOT NULL,
    host_id       INTEGER NOT NULL,
    depth         INTEGER NOT NULL,
    priority      INTEGER NOT NULL,
    state         INTEGER NOT NULL,
    via           TEXT    NOT NULL,
    parent_id     INTEGER NOT NULL DEFAULT 0,
    seq           INTEGER NOT NULL,
    attempts      INTEGER NOT NULL DEFAULT 0,
    retry_at      INTEGER NOT NULL DEFAULT 0,
    discovered_at INTEGER NOT NULL,
    fetched_at    INTEGER NOT NULL DEFAULT 0,
    error         TEXT,
    kind          INTEGER NOT NULL DEFAULT 0,
    lastmod       INTEGER NOT NULL DEFAULT 0,
    changefreq    TEXT    NOT NULL DEFAULT '',
    inlinks       INTEGER NOT NULL DEFAULT 0
);
INSERT INTO urls_by_arrival (id, url, host_id, depth, priority, state, via, parent_id, seq, attempts, retry_at,
        discovered_at, fetched_at, error, kind, lastmod, changefreq, inlinks)
    SELECT id, url, host_id, depth, priority, state, via, parent_id, seq, attempts, retry_at,
        discovered_at, fetched_at, error, kind, lastmod, changefreq, inlinks
    FROM urls ORDER BY host_id, seq, rowid;
DROP TABLE urls;
ALTER TABLE urls_by_arrival RENAME TO urls;
CREATE UNIQUE INDEX urls_id ON urls (id);
CREATE INDEX urls_queue ON urls (host_id, priority DESC, seq) WHERE state = 0;
CREATE INDEX urls_inflight ON urls (host_id) WHERE state = 1;
CREATE INDEX urls_host_fetched ON urls (host_id, fetched_at) WHERE fetched_at > 0;
