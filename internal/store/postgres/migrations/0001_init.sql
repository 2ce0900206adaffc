-- Frontier, hosts, pages, links and duplicate hashes of one crawl.
-- Times are Unix milliseconds; IDs are crawl.HashID values. The layout
-- mirrors the SQLite store so that both backends behave the same.

CREATE TABLE hosts (
    id                BIGINT  PRIMARY KEY,
    key               TEXT    NOT NULL,
    next_fetch_at     BIGINT  NOT NULL DEFAULT 0,
    delay_ms          BIGINT  NOT NULL DEFAULT 0,
    backoff           INTEGER NOT NULL DEFAULT 0,
    robots_status     INTEGER,
    robots_body       BYTEA,
    robots_fetched_at BIGINT,
    robots_expires_at BIGINT,
    robots_failures   INTEGER NOT NULL DEFAULT 0,
    admitted          BIGINT  NOT NULL DEFAULT 0,
    queued            BIGINT  NOT NULL DEFAULT 0,
    fetched           BIGINT  NOT NULL DEFAULT 0,
    bytes             BIGINT  NOT NULL DEFAULT 0,
    lease_owner       TEXT,
    lease_session     BIGINT  NOT NULL DEFAULT 0, -- the store handle (Open) the owner leased through
    lease_until       BIGINT  NOT NULL DEFAULT 0
);
-- Hosts ready to be leased, earliest next fetch first.
CREATE INDEX hosts_ready ON hosts (next_fetch_at, id) WHERE queued > 0 AND lease_owner IS NULL;
-- Leased hosts, to find expired leases.
CREATE INDEX hosts_leased ON hosts (lease_until) WHERE lease_owner IS NOT NULL;

-- Discovery order across every process sharing the crawl.
CREATE SEQUENCE urls_seq;

CREATE TABLE urls (
    id            BIGINT   PRIMARY KEY,
    url           TEXT     NOT NULL,
    host_id       BIGINT   NOT NULL,
    depth         INTEGER  NOT NULL,
    priority      INTEGER  NOT NULL,
    state         SMALLINT NOT NULL,
    via           TEXT     NOT NULL,
    parent_id     BIGINT   NOT NULL DEFAULT 0,
    seq           BIGINT   NOT NULL DEFAULT nextval('urls_seq'),
    attempts      INTEGER  NOT NULL DEFAULT 0,
    retry_at      BIGINT   NOT NULL DEFAULT 0,
    discovered_at BIGINT   NOT NULL,
    fetched_at    BIGINT   NOT NULL DEFAULT 0,
    claimed_at    BIGINT   NOT NULL DEFAULT 0, -- when it last went in flight
    error         TEXT
);
ALTER SEQUENCE urls_seq OWNED BY urls.seq;
-- The frontier: the best queued URLs of a host, in order.
CREATE INDEX urls_queue ON urls (host_id, priority DESC, seq) WHERE state = 0;
CREATE INDEX urls_inflight ON urls (host_id) WHERE state = 1;

CREATE TABLE pages (
    url_id        BIGINT  PRIMARY KEY,
    url           TEXT    NOT NULL,
    status        INTEGER NOT NULL,
    content_type  TEXT    NOT NULL DEFAULT '',
    charset       TEXT    NOT NULL DEFAULT '',
    title         TEXT    NOT NULL DEFAULT '',
    text          TEXT    NOT NULL DEFAULT '',
    lang          TEXT    NOT NULL DEFAULT '',
    content_hash  BYTEA,
    duplicate_of  BIGINT  NOT NULL DEFAULT 0,
    canonical     TEXT    NOT NULL DEFAULT '',
    redirect_to   TEXT    NOT NULL DEFAULT '',
    noindex       BOOLEAN NOT NULL DEFAULT false,
    nofollow      BOOLEAN NOT NULL DEFAULT false,
    bytes         BIGINT  NOT NULL DEFAULT 0,
    wire_bytes    BIGINT  NOT NULL DEFAULT 0,
    etag          TEXT    NOT NULL DEFAULT '',
    last_modified TEXT    NOT NULL DEFAULT '',
    fetched_at    BIGINT  NOT NULL,
    duration_ms   BIGINT  NOT NULL DEFAULT 0,
    error         TEXT    NOT NULL DEFAULT ''
);

-- Exact-duplicate detection: the first URL seen with each content hash.
CREATE TABLE content_hashes (
    hash   BYTEA  PRIMARY KEY,
    url_id BIGINT NOT NULL
);

CREATE TABLE links (
    source_id BIGINT  NOT NULL,
    target_id BIGINT  NOT NULL,
    target    TEXT    NOT NULL,
    anchor    TEXT    NOT NULL DEFAULT '',
    nofollow  BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (source_id, target_id)
);
CREATE INDEX links_target ON links (target_id);

-- Crawl-wide counters, kept in step with every state change: the figures
-- are the sums over all rows. Each write transaction adds its deltas, once,
-- as its last statement, to a row (slot) no concurrent transaction uses, so
-- that commits from several processes never queue behind one hot row.
-- Opening a store folds the rows into slot 0.
CREATE TABLE counters (
    slot       BIGINT PRIMARY KEY,
    queued     BIGINT NOT NULL DEFAULT 0,
    inflight   BIGINT NOT NULL DEFAULT 0,
    done       BIGINT NOT NULL DEFAULT 0,
    failed     BIGINT NOT NULL DEFAULT 0,
    disallowed BIGINT NOT NULL DEFAULT 0,
    skipped    BIGINT NOT NULL DEFAULT 0,
    reserved   BIGINT NOT NULL DEFAULT 0,
    bytes      BIGINT NOT NULL DEFAULT 0,
    hosts      BIGINT NOT NULL DEFAULT 0,
    pages      BIGINT NOT NULL DEFAULT 0,
    links      BIGINT NOT NULL DEFAULT 0,
    duplicates BIGINT NOT NULL DEFAULT 0
);
INSERT INTO counters (slot) VALUES (0);
