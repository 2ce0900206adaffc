package htmlx

import "strings"

// Directives are the robots directives that concern a crawler and an index,
// from <meta name="robots"> or an X-Robots-Tag header. The zero value allows
// everything.
type Directives struct {
	NoIndex   bool // do not index the page
	NoFollow  bool // do not follow the page's links
	NoArchive bool // do not keep or show a cached copy ("noarchive", "nocache")
	NoSnippet bool // do not show a text snippet ("nosnippet", "max-snippet:0")
}

// Merge returns the union of d and o: a directive set in either is set.
func (d Directives) Merge(o Directives) Directives {
	return Directives{
		NoIndex:   d.NoIndex || o.NoIndex,
		NoFollow:  d.NoFollow || o.NoFollow,
		NoArchive: d.NoArchive || o.NoArchive,
		NoSnippet: d.NoSnippet || o.NoSnippet,
	}
}

// ParseRobotsDirectives parses the content of a <meta name="robots"> element
// or one X-Robots-Tag header value. Directives are separated by commas
// (semicolons and spaces are accepted too) and matched case-insensitively:
// noindex, nofollow, noarchive, nocache (as noarchive), nosnippet,
// max-snippet:0 (as nosnippet), none (noindex and nofollow) and all
// (nothing); others, such as index, follow or unavailable_after, are
// ignored.
//
// A user agent followed by a colon ("googlebot: noindex, nofollow") makes the
// directives after it, up to the next agent, apply to that agent only; they
// count when the agent equals token (case-insensitively) or is "*". Pass
// each X-Robots-Tag header on its own and Merge the results, so that an
// agent named in one header does not capture the next.
func ParseRobotsDirectives(value, token string) Directives {
	var d Directives
	applies := true
	for value != "" {
		var item string
		if i := strings.IndexAny(value, ",;"); i >= 0 {
			item, value = value[:i], value[i+1:]
		} else {
			item, value = value, ""
		}
		item = strings.TrimSpace(item)
		if i := strings.IndexByte(item, ':'); i >= 0 {
			key := strings.TrimSpace(item[:i])
			// A user agent is one word: "25 Jun 2025 15" is the rest of a
			// date with a comma ("unavailable_after: Wed, 25 Jun 2025
			// 15:00:00 GMT"), not an agent.
			if !valuedDirective(key) && !strings.ContainsAny(key, " \t\n\f\r") {
				// A user agent prefix.
				applies = key == "*" || token != "" && strings.EqualFold(key, token)
				item = strings.TrimSpace(item[i+1:])
			}
		}
		if applies {
			d.apply(item)
		}
	}
	return d
}

// apply sets the directives named in item, one or more words, or one valued
// directive ("max-snippet: 0").
func (d *Directives) apply(item string) {
	if i := strings.IndexByte(item, ':'); i >= 0 {
		if strings.EqualFold(strings.TrimSpace(item[:i]), "max-snippet") && strings.TrimSpace(item[i+1:]) == "0" {
			d.NoSnippet = true
		}
		return
	}
	for _, w := range strings.Fields(item) {
		switch strings.ToLower(w) {
		case "noindex":
			d.NoIndex = true
		case "nofollow":
			d.NoFollow = true
		case "none":
			d.NoIndex, d.NoFollow = true, true
		case "noarchive", "nocache":
			d.NoArchive = true
		case "nosnippet":
			d.NoSnippet = true
		}
	}
}

// valuedDirective reports whether key names a directive written
// "name: value", as opposed to a user agent.
func valuedDirective(key string) bool {
	switch strings.ToLower(key) {
	case "max-snippet", "max-image-preview", "max-video-preview", "unavailable_after":
		return true
	}
	return false
}
