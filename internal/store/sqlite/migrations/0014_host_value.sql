-- What a host is worth to a crawl after research, learned from its most
-- recently recorded pages (ValueHosts): the value, and what it was learned
-- from (hosts.fetched at the time, pages, research pages, people and
-- publication lists, copies of other hosts' pages). Hosts are claimed by top_priority + value.
ALTER TABLE hosts ADD COLUMN IF NOT EXISTS value          INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hosts ADD COLUMN IF NOT EXISTS value_fetched  INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hosts ADD COLUMN IF NOT EXISTS value_pages    INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hosts ADD COLUMN IF NOT EXISTS value_research INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hosts ADD COLUMN IF NOT EXISTS value_related  INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hosts ADD COLUMN IF NOT EXISTS value_copies   INTEGER NOT NULL DEFAULT 0;
-- A host's recorded pages, latest first.
CREATE INDEX IF NOT EXISTS urls_host_fetched ON urls (host_id, fetched_at) WHERE fetched_at > 0;
