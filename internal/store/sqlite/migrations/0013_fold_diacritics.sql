-- The full-text indexes take their text through acrawler_fold (query.Fold),
-- which now folds case and diacritics alike on every backend: "Zoë" is
-- indexed as "zoe", "Straße" as "strasse", "İstanbul" as "istanbul", so that
-- a query finds a word however its accents and capitals are typed (queries
-- are folded the same way). The index of a database that has one is
-- rebuilt at the next open.
INSERT OR IGNORE INTO maintenance (task) SELECT 'reindex' WHERE EXISTS (SELECT 1 FROM search_docs);
