-- Search folds case and diacritics on every backend: the search column is
-- built from the text folded by acrawler_fold, the SQL twin of query.Fold
-- (lowercase, canonical decomposition, the combining diacritics dropped,
-- ß as ss, ı as i, æ as ae and the other letters query.Fold maps, composed
-- again), and queries are folded by query.Fold: "Zoë" is indexed and found
-- as "zoe", "Straße" as "strasse", "İstanbul" as "istanbul". The function is
-- query.FoldSQL(); TestFoldSQL checks that both give the same for every
-- character. Lowercasing follows the database's LC_CTYPE, which must be a
-- UTF-8 locale (migration 0004); normalize() needs a UTF-8 database.
CREATE OR REPLACE FUNCTION acrawler_fold(s TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
SELECT CASE WHEN c IS NFC NORMALIZED THEN c ELSE normalize(c, NFC) END FROM
	(SELECT CASE WHEN b ~ '[ßæðøþđħıĳłœŧﬀﬁﬂﬃﬄﬅﬆ]' THEN translate(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(b, 'ß', 'ss'), 'æ', 'ae'), 'þ', 'th'), 'ĳ', 'ij'), 'œ', 'oe'), 'ﬀ', 'ff'), 'ﬁ', 'fi'), 'ﬂ', 'fl'), 'ﬃ', 'ffi'), 'ﬄ', 'ffl'), 'ﬅ', 'st'), 'ﬆ', 'st'), 'ðøđħıłŧ', 'dodhilt') ELSE b END AS c FROM
	(SELECT regexp_replace(lower(CASE WHEN s IS NFD NORMALIZED THEN s ELSE normalize(s, NFD) END),
		'[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+', '', 'g') AS b) AS lowered) AS spelled
$$;

-- The indexed pages are indexed again, folded.
UPDATE pages p SET search =
        setweight(to_tsvector('simple', acrawler_fold(left(CASE WHEN p.title <> '' THEN p.title ELSE coalesce(p.metadata::jsonb->>'title', '') END, 10000))), 'A') ||
        setweight(to_tsvector('simple', acrawler_fold(left(CASE WHEN p.main_text <> '' THEN p.main_text ELSE p.text END, 100000))), 'C') ||
        setweight(to_tsvector('simple', acrawler_fold(p.anchors)), 'B')
    WHERE p.search IS NOT NULL;
