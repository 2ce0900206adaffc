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
