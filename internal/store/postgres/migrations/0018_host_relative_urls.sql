-- urls keeps a URL's text without its host's origin, as the SQLite store
-- does: a normalized URL begins with its host key, "scheme://host[:port]",
-- which hosts.key holds once for all the host's URLs. The text kept is
-- what follows the key ("", or text beginning with "/", "?" or "#"); a URL
-- that does not begin so with its host's key is kept whole behind a "!"
-- (urltext.go). The stage of offers keeps whole URLs: a merge cuts them as
-- it inserts them. Re-runnable: a text kept relative or whole already
-- (empty, or beginning with "/", "?", "#" or "!") is kept as it is.
UPDATE urls u SET url = CASE
        WHEN starts_with(u.url, h.key) AND substr(u.url, length(h.key) + 1, 1) IN ('', '/', '?', '#')
        THEN substr(u.url, length(h.key) + 1)
        ELSE '!' || u.url END
    FROM hosts h
    WHERE h.id = u.host_id AND u.url <> '' AND left(u.url, 1) NOT IN ('/', '?', '#', '!');
UPDATE urls SET url = '!' || url
    WHERE url <> '' AND left(url, 1) NOT IN ('/', '?', '#', '!') AND NOT EXISTS (SELECT 1 FROM hosts h WHERE h.id = urls.host_id);
