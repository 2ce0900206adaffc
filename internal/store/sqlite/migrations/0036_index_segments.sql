-- The embedded index's own segments (Options.Engine "segments",
-- segindex.go), kept beside the FTS5 tables, which the default engine
-- uses. index_state is one row: the engine the database was made with,
-- the next document number, and a generation that every change of the
-- segments or their deletions moves on, which readers compare to know
-- whether their view of the index is current.
CREATE TABLE IF NOT EXISTS index_state (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    engine   TEXT NOT NULL DEFAULT 'fts5',
    next_doc INTEGER NOT NULL DEFAULT 1,
    gen      INTEGER NOT NULL DEFAULT 0
);
INSERT OR IGNORE INTO index_state (id) VALUES (1);

-- A segment: the index field it starts at (0: titles and texts; 2:
-- anchor texts), its level (merges of a level's segments make one of the
-- next), its documents, and for each document of a segment of titles and
-- texts, in the segment's order, its full-text key and the page's host,
-- type, language and year (docAttrs). retired is when a merge replaced it (Unix milliseconds; 0
-- while it counts): its blocks stay a while for the searches that were
-- reading it.
CREATE TABLE IF NOT EXISTS index_segments (
    id      INTEGER PRIMARY KEY,
    field   INTEGER NOT NULL,
    level   INTEGER NOT NULL,
    docs    INTEGER NOT NULL,
    size    INTEGER NOT NULL,
    front   INTEGER NOT NULL,
    attrs   BLOB NOT NULL,
    retired INTEGER NOT NULL DEFAULT 0
);

-- A segment's bytes, in blocks of segBlock bytes: its postings (the
-- bytes from front on) in blocks 0, 1, …, and what comes before them in
-- blocks -1, -2, … (the last of each shorter). A block's row ID is its
-- segment's ID and its number (blockID), and a block fits in one page of
-- the table, which it takes alone: a read of a block is a read of a page.
CREATE TABLE IF NOT EXISTS index_blocks (
    id   INTEGER PRIMARY KEY,
    data BLOB NOT NULL
);

-- Each indexed document: its number, the segment that holds its title and
-- text, and the one that holds its anchor texts (0: none).
CREATE TABLE IF NOT EXISTS index_docs (
    key     INTEGER PRIMARY KEY,
    doc     INTEGER NOT NULL,
    segment INTEGER NOT NULL,
    anchors INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS index_docs_segment ON index_docs (segment);
CREATE INDEX IF NOT EXISTS index_docs_anchors ON index_docs (anchors) WHERE anchors <> 0;

-- The documents deleted from segments that still count, in the order of
-- their deletion (seq, never given twice), which readers follow.
CREATE TABLE IF NOT EXISTS index_deleted (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    segment INTEGER NOT NULL,
    doc     INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS index_deleted_segment ON index_deleted (segment);
