package scope

import (
	"testing"
)

func TestCheck(t *testing.T) {
	seeds := []string{"http://www.northfield-university.test/", "https://journal-of-applied-crawling.test/"}
	tests := []struct {
		mode Mode
		url  string
		want Reason
	}{
		{Domain, "http://cs.northfield-university.test/people/", In},
		{Domain, "https://www.northfield-university.test/x", In},
		{Domain, "http://journal-of-applied-crawling.test/article/1", In},
		{Domain, "http://news.city-daily.test/", Outside},
		{Host, "http://cs.northfield-university.test/people/", Outside},
		{Host, "http://www.northfield-university.test/people/", In},
		{Any, "http://news.city-daily.test/", In},
		{Domain, "http://www.northfield-university.test/events/calendar?month=2026-11", Excluded},
		{Domain, "http://www.northfield-university.test/catalog?category=a&sort=price", Excluded},
		{Domain, "http://www.northfield-university.test/a;jsessionid=123", Excluded},
		{Domain, "http://www.northfield-university.test/logo.PNG", Excluded},
		{Domain, "http://www.northfield-university.test/login", Excluded},
		{Domain, "http://www.northfield-university.test/files/paper.pdf", In},
		{Domain, "http://www.northfield-university.test/research/sorting-algorithms", In},
		{Domain, "http://www.northfield-university.test/" + string(make([]byte, 300)), TooLong},
		{Domain, "http://www.northfield-university.test/a/b/a/b/a/b/a/", Repeating},
		{Domain, "http://www.northfield-university.test/a/b/a/b/a/", In},
		{Domain, "http://www.northfield-university.test/x?a=1&b=2&c=3&d=4&e=5", TooManyArgs},
		{Domain, "http://www.northfield-university.test/x?a=1&b=2&c=3&d=4", In},
	}
	for _, tt := range tests {
		s, err := New(tt.mode, seeds, DefaultExcludes, Limits{MaxLength: 256, MaxQueryParams: 4, MaxRepeats: 3})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Check(tt.url); got != tt.want {
			t.Errorf("%s: Check(%.80q) = %q, want %q", tt.mode, tt.url, got, tt.want)
		}
	}
}

func TestBadInput(t *testing.T) {
	if _, err := New(Domain, nil, []string{"("}, Limits{}); err == nil {
		t.Error("New with a bad pattern succeeded")
	}
	if _, err := ParseMode("planet"); err == nil {
		t.Error("ParseMode(planet) succeeded")
	}
}

// TestDefaultExcludes: the default patterns refuse calendar, facet and
// session traps, and keep the pages of academic sites that look a bit like
// them.
func TestDefaultExcludes(t *testing.T) {
	s, err := New(Any, nil, DefaultExcludes, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	const h = "https://www.uni.edu.tr"
	for _, p := range []string{
		"/calendar/2031/05",
		"/events/calendar?month=2031-05",
		"/events?date=2099-01-01",
		"/events?month=5&year=2031",
		"/events/list/?tribe-bar-date=2099-01-01", // WordPress' The Events Calendar
		"/events/month/2031-05/",
		"/catalog?order=price&q=x",
		"/catalog?facet=type&q=x",
		"/x?cfid=1&cftoken=2",
	} {
		if got := s.Check(h + p); got != Excluded {
			t.Errorf("Check(%q) = %q, want %q", p, got, Excluded)
		}
	}
	for _, p := range []string{
		"/publications?year=2023",
		"/news/archive?section=research&year=2024",
		"/index.php?id=5&option=com_content&view=article", // Joomla, query sorted
		"/index.php?Itemid=12&id=7&option=com_content&view=category",
		"/people/faculty/",
		"/article/view/123",
		"/handle/123456789/42",
		"/record/1234",
		"/doi/10.1145/3313831.3376238",
		"/eprint/1234/",
		"/abs/2101.00001",
		"/pdf/2101.00001v2",
		"/~user/papers/",
		"/seminars/2023-spring/",
		"/calendar-of-conferences-2024.html",
		"/akademik-takvim/",
		"/events/list/",
		"/catalog?resort=1",
		"/x?cohort=2019",
		"/x?side=left",
		"/consider",
	} {
		if got := s.Check(h + p); got != In {
			t.Errorf("Check(%q) = %q, want in", p, got)
		}
	}
}

// TestDomainScope: the registrable domain, by the public suffix list, not
// a string suffix; a seed on a public suffix's subdomain (user.github.io)
// does not open the whole suffix.
func TestDomainScope(t *testing.T) {
	seeds := []string{"https://www.uni.edu.tr/", "https://uni.ac.uk/", "https://cs.uni.edu/",
		"https://user.github.io/", "http://192.0.2.7/", "http://[2001:db8::1]/"}
	s, err := New(Domain, seeds, nil, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for u, want := range map[string]Reason{
		"https://lib.uni.edu.tr/":         In,
		"https://www.uni.ac.uk/":          In,
		"https://uni.edu/":                In,
		"https://math.uni.edu:8443/":      In,
		"https://user.github.io/p":        In,
		"http://192.0.2.7:8080/":          In,
		"http://[2001:db8::1]:81/":        In,
		"https://edu.tr/":                 Outside,
		"https://other.edu.tr/":           Outside,
		"https://ac.uk/":                  Outside,
		"https://uni.edu.evil.com/":       Outside,
		"https://evil-uni.edu/":           Outside,
		"https://other.github.io/":        Outside,
		"https://github.io/":              Outside,
		"http://192.0.2.8/":               Outside,
		"http://[2001:db8::2]/":           Outside,
		"https://uni.edu.tr.example.com/": Outside,
	} {
		if got := s.Check(u); got != want {
			t.Errorf("Check(%q) = %q, want %q", u, got, want)
		}
	}
}
