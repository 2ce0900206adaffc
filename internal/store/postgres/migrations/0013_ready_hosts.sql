-- The ready-host index: ClaimHosts chooses among the hosts with URLs
-- queued and no lease in O(log hosts) plus the hosts it returns, however
-- many hosts there are. due is whether a host's next fetch time had come
-- at the latest claim; each claim first moves the hosts whose time came
-- since (hosts_wake: not due, next_fetch_at <= now) and those pushed into
-- the future (due, next_fetch_at > now), touching only those, then reads
-- the due hosts, the best first, from hosts_best, which holds only them,
-- and the others, earliest first, from hosts_ready.
ALTER TABLE hosts ADD COLUMN IF NOT EXISTS due BOOLEAN NOT NULL DEFAULT true;
CREATE INDEX IF NOT EXISTS hosts_wake ON hosts (due, next_fetch_at) WHERE queued > 0 AND lease_owner IS NULL;
DROP INDEX IF EXISTS hosts_best;
CREATE INDEX hosts_best ON hosts ((top_priority + value) DESC, next_fetch_at, id) WHERE queued > 0 AND lease_owner IS NULL AND due;
-- Hosts of an older crawl start with their due flag right at the time of
-- the migration (a claim would set it otherwise).
UPDATE hosts SET due = (next_fetch_at <= (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
    WHERE queued > 0 AND lease_owner IS NULL AND due <> (next_fetch_at <= (extract(epoch FROM clock_timestamp()) * 1000)::bigint);
