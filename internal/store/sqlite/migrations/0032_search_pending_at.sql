-- The rows waiting for the index delay in the order they were committed,
-- so that a commit finds those that have waited long enough without
-- reading the others, and no process holds them in memory.
CREATE INDEX IF NOT EXISTS search_pending_at ON search_pending (at);
