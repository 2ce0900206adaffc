-- urls drops seq, and keeps via as a number. A host's queued URLs are
-- claimed by priority, then in the order they were admitted, which is now
-- their rowid's: URLs are inserted in that order within each host (the
-- copy below, host by host in seq order, makes it so for the rows there
-- are), so the queue index's entries no longer repeat it, nor the rows.
-- via is a way's number (viaCodes in via.go: 0 link, 1 seed, 2
-- redirect, 3 canonical, 4 sitemap, 5 archive; another way is kept as its
-- text); 0 and 1, the ways of nearly every URL, take no byte of the row
-- but the header's. The stage (offers) keeps via the same way; its rows
-- keep their rowids, which are the offers' order.
-- Re-runnable: over a table without seq (added back as 0), each host's
-- rows keep their rowid order; a via that is a number already is kept.
ALTER TABLE urls ADD COLUMN IF NOT EXISTS seq INTEGER NOT NULL DEFAULT 0;
DROP TABLE IF EXISTS urls_compact;
CREATE TABLE urls_compact (
    id            INTEGER NOT NULL,
    url           TEXT    NOT NULL,
    host_id       INTEGER NOT NULL,
    depth         INTEGER NOT NULL,
    priority      INTEGER NOT NULL,
    state         INTEGER NOT NULL,
    via           INTEGER NOT NULL,
    parent_id     INTEGER NOT NULL DEFAULT 0,
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
INSERT INTO urls_compact (id, url, host_id, depth, priority, state, via, parent_id, attempts, retry_at,
        discovered_at, fetched_at, error, kind, lastmod, changefreq, inlinks)
    SELECT id, url, host_id, depth, priority, state,
        CASE via WHEN 'link' THEN 0 WHEN 'seed' THEN 1 WHEN 'redirect' THEN 2 WHEN 'canonical' THEN 3
            WHEN 'sitemap' THEN 4 WHEN 'archive' THEN 5 ELSE via END,
        parent_id, attempts, retry_at, discovered_at, fetched_at, error, kind, lastmod, changefreq, inlinks
    FROM urls ORDER BY host_id, seq, rowid;
DROP TABLE urls;
ALTER TABLE urls_compact RENAME TO urls;
CREATE UNIQUE INDEX urls_id ON urls (id);
CREATE INDEX urls_queue ON urls (host_id, priority DESC) WHERE state = 0;
CREATE INDEX urls_inflight ON urls (host_id) WHERE state = 1;
CREATE INDEX urls_host_fetched ON urls (host_id, fetched_at) WHERE fetched_at > 0;
DELETE FROM counters WHERE name = 'seq';
DROP TABLE IF EXISTS offers_compact;
CREATE TABLE offers_compact (
    id            INTEGER NOT NULL,
    url           TEXT    NOT NULL,
    host_id       INTEGER NOT NULL,
    host          TEXT,
    depth         INTEGER NOT NULL,
    priority      INTEGER NOT NULL,
    via           INTEGER NOT NULL,
    parent_id     INTEGER NOT NULL,
    discovered_at INTEGER NOT NULL,
    kind          INTEGER NOT NULL,
    lastmod       INTEGER NOT NULL,
    changefreq    TEXT    NOT NULL,
    cap           INTEGER NOT NULL
);
INSERT INTO offers_compact (rowid, id, url, host_id, host, depth, priority, via, parent_id, discovered_at, kind,
        lastmod, changefreq, cap)
    SELECT rowid, id, url, host_id, host, depth, priority,
        CASE via WHEN 'link' THEN 0 WHEN 'seed' THEN 1 WHEN 'redirect' THEN 2 WHEN 'canonical' THEN 3
            WHEN 'sitemap' THEN 4 WHEN 'archive' THEN 5 ELSE via END,
        parent_id, discovered_at, kind, lastmod, changefreq, cap
    FROM offers ORDER BY rowid;
DROP TABLE offers;
ALTER TABLE offers_compact RENAME TO offers;
