-- Queued URLs packed many to a record (runs.go): a run (queue_runs) holds
-- up to runSize URLs of one host that a large merge of staged offers admitted,
-- sorted best first, their texts compressed together (internal/urlrun).
-- top is its best URL's priority, first its earliest URL's arrival (Unix
-- milliseconds), which a claim compares with its other candidates'. seen
-- says which run holds each packed URL; a URL leaves its run (for a row of
-- urls) when it is claimed or linked to, and keeps its seen entry, so a URL
-- is packed when seen has it and urls does not. The counter packed is how
-- many URLs the runs hold. Re-runnable.
CREATE TABLE IF NOT EXISTS queue_runs (
    id      INTEGER PRIMARY KEY,
    host_id INTEGER NOT NULL,
    top     INTEGER NOT NULL,
    first   INTEGER NOT NULL,
    data    BLOB    NOT NULL
);
CREATE INDEX IF NOT EXISTS queue_runs_host ON queue_runs (host_id, top DESC, id);
CREATE TABLE IF NOT EXISTS seen (
    id  INTEGER PRIMARY KEY,
    run INTEGER NOT NULL
);
INSERT OR IGNORE INTO counters (name, value) VALUES ('packed', 0);
