-- Page texts (pages.text, pages.main_text) of 256 bytes or more are
-- written S2-compressed, as a BLOB (pagetext.go). Rows written before
-- stay TEXT and are read as they are; nothing is rewritten. The version
-- moves so that an older acrawler, which would read a compressed text
-- as its bytes, refuses the database instead.
SELECT 1;
