package scholar

import (
	"testing"
)

func TestParseDate(t *testing.T) {
	tests := []struct {
		in, want string
		year     int
	}{
		{"2016/05/21", "2016-05-21", 2016},
		{"2016-05-21", "2016-05-21", 2016},
		{"2016-5-3", "2016-05-03", 2016},
		{"2016-05-21T10:00:00Z", "2016-05-21", 2016},
		{"2016-05-21 10:00", "2016-05-21", 2016},
		{"2016/05/21 10:00", "2016-05-21", 2016},
		{"21.05.2016 10:00", "2016-05-21", 2016},
		{"2016-05", "2016-05", 2016},
		{"2016", "2016", 2016},
		{"20160521", "2016-05-21", 2016},
		{"21.05.2016", "2016-05-21", 2016},
		{"21/05/2016", "2016-05-21", 2016},
		{"05/21/2016", "2016-05-21", 2016},
		{"05/06/2016", "2016", 2016}, // day and month cannot be told apart
		{"May 21, 2016", "2016-05-21", 2016},
		{"21 May 2016", "2016-05-21", 2016},
		{"Sept. 2016", "2016-09", 2016},
		{"15 Mart 2023", "2023-03-15", 2023},
		{"Mayıs 2016", "2016-05", 2016},
		{"Tue, 21 May 2016 10:00:00 GMT", "2016-05-21", 2016},
		{"Spring 2016", "2016", 2016},
		{"2016-2017", "2016", 2016},
		{"2016-13-01", "2016", 2016},
		{"2016-04-31", "2016-04", 2016},
		{"2016-02-29", "2016-02-29", 2016},
		{"2016/02/30", "2016-02", 2016},
		{"2015-02-29", "2015-02", 2015},
		{"", "", 0},
		{"n.d.", "", 0},
		{"9999", "", 0},
		{"in press", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, year, ok := parseDate(tt.in)
			if got != tt.want || year != tt.year || ok != (tt.want != "") {
				t.Errorf("parseDate(%q) = %q, %d, %v, want %q, %d", tt.in, got, year, ok, tt.want, tt.year)
			}
		})
	}
}

func TestCleanAuthor(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Nguyen, Rania", "Rania Nguyen"},
		{"  van  Aalst,   Pieter ", "Pieter van Aalst"},
		{"Rania Nguyen", "Rania Nguyen"},
		{"Okonkwo, Chidi A.", "Chidi A. Okonkwo"},
		{"King, Jr.", "King, Jr."},
		{"Smith, John, Jr.", "Smith, John, Jr."},
		{"Department of Physics, University of Eastmarch, Building 4", "Department of Physics, University of Eastmarch, Building 4"},
		{"Unit 7, Lab 3", "Unit 7, Lab 3"},
		{"Yıldız, Elif", "Elif Yıldız"},
		{"https://example.org/people/jane", ""},
		{"jane@example.org", ""},
		{"1234", ""},
		{" , ", ""},
		{"Jane\u00a0Doe\u200b", "Jane Doe"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := cleanAuthor(tt.in); got != tt.want {
				t.Errorf("cleanAuthor(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestClean(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"  a \n\t b  ", 100, "a b"},
		{"a\x00b\x07c", 100, "abc"},
		{"a\xffb", 100, "ab"},
		{"çok güzel", 4, "çok"},
		{"çok", 1, ""}, // never a broken character
		{"abc def", 5, "abc d"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := clean(tt.in, tt.max); got != tt.want {
				t.Errorf("clean(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
		})
	}
}

func TestStripTags(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<p>One</p><p>Two</p>", " One  Two "},
		{"H<sub>2</sub>O in <i>vitro</i>", "H2O in vitro"},
		{"a < b and c > d", "a < b and c > d"},
		{"x <p unclosed", "x <p unclosed"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := stripTags(tt.in); got != tt.want {
				t.Errorf("stripTags(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNormalizeISSN(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2049-3630", "2049-3630"},
		{"20493630", "2049-3630"},
		{"ISSN 1308-6200", "1308-6200"},
		{"0317-8471", "0317-8471"},
		{"2434-561x", "2434-561X"},
		{"1234-5678", ""}, // wrong check digit
		{"1234-567", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := normalizeISSN(tt.in)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("normalizeISSN(%q) = %q, %v, want %q", tt.in, got, ok, tt.want)
			}
		})
	}
}

func TestNormalizeISBN(t *testing.T) {
	tests := []struct{ in, want string }{
		{"978-1-4503-9999-9", "9781450399999"},
		{"ISBN 978-0-306-40615-7", "9780306406157"},
		{"urn:isbn:0-306-40615-2", "0306406152"},
		{"0-8044-2957-X", "080442957X"},
		{"978-0-306-40615-8", ""},
		{"0-306-40615-3", ""},
		{"12345", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := normalizeISBN(tt.in)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("normalizeISBN(%q) = %q, %v, want %q", tt.in, got, ok, tt.want)
			}
		})
	}
}
