-- Recrawl: each page's revisit schedule and existence, its check history,
-- recrawl runs, and the outbox of operations for an external index.
-- Columns added with a constant default do not rewrite the table.

ALTER TABLE pages ADD COLUMN gone SMALLINT NOT NULL DEFAULT 0;           -- crawl.Gone: 0 active, 1 removed, 2 inactive
ALTER TABLE pages ADD COLUMN checked_at BIGINT NOT NULL DEFAULT 0;      -- last revisit, Unix ms
ALTER TABLE pages ADD COLUMN next_check_at BIGINT NOT NULL DEFAULT 0;   -- when it is due again (0: never scheduled)
ALTER TABLE pages ADD COLUMN interval_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE pages ADD COLUMN misses INTEGER NOT NULL DEFAULT 0;         -- 404 answers in a row
ALTER TABLE pages ADD COLUMN unseen_runs INTEGER NOT NULL DEFAULT 0;    -- recrawls of its host it went unlinked
ALTER TABLE pages ADD COLUMN indexed_key TEXT NOT NULL DEFAULT '';      -- its document key in the external index
-- Active pages with a schedule, the earliest due first (ScheduleDue, DueCount).
CREATE INDEX pages_due ON pages (next_check_at, url_id) WHERE gone = 0 AND next_check_at > 0;

-- One row per check of a page with a schedule (crawl.Revisit).
CREATE TABLE page_history (
    url_id       BIGINT  NOT NULL,
    checked_at   BIGINT  NOT NULL,
    run          INTEGER NOT NULL,   -- 0: not a recrawl
    status       INTEGER NOT NULL,
    changed      BOOLEAN NOT NULL,   -- changed (or first fetch); false: unchanged (304 or same content)
    content_hash BYTEA,
    bytes        BIGINT  NOT NULL
);
CREATE INDEX page_history_url ON page_history (url_id, checked_at);
CREATE INDEX page_history_run ON page_history (run);

-- Recrawl runs, numbered 1, 2, ... by StartRun, and their figures.
CREATE TABLE runs (
    id           INTEGER PRIMARY KEY,
    started_at   BIGINT  NOT NULL,
    finished_at  BIGINT  NOT NULL DEFAULT 0,
    revisits     BIGINT  NOT NULL DEFAULT 0,
    not_modified BIGINT  NOT NULL DEFAULT 0,
    unchanged    BIGINT  NOT NULL DEFAULT 0,
    changed      BIGINT  NOT NULL DEFAULT 0,
    removed      BIGINT  NOT NULL DEFAULT 0,
    inactive     BIGINT  NOT NULL DEFAULT 0,
    new_pages    BIGINT  NOT NULL DEFAULT 0,
    bytes        BIGINT  NOT NULL DEFAULT 0,
    bytes_saved  BIGINT  NOT NULL DEFAULT 0,
    due_left     BIGINT  NOT NULL DEFAULT 0
);

-- Pending operations on the external index, handed out oldest (lowest
-- ID) first; an operation is leased until claimed_until (Unix ms).
CREATE TABLE outbox (
    id            BIGSERIAL PRIMARY KEY,
    url_id        BIGINT    NOT NULL,
    op            TEXT      NOT NULL,   -- upsert, delete
    doc_key       TEXT      NOT NULL,
    claimed_until BIGINT    NOT NULL DEFAULT 0
);
