package robots

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// check is one question put to a parsed file: may token fetch path?
type check struct {
	token string
	path  string
	want  bool
}

// runChecks parses body once and asks every check, one subtest each.
func runChecks(t *testing.T, body string, checks []check) {
	t.Helper()
	r := Parse([]byte(body))
	for _, c := range checks {
		t.Run(c.token+" "+c.path, func(t *testing.T) {
			if got := r.Group(c.token).Allowed(c.path); got != c.want {
				t.Errorf("Parse(%q).Group(%q).Allowed(%q) = %v, want %v", body, c.token, c.path, got, c.want)
			}
		})
	}
}

// RFC 9309 section 5.1.
func TestRFC9309SimpleExample(t *testing.T) {
	const body = `User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot

EOF
`
	runChecks(t, body, []check{
		// "*": /publications/ allowed, /example/ and *.gif disallowed.
		{"otherbot", "/", true},
		{"otherbot", "/publications/", true},
		{"otherbot", "/publications/paper.pdf", true},
		{"otherbot", "/example/", false},
		{"otherbot", "/example/page.html", false},
		{"otherbot", "/image.gif", false},
		{"otherbot", "/deep/dir/image.gif", false},
		{"otherbot", "/image.gif?x=1", true},
		{"otherbot", "/image.gifv", true},
		// The longer Allow beats "*.gif$" (7 octets vs 14).
		{"otherbot", "/publications/figure.gif", true},
		// foobot: only the two listed URLs.
		{"foobot", "/", false},
		{"foobot", "/example/page.html", true},
		{"foobot", "/example/allowed.gif", true},
		{"foobot", "/example/other.html", false},
		{"foobot", "/publications/", false},
		{"FooBot", "/example/page.html", true},
		// barbot and bazbot: everything but /example/page.html; the "*" group
		// does not apply to them.
		{"barbot", "/example/page.html", false},
		{"barbot", "/example/page.html.bak", false},
		{"barbot", "/example/other.html", true},
		{"barbot", "/image.gif", true},
		{"bazbot", "/example/page.html", false},
		{"bazbot", "/publications/", true},
		// quxbot: empty group at the end, everything allowed.
		{"quxbot", "/", true},
		{"quxbot", "/example/page.html", true},
		{"quxbot", "/image.gif", true},
	})
}

// RFC 9309 section 5.2.
func TestRFC9309LongestMatch(t *testing.T) {
	const body = `User-Agent: foobot
Allow: /example/page/
Disallow: /example/page/disallowed.gif
`
	runChecks(t, body, []check{
		{"foobot", "/example/page/disallowed.gif", false},
		{"foobot", "/example/page/", true},
		{"foobot", "/example/page/allowed.gif", true},
		{"foobot", "/example/", true},
	})
}

