-- A host's row, narrower: its counts are INTEGERs (a host's URLs,
-- fetches and answers stay far below 2^31; bytes and times stay BIGINT),
-- and the columns are laid out widest first, so that none waits for
-- alignment: about 200 bytes a host where the row took 256. A host of a
-- large load holds a few URLs, so its row is much of what each of them
-- costs (docs/scale.md). The table is rebuilt as it was otherwise: the
-- same columns, defaults, indexes, fillfactor (room for the crawl's
-- updates in place) and grants.
CREATE TABLE hosts_next (
    id                BIGINT  NOT NULL,
    next_fetch_at     BIGINT  NOT NULL DEFAULT 0,
    bytes             BIGINT  NOT NULL DEFAULT 0,
    lease_session     BIGINT  NOT NULL DEFAULT 0, -- the store handle (Open) the owner leased through
    lease_until       BIGINT  NOT NULL DEFAULT 0,
    mirror_of         BIGINT  NOT NULL DEFAULT 0,
    robots_fetched_at BIGINT,
    robots_expires_at BIGINT,
    delay_ms          INTEGER NOT NULL DEFAULT 0,
    backoff           INTEGER NOT NULL DEFAULT 0,
    admitted          INTEGER NOT NULL DEFAULT 0,
    queued            INTEGER NOT NULL DEFAULT 0,
    fetched           INTEGER NOT NULL DEFAULT 0,
    top_priority      INTEGER NOT NULL DEFAULT -1000000000,
    value             INTEGER NOT NULL DEFAULT 0,
    value_fetched     INTEGER NOT NULL DEFAULT 0,
    value_pages       INTEGER NOT NULL DEFAULT 0,
    value_research    INTEGER NOT NULL DEFAULT 0,
    value_related     INTEGER NOT NULL DEFAULT 0,
    value_copies      INTEGER NOT NULL DEFAULT 0,
    s2xx              INTEGER NOT NULL DEFAULT 0,
    s3xx              INTEGER NOT NULL DEFAULT 0,
    s4xx              INTEGER NOT NULL DEFAULT 0,
    s5xx              INTEGER NOT NULL DEFAULT 0,
    duplicates        INTEGER NOT NULL DEFAULT 0,
    blocked           INTEGER NOT NULL DEFAULT 0,
    discovered        INTEGER NOT NULL DEFAULT 0,
    robots_failures   INTEGER NOT NULL DEFAULT 0,
    robots_status     INTEGER,
    due               BOOLEAN NOT NULL DEFAULT true,
    has_queued        BOOLEAN GENERATED ALWAYS AS (queued > 0) STORED,
    key               TEXT    NOT NULL,
    trap              TEXT    NOT NULL DEFAULT '',
    lease_owner       TEXT,
    robots_body       BYTEA
) WITH (fillfactor = 70);
INSERT INTO hosts_next (id, next_fetch_at, bytes, lease_session, lease_until, mirror_of, robots_fetched_at, robots_expires_at,
        delay_ms, backoff, admitted, queued, fetched, top_priority, value, value_fetched, value_pages, value_research,
        value_related, value_copies, s2xx, s3xx, s4xx, s5xx, duplicates, blocked, discovered, robots_failures, robots_status,
        due, key, trap, lease_owner, robots_body)
    SELECT id, next_fetch_at, bytes, lease_session, lease_until, mirror_of, robots_fetched_at, robots_expires_at,
        delay_ms, backoff, admitted, queued, fetched, top_priority, value, value_fetched, value_pages, value_research,
        value_related, value_copies, s2xx, s3xx, s4xx, s5xx, duplicates, blocked, discovered, robots_failures, robots_status,
        due, key, trap, lease_owner, robots_body
    FROM hosts ORDER BY id;
DO $$
DECLARE g record;
BEGIN
    FOR g IN SELECT grantee, privilege_type FROM information_schema.role_table_grants
        WHERE table_schema = current_schema() AND table_name = 'hosts' AND grantee <> current_user
    LOOP
        EXECUTE format('GRANT %s ON hosts_next TO %I', g.privilege_type, g.grantee);
    END LOOP;
END $$;
DROP TABLE hosts;
ALTER TABLE hosts_next RENAME TO hosts;
ALTER TABLE hosts ADD CONSTRAINT hosts_pkey PRIMARY KEY (id);
-- Hosts ready to be leased, earliest next fetch first.
CREATE INDEX hosts_ready ON hosts (next_fetch_at, id) WHERE has_queued AND lease_owner IS NULL;
-- Hosts whose due flag a claim changes (0013_ready_hosts.sql).
CREATE INDEX hosts_wake ON hosts (due, next_fetch_at) WHERE has_queued AND lease_owner IS NULL;
-- Due hosts, the best first.
CREATE INDEX hosts_best ON hosts ((top_priority + value) DESC, next_fetch_at, id) WHERE has_queued AND lease_owner IS NULL AND due;
-- Leased hosts, to find expired leases.
CREATE INDEX hosts_leased ON hosts (lease_until) WHERE lease_owner IS NOT NULL;
