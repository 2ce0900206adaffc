-- Failures of URL sources outside the pages (a web archive's CDX server
-- down or answering garbage), shown by the crawl's report.
CREATE TABLE source_errors (
	id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	at     bigint NOT NULL,
	kind   text NOT NULL,
	source text NOT NULL,
	url    text NOT NULL,
	error  text NOT NULL,
	urls   integer NOT NULL
);
