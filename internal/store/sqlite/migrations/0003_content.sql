-- Content: main text, scholarly metadata, near-duplicate fingerprints and
-- the location of each raw response in the WARC archive.

ALTER TABLE pages ADD COLUMN main_text TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN doc_type TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN type_rule TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN doi TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN year INTEGER NOT NULL DEFAULT 0;
ALTER TABLE pages ADD COLUMN metadata TEXT NOT NULL DEFAULT '';     -- crawl.Metadata as JSON (authors as a list)
ALTER TABLE pages ADD COLUMN simhash INTEGER NOT NULL DEFAULT 0;
ALTER TABLE pages ADD COLUMN band0 INTEGER NOT NULL DEFAULT 0;      -- the SimHash's four 16-bit bands:
ALTER TABLE pages ADD COLUMN band1 INTEGER NOT NULL DEFAULT 0;      -- two fingerprints within Hamming distance 3
ALTER TABLE pages ADD COLUMN band2 INTEGER NOT NULL DEFAULT 0;      -- share one band, so candidates are found
ALTER TABLE pages ADD COLUMN band3 INTEGER NOT NULL DEFAULT 0;      -- by index lookups, not a scan
ALTER TABLE pages ADD COLUMN near_duplicate_of INTEGER NOT NULL DEFAULT 0;
ALTER TABLE pages ADD COLUMN warc_file TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN warc_offset INTEGER NOT NULL DEFAULT 0;
ALTER TABLE pages ADD COLUMN warc_length INTEGER NOT NULL DEFAULT 0;

CREATE INDEX pages_band0 ON pages (band0) WHERE simhash <> 0;
CREATE INDEX pages_band1 ON pages (band1) WHERE simhash <> 0;
CREATE INDEX pages_band2 ON pages (band2) WHERE simhash <> 0;
CREATE INDEX pages_band3 ON pages (band3) WHERE simhash <> 0;
CREATE INDEX pages_doi ON pages (doi) WHERE doi <> '';
