-- Works: the recorded pages that are copies of one scholarly work, joined
-- at commit time (package works). A work's record is its copies' metadata
-- merged, as JSON; a copy's row keeps the metadata it stated, as JSON, for
-- the work to be merged again; keys index copies by DOI, main title with
-- first author, and PDF URL, for a new copy to find its work.
CREATE TABLE IF NOT EXISTS works (
    id     BIGSERIAL PRIMARY KEY,
    title  TEXT    NOT NULL DEFAULT '',
    year   INTEGER NOT NULL DEFAULT 0,
    doi    TEXT    NOT NULL DEFAULT '',
    copies INTEGER NOT NULL DEFAULT 0,
    record TEXT    NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS work_copies (
    page_id BIGINT PRIMARY KEY,
    work_id BIGINT NOT NULL,
    copy    TEXT   NOT NULL
);
CREATE INDEX IF NOT EXISTS work_copies_work ON work_copies (work_id);
CREATE TABLE IF NOT EXISTS work_keys (
    key     TEXT   NOT NULL,
    page_id BIGINT NOT NULL,
    PRIMARY KEY (key, page_id)
);
CREATE INDEX IF NOT EXISTS work_keys_page ON work_keys (page_id);
