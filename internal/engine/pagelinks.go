package engine

import (
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/extract"
)

// PageLinks applies the rules for what an extracted page links to, and
// sets p.Canonical: the canonical URL when it names another page (else
// none), the meta refresh target when it is another page, then the page's
// links, those to the page itself left out. The crawl records these links
// for a page it fetches; reparse for a page it extracts again.
func PageLinks(p *crawl.Page, x *extract.Result) []crawl.Link {
	return pageLinks(p, x, linkIDs(x, new(hostIDCache)))
}

// linkIDs returns the URL IDs of x's links, in their order, each computed
// once for the page's link rows and its offers (a URL ID is two SHA-256
// hashes; hosts keeps the host's).
func linkIDs(x *extract.Result, hosts *hostIDCache) []crawl.ID {
	ids := make([]crawl.ID, len(x.Links))
	for i, l := range x.Links {
		ids[i] = hosts.urlID(l.URL)
	}
	return ids
}

// pageLinks is PageLinks with the IDs of x's links (linkIDs).
func pageLinks(p *crawl.Page, x *extract.Result, ids []crawl.ID) []crawl.Link {
	p.Canonical = ""
	if x.Canonical != "" && x.Canonical != p.URL {
		p.Canonical = x.Canonical
	}
	links := make([]crawl.Link, 0, len(x.Links)+1)
	if x.Refresh != "" && x.Refresh != p.URL {
		links = append(links, crawl.Link{TargetID: crawl.URLID(x.Refresh), Target: x.Refresh})
	}
	for i, l := range x.Links {
		if l.URL != p.URL {
			links = append(links, crawl.Link{TargetID: ids[i], Target: l.URL, Anchor: l.Anchor, NoFollow: l.NoFollow})
		}
	}
	return links
}
