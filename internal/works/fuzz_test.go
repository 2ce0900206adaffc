package works

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"Crawling the Web: Lessons", "Öğrenme — Ağlar", "Sato, J.", "Jamal Sato", "Sato JA", "İ̇", "a\xffb", "van der Berg, Anna", "{World Health Organization}", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := NormalizeTitle(s)
		if NormalizeTitle(n) != n {
			t.Errorf("NormalizeTitle not idempotent: %q → %q → %q", s, n, NormalizeTitle(n))
		}
		if !utf8.ValidString(n) || strings.HasPrefix(n, " ") || strings.HasSuffix(n, " ") || strings.Contains(n, "  ") {
			t.Errorf("NormalizeTitle(%q) = %q: not trimmed single-spaced UTF-8", s, n)
		}
		main, sub := SplitTitle(s)
		if NormalizeTitle(main) != main || NormalizeTitle(sub) != sub {
			t.Errorf("SplitTitle(%q) = %q, %q: parts not normalized", s, main, sub)
		}
		if main == "" && n != "" {
			t.Errorf("SplitTitle(%q) lost the title %q", s, n)
		}
		if d := NormalizeDOI(s); d != "" && NormalizeDOI(d) != d {
			t.Errorf("NormalizeDOI not idempotent: %q → %q → %q", s, d, NormalizeDOI(d))
		}
		p := ParsePerson(s)
		if p.Family != "" && !SamePerson(s, s) {
			t.Errorf("SamePerson(%q, itself) = false", s)
		}
		if k := FamilyKey(s); strings.Contains(k, " ") || NormalizeTitle(k) != k {
			t.Errorf("FamilyKey(%q) = %q", s, k)
		}
	})
}

func FuzzMatch(f *testing.F) {
	f.Add("Polite Crawling at Scale: A Study", "Sato, J.", 2020, "10.5555/jac.1", "Polite crawling at scale", "Jamal Sato", 2021, "", true)
	f.Add("A", "B", 0, "", "A", "B", 0, "10.48550/arxiv.1", false)
	f.Fuzz(func(t *testing.T, t1, a1 string, y1 int, d1, t2, a2 string, y2 int, d2 string, pdf bool) {
		a := Copy{URL: "http://a.test/1", Kind: KindLanding, Source: SourceCitation, Title: t1, Authors: []string{a1}, Year: y1, DOI: NormalizeDOI(d1), PDFURL: "http://b.test/1.pdf"}
		b := Copy{URL: "http://b.test/1", Kind: KindRepository, Source: SourceDublinCore, Title: t2, Authors: []string{a2}, Year: y2, DOI: NormalizeDOI(d2)}
		if pdf {
			b.URL, b.Kind, b.Source = "http://b.test/1.pdf", KindPDF, SourcePDF
		}
		m := Match(a, b)
		if m != Match(b, a) {
			t.Fatalf("Match not symmetric for %+v %+v", a, b)
		}
		if m && !shareKey(a, b) {
			t.Fatalf("copies that Match share no key: %q %q", Keys(a), Keys(b))
		}
		if SamePerson(a1, a2) != SamePerson(a2, a1) {
			t.Fatalf("SamePerson(%q, %q) not symmetric", a1, a2)
		}
		w1, w2 := Merge([]Copy{a, b}), Merge([]Copy{b, a})
		if fmt.Sprint(w1) != fmt.Sprint(w2) {
			t.Fatalf("Merge depends on order:\n%+v\n%+v", w1, w2)
		}
		if len(w1.Copies) != 2 || (w1.Title == "" && (t1 != "" || t2 != "") && strings.TrimSpace(t1+t2) != "") {
			t.Fatalf("Merge lost copies or the title: %+v", w1)
		}
	})
}

// BenchmarkNormalize shows normalization's cost growing linearly with its
// input, up to MaxText (beyond which the input is cut).
func BenchmarkNormalize(b *testing.B) {
	for _, n := range []int{64, 512, 2048, 1 << 16} {
		s := strings.Repeat("Öğrenme: a-b ", n/13+1)[:n]
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				SplitTitle(s)
				SamePerson(s, s)
			}
		})
	}
}

