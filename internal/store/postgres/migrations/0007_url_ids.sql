-- URL IDs begin with bits of their host's ID (crawl.URLID): the high 12
-- bits of the host's ID, then the low 52 bits of the URL's own hash, which
-- was the whole old ID. So a URL's new ID comes from its old one and its
-- host_id, and the columns that refer to URLs follow. A link's target may
-- not be a URL of the crawl: its host's ID is computed from the target's
-- text (the SHA-256 of its scheme and authority, as crawl.HashID).
CREATE TEMP TABLE idmap ON COMMIT DROP AS
    SELECT id AS old, (host_id & -4503599627370496) | (id & 4503599627370495) AS new FROM urls;
DELETE FROM idmap WHERE old = new;
CREATE UNIQUE INDEX ON idmap (old);
ANALYZE idmap;

UPDATE urls u SET id = m.new FROM idmap m WHERE u.id = m.old;
UPDATE urls u SET parent_id = m.new FROM idmap m WHERE u.parent_id = m.old;
UPDATE pages p SET url_id = m.new FROM idmap m WHERE p.url_id = m.old;
UPDATE pages p SET duplicate_of = m.new FROM idmap m WHERE p.duplicate_of = m.old;
UPDATE pages p SET near_duplicate_of = m.new FROM idmap m WHERE p.near_duplicate_of = m.old;
UPDATE content_hashes c SET url_id = m.new FROM idmap m WHERE c.url_id = m.old;
UPDATE page_history h SET url_id = m.new FROM idmap m WHERE h.url_id = m.old;
UPDATE outbox o SET url_id = m.new FROM idmap m WHERE o.url_id = m.old;
UPDATE links l SET source_id = m.new FROM idmap m WHERE l.source_id = m.old;
UPDATE links l SET target_id = t.new FROM (
        SELECT source_id, target_id,
            (('x' || encode(substring(sha256(convert_to(substring(target FROM '^[^:/?#]+://[^/?#]*'), 'UTF8')) FROM 1 FOR 8), 'hex'))::bit(64)::bigint
                & -4503599627370496) | (target_id & 4503599627370495) AS new
        FROM links WHERE substring(target FROM '^[^:/?#]+://[^/?#]*') IS NOT NULL) t
    WHERE l.source_id = t.source_id AND l.target_id = t.target_id AND t.new <> l.target_id;
