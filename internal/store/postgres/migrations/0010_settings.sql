-- The settings a crawl was run with that shape its stored data (the
-- robots.txt product token, URL normalization, links kept per page, where
-- the WARC archive is), so that the commands after it read the data as it
-- was written.
CREATE TABLE IF NOT EXISTS settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
