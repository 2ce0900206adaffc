-- Queued URLs packed in runs (runs.go; docs/design/frontier-layout.md): a
-- large merge of staged offers writes the URLs it admits host by host,
-- best first, up to 64 to a record of queue_runs (internal/urlrun: the
-- texts front-coded and compressed together, each URL's fields and seq a
-- few bytes), and each URL's ID to seen with the run that holds it. seen
-- keeps the IDs many to a row, sorted: a row holds the IDs from lo to
-- the next row's lo, with the run of each (runs[i] of ids[i]), and no
-- row holds IDs of two host-bit groups (crawl.HostBits), so that merges
-- of disjoint ranges of hosts write disjoint rows. A row a URL would cost
-- some 70 bytes in tuple header, line pointer and index entry. A
-- run's id is the least seq of its URLs when it was written: it orders a
-- host's runs of one top priority as their URLs came, and no URL left in
-- the run has a seq below it. top is the best priority of its URLs. A URL
-- leaving its run (claimed, or linked to by a page) becomes a row of urls
-- with its seq, and keeps its seen entry. A run's data is kept in its row
-- (MAIN: it is compressed already). A role granted urls is granted the
-- new tables. Re-runnable.
CREATE TABLE IF NOT EXISTS queue_runs (
    id      BIGINT  PRIMARY KEY,
    host_id BIGINT  NOT NULL,
    top     INTEGER NOT NULL,
    data    BYTEA   NOT NULL
);
ALTER TABLE queue_runs ALTER COLUMN data SET STORAGE MAIN;
CREATE INDEX IF NOT EXISTS queue_runs_host ON queue_runs (host_id, top DESC, id);
CREATE TABLE IF NOT EXISTS seen (
    lo   BIGINT   PRIMARY KEY,
    ids  BIGINT[] NOT NULL,
    runs BIGINT[] NOT NULL
);
-- A merge's new seen entries wait in seen_new until it has read all its
-- offers, and leave it in the statement that adds them to seen: nothing
-- is left in it between transactions, so it need not survive a crash.
CREATE UNLOGGED TABLE IF NOT EXISTS seen_new (
    id  BIGINT NOT NULL,
    run BIGINT NOT NULL
);
DO $$
DECLARE g record;
BEGIN
    FOR g IN SELECT grantee, privilege_type FROM information_schema.role_table_grants
        WHERE table_schema = current_schema() AND table_name = 'urls' AND grantee <> current_user
    LOOP
        EXECUTE format('GRANT %s ON queue_runs TO %I', g.privilege_type, g.grantee);
        EXECUTE format('GRANT %s ON seen TO %I', g.privilege_type, g.grantee);
        EXECUTE format('GRANT %s ON seen_new TO %I', g.privilege_type, g.grantee);
    END LOOP;
END $$;