// RFC 9309 section 2.2.2, the percent-encoding table, and section 2.2.3,
// the special characters.
func TestRFC9309Encoding(t *testing.T) {
	tests := []struct {
		pattern string
		path    string
		want    bool // the pattern matches the path
	}{
		// 2.2.2: path in the file, path of the URL.
		{"/foo/bar?baz=quz", "/foo/bar?baz=quz", true},
		{"/foo/bar?baz=https://foo.bar", "/foo/bar?baz=https%3A%2F%2Ffoo.bar", false},
		{"/foo/bar?baz=https%3A%2F%2Ffoo.bar", "/foo/bar?baz=https%3A%2F%2Ffoo.bar", true},
		{"/foo/bar?baz=https%3a%2f%2ffoo.bar", "/foo/bar?baz=https%3A%2F%2Ffoo.bar", true},
		{"/foo/bar/ツ", "/foo/bar/%E3%83%84", true},
		{"/foo/bar/ツ", "/foo/bar/%e3%83%84", true},
		{"/foo/bar/%E3%83%84", "/foo/bar/%E3%83%84", true},
		{"/foo/bar/%E3%83%84", "/foo/bar/ツ", true},
		{"/foo/bar/%62%61%7A", "/foo/bar/baz", true},
		{"/foo/bar/baz", "/foo/bar/%62%61%7A", true},
		{"/foo/bar/%62%61%7A", "/foo/bar/%62%61%7a", true},
		// A reserved character stays distinct from its escape.
		{"/a%2Fb", "/a/b", false},
		{"/a/b", "/a%2Fb", false},
		{"/a%2fb", "/a%2Fb", true},
		{"/%7Euser/", "/~user/index.html", true},
		{"/~user/", "/%7euser/index.html", true},
		// A '%' that starts no escape is a literal '%'.
		{"/100%", "/100%25", true},
		{"/100%25", "/100%", true},
		{"/100%", "/100", false},
		// 2.2.3: '#' comments, '$' ends the pattern, '*' any sequence.
		{"/ # comment in line", "/anything", true},
		{"/this/path/exactly$", "/this/path/exactly", true},
		{"/this/path/exactly$", "/this/path/exactly/", false},
		{"/this/path/exactly$", "/this/path/exactly?q", false},
		{"/this/*/exactly", "/this/path/exactly", true},
		{"/this/*/exactly", "/this/a/b/exactly", true},
		{"/this/*/exactly", "/this//exactly", true},
		{"/this/*/exactly", "/this/exactly", false},
		// 2.2.3: special characters matched verbatim are escaped.
		{"/path/file-with-a-%2A.html", "/path/file-with-a-*.html", true},
		{"/path/file-with-a-%2A.html", "/path/file-with-a-%2A.html", true},
		{"/path/file-with-a-%2A.html", "/path/file-with-a-x.html", false},
		{"/path/foo-%24", "/path/foo-$", true},
		{"/path/foo-%24", "/path/foo-%24", true},
		{"/path/foo-%24", "/path/foo-", false},
		// A '$' that does not end the pattern is a literal '$'.
		{"/a$b", "/a$b", true},
		{"/a$b", "/a%24b", true},
		{"/a$b", "/a", false},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" "+tt.path, func(t *testing.T) {
			body := "User-agent: *\nDisallow: " + tt.pattern + "\n"
			if got := !Parse([]byte(body)).Group("x").Allowed(tt.path); got != tt.want {
				t.Errorf("pattern %q matches %q = %v, want %v", tt.pattern, tt.path, got, tt.want)
			}
		})
	}
}

// Google's "How Google interprets the robots.txt specification", URL
// matching based on path values.
func TestGooglePathMatching(t *testing.T) {
	tests := []struct {
		pattern string
		match   []string
		noMatch []string
	}{
		{"/", []string{"/", "/index.html", "/fish/salmon.html", "/?q=1"}, nil},
		{"/*", []string{"/", "/index.html", "/fish/salmon.html", "/?q=1"}, nil},
		{"/$", []string{"/"}, []string{"/index.html", "/?q=1"}},
		{"/fish",
			[]string{"/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.php?id=anything"},
			[]string{"/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"}},
		{"/fish*",
			[]string{"/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html", "/fish.php?id=anything"},
			[]string{"/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"}},
		{"/fish/",
			[]string{"/fish/", "/fish/?id=anything", "/fish/salmon.htm"},
			[]string{"/fish", "/fish.html", "/animals/fish/", "/Fish/Salmon.asp"}},
		// "fish/", which Google's guide once read as "/fish/", matches
		// nothing, as in Google's parser: see TestPatternWithoutSlash.
		{"fish/", nil, []string{"/fish/", "/fish/salmon.htm", "/fish", "/"}},
		{"/*.php",
			[]string{"/index.php", "/filename.php", "/folder/filename.php", "/folder/filename.php?parameters", "/folder/any.php.file.html", "/filename.php/"},
			[]string{"/", "/windows.PHP"}},
		{"/*.php$",
			[]string{"/filename.php", "/folder/filename.php"},
			[]string{"/filename.php?parameters", "/filename.php/", "/filename.php5", "/windows.PHP"}},
		{"/fish*.php",
			[]string{"/fish.php", "/fishheads/catfish.php?parameters"},
			[]string{"/Fish.PHP"}},
	}
	for _, tt := range tests {
		g := Parse([]byte("User-agent: *\nDisallow: " + tt.pattern + "\n")).Group("x")
		for _, p := range tt.match {
			t.Run(tt.pattern+" "+p, func(t *testing.T) {
				if g.Allowed(p) {
					t.Errorf("Disallow: %s; Allowed(%q) = true, want false", tt.pattern, p)
				}
			})
		}
		for _, p := range tt.noMatch {
			t.Run(tt.pattern+" "+p, func(t *testing.T) {
				if !g.Allowed(p) {
					t.Errorf("Disallow: %s; Allowed(%q) = false, want true", tt.pattern, p)
				}
			})
		}
	}
}

