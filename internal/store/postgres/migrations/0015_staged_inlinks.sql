-- Inbound-link counts staged: a commit appends, for each URL its new pages
-- link to, one row (how many of them link, how many of those while the URL
-- is queued, the bonus and its cap), instead of updating the URL row (a
-- lock and a new row version per target, while the commit holds its
-- hosts). The rows are merged into urls.inlinks and urls.priority in large
-- batches sorted by target (see inlinks.go); reads of a URL's count and
-- priority add its staged rows, in batch order, as the merge would.
CREATE TABLE IF NOT EXISTS inlinks_staged (
    target_id BIGINT  NOT NULL,
    batch     BIGINT  NOT NULL, -- the staging transaction (txid_current()): the order of a target's rows
    n         INTEGER NOT NULL, -- new pages linking to the target
    m         INTEGER NOT NULL, -- of them, the last m while it was queued (0: not queued at the commit)
    bonus     INTEGER NOT NULL, -- Limits.InlinkBonus
    cap       INTEGER NOT NULL  -- Limits.MaxInlinkBonus / Limits.InlinkBonus
);
CREATE INDEX IF NOT EXISTS inlinks_staged_target ON inlinks_staged (target_id, batch);
