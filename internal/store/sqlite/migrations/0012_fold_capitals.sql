-- The full-text indexes take their text through acrawler_fold (query.Fold):
-- the capitals SQLite's unicode61 tokenizer does not fold (Turkish "İ", and
-- those of scripts cased after Unicode 6) are lowercased as a query's words
-- are, so that "istanbul" finds "İstanbul". A database whose text holds such
-- a capital is reindexed at the next open; any other is indexed as it
-- would be now.
INSERT OR IGNORE INTO maintenance (task) SELECT 'reindex' WHERE EXISTS (
    SELECT 1 FROM pages
    WHERE acrawler_fold(title) <> title OR acrawler_fold(main_text) <> main_text OR acrawler_fold(text) <> text
    UNION ALL
    SELECT 1 FROM search_docs WHERE acrawler_fold(title) <> title OR acrawler_fold(anchors) <> anchors);