// BenchmarkMergeCluster is the cost of clustering and merging four copies
// of each of 100 works.
func BenchmarkMergeCluster(b *testing.B) {
	var cs []Copy
	for i := range 100 {
		t := fmt.Sprintf("Work number %d on polite crawling: a study", i)
		cs = append(cs,
			land(fmt.Sprintf("http://j.test/%d", i), t, []string{"Jamal Sato", "Ayşe Demir"}, 2020, fmt.Sprintf("10.5555/x.%d", i)),
			Copy{URL: fmt.Sprintf("http://r.test/handle/%d", i), Kind: KindRepository, Source: SourceCitation, Title: t, Authors: []string{"Sato, J."}, Year: 2020},
			Copy{URL: fmt.Sprintf("http://j.test/%d.pdf", i), Kind: KindPDF, Source: SourcePDF, Title: t, Authors: []string{"Jamal Sato"}, Year: 2021},
			Copy{URL: fmt.Sprintf("http://p.test/%d", i), Kind: KindPreprint, Source: SourceCitation, Title: t, Authors: []string{"Jamal Sato"}, Year: 2019})
	}
	for b.Loop() {
		for _, g := range Cluster(cs) {
			var m []Copy
			for _, i := range g {
				m = append(m, cs[i])
			}
			Merge(m)
		}
	}
}

// FuzzAddKeepsWorksWhole commits a sequence of pages and records, each
// byte choosing a page or record, its title, DOI, first author and year
// from a few that match, conflict or differ, and checks after every step
// that the works are whole: each page that is a copy is in exactly one
// work that lists it, no work is empty, and each work's copies are one
// cluster again (a copy that left took apart what it joined).
func FuzzAddKeepsWorksWhole(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{3, 19, 35, 51, 3, 67, 83, 99, 115, 3})
	f.Add([]byte{255, 128, 64, 32, 16, 8, 4, 2, 1, 0, 7, 77, 177})
	titles := []string{"Polite Crawling at Scale: A Study", "Polite crawling at scale", "Polite Crawling at Scale: Part II", "Deep Crawling Methods"}
	dois := []string{"", "10.5555/a", "10.5555/b", "10.48550/arxiv.1"}
	authors := []string{"Jamal Sato", "Sato, J.", "Mei Chen", ""}
	f.Fuzz(func(t *testing.T, steps []byte) {
		if len(steps) > 64 {
			steps = steps[:64]
		}
		m := NewMemory()
		for i, b := range steps {
			id := int64(b&7) + 1
			md := Meta{Title: titles[(b>>3)&3], DOI: dois[(b>>5)&3], Year: 2019 + int(b>>7)*3, Type: "article", Sources: []string{"highwire"}}
			if a := authors[(int(b)+i)&3]; a != "" {
				md.Authors = []string{a}
			}
			if id > 6 {
				// Pages 7 and 8 are records; a step that gives a record no
				// title withdraws it.
				r := Record{ID: id, URL: fmt.Sprintf("http://r.test/oai?id=%d", id), Identifier: fmt.Sprint(id), Meta: md, Deleted: i%5 == 4}
				if _, err := AddRecord(m, r); err != nil {
					t.Fatal(err)
				}
			} else {
				p := Page{ID: id, URL: fmt.Sprintf("http://j.test/%d", id), ContentType: "text/html", Status: 200, Meta: &md}
				if i%6 == 5 {
					p.Status = 404
				}
				if id == 6 {
					p.URL, p.ContentType = "http://j.test/6.pdf", "application/pdf"
				}
				if _, err := Add(m, p); err != nil {
					t.Fatal(err)
				}
			}
			listed := map[int64]int64{}
			for _, w := range m.Works() {
				if len(w.Copies) == 0 {
					t.Fatalf("step %d: work %d has no copy", i, w.ID)
				}
				copies, _ := m.Copies(w.ID)
				if len(copies) != len(w.Copies) {
					t.Fatalf("step %d: work %d lists %d copies, has %d", i, w.ID, len(w.Copies), len(copies))
				}
				if parts := Cluster(copies); len(parts) != 1 {
					t.Fatalf("step %d: work %d is %d clusters: %+v", i, w.ID, len(parts), copies)
				}
				for _, c := range w.Copies {
					if _, dup := listed[c.PageID]; dup {
						t.Fatalf("step %d: page %d in two works", i, c.PageID)
					}
					listed[c.PageID] = w.ID
				}
			}
			for page, w := range m.workOf {
				if listed[page] != w {
					t.Fatalf("step %d: page %d is in work %d, which lists it under %d", i, page, w, listed[page])
				}
			}
		}
	})
}
