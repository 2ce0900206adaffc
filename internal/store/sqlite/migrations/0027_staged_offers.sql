-- offers holds URLs offered to the frontier and not yet decided on
-- (StageURLs): appended in offer order (the rowid), a few pages a batch,
-- and merged into urls when large, sorted by URL ID, so that each page of
-- urls_id, urls_queue and hosts is written about once a merge, not once
-- for each batch of offers. host is the host's key on the first offer of
-- a host in a batch (NULL on the others); cap is the host cap
-- (Limits.MaxPagesPerHost) the offer was made under, 0 for none.
CREATE TABLE IF NOT EXISTS offers (
    id            INTEGER NOT NULL,
    url           TEXT    NOT NULL,
    host_id       INTEGER NOT NULL,
    host          TEXT,
    depth         INTEGER NOT NULL,
    priority      INTEGER NOT NULL,
    via           TEXT    NOT NULL,
    parent_id     INTEGER NOT NULL,
    discovered_at INTEGER NOT NULL,
    kind          INTEGER NOT NULL,
    lastmod       INTEGER NOT NULL,
    changefreq    TEXT    NOT NULL,
    cap           INTEGER NOT NULL
);
