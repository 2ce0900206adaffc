-- A large frontier's page commits stage the URLs their pages discovered in
-- offers too (offers.go, "Discoveries staged"). found_by is the host of
-- the page that discovered the URL (NULL for other offers): the merge adds
-- the URLs it admits of those to that host's discovered count.
-- inlink_counts holds the inbound links such commits counted for URLs not
-- known to be rows of urls (the staged among them), appended in commit
-- order: n links, under the bonus and the cap in links
-- (Limits.MaxInlinkBonus / InlinkBonus) they were counted with. The next
-- merge applies them, sorted by URL, after its inserts. Re-runnable.
ALTER TABLE offers ADD COLUMN IF NOT EXISTS found_by INTEGER;
CREATE TABLE IF NOT EXISTS inlink_counts (
    id    INTEGER NOT NULL,
    n     INTEGER NOT NULL,
    bonus INTEGER NOT NULL,
    cap   INTEGER NOT NULL
);
