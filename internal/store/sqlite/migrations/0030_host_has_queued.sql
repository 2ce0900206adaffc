-- Whether a host has URLs queued (queued > 0), kept by triggers when
-- queued crosses zero or a host is inserted with URLs queued (a
-- statement that sets has_queued itself spares the trigger's update of
-- the row). The ready-host indexes' condition reads it rather
-- than queued, so that a change of a host's count that leaves it above
-- zero (a merge of staged offers adds to every host it admits URLs to)
-- rewrites the host's row but not its entries in hosts_wake and
-- hosts_claim: a merge over 200,000 hosts spent two thirds of its hosts'
-- update rewriting them. hosts_ready, which no query reads since the
-- claims read hosts_claim, goes.
ALTER TABLE hosts ADD COLUMN IF NOT EXISTS has_queued INTEGER NOT NULL DEFAULT 0;
UPDATE hosts SET has_queued = (queued > 0) WHERE has_queued <> (queued > 0);
DROP INDEX IF EXISTS hosts_ready;
DROP INDEX IF EXISTS hosts_wake;
DROP INDEX IF EXISTS hosts_claim;
CREATE INDEX hosts_wake ON hosts (due, next_fetch_at) WHERE has_queued AND lease_owner IS NULL;
CREATE INDEX hosts_claim ON hosts (due DESC, top_priority + value DESC, next_fetch_at, id)
    WHERE has_queued AND lease_owner IS NULL;
CREATE TRIGGER IF NOT EXISTS hosts_has_queued AFTER UPDATE OF queued ON hosts
    WHEN (new.queued > 0) <> new.has_queued
BEGIN
    UPDATE hosts SET has_queued = (new.queued > 0) WHERE id = new.id;
END;
CREATE TRIGGER IF NOT EXISTS hosts_has_queued_insert AFTER INSERT ON hosts
    WHEN (new.queued > 0) <> new.has_queued
BEGIN
    UPDATE hosts SET has_queued = (new.queued > 0) WHERE id = new.id;
END;
