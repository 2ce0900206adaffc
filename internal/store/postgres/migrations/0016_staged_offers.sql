-- offers holds URLs offered to the frontier and not yet decided on
-- (StageURLs): appended by COPY in offer order (ord), a few pages a
-- batch, with no lookup and no host row touched, and merged into urls
-- when large (MergeStaged), sorted by host and URL, so that each page of
-- the URL and host indexes and each host row is written about once a
-- merge, not once for each batch of offers. The table is logged: offers
-- staged survive a crash of the server and reach its standbys. host is
-- the host's key on the first offer of a host in a batch, '' when it is
-- the URL's own (its scheme and authority: crawl.HostKey), NULL on the
-- others; cap is the host cap (Limits.MaxPagesPerHost) the offer was
-- made under, 0 for none. The fixed-width columns go first, so that no
-- padding follows the text columns. A merge empties the table by TRUNCATE, which
-- starts ord again at 1, so ord's sequence tells how many offers wait.
CREATE TABLE IF NOT EXISTS offers (
    ord           BIGSERIAL,
    id            BIGINT   NOT NULL,
    host_id       BIGINT   NOT NULL,
    parent_id     BIGINT   NOT NULL,
    discovered_at BIGINT   NOT NULL,
    lastmod       BIGINT   NOT NULL,
    cap           BIGINT   NOT NULL,
    depth         INTEGER  NOT NULL,
    priority      INTEGER  NOT NULL,
    kind          SMALLINT NOT NULL,
    url           TEXT     NOT NULL,
    host          TEXT,
    via           TEXT     NOT NULL,
    changefreq    TEXT     NOT NULL
);
