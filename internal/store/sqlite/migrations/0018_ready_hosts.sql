-- The ready-host index: ClaimHosts chooses among the hosts with URLs
-- queued and no lease in O(log hosts) plus the hosts it returns, however
-- many hosts there are. due is whether a host's next fetch time had come
-- at the latest claim; each claim first moves the hosts whose time came
-- since (hosts_wake: due = 0, next_fetch_at <= now) and those pushed into
-- the future (due = 1, next_fetch_at > now), touching only those, then
-- reads hosts_claim in order: the due hosts first, the best (top_priority
-- + value) first, then by next fetch time and ID.
ALTER TABLE hosts ADD COLUMN IF NOT EXISTS due INTEGER NOT NULL DEFAULT 1;
CREATE INDEX IF NOT EXISTS hosts_wake ON hosts (due, next_fetch_at) WHERE queued > 0 AND lease_owner IS NULL;
CREATE INDEX IF NOT EXISTS hosts_claim ON hosts (due DESC, top_priority + value DESC, next_fetch_at, id)
    WHERE queued > 0 AND lease_owner IS NULL;
-- Hosts of an older crawl start with their due flag right at the time of
-- the migration (a claim would set it otherwise).
UPDATE hosts SET due = (next_fetch_at <= unixepoch('subsec') * 1000)
    WHERE queued > 0 AND lease_owner IS NULL AND due <> (next_fetch_at <= unixepoch('subsec') * 1000);
