-- An inbound link's anchor text is kept beside it in inlinks, as the
-- source's outlinks row holds it (the first link of the source to the
-- target): a page indexed at commit reads the anchors of the links to it
-- from one range of inlinks, not by looking up and decoding each
-- source's row. The merge of staged links writes it (links.go); here the
-- pairs already merged get it from their rows. Filling only empty
-- anchors, the migration runs again over its own result without change.
ALTER TABLE inlinks ADD COLUMN IF NOT EXISTS anchor TEXT NOT NULL DEFAULT '';
UPDATE inlinks SET anchor = coalesce((SELECT acrawler_link_anchor(o.links, inlinks.target_id)
    FROM outlinks o WHERE o.source_id = inlinks.source_id), '')
WHERE anchor = '';
