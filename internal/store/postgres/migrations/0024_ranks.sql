-- Link-graph ranks are kept in a table of their own, as SQLite keeps
-- them, not in pages. The rank pass gives nearly every page a new rank,
-- and an update of a page row writes a new version of the whole row
-- (its texts inline, 2.5 KB on the test web) with new entries in each of
-- its ten indexes, the search vector's every word among them: on 35,374
-- pages, setting the rank of each took 4.6 s, and writing the same ranks
-- here 0.1 s. Searches join the ranks (a small table: a hash join, faster
-- on that crawl than reading the column from each matching page row).
-- A role granted pages (a search service's, say) is granted ranks too.
CREATE TABLE IF NOT EXISTS ranks (
    url_id BIGINT PRIMARY KEY,
    rank   DOUBLE PRECISION NOT NULL
);
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = 'pages' AND column_name = 'pagerank') THEN
        EXECUTE 'INSERT INTO ranks (url_id, rank) SELECT url_id, pagerank FROM pages WHERE pagerank <> 0 ORDER BY url_id
            ON CONFLICT (url_id) DO NOTHING';
        EXECUTE 'ALTER TABLE pages DROP COLUMN pagerank';
    END IF;
END
$$;
DO $$
DECLARE g record;
BEGIN
    FOR g IN SELECT grantee, privilege_type FROM information_schema.role_table_grants
        WHERE table_schema = current_schema() AND table_name = 'pages' AND grantee <> current_user
    LOOP
        EXECUTE format('GRANT %s ON ranks TO %I', g.privilege_type, g.grantee);
    END LOOP;
END $$;
