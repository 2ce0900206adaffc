package sqlite

import "strings"

// urls keeps a URL's text without its host's origin (migration 0028): a
// normalized URL begins with its host key, "scheme://host[:port]"
// (crawl.HostKey), which hosts.key holds once for all the host's URLs.
// The stored text is what follows the key: "", or text beginning with
// "/", "?" or "#". A URL that does not begin so with the key it was
// offered with (not made by the normalizer) is kept whole behind a "!",
// which no relative text begins with, so that every text comes back
// exactly. A URL is cut by the key it is offered with (NewURL.Host) and
// made whole with its host's row: the two agree, the host ID being the
// key's hash. The offers stage keeps its URLs the same way.

// relURL returns the text urls keeps of URL u of the host whose key is
// key.
func relURL(u, key string) string {
	if rest, ok := strings.CutPrefix(u, key); ok && (rest == "" || strings.IndexByte("/?#", rest[0]) >= 0) {
		return rest
	}
	return "!" + u
}

// fullURL is the URL whose text urls keeps as rel, of the host whose key
// is key: relURL's inverse.
func fullURL(rel, key string) string {
	if whole, ok := strings.CutPrefix(rel, "!"); ok {
		return whole
	}
	return key + rel
}

// fullURLSQL is fullURL in SQL, of a row u of urls and the row h of its
// host, LEFT JOINed (a host without a row counts as the key "").
const fullURLSQL = `CASE WHEN substr(u.url, 1, 1) = '!' THEN substr(u.url, 2) ELSE coalesce(h.key, '') || u.url END`
