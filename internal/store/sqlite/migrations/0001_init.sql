-- Frontier, hosts, pages, links and duplicate hashes of one crawl.
-- Times are Unix milliseconds; IDs are crawl.HashID values.

CREATE TABLE hosts (
    id                INTEGER PRIMARY KEY,
    key               TEXT    NOT NULL,
    next_fetch_at     INTEGER NOT NULL DEFAULT 0,
    delay_ms          INTEGER NOT NULL DEFAULT 0,
    backoff           INTEGER NOT NULL DEFAULT 0,
    robots_status     INTEGER,
    robots_body       BLOB,
    robots_fetched_at INTEGER,
    robots_expires_at INTEGER,
    robots_failures   INTEGER NOT NULL DEFAULT 0,
    admitted          INTEGER NOT NULL DEFAULT 0,
    queued            INTEGER NOT NULL DEFAULT 0,
    fetched           INTEGER NOT NULL DEFAULT 0,
    bytes             INTEGER NOT NULL DEFAULT 0,
    lease_owner       TEXT,
    lease_until       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX hosts_ready ON hosts (next_fetch_at) WHERE queued > 0;
CREATE INDEX hosts_leased ON hosts (lease_until) WHERE lease_owner IS NOT NULL;

CREATE TABLE urls (
    id            INTEGER PRIMARY KEY,
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
    error         TEXT
);
-- The frontier: the best queued URLs of a host, in order.
CREATE INDEX urls_queue ON urls (host_id, priority DESC, seq) WHERE state = 0;
CREATE INDEX urls_inflight ON urls (host_id) WHERE state = 1;

CREATE TABLE pages (
    url_id        INTEGER PRIMARY KEY,
    url           TEXT    NOT NULL,
    status        INTEGER NOT NULL,
    content_type  TEXT    NOT NULL DEFAULT '',
    charset       TEXT    NOT NULL DEFAULT '',
    title         TEXT    NOT NULL DEFAULT '',
    text          TEXT    NOT NULL DEFAULT '',
    lang          TEXT    NOT NULL DEFAULT '',
    content_hash  BLOB,
    duplicate_of  INTEGER NOT NULL DEFAULT 0,
    canonical     TEXT    NOT NULL DEFAULT '',
    redirect_to   TEXT    NOT NULL DEFAULT '',
    noindex       INTEGER NOT NULL DEFAULT 0,
    nofollow      INTEGER NOT NULL DEFAULT 0,
    bytes         INTEGER NOT NULL DEFAULT 0,
    wire_bytes    INTEGER NOT NULL DEFAULT 0,
    etag          TEXT    NOT NULL DEFAULT '',
    last_modified TEXT    NOT NULL DEFAULT '',
    fetched_at    INTEGER NOT NULL,
    duration_ms   INTEGER NOT NULL DEFAULT 0,
    error         TEXT    NOT NULL DEFAULT ''
);

-- Exact-duplicate detection: the first URL seen with each content hash.
CREATE TABLE content_hashes (
    hash   BLOB    PRIMARY KEY,
    url_id INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE links (
    source_id INTEGER NOT NULL,
    target_id INTEGER NOT NULL,
    target    TEXT    NOT NULL,
    anchor    TEXT    NOT NULL DEFAULT '',
    nofollow  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (source_id, target_id)
) WITHOUT ROWID;
CREATE INDEX links_target ON links (target_id);

-- Crawl-wide counters, kept in step with every state change.
CREATE TABLE counters (
    name  TEXT    PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO counters (name, value) VALUES
    ('queued', 0), ('inflight', 0), ('done', 0), ('failed', 0),
    ('disallowed', 0), ('skipped', 0), ('reserved', 0), ('bytes', 0),
    ('pages', 0), ('links', 0), ('duplicates', 0), ('seq', 0);
