-- Inbound links staged: a page's transaction records its outlinks row and
-- appends its ID here (rows in arrival order, a few pages at the end of
-- the table), instead of inserting an inlinks entry per link at the place
-- of each target in the index. Staged sources are merged into inlinks in
-- large batches, their (target, source) pairs sorted by target (see
-- links.go); reads of inbound links read inlinks and the staged sources'
-- outlinks both. A source may be listed more than once.
CREATE TABLE IF NOT EXISTS inlinks_staged (
    source_id INTEGER NOT NULL
);
