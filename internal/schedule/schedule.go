// Package schedule decides when a crawled page is due again: adaptive
// revisit intervals (unchanged → longer, changed → shorter), initial
// intervals by page class and sitemap hints, and when a page counts as
// removed. Pure: times come in as values.
package schedule

import (
	"fmt"
	"time"
)

// Policy is the revisit policy.
type Policy struct {
	Min, Max time.Duration // interval bounds (default 1h, 30 days)
	// Initial intervals by page class.
	Home, Listing, Article, Other time.Duration
	// MissesToRemove is how many 404 answers in a row remove a page (410
	// removes it at once).
	MissesToRemove int
	// UnseenToInactive is how many recrawls of its host a page may go
	// unlinked (and absent from sitemaps) before it is marked inactive.
	UnseenToInactive int
}

// DefaultPolicy is documented in docs/recrawl.md.
func DefaultPolicy() Policy {
	return Policy{
		Min: time.Hour, Max: 30 * 24 * time.Hour,
		Home: 24 * time.Hour, Listing: 24 * time.Hour, Article: 14 * 24 * time.Hour, Other: 3 * 24 * time.Hour,
		MissesToRemove: 3, UnseenToInactive: 3,
	}
}

// Validate checks a policy.
func (p Policy) Validate() error {
	switch {
	case p.Min <= 0 || p.Max < p.Min:
		return fmt.Errorf("schedule: interval bounds %v..%v", p.Min, p.Max)
	case p.MissesToRemove < 1 || p.UnseenToInactive < 1:
		return fmt.Errorf("schedule: removal thresholds must be at least 1")
	}
	return nil
}

// Page is what the policy knows of a page at its first fetch.
type Page struct {
	Type       string    // classification: listing, news, article, ...
	Depth      int       // 0 for a seed (a home page)
	Path       string    // URL path, "/" for a home page
	ChangeFreq string    // sitemap <changefreq>
	LastMod    time.Time // sitemap <lastmod>
}

// Initial is a page's first revisit interval: the sitemap's changefreq
// when given, else by class.
func (p Policy) Initial(pg Page) time.Duration {
	if d, ok := changeFreq[pg.ChangeFreq]; ok {
		return p.clamp(d)
	}
	switch {
	case pg.Depth == 0 || pg.Path == "/" || pg.Path == "":
		return p.clamp(p.Home)
	case pg.Type == "listing" || pg.Type == "news":
		return p.clamp(p.Listing)
	case pg.Type == "article" || pg.Type == "preprint" || pg.Type == "thesis" || pg.Type == "proceedings" ||
		pg.Type == "book" || pg.Type == "dataset":
		return p.clamp(p.Article)
	}
	return p.clamp(p.Other)
}

var changeFreq = map[string]time.Duration{
	"always":  time.Hour,
	"hourly":  time.Hour,
	"daily":   24 * time.Hour,
	"weekly":  7 * 24 * time.Hour,
	"monthly": 30 * 24 * time.Hour,
	"yearly":  365 * 24 * time.Hour,
	"never":   365 * 24 * time.Hour,
}

// Next is the interval after a revisit: doubled when unchanged, halved
// when changed, within bounds.
func (p Policy) Next(interval time.Duration, changed bool) time.Duration {
	if interval <= 0 {
		interval = p.Other
	}
	if changed {
		return p.clamp(interval / 2)
	}
	if interval > p.Max/2 {
		// Doubling passes the maximum (and could overflow).
		return p.clamp(p.Max)
	}
	return p.clamp(interval * 2)
}

func (p Policy) clamp(d time.Duration) time.Duration {
	return min(max(d, p.Min), p.Max)
}

// Gone is whether a page still exists.
type Gone int8

// Page existence.
const (
	Active   Gone = 0
	Removed  Gone = 1 // 410, or 404 MissesToRemove times in a row
	Inactive Gone = 2 // no longer linked nor in a sitemap for UnseenToInactive recrawls
)

// Missing applies a 404 or 410 answer to a page's miss count and says
// whether the page is now removed.
func (p Policy) Missing(status, misses int) (int, Gone) {
	switch status {
	case 410:
		return misses + 1, Removed
	case 404:
		misses++
		if misses >= p.MissesToRemove {
			return misses, Removed
		}
		return misses, Active
	}
	return 0, Active
}
