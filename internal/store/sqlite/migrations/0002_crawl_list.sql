-- The crawl list: sitemap URLs, sitemap dates, inbound links, per-host
-- outcomes, trap flags and metrics over time.

ALTER TABLE urls ADD COLUMN kind INTEGER NOT NULL DEFAULT 0;        -- crawl.Kind: 0 page, 1 sitemap
ALTER TABLE urls ADD COLUMN lastmod INTEGER NOT NULL DEFAULT 0;     -- sitemap <lastmod>, Unix ms
ALTER TABLE urls ADD COLUMN changefreq TEXT NOT NULL DEFAULT '';    -- sitemap <changefreq>
ALTER TABLE urls ADD COLUMN inlinks INTEGER NOT NULL DEFAULT 0;     -- distinct fetched pages linking here

ALTER TABLE hosts ADD COLUMN s2xx INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hosts ADD COLUMN s3xx INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hosts ADD COLUMN s4xx INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hosts ADD COLUMN s5xx INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hosts ADD COLUMN duplicates INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hosts ADD COLUMN blocked INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hosts ADD COLUMN discovered INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hosts ADD COLUMN trap TEXT NOT NULL DEFAULT '';
-- The priority of the host's best queued URL (an upper bound: it may lag
-- behind when URLs are claimed), so the best hosts are leased first.
ALTER TABLE hosts ADD COLUMN top_priority INTEGER NOT NULL DEFAULT -1000000000;

-- Fetches with no usable response, per host and error kind.
CREATE TABLE host_errors (
    host_id INTEGER NOT NULL,
    kind    TEXT    NOT NULL,
    count   INTEGER NOT NULL,
    PRIMARY KEY (host_id, kind)
) WITHOUT ROWID;

ALTER TABLE pages ADD COLUMN blocked INTEGER NOT NULL DEFAULT 0;
ALTER TABLE pages ADD COLUMN error_kind TEXT NOT NULL DEFAULT '';

-- One row per process and interval.
CREATE TABLE metrics (
    at          INTEGER NOT NULL,
    owner       TEXT    NOT NULL,
    interval_ms INTEGER NOT NULL,
    fetched     INTEGER NOT NULL,
    useful      INTEGER NOT NULL,
    duplicates  INTEGER NOT NULL,
    blocked     INTEGER NOT NULL,
    errors      INTEGER NOT NULL,
    discovered  INTEGER NOT NULL,
    new         INTEGER NOT NULL,
    known       INTEGER NOT NULL,
    bytes       INTEGER NOT NULL,
    frontier    INTEGER NOT NULL,
    reserved    INTEGER NOT NULL,
    total_bytes INTEGER NOT NULL
);
CREATE INDEX metrics_at ON metrics (at);
