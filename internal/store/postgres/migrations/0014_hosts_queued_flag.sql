-- Host rows change in place: the ready-host indexes select hosts by a
-- stored flag, has_queued (queued > 0), instead of by queued itself, so
-- that an update that changes a host's counts (queued, admitted, fetched,
-- bytes; an admission or a commit) but not whether it has URLs queued,
-- its lease, its times or its rank touches no index column, and
-- PostgreSQL writes it as a heap-only tuple: on the host's own page, with
-- no new entry in any of the host indexes. The free space left in each
-- page (fillfactor) is where such updates go.
ALTER TABLE hosts ADD COLUMN IF NOT EXISTS has_queued BOOLEAN GENERATED ALWAYS AS (queued > 0) STORED;
ALTER TABLE hosts SET (fillfactor = 70);
DROP INDEX IF EXISTS hosts_ready;
CREATE INDEX hosts_ready ON hosts (next_fetch_at, id) WHERE has_queued AND lease_owner IS NULL;
DROP INDEX IF EXISTS hosts_wake;
CREATE INDEX hosts_wake ON hosts (due, next_fetch_at) WHERE has_queued AND lease_owner IS NULL;
DROP INDEX IF EXISTS hosts_best;
CREATE INDEX hosts_best ON hosts ((top_priority + value) DESC, next_fetch_at, id) WHERE has_queued AND lease_owner IS NULL AND due;
