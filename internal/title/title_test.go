package title

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPage(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Candidates
		want string
	}{
		{"site suffix, og:title agrees",
			Candidates{Title: "Deep learning for X | Northfield University", OG: "Deep learning for X", Site: "Northfield University", Host: "www.northfield-university.test"},
			"Deep learning for X"},
		{"a bare host name names the site, whichever it is",
			Candidates{Title: "Admissions and fees - www.northfield.edu", Host: "apply.northfield-university.test"},
			"Admissions and fees"},
		{"a bare host name before the title",
			Candidates{Title: "WWW.Northfield.EDU | Admissions and fees", Host: "www.northfield.edu"},
			"Admissions and fees"},
		{"a title that is only a bare host name is kept",
			Candidates{Title: "www.northfield.edu", Host: "northfield.edu"},
			"www.northfield.edu"},
		{"a name with a dot is not a host name",
			Candidates{Title: "Getting started with Node.js - Tutorials"},
			"Getting started with Node.js - Tutorials"},
		{"site suffix, nothing else",
			Candidates{Title: "Deep learning for X | Northfield University", Host: "www.northfield-university.test"},
			"Deep learning for X"},
		{"site prefix, citation_title agrees in other case",
			Candidates{Title: "JWAS — Deep Learning For Crop Yield Prediction", Citation: "Deep learning for crop yield prediction"},
			"Deep Learning For Crop Yield Prediction"},
		{"colon inside the title, citation agrees with the whole",
			Candidates{Title: "Deep learning: a survey", Citation: "Deep learning: A survey", Heading: "Deep learning"},
			"Deep learning: a survey"},
		{"a heading does not cut at a colon",
			Candidates{Title: "Deep learning: a survey", Heading: "Deep learning"},
			"Deep learning: a survey"},
		{"site name before a colon",
			Candidates{Title: "Northfield University: Admissions and fees", Site: "Northfield University"},
			"Admissions and fees"},
		{"section and site around the title",
			Candidates{Title: "News - New lab opens in the physics building | Northfield University", Site: "Northfield University"},
			"New lab opens in the physics building"},
		{"h1 agrees with a middle part",
			Candidates{Title: "Publications | Jane Doe | Department of Physics | Northfield University", Heading: "Jane Doe"},
			"Jane Doe"},
		{"h1 is the site's logo",
			Candidates{Title: "Deep learning for X | Northfield University", Heading: "Northfield University", Site: "Northfield University"},
			"Deep learning for X"},
		{"home page keeps the whole title",
			Candidates{Title: "Home | Northfield University", Site: "Northfield University"},
			"Home | Northfield University"},
		{"title is only the site name, og:title names the page",
			Candidates{Title: "Northfield University", Site: "Northfield University", OG: "Deep learning for X", Heading: "Deep learning for X"},
			"Deep learning for X"},
		{"title is only the host, citation_title names the page",
			Candidates{Title: "northfield-university.test", Host: "www.northfield-university.test", Citation: " Deep  learning for X "},
			"Deep learning for X"},
		{"home page named by the site, h1 a motto",
			Candidates{Title: "Faults", Host: "faults.test", Heading: "Everything that goes wrong"},
			"Faults"},
		{"home page named by the site, og:title generic",
			Candidates{Title: "Northfield University", Site: "Northfield University", OG: "Home"},
			"Northfield University"},
		{"title is the site name",
			Candidates{Title: "Northfield University", Site: "Northfield University"},
			"Northfield University"},
		{"hyphenated words are not cut",
			Candidates{Title: "State-of-the-art self-supervised learning", Host: "state.example.org"},
			"State-of-the-art self-supervised learning"},
		{"no rule applies",
			Candidates{Title: "Self-supervised learning - a review of methods", Host: "example.org"},
			"Self-supervised learning - a review of methods"},
		{"host name as a part",
			Candidates{Title: "Quantum error correction codes - arXiv.org", Host: "arxiv.org"},
			"Quantum error correction codes"},
		{"host label as a part",
			Candidates{Title: "Graph neural networks explained · Medium", Host: "medium.com"},
			"Graph neural networks explained"},
		{"Turkish journal page",
			Candidates{Title: "Makale » Derin öğrenme ile görüntü sınıflandırma » Karadeniz Fen Bilimleri Dergisi » DergiPark", Citation: "Derin Öğrenme ile Görüntü Sınıflandırma", Site: "DergiPark", Host: "dergipark.org.tr"},
			"Derin öğrenme ile görüntü sınıflandırma"},
		{"Turkish journal page without metadata",
			Candidates{Title: "Makale » Derin öğrenme ile görüntü sınıflandırma » DergiPark", Host: "dergipark.org.tr"},
			"Derin öğrenme ile görüntü sınıflandırma"},
		{"Turkish dotted capital I",
			Candidates{Title: "İSTANBUL ÜNİVERSİTESİ - Bilgisayar Mühendisliği Bölümü", Site: "İstanbul Üniversitesi"},
			"Bilgisayar Mühendisliği Bölümü"},
		{"Turkish announcement",
			Candidates{Title: "Duyurular - 2024 Bahar dönemi ders programı - Karadeniz Üniversitesi", Heading: "2024 Bahar Dönemi Ders Programı"},
			"2024 Bahar dönemi ders programı"},
		{"German chair",
			Candidates{Title: "Prof. Dr. Anna Schmidt – Lehrstuhl für Informatik – TU München", Heading: "Prof. Dr. Anna Schmidt", Host: "www.in.tum.de"},
			"Prof. Dr. Anna Schmidt"},
		{"German home page",
			Candidates{Title: "Startseite - Universität Hamburg", Site: "Universität Hamburg", Host: "www.uni-hamburg.de"},
			"Startseite - Universität Hamburg"},
		{"German news, sharp s",
			Candidates{Title: "Aktuelles | Neue Straßenbahn zum Campus | Universität Hamburg", OG: "Neue Strassenbahn zum Campus"},
			"Neue Straßenbahn zum Campus"},
		{"og:title repeats the whole title",
			Candidates{Title: "Deep learning for X | Northfield University", OG: "Deep learning for X | Northfield University", Site: "Northfield University"},
			"Deep learning for X"},
		{"pipe without spaces",
			Candidates{Title: "Graph colouring algorithms|Lecture notes|Example College", Site: "Example College"},
			"Graph colouring algorithms|Lecture notes"},
		{"h1 names the start of a part",
			Candidates{Title: "University Website Link Census 2023 (Version 2) | Open Research Data Repository", Heading: "University Website Link Census 2023"},
			"University Website Link Census 2023 (Version 2)"},
		{"one word is no start of a part",
			Candidates{Title: "Deep learning for X | Deep Lab", Heading: "Deep"},
			"Deep learning for X | Deep Lab"},
		{"the journal's name",
			Candidates{Title: "Adaptive revisit policies | Journal of Web Archiving Studies", Names: []string{"Open Publishers", "Journal of Web Archiving Studies"}},
			"Adaptive revisit policies"},
		{"host name in the last part",
			Candidates{Title: "Bean festival in June - City of Examplestadt", Host: "www.examplestadt.test"},
			"Bean festival in June"},
		{"host name in a short first part",
			Candidates{Title: "Parcelpost online | New rules for parcels from abroad this spring", Host: "parcelpost.test"},
			"New rules for parcels from abroad this spring"},
		{"host name at the end of a long part",
			Candidates{Title: "Best of Lakeview 2022: the most liked projects on Lakeview", OG: "Best of Lakeview 2022: the most liked projects on Lakeview", Host: "lakeview.test"},
			"Best of Lakeview 2022: the most liked projects on Lakeview"},
		{"host name in a part the heading agrees with",
			Candidates{Title: "Skitouring: light and fast with new gear | Touring.test", Heading: "Skitouring: light and fast with new gear", Host: "touring.test"},
			"Skitouring: light and fast with new gear"},
		{"a venue that is the page's title is not the site",
			Candidates{Title: "Unsatisfied | Deviant Paths", Citation: "Unsatisfied", Heading: "Unsatisfied", Names: []string{"Deviant Paths", "Unsatisfied"}},
			"Unsatisfied"},
		{"heading after a colon that the site's name is before",
			Candidates{Title: "NFG e.V.: Which heating is future-proof?", Heading: "Which heating is future-proof?", Host: "www.nfgev.test"},
			"Which heating is future-proof?"},
		{"colon between spaces",
			Candidates{Title: "Items we never knew we wanted : The Perspective", Heading: "Items we never knew we wanted"},
			"Items we never knew we wanted"},
		{"the part most names agree with",
			Candidates{Title: "Open Progress - Why thinking together beats thinking alone | Open Future | The Weekly", Citation: "Why thinking together beats thinking alone",
				OG: "Why thinking together beats thinking alone", Heading: "Open Progress Why thinking together beats thinking alone", Site: "The Weekly"},
			"Why thinking together beats thinking alone"},
		{"of runs as agreed with, the longest",
			Candidates{Title: "Mystery bag - every woman needs a secret! - Martina Example - Lady Blog", Citation: "Martina Example",
				Heading: "Mystery bag – every woman needs a secret!", Site: "Martina Example - Lady Blog"},
			"Mystery bag - every woman needs a secret!"},
		{"no title: metadata",
			Candidates{Citation: " Deep  learning ", OG: "DL", Heading: "Deep learning!"},
			"Deep learning"},
		{"no title: heading", Candidates{Heading: "Seminar"}, "Seminar"},
		{"nothing", Candidates{Site: "Site", Host: "example.org"}, ""},
		{"only separators", Candidates{Title: " | - | "}, "| - |"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Page(tc.c); got != tc.want {
				t.Errorf("Page(%+v) = %q, want %q", tc.c, got, tc.want)
			}
		})
	}
}