// Google's order of precedence for rules.
func TestGooglePrecedence(t *testing.T) {
	tests := []struct {
		rules string
		path  string
		want  bool
	}{
		{"allow: /p\ndisallow: /", "/page", true},
		{"allow: /folder\ndisallow: /folder", "/folder/page", true},
		{"disallow: /folder\nallow: /folder", "/folder/page", true},
		{"allow: /page\ndisallow: /*.htm", "/page.htm", false},
		{"allow: /page\ndisallow: /*.ph", "/page.php", true},
		{"allow: /page\ndisallow: /*.ph", "/page.php5", true},
		{"allow: /$\ndisallow: /", "/", true},
		{"allow: /$\ndisallow: /", "/page.htm", false},
		// Order in the file does not matter.
		{"disallow: /\nallow: /p", "/page", true},
		{"disallow: /*.htm\nallow: /page", "/page.htm", false},
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.rules, "\n", "; ")+" "+tt.path, func(t *testing.T) {
			body := "user-agent: *\n" + tt.rules + "\n"
			if got := Parse([]byte(body)).Group("x").Allowed(tt.path); got != tt.want {
				t.Errorf("Parse(%q).Group(\"x\").Allowed(%q) = %v, want %v", body, tt.path, got, tt.want)
			}
		})
	}
}

// Google's user-agent examples: the most specific group is chosen, never by
// prefix, and groups for the same agent are merged.
func TestGoogleUserAgentGroups(t *testing.T) {
	const body = `user-agent: googlebot-news
disallow: /group1

user-agent: *
disallow: /group2

user-agent: googlebot
disallow: /group3
`
	runChecks(t, body, []check{
		{"googlebot-news", "/group1", false},
		{"googlebot-news", "/group2", true},
		{"googlebot-news", "/group3", true},
		{"googlebot", "/group1", true},
		{"googlebot", "/group2", true},
		{"googlebot", "/group3", false},
		{"storebot-google", "/group1", true},
		{"storebot-google", "/group2", false},
		{"storebot-google", "/group3", true},
		{"otherbot", "/group2", false},
		{"googlebot-image", "/group2", false}, // no product hierarchy: falls to "*"
		{"googlebot-image", "/group3", true},
		{"Googlebot/2.1 (+http://www.google.com/bot.html)", "/group3", false},
	})
}

func TestMergedGroups(t *testing.T) {
	// Google's example: both googlebot-news groups apply, "*" does not.
	runChecks(t, `user-agent: googlebot-news
disallow: /fish

user-agent: *
disallow: /carrots

user-agent: googlebot-news
disallow: /shrimp
`, []check{
		{"googlebot-news", "/fish", false},
		{"googlebot-news", "/shrimp", false},
		{"googlebot-news", "/carrots", true},
		{"otherbot", "/carrots", false},
		{"otherbot", "/fish", true},
	})
	// Several "*" groups are merged too.
	runChecks(t, `user-agent: *
disallow: /a

user-agent: acrawler-news
disallow: /b

user-agent: *
disallow: /c
`, []check{
		{"acrawler", "/a", false},
		{"acrawler", "/b", true},
		{"acrawler", "/c", false},
	})
	// A group naming both "*" and the agent is the agent's group.
	runChecks(t, `user-agent: *
user-agent: acrawler
disallow: /a

user-agent: acrawler
disallow: /b
`, []check{
		{"acrawler", "/a", false},
		{"acrawler", "/b", false},
		{"otherbot", "/a", false},
		{"otherbot", "/b", true},
	})
}

