-- A page's text and main text of 256 bytes or more together are written
-- as one BLOB in pages.text, the pair compressed as one S2 block, with
-- '' in pages.main_text (pagetext.go). Rows written before are read as
-- they are; nothing is rewritten. The version moves so that an older
-- acrawler, which cannot read the pair, refuses the database instead.
SELECT 1;
