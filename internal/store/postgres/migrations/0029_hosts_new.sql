-- The hosts a packing merge inserts (offers.go, countedHostsSQL), with
-- the counts their offers give, wait in hosts_new while the merge decides
-- on their offers: their URLs admitted before the merge are none, and the
-- merge corrects the counts it got wrong. A range of the merge empties
-- its part before it commits, so nothing is left in it between
-- transactions and it need not survive a crash. A role granted urls is
-- granted it. Re-runnable.
CREATE UNLOGGED TABLE IF NOT EXISTS hosts_new (
    id BIGINT PRIMARY KEY
);
DO $$
DECLARE g record;
BEGIN
    FOR g IN SELECT grantee, privilege_type FROM information_schema.role_table_grants
        WHERE table_schema = current_schema() AND table_name = 'urls' AND grantee <> current_user
    LOOP
        EXECUTE format('GRANT %s ON hosts_new TO %I', g.privilege_type, g.grantee);
    END LOOP;
END $$;