// Google's grouping example: consecutive user-agent lines share a group, a
// group may be empty, and a sitemap line neither ends nor starts a group.
func TestGrouping(t *testing.T) {
	runChecks(t, `user-agent: a
disallow: /c

user-agent: b
disallow: /d

user-agent: e
user-agent: f
disallow: /g

user-agent: h
`, []check{
		{"a", "/c", false},
		{"a", "/d", true},
		{"b", "/c", true},
		{"b", "/d", false},
		{"e", "/g", false},
		{"f", "/g", false},
		{"f", "/c", true},
		{"h", "/c", true},
		{"h", "/g", true},
	})
	runChecks(t, `user-agent: a
sitemap: https://example.com/sitemap.xml

user-agent: b
disallow: /
`, []check{
		{"a", "/x", false},
		{"b", "/x", false},
		{"c", "/x", true},
	})
	// Unknown fields do not end a run of user-agent lines either; a
	// crawl-delay does.
	runChecks(t, `user-agent: a
host: example.com
user-agent: b
disallow: /x

user-agent: c
crawl-delay: 5
user-agent: d
disallow: /y
`, []check{
		{"a", "/x", false},
		{"b", "/x", false},
		{"c", "/y", true},
		{"d", "/y", false},
	})
}

func TestUserAgentMatching(t *testing.T) {
	const body = `User-agent: acrawler-news
Disallow: /news

User-agent: acrawl
Disallow: /acrawl

User-agent: ACrawler/1.0 (+https://example.com)
Disallow: /mine

User-agent: *
Disallow: /all
`
	runChecks(t, body, []check{
		{"acrawler", "/mine", false},
		{"acrawler", "/news", true},
		{"acrawler", "/acrawl", true},
		{"acrawler", "/all", true},
		{"ACRAWLER", "/mine", false},
		{"acrawler/0.1 (+https://x)", "/mine", false},
		{"acrawler-news", "/news", false},
		{"acrawler-news", "/mine", true},
		{"acrawl", "/acrawl", false},
		{"acrawle", "/all", false},
		{"", "/all", false},
		{"*", "/all", false},
		{"*", "/mine", true},
	})
	// With neither a matching group nor a "*" group, everything is allowed.
	runChecks(t, "User-agent: otherbot\nDisallow: /\n", []check{
		{"acrawler", "/", true},
		{"otherbot", "/", false},
	})
	// "*" followed by more text is not the "*" agent.
	runChecks(t, "User-agent: *bot\nDisallow: /\n", []check{
		{"acrawler", "/", true},
	})
	// An empty user-agent line names nobody but still starts a group.
	runChecks(t, "User-agent:\nUser-agent: acrawler\nDisallow: /\n", []check{
		{"acrawler", "/", false},
		{"", "/", true},
	})
}

func TestSyntax(t *testing.T) {
	tests := []struct {
		name string
		body string
		want bool // acrawler may fetch /private
	}{
		{"plain", "User-agent: *\nDisallow: /private\n", false},
		{"no final newline", "User-agent: *\nDisallow: /private", false},
		{"field case", "USER-AGENT: *\ndisALLOW: /private\n", false},
		{"whitespace", "  User-agent  :  *  \n\t Disallow \t:\t/private \t\n", false},
		{"no space", "User-agent:*\nDisallow:/private\n", false},
		{"CRLF", "User-agent: *\r\nDisallow: /private\r\n", false},
		{"CR", "User-agent: *\rDisallow: /private\r", false},
		{"mixed ends", "User-agent: *\r\n\rDisallow: /other\nDisallow: /private\r", false},
		{"BOM", "\xef\xbb\xbfUser-agent: *\nDisallow: /private\n", false},
		{"BOM not at start", "User-agent: *\n\xef\xbb\xbfDisallow: /private\n", true},
		{"comments", "# robots\nUser-agent: * # everyone\n# rules\nDisallow: /private # secret\n", false},
		{"comment hides rule", "User-agent: *\n# Disallow: /private\n", true},
		{"comment in value", "User-agent: *\nDisallow: #/private\n", true},
		{"blank lines in group", "User-agent: *\n\n\nDisallow: /private\n", false},
		{"blank lines between agents", "User-agent: otherbot\n\nUser-agent: acrawler\n\nDisallow: /private\n", false},
		{"unknown fields", "User-agent: *\nNoindex: /private\nClean-param: x\nDisallow: /private\n", false},
		{"no colon", "User-agent: *\nDisallow /private\n", true},
		{"typo disalow", "User-agent: *\nDisalow: /private\n", true},
		{"typo useragent", "Useragent: *\nDisallow: /private\n", true},
		{"rule before any agent", "Disallow: /private\nUser-agent: *\nAllow: /x\n", true},
		{"empty disallow", "User-agent: *\nDisallow:\n", true},
		{"empty disallow beside a rule", "User-agent: *\nDisallow:\nDisallow: /private\n", false},
		{"empty allow", "User-agent: *\nAllow:\nDisallow: /private\n", false},
		{"value with colon", "User-agent: *\nDisallow: /private:x\nDisallow: /priv\n", false},
		{"only comments", "# User-agent: *\n# Disallow: /\n", true},
		{"empty", "", true},
		{"html", "<html><body>Not found</body></html>", true},
		{"binary", "\x00\x01\xff\xfe:\x00", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Parse([]byte(tt.body)).Group("acrawler").Allowed("/private"); got != tt.want {
				t.Errorf("Parse(%q).Group(\"acrawler\").Allowed(\"/private\") = %v, want %v", tt.body, got, tt.want)
			}
		})
	}
}

