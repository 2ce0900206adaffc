package sqlite

// urls keeps a URL's text without its host's origin (migration 0028,
// crawl.RelURL): a normalized URL begins with its host key,
// "scheme://host[:port]" (crawl.HostKey), which hosts.key holds once for
// all the host's URLs. A URL is cut by the key it is offered with
// (NewURL.Host) and made whole with its host's row: the two agree, the
// host ID being the key's hash. The offers stage keeps its URLs the same
// way.

// fullURLSQL is crawl.FullURL in SQL, of a row u of urls and the row h of
// its host, LEFT JOINed (a host without a row counts as the key "").
const fullURLSQL = `CASE WHEN substr(u.url, 1, 1) = '!' THEN substr(u.url, 2) ELSE coalesce(h.key, '') || u.url END`
