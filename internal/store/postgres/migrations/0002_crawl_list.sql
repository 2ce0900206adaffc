-- The crawl list: sitemap URLs, sitemap dates, inbound links, per-host
-- outcomes, trap flags and metrics over time. Columns added with a
-- constant default do not rewrite the tables.

ALTER TABLE urls ADD COLUMN kind SMALLINT NOT NULL DEFAULT 0;        -- crawl.Kind: 0 page, 1 sitemap
ALTER TABLE urls ADD COLUMN lastmod BIGINT NOT NULL DEFAULT 0;       -- sitemap <lastmod>, Unix ms
ALTER TABLE urls ADD COLUMN changefreq TEXT NOT NULL DEFAULT '';     -- sitemap <changefreq>
ALTER TABLE urls ADD COLUMN inlinks INTEGER NOT NULL DEFAULT 0;      -- distinct fetched pages linking here

ALTER TABLE hosts ADD COLUMN s2xx BIGINT NOT NULL DEFAULT 0;
ALTER TABLE hosts ADD COLUMN s3xx BIGINT NOT NULL DEFAULT 0;
ALTER TABLE hosts ADD COLUMN s4xx BIGINT NOT NULL DEFAULT 0;
ALTER TABLE hosts ADD COLUMN s5xx BIGINT NOT NULL DEFAULT 0;
ALTER TABLE hosts ADD COLUMN duplicates BIGINT NOT NULL DEFAULT 0;
ALTER TABLE hosts ADD COLUMN blocked BIGINT NOT NULL DEFAULT 0;
ALTER TABLE hosts ADD COLUMN discovered BIGINT NOT NULL DEFAULT 0;
ALTER TABLE hosts ADD COLUMN trap TEXT NOT NULL DEFAULT '';

-- The priority of the host's best queued URL, so that the best hosts are
-- leased first (-1000000000: none). It is an upper bound: raised when URLs
-- are admitted or return to the queue, recomputed from the next queued URL
-- when URLs are claimed; a bonus for inbound links does not raise it.
ALTER TABLE hosts ADD COLUMN top_priority INTEGER NOT NULL DEFAULT -1000000000;
UPDATE hosts h SET top_priority = q.top
    FROM (SELECT host_id, max(priority) AS top FROM urls WHERE state = 0 GROUP BY host_id) q
    WHERE h.id = q.host_id;
-- Hosts ready to be leased, the best first: ClaimHosts reads those whose
-- next fetch time has come from here (checking next_fetch_at in the index)
-- and the others, earliest first, from hosts_ready.
CREATE INDEX hosts_best ON hosts (top_priority DESC, next_fetch_at, id) WHERE queued > 0 AND lease_owner IS NULL;

-- Fetches with no usable response, per host and error kind. Only a
-- transaction holding the host row writes its rows.
CREATE TABLE host_errors (
    host_id BIGINT NOT NULL,
    kind    TEXT   NOT NULL,
    count   BIGINT NOT NULL,
    PRIMARY KEY (host_id, kind)
);

ALTER TABLE pages ADD COLUMN blocked BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE pages ADD COLUMN error_kind TEXT NOT NULL DEFAULT '';

-- One row per process and interval.
CREATE TABLE metrics (
    at          BIGINT NOT NULL,
    owner       TEXT   NOT NULL,
    interval_ms BIGINT NOT NULL,
    fetched     BIGINT NOT NULL,
    useful      BIGINT NOT NULL,
    duplicates  BIGINT NOT NULL,
    blocked     BIGINT NOT NULL,
    errors      BIGINT NOT NULL,
    discovered  BIGINT NOT NULL,
    new         BIGINT NOT NULL,
    known       BIGINT NOT NULL,
    bytes       BIGINT NOT NULL,
    frontier    BIGINT NOT NULL,
    reserved    BIGINT NOT NULL,
    total_bytes BIGINT NOT NULL
);
CREATE INDEX metrics_at ON metrics (at);
