-- acrawler_fold runs each step once, on a variable (query.FoldSQL): as an
-- SQL function of nested subqueries, the planner pulled each step up into
-- the next, where it was evaluated two to four times. A text of ASCII
-- alone is only lowercased and spelled out. The same results.
CREATE OR REPLACE FUNCTION acrawler_fold(s TEXT) RETURNS TEXT LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE b TEXT;
BEGIN
	IF octet_length(s) = length(s) THEN
		b := lower(s);
	ELSE
		IF s IS NOT NFD NORMALIZED THEN
			s := normalize(s, NFD);
		END IF;
		b := regexp_replace(lower(s), '[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+', '', 'g');
	END IF;
	IF b ~ '[ßæðøþđħıĳłœŧﬀﬁﬂﬃﬄﬅﬆ]' THEN
		b := translate(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(b, 'ß', 'ss'), 'æ', 'ae'), 'þ', 'th'), 'ĳ', 'ij'), 'œ', 'oe'), 'ﬀ', 'ff'), 'ﬁ', 'fi'), 'ﬂ', 'fl'), 'ﬃ', 'ffi'), 'ﬄ', 'ffl'), 'ﬅ', 'st'), 'ﬆ', 'st'), 'ðøđħıłŧ', 'dodhilt');
	END IF;
	IF octet_length(b) <> length(b) AND b IS NOT NFC NORMALIZED THEN
		b := normalize(b, NFC);
	END IF;
	RETURN b;
END
$$;
