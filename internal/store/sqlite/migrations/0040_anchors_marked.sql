-- What the end-of-crawl pass looks at to refresh the indexed anchor texts
-- (changedAnchors): the sources whose links were merged into inlinks since
-- it last ran (anchors_sources, marked by the merge), and the documents
-- that lost inbound links (anchors_stale, by full-text key, marked when a
-- page's links are deleted). When few pages are marked, the pass reads
-- only their targets' anchors, not every document's. Every source is
-- marked once here, so the first pass after this looks at every document,
-- as each pass did before. Re-runnable.
CREATE TABLE IF NOT EXISTS anchors_sources (source_id INTEGER PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS anchors_stale (key INTEGER PRIMARY KEY) WITHOUT ROWID;
INSERT OR IGNORE INTO anchors_sources (source_id) SELECT source_id FROM outlinks;
