-- The search column's words are those of query.Lexemes, which the crawler
-- now splits the title and text by (docVector) and TSQuery writes queries
-- by, as SQLite's index splits both: "/usr/bin", "x.org" and "+1-555-0100"
-- are found by their words, as phrases. PostgreSQL's parser, which split
-- them before, kept such compounds as tokens of their own.
--
-- acrawler_words is the text of the anchor part, which the server still
-- builds from the links it holds: the text folded (acrawler_fold), its
-- ASCII punctuation made spaces, so that the parser reads its words one by
-- one as Lexemes does. (A regular expression: translate() compares each
-- character with each of the 32 in a UTF-8 database, and on 20,000 texts
-- of 200 characters took 0.7 s more than to_tsvector alone, the
-- expression 0.1 s.) They differ on a few characters the parser does not
-- count as letters or digits while Lexemes does (numbers such as "²" and
-- "½", combining marks inside a word, private-use characters): there the
-- parser splits a word, or drops it.
CREATE OR REPLACE FUNCTION acrawler_words(s TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT regexp_replace(acrawler_fold(s), '[!-/:-@[-`{-~]+', ' ', 'g')
$$;

-- Vectors written before are rebuilt once, when a process next opens the
-- store for writing (the store's maintain step; acrawler reindex does the
-- same). Until then, a page whose text held such a compound is
-- found by the compound's words only where the old parser kept them too.
CREATE TABLE IF NOT EXISTS maintenance (task TEXT PRIMARY KEY);
INSERT INTO maintenance (task) SELECT 'reindex' WHERE EXISTS (SELECT 1 FROM pages WHERE search IS NOT NULL)
    ON CONFLICT (task) DO NOTHING;