func TestPlausible(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"Deep learning for crop yield prediction", true},
		{"Derin öğrenme ile görüntü sınıflandırma", true},
		{"Cryptography", true},
		{"Microsoft Word - paper.docx", false},
		{"Microsoft PowerPoint - talk", false},
		{"untitled", false},
		{"Untitled-1", false},
		{"Document1", false},
		{"Slide 1", false},
		{"paper_final_v2", false},
		{"main.tex", false},
		{"thesis.pdf", false},
		{"jwas-2019-1287", false},
		{"C:\\Users\\x\\paper.doc", false},
		{"doi:10.1000/xyz", false},
		{"10.1016/j.jmb.2019.01.001", false},
		{"PII: S0022-2836(19)30001-1", false},
		{"YJMBI 65123 1..12", false},
		{"  ", false},
		{"--", false},
		{"A", false},
		{"Başlıksız", false},
		{"Unbenannt", false},
	} {
		if got := Plausible(tc.s); got != tc.want {
			t.Errorf("Plausible(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// FuzzPage checks that Page names a page whenever it can, with a part of
// its <title> or a whole candidate.
func FuzzPage(f *testing.F) {
	f.Add("Deep learning for X | Northfield University", "", "Deep learning for X", "", "Northfield University", "www.northfield-university.test")
	f.Add("Makale » Derin öğrenme » DergiPark", "Derin öğrenme", "", "", "", "dergipark.org.tr")
	f.Add("a: b | c - d", "b | c", "a", "d", "c", "a.b.c")
	f.Add("", "", "", "h1", "", "")
	f.Fuzz(func(t *testing.T, title, citation, og, heading, site, host string) {
		c := Candidates{Title: title, Citation: citation, OG: og, Heading: heading, Site: site, Host: host}
		got := Page(c)
		if !utf8.ValidString(got) {
			t.Fatalf("Page(%+v) = %q, invalid UTF-8", c, got)
		}
		ct := clean(title)
		any := ct != "" || clean(citation) != "" || clean(og) != "" || clean(heading) != ""
		if any && got == "" {
			t.Fatalf("Page(%+v) = \"\", want a title", c)
		}
		whole := got == clean(citation) || got == clean(og) || got == clean(heading)
		if ct != "" && !whole {
			if !strings.Contains(ct, got) {
				t.Fatalf("Page(%+v) = %q, not part of the title %q", c, got, ct)
			}
			if got != strings.TrimSpace(got) || (key(ct) != "" && key(got) == "") {
				t.Fatalf("Page(%+v) = %q: untrimmed, or only punctuation", c, got)
			}
			if key(got) != "" && !Contains(ct, got) {
				t.Fatalf("Contains(%q, %q) = false for a part of the title", ct, got)
			}
		} else if ct == "" && got != "" && !whole {
			t.Fatalf("Page(%+v) = %q, not a candidate", c, got)
		}
		if again := Page(Candidates{Title: got, Citation: citation, OG: og, Heading: heading, Site: site, Host: host}); ct != "" && key(again) == "" && key(got) != "" {
			t.Fatalf("Page of its own result %q gave %q", got, again)
		}
	})
}

// TestPageLinear checks that the work of Page is bounded by its input: a
// huge title with many separators is cut to a bounded number of parts.
func TestPageLinear(t *testing.T) {
	long := strings.Repeat("word | ", 100000)
	c := Candidates{Title: long, Citation: strings.Repeat("word ", 100000), Heading: "word", Site: "x"}
	if got := Page(c); got == "" || len(got) > maxInput {
		t.Errorf("Page(long title) gave %d bytes", len(got))
	}
	segs := split(clean(long))
	if len(segs) > maxSegments {
		t.Errorf("split gave %d parts, want at most %d", len(segs), maxSegments)
	}
}

// BenchmarkPage is the title of a typical journal article's page.
func BenchmarkPage(b *testing.B) {
	c := Candidates{Title: "Derin öğrenme ile görüntü sınıflandırma | Karadeniz Fen Bilimleri Dergisi | DergiPark",
		Citation: "Derin Öğrenme ile Görüntü Sınıflandırma", OG: "Derin öğrenme ile görüntü sınıflandırma",
		Heading: "Derin öğrenme ile görüntü sınıflandırma", Site: "DergiPark", Host: "dergipark.org.tr",
		Names: []string{"Karadeniz Teknik Üniversitesi", "Karadeniz Fen Bilimleri Dergisi"}}
	b.ReportAllocs()
	for b.Loop() {
		if Page(c) == "" {
			b.Fatal("no title")
		}
	}
}

func TestContains(t *testing.T) {
	for _, tc := range []struct {
		text, t string
		want    bool
	}{
		{"Deep Learning for\nCrop Yield Prediction\nJamal Sato", "Deep learning for crop-yield prediction", true},
		{"DERİN ÖĞRENME İLE GÖRÜNTÜ SINIFLANDIRMA", "Derin öğrenme ile görüntü sınıflandırma", true},
		{"Deep learning for crops", "Deep learning for crop", false},
		{"anything", "", false},
		{"anything", " - ", false},
		{"Instructions for authors", "Deep learning", false},
	} {
		if got := Contains(tc.text, tc.t); got != tc.want {
			t.Errorf("Contains(%q, %q) = %v, want %v", tc.text, tc.t, got, tc.want)
		}
	}
}
