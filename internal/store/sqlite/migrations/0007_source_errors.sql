-- Failures of URL sources outside the pages (a web archive's CDX server
-- down or answering garbage), shown by the crawl's report.
CREATE TABLE source_errors (
	id     INTEGER PRIMARY KEY,
	at     INTEGER NOT NULL,
	kind   TEXT NOT NULL,
	source TEXT NOT NULL,
	url    TEXT NOT NULL,
	error  TEXT NOT NULL,
	urls   INTEGER NOT NULL
);
