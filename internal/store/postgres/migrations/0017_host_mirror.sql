-- The host a host is a mirror of (its pages are copies of that host's),
-- 0 for none (MarkMirror): a mirror is worth at most crawl.MirrorValue,
-- and the crawl report names its original.
ALTER TABLE hosts ADD COLUMN IF NOT EXISTS mirror_of BIGINT NOT NULL DEFAULT 0;
