-- Where the rank pass looks for changed anchor texts (SetRanks): the pages
-- whose links were recorded since it last ran (anchors_sources, marked by
-- the transaction that inserts the links), and the URLs that lost a link
-- or may have a new anchor text (anchors_stale: the targets of links
-- deleted, and the pass's own conversion of the marked sources' links).
-- The pass reads the anchor texts of the marked pages only, not of every
-- page. Every recorded page is marked once here, so the first pass after
-- this looks at all of them, as each pass did before. A role granted links
-- is granted the marks too. Re-runnable.
CREATE TABLE IF NOT EXISTS anchors_sources (source_id BIGINT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS anchors_stale (url_id BIGINT PRIMARY KEY);
INSERT INTO anchors_stale (url_id) SELECT url_id FROM pages ORDER BY url_id ON CONFLICT DO NOTHING;
DO $$
DECLARE g record;
BEGIN
    FOR g IN SELECT grantee, privilege_type FROM information_schema.role_table_grants
        WHERE table_schema = current_schema() AND table_name = 'links' AND grantee <> current_user
    LOOP
        EXECUTE format('GRANT %s ON anchors_sources TO %I', g.privilege_type, g.grantee);
        EXECUTE format('GRANT %s ON anchors_stale TO %I', g.privilege_type, g.grantee);
    END LOOP;
END $$;
