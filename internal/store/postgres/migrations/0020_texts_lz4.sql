-- A page's texts and its search vector are stored compressed with LZ4
-- instead of pglz (PostgreSQL 14 and later, built with LZ4): the server
-- compresses each page's values over 2 KB as it writes the row, and LZ4
-- does it in a fraction of pglz's time. Only rows written from now on
-- are; a server without LZ4 keeps pglz.
DO $$
BEGIN
    EXECUTE 'ALTER TABLE pages ALTER COLUMN text SET COMPRESSION lz4, '
        'ALTER COLUMN main_text SET COMPRESSION lz4, ALTER COLUMN search SET COMPRESSION lz4';
EXCEPTION WHEN feature_not_supported OR syntax_error THEN
    NULL;
END
$$;