func TestPathArgument(t *testing.T) {
	g := Parse([]byte("User-agent: *\nDisallow: /$\nDisallow: /private\nDisallow: /*?\n")).Group("x")
	tests := []struct {
		path string
		want bool
	}{
		{"", false}, // read as "/"
		{"/", false},
		{"private", false},
		{"/private#frag", false},
		{"/public#/private", true},
		{"/public", true},
		{"/public?", false},
		{"?q", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := g.Allowed(tt.path); got != tt.want {
				t.Errorf("Allowed(%q) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}

func TestRobotsTxtAlwaysAllowed(t *testing.T) {
	bodies := []string{
		"User-agent: *\nDisallow: /\n",
		"User-agent: *\nDisallow: /robots.txt\n",
		"User-agent: *\nDisallow: /*\nAllow: /robots\n",
	}
	for _, body := range bodies {
		for _, p := range []string{"/robots.txt", "/robots%2Etxt", "/robots.txt?x=1"} {
			t.Run(body+" "+p, func(t *testing.T) {
				if !Parse([]byte(body)).Group("x").Allowed(p) {
					t.Errorf("Parse(%q).Group(\"x\").Allowed(%q) = false, want true", body, p)
				}
			})
		}
	}
	g := Parse([]byte("User-agent: *\nDisallow: /\n")).Group("x")
	for _, p := range []string{"/robots.txt.bak", "/robots.txt/", "/dir/robots.txt", "/ROBOTS.TXT"} {
		if g.Allowed(p) {
			t.Errorf("Disallow: /; Allowed(%q) = true, want false", p)
		}
	}
	if !DisallowAll().Group("x").Allowed("/robots.txt") {
		t.Errorf("DisallowAll().Group(\"x\").Allowed(\"/robots.txt\") = false, want true")
	}
}

func TestMaxSize(t *testing.T) {
	const head = "User-agent: *\nDisallow: /a\n"
	const rule = "Disallow: /b"
	// upTo returns a body of head, a comment line and then s, where s starts
	// at offset at.
	upTo := func(at int, s string) string {
		return head + "#" + strings.Repeat("x", at-len(head)-len("#\n")) + "\n" + s
	}
	tests := []struct {
		name string
		body string
		path string
		want bool
	}{
		{"rule before limit", upTo(MaxSize, rule+"\n"), "/a", false},
		{"rule after limit", upTo(MaxSize, rule+"\n"), "/b", true},
		{"line ending at limit", upTo(MaxSize-len(rule), rule+"\nDisallow: /c\n"), "/b", false},
		{"line after the one ending at limit", upTo(MaxSize-len(rule), rule+"\nDisallow: /c\n"), "/c", true},
		{"line ending at limit with CR", upTo(MaxSize-len(rule), rule+"\rDisallow: /c\n"), "/b", false},
		{"line ending at limit with CRLF", upTo(MaxSize-len(rule), rule+"\r\nDisallow: /c\n"), "/b", false},
		{"line cut at limit", upTo(MaxSize-len(rule), rule+"cdef\n"), "/b", true},
		{"line cut at limit, earlier rules kept", upTo(MaxSize-len(rule), rule+"cdef\n"), "/a", false},
		{"body of exactly MaxSize", upTo(MaxSize-len(rule), rule), "/b", false},
		{"no line end at all", strings.Repeat("x", MaxSize+10), "/", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Parse([]byte(tt.body)).Group("x").Allowed(tt.path); got != tt.want {
				t.Errorf("Parse(%d bytes).Group(\"x\").Allowed(%q) = %v, want %v", len(tt.body), tt.path, got, tt.want)
			}
		})
	}
}

func TestFromStatus(t *testing.T) {
	body := []byte("User-agent: *\nDisallow: /private\n")
	tests := []struct {
		status      int
		private     bool // Allowed("/private")
		public      bool // Allowed("/public")
		unreachable bool
	}{
		{200, false, true, false},
		{203, false, true, false},
		{206, false, true, false},
		{301, true, true, false}, // redirects not followed: unavailable
		{304, true, true, false},
		{400, true, true, false},
		{401, true, true, false},
		{403, true, true, false},
		{404, true, true, false},
		{410, true, true, false},
		{429, false, false, true},
		{500, false, false, true},
		{503, false, false, true},
		{599, false, false, true},
		{0, false, false, true},
		{-1, false, false, true},
		{100, false, false, true},
		{600, false, false, true},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.status), func(t *testing.T) {
			r := FromStatus(tt.status, body)
			g := r.Group("acrawler")
			if got := g.Allowed("/private"); got != tt.private {
				t.Errorf("FromStatus(%d, body).Allowed(\"/private\") = %v, want %v", tt.status, got, tt.private)
			}
			if got := g.Allowed("/public"); got != tt.public {
				t.Errorf("FromStatus(%d, body).Allowed(\"/public\") = %v, want %v", tt.status, got, tt.public)
			}
			if got := r.Unreachable(); got != tt.unreachable {
				t.Errorf("FromStatus(%d, body).Unreachable() = %v, want %v", tt.status, got, tt.unreachable)
			}
			if !g.Allowed("/robots.txt") {
				t.Errorf("FromStatus(%d, body).Allowed(\"/robots.txt\") = false, want true", tt.status)
			}
		})
	}
}

func TestConstructors(t *testing.T) {
	for name, r := range map[string]*Robots{"AllowAll": AllowAll(), "zero": {}, "Parse(nil)": Parse(nil)} {
		g := r.Group("acrawler")
		if !g.Allowed("/") || !g.Allowed("/x?y") || r.Unreachable() {
			t.Errorf("%s: not allowing everything", name)
		}
		if d, ok := g.CrawlDelay(); ok {
			t.Errorf("%s: CrawlDelay() = %v, true, want none", name, d)
		}
	}
	r := DisallowAll()
	if g := r.Group("acrawler"); g.Allowed("/") || g.Allowed("/x") || r.Unreachable() {
		t.Errorf("DisallowAll: allows or is unreachable")
	}
}

func TestProductToken(t *testing.T) {
	tests := []struct {
		ua   string
		want string
	}{
		{"acrawler/0.1 (+https://x)", "acrawler"},
		{"acrawler", "acrawler"},
		{"ACrawler", "acrawler"},
		{"  acrawler/1.0", "acrawler"},
		{"acrawler (compatible)", "acrawler"},
		{"acrawler;x", "acrawler"},
		{"acrawler-news/2", "acrawler-news"},
		{"archive.org_bot", "archive.org_bot"},
		{"Googlebot/2.1 (+http://www.google.com/bot.html)", "googlebot"},
		{"Mozilla/5.0 (compatible; Googlebot/2.1)", "mozilla"},
		{"*", "*"},
		{"* ", "*"},
		{"", ""},
		{"/1.0", ""},
		{"ツbot", ""},
	}
	for _, tt := range tests {
		t.Run(tt.ua, func(t *testing.T) {
			if got := ProductToken(tt.ua); got != tt.want {
				t.Errorf("ProductToken(%q) = %q, want %q", tt.ua, got, tt.want)
			}
		})
	}
}

func TestCrawlDelay(t *testing.T) {
	tests := []struct {
		body   string
		want   time.Duration
		wantOK bool
	}{
		{"User-agent: *\nCrawl-delay: 10\n", 10 * time.Second, true},
		{"User-agent: *\ncrawl-DELAY:10\n", 10 * time.Second, true},
		{"User-agent: *\nCrawl-delay: 0.5\n", 500 * time.Millisecond, true},
		{"User-agent: *\nCrawl-delay: .25\n", 250 * time.Millisecond, true},
		{"User-agent: *\nCrawl-delay: 2.\n", 2 * time.Second, true},
		{"User-agent: *\nCrawl-delay: 0\n", 0, true},
		{"User-agent: *\nCrawl-delay: 5 # seconds\n", 5 * time.Second, true},
		{"User-agent: *\nCrawl-delay: 86400\n", 24 * time.Hour, true},
		{"User-agent: *\nCrawl-delay: 1000000\n", MaxCrawlDelay, true},
		{"User-agent: *\nCrawl-delay: 1" + strings.Repeat("0", 400) + "\n", MaxCrawlDelay, true},
		{"User-agent: *\nCrawl-delay: -1\n", 0, false},
		{"User-agent: *\nCrawl-delay: +1\n", 0, false},
		{"User-agent: *\nCrawl-delay: NaN\n", 0, false},
		{"User-agent: *\nCrawl-delay: Inf\n", 0, false},
		{"User-agent: *\nCrawl-delay: 1e3\n", 0, false},
		{"User-agent: *\nCrawl-delay: 0x10\n", 0, false},
		{"User-agent: *\nCrawl-delay: 5s\n", 0, false},
		{"User-agent: *\nCrawl-delay: 1,5\n", 0, false},
		{"User-agent: *\nCrawl-delay: 1.2.3\n", 0, false},
		{"User-agent: *\nCrawl-delay: .\n", 0, false},
		{"User-agent: *\nCrawl-delay:\n", 0, false},
		{"User-agent: *\nCrawl-delay: garbage\nCrawl-delay: 3\n", 3 * time.Second, true},
		{"Crawl-delay: 3\nUser-agent: *\n", 0, false},
		// The chosen group's delay, not another's.
		{"User-agent: *\nCrawl-delay: 3\n\nUser-agent: acrawler\nDisallow: /x\n", 0, false},
		{"User-agent: *\nCrawl-delay: 3\n\nUser-agent: acrawler\nCrawl-delay: 7\n", 7 * time.Second, true},
		{"User-agent: otherbot\nCrawl-delay: 3\n", 0, false},
		// Merged groups: the longest delay.
		{"User-agent: acrawler\nCrawl-delay: 2\n\nUser-agent: acrawler\nCrawl-delay: 4\n", 4 * time.Second, true},
		{"User-agent: acrawler\nCrawl-delay: 4\nCrawl-delay: 2\n", 4 * time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			got, ok := Parse([]byte(tt.body)).Group("acrawler").CrawlDelay()
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("Parse(%q).Group(\"acrawler\").CrawlDelay() = %v, %v, want %v, %v", tt.body, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestSitemaps(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"none", "User-agent: *\nDisallow: /\n", nil},
		{"before groups", "Sitemap: https://a.example/s.xml\nUser-agent: *\nDisallow: /\n", []string{"https://a.example/s.xml"}},
		{"inside and after groups",
			"User-agent: *\nSitemap: https://a.example/1.xml\nDisallow: /\nsitemap:https://a.example/2.xml\nSITEMAP :  https://a.example/3.xml  # last\n",
			[]string{"https://a.example/1.xml", "https://a.example/2.xml", "https://a.example/3.xml"}},
		{"duplicates", "Sitemap: https://a.example/1.xml\nSitemap: https://a.example/2.xml\nSitemap: https://a.example/1.xml\n",
			[]string{"https://a.example/1.xml", "https://a.example/2.xml"}},
		{"empty value", "Sitemap:\nSitemap: # none\n", nil},
		{"as written", "Sitemap: /relative.xml\nSitemap: https://a.example/ツ.xml\n", []string{"/relative.xml", "https://a.example/ツ.xml"}},
		{"typo", "Site-map: https://a.example/s.xml\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Parse([]byte(tt.body)).Sitemaps(); !slices.Equal(got, tt.want) {
				t.Errorf("Parse(%q).Sitemaps() = %q, want %q", tt.body, got, tt.want)
			}
		})
	}

	var b strings.Builder
	for i := range MaxSitemaps + 50 {
		b.WriteString("Sitemap: https://a.example/" + strconv.Itoa(i) + ".xml\n")
	}
	got := Parse([]byte(b.String())).Sitemaps()
	if len(got) != MaxSitemaps || got[0] != "https://a.example/0.xml" {
		t.Errorf("Sitemaps() of %d lines: %d URLs starting %q, want %d starting with the first line's", MaxSitemaps+50, len(got), got[0], MaxSitemaps)
	}

	r := Parse([]byte("Sitemap: https://a.example/1.xml\n"))
	r.Sitemaps()[0] = "changed"
	if got := r.Sitemaps()[0]; got != "https://a.example/1.xml" {
		t.Errorf("Sitemaps() shares its slice: after a change by the caller, got %q", got)
	}
}

// A pattern that makes a backtracking matcher take exponential time must
// answer at once. This test has no time limit; a slow matcher shows as a
// hung test, and BenchmarkAllowedPathological gives the figure.
func TestPathologicalPattern(t *testing.T) {
	body := "User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b\nDisallow: /*a*a*a*a*a*a*a*a*a*a*a*a*c$\n"
	g := Parse([]byte(body)).Group("x")
	long := "/" + strings.Repeat("a", 100000)
	if !g.Allowed(long) {
		t.Errorf("Allowed(%q...) = false, want true", long[:20])
	}
	if g.Allowed(long + "b") {
		t.Errorf("Allowed(%q...b) = true, want false", long[:20])
	}
	if g.Allowed(long + "c") {
		t.Errorf("Allowed(%q...c) = true, want false", long[:20])
	}
	if !g.Allowed(long + "cd") {
		t.Errorf("Allowed(%q...cd) = false, want true", long[:20])
	}
}

// manyAgents is MaxSize bytes of distinct user-agent lines in one group,
// followed by one rule.
func manyAgents() string {
	var b strings.Builder
	for i := 0; b.Len() < MaxSize-100; i++ {
		b.WriteString("user-agent:" + strconv.FormatInt(int64(i), 36) + "\n")
	}
	b.WriteString("disallow:/\n")
	return b.String()
}

// A group of tens of thousands of agents applies to each of them
// (BenchmarkParseManyAgents measures its parse time).
func TestManyAgents(t *testing.T) {
	r := Parse([]byte(manyAgents()))
	for _, agent := range []string{"0", "zz", "ZZ"} {
		if r.Group(agent).Allowed("/x") {
			t.Errorf("agent %s, named in a group of many: /x allowed, want disallowed", agent)
		}
	}
	if !r.Group("acrawler").Allowed("/x") {
		t.Errorf("agent acrawler, not named: /x disallowed, want allowed")
	}
}

// TestPatternWithoutSlash: a rule whose pattern starts with neither '/'
// nor '*' matches nothing (RFC 9309's grammar; Google's parser), so it
// neither disallows nor, beside "Disallow: /", allows anything.
func TestPatternWithoutSlash(t *testing.T) {
	for _, p := range []string{"private", "private/", "private$", "https://a.example/private",
		"%2Fprivate", "?private", "$"} {
		t.Run(p, func(t *testing.T) {
			if g := Parse([]byte("User-agent: *\nDisallow: /\nAllow: " + p + "\n")).Group("acrawler"); g.Allowed("/private") {
				t.Errorf("Disallow: / and Allow: %s; Allowed(\"/private\") = true, want false", p)
			}
			g := Parse([]byte("User-agent: *\nDisallow: " + p + "\n")).Group("acrawler")
			for _, path := range []string{"/private", "/", "/a.example/private"} {
				if !g.Allowed(path) {
					t.Errorf("Disallow: %s; Allowed(%q) = false, want true", p, path)
				}
			}
		})
	}
	// A leading '*' is a pattern, as in Google's parser.
	g := Parse([]byte("User-agent: *\nDisallow: /\nAllow: *private\n")).Group("acrawler")
	if !g.Allowed("/private") || !g.Allowed("/a/private") || g.Allowed("/public") {
		t.Errorf("Disallow: / and Allow: *private: /private %v, /a/private %v, /public %v; want true, true, false",
			g.Allowed("/private"), g.Allowed("/a/private"), g.Allowed("/public"))
	}
}
