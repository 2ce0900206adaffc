-- Discoveries staged (offers.go, "Discoveries staged"): once the store
-- is large, a commit appends the URLs its pages discovered to offers,
-- each with the host of the page that found it (found_by; NULL for
-- seeds and other offers), and stages the inbound links of link targets
-- that are not rows of urls in inlinks_found (inlinks_staged's columns),
-- drawing a value of inlinks_finds_seq for each, so that the sequence
-- tells, with offers', how large the stage has grown. A merge moves the
-- counts of the URLs it makes rows to inlinks_staged, takes those of the
-- URLs it packs into their runs, and drops the others: the merges of
-- inlinks_staged, many between two merges of the stage, do not read
-- them. A merge adds to each finder's
-- discovered count the URLs it admits of those the finder's pages
-- found: each range of a merge appends its counts to host_finds, which
-- the merge's last transaction adds to hosts and empties (the ranges
-- commit apart, and a finder may be in another range). A role granted
-- urls is granted the new objects. Re-runnable.
ALTER TABLE offers ADD COLUMN IF NOT EXISTS found_by BIGINT;
CREATE SEQUENCE IF NOT EXISTS inlinks_finds_seq;
CREATE TABLE IF NOT EXISTS inlinks_found (LIKE inlinks_staged);
CREATE INDEX IF NOT EXISTS inlinks_found_target ON inlinks_found (target_id, batch);
CREATE TABLE IF NOT EXISTS host_finds (
    host_id BIGINT NOT NULL,
    n       BIGINT NOT NULL
);
DO $$
DECLARE g record;
BEGIN
    FOR g IN SELECT grantee, privilege_type FROM information_schema.role_table_grants
        WHERE table_schema = current_schema() AND table_name = 'urls' AND grantee <> current_user
    LOOP
        EXECUTE format('GRANT %s ON host_finds TO %I', g.privilege_type, g.grantee);
        EXECUTE format('GRANT %s ON inlinks_found TO %I', g.privilege_type, g.grantee);
        IF g.privilege_type IN ('SELECT', 'UPDATE') THEN
            EXECUTE format('GRANT %s ON SEQUENCE inlinks_finds_seq TO %I', g.privilege_type, g.grantee);
        END IF;
    END LOOP;
END $$;
