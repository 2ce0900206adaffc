-- Recrawl: each page's revisit schedule and existence, its check history,
-- recrawl runs, and the outbox of operations for an external index.

ALTER TABLE pages ADD COLUMN gone INTEGER NOT NULL DEFAULT 0;          -- crawl.Gone
ALTER TABLE pages ADD COLUMN checked_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE pages ADD COLUMN next_check_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE pages ADD COLUMN interval_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE pages ADD COLUMN misses INTEGER NOT NULL DEFAULT 0;        -- 404 answers in a row
ALTER TABLE pages ADD COLUMN unseen_runs INTEGER NOT NULL DEFAULT 0;   -- recrawls of its host it went unlinked
ALTER TABLE pages ADD COLUMN indexed_key TEXT NOT NULL DEFAULT '';     -- its document key in the external index
CREATE INDEX pages_due ON pages (next_check_at) WHERE gone = 0 AND next_check_at > 0;

CREATE TABLE page_history (
    url_id       INTEGER NOT NULL,
    checked_at   INTEGER NOT NULL,
    run          INTEGER NOT NULL,
    status       INTEGER NOT NULL,
    changed      INTEGER NOT NULL,   -- 1 changed (or first fetch), 0 unchanged (304 or same content)
    content_hash BLOB,
    bytes        INTEGER NOT NULL
);
CREATE INDEX page_history_url ON page_history (url_id, checked_at);
CREATE INDEX page_history_run ON page_history (run);

CREATE TABLE runs (
    id           INTEGER PRIMARY KEY,
    started_at   INTEGER NOT NULL,
    finished_at  INTEGER NOT NULL DEFAULT 0,
    revisits     INTEGER NOT NULL DEFAULT 0,
    not_modified INTEGER NOT NULL DEFAULT 0,
    unchanged    INTEGER NOT NULL DEFAULT 0,
    changed      INTEGER NOT NULL DEFAULT 0,
    removed      INTEGER NOT NULL DEFAULT 0,
    inactive     INTEGER NOT NULL DEFAULT 0,
    new_pages    INTEGER NOT NULL DEFAULT 0,
    bytes        INTEGER NOT NULL DEFAULT 0,
    bytes_saved  INTEGER NOT NULL DEFAULT 0,
    due_left     INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE outbox (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    url_id        INTEGER NOT NULL,
    op            TEXT    NOT NULL,     -- upsert, delete
    doc_key       TEXT    NOT NULL,
    claimed_until INTEGER NOT NULL DEFAULT 0
);
