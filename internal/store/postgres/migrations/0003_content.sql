-- Content: main text, scholarly metadata, near-duplicate fingerprints and
-- the location of each raw response in the WARC archive. Columns added
-- with a constant default (or none) do not rewrite the table.

ALTER TABLE pages ADD COLUMN main_text TEXT NOT NULL DEFAULT '';
-- Metadata fields to filter on, copied out of the metadata document.
ALTER TABLE pages ADD COLUMN doc_type TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN type_rule TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN doi TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN year INTEGER NOT NULL DEFAULT 0;
ALTER TABLE pages ADD COLUMN metadata JSONB;                             -- crawl.Metadata; NULL when none was extracted
ALTER TABLE pages ADD COLUMN simhash BIGINT NOT NULL DEFAULT 0;          -- the 64-bit SimHash, two's complement; 0: none
ALTER TABLE pages ADD COLUMN band0 INTEGER NOT NULL DEFAULT 0;           -- the SimHash's four 16-bit bands:
ALTER TABLE pages ADD COLUMN band1 INTEGER NOT NULL DEFAULT 0;           -- two fingerprints within Hamming distance 3
ALTER TABLE pages ADD COLUMN band2 INTEGER NOT NULL DEFAULT 0;           -- share one band, so candidates are found
ALTER TABLE pages ADD COLUMN band3 INTEGER NOT NULL DEFAULT 0;           -- by index lookups, not a scan
ALTER TABLE pages ADD COLUMN near_duplicate_of BIGINT NOT NULL DEFAULT 0;
ALTER TABLE pages ADD COLUMN warc_file TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN warc_offset BIGINT NOT NULL DEFAULT 0;
ALTER TABLE pages ADD COLUMN warc_length BIGINT NOT NULL DEFAULT 0;

-- Only pages that are neither duplicates nor near-duplicates can be the
-- original of a near-duplicate: with the marks in the index, a lookup
-- (band = $1 AND duplicate_of = 0 AND near_duplicate_of = 0) reaches the
-- originals alone, and the planner picks these conditions for an index
-- scan even before the table has statistics.
CREATE INDEX pages_band0 ON pages (band0, duplicate_of, near_duplicate_of) WHERE simhash <> 0;
CREATE INDEX pages_band1 ON pages (band1, duplicate_of, near_duplicate_of) WHERE simhash <> 0;
CREATE INDEX pages_band2 ON pages (band2, duplicate_of, near_duplicate_of) WHERE simhash <> 0;
CREATE INDEX pages_band3 ON pages (band3, duplicate_of, near_duplicate_of) WHERE simhash <> 0;
CREATE INDEX pages_doi ON pages (doi) WHERE doi <> '';
