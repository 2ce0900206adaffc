-- urls and offers keep a URL's text without its host's origin: a
-- normalized URL begins with its host key, "scheme://host[:port]", which
-- hosts.key holds once for all the host's URLs. The text kept is what
-- follows the key ("", or text beginning with "/", "?" or "#"); a URL
-- that does not begin so with its host's key is kept whole behind a "!"
-- (urltext.go). urls is copied once more, in its arrival order (rowids
-- kept), so that its rows are rewritten to their new size; the stage is
-- rewritten in place, after the hosts it names (as a merge would insert
-- them first). Re-runnable: a text kept relative or whole already (empty,
-- or beginning with "/", "?", "#" or "!") is kept as it is.
INSERT INTO hosts (id, key) SELECT host_id, host FROM offers WHERE host IS NOT NULL
    ORDER BY host_id ON CONFLICT (id) DO NOTHING;
UPDATE offers SET url = CASE
        WHEN url = '' OR substr(url, 1, 1) IN ('/', '?', '#', '!') THEN url
        WHEN k.key IS NOT NULL AND substr(url, 1, length(k.key)) = k.key
            AND substr(url, length(k.key) + 1, 1) IN ('', '/', '?', '#') THEN substr(url, length(k.key) + 1)
        ELSE '!' || url END
    FROM (SELECT o.rowid AS ord, h.key FROM offers o LEFT JOIN hosts h ON h.id = o.host_id) AS k
    WHERE k.ord = offers.rowid;
-- (A database made older by lowering its version, as tests do, may lack
-- seq, which migration 0037 drops: it is added back.)
ALTER TABLE urls ADD COLUMN IF NOT EXISTS seq INTEGER NOT NULL DEFAULT 0;
DROP TABLE IF EXISTS urls_relative;
CREATE TABLE urls_relative (
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
INSERT INTO urls_relative (rowid, id, url, host_id, depth, priority, state, via, parent_id, seq, attempts, retry_at,
        discovered_at, fetched_at, error, kind, lastmod, changefreq, inlinks)
    SELECT u.rowid, u.id, CASE
            WHEN u.url = '' OR substr(u.url, 1, 1) IN ('/', '?', '#', '!') THEN u.url
            WHEN h.key IS NOT NULL AND substr(u.url, 1, length(h.key)) = h.key
                AND substr(u.url, length(h.key) + 1, 1) IN ('', '/', '?', '#') THEN substr(u.url, length(h.key) + 1)
            ELSE '!' || u.url END,
        u.host_id, u.depth, u.priority, u.state, u.via, u.parent_id, u.seq, u.attempts, u.retry_at,
        u.discovered_at, u.fetched_at, u.error, u.kind, u.lastmod, u.changefreq, u.inlinks
    FROM urls u LEFT JOIN hosts h ON h.id = u.host_id ORDER BY u.rowid;
DROP TABLE urls;
ALTER TABLE urls_relative RENAME TO urls;
CREATE UNIQUE INDEX urls_id ON urls (id);
CREATE INDEX urls_queue ON urls (host_id, priority DESC, seq) WHERE state = 0;
CREATE INDEX urls_inflight ON urls (host_id) WHERE state = 1;
CREATE INDEX urls_host_fetched ON urls (host_id, fetched_at) WHERE fetched_at > 0;
