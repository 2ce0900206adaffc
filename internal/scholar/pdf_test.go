package scholar

import (
	"strings"
	"testing"
)

func TestPDF(t *testing.T) {
	paper := "Deep learning for crop yield prediction\n" +
		"Jamal Sato, Ayşe Kaya\n" +
		"Journal of Applied Crawling, 2019. doi:10.4242/JAC.2019.0012\n" +
		"Abstract\n" +
		"We predict yields, as in earlier work (doi:10.1000/other.1, 2015) and a conference paper.\n" +
		"1. Introduction\nCrops grow.\n\n" +
		"References\nA. Author (2010). Other work. https://doi.org/10.1000/ref.2"
	tests := []struct {
		name    string
		info    PDFInfo
		url     string
		text    string
		title   string
		authors []string
		doi     string
		year    int
		typ     string
	}{
		{"paper", PDFInfo{Title: "Deep learning for crop yield prediction", Author: "Jamal Sato; Ayşe Kaya; jamal  sato"},
			"https://www.example.edu/files/dl.pdf", paper,
			"Deep learning for crop yield prediction", []string{"Jamal Sato", "Ayşe Kaya"}, "10.4242/jac.2019.0012", 2019, TypeArticle},
		{"junk Title field, heading instead", PDFInfo{Title: "Microsoft Word - paper_v2.docx", Heading: "Deep learning for crop yield prediction", Author: "Jamal Sato, Jamal Sato", Year: 2021},
			"https://www.example.edu/files/dl.pdf", paper,
			"Deep learning for crop yield prediction", []string{"Jamal Sato"}, "10.4242/jac.2019.0012", 2019, TypeArticle},
		{"a template's Title field", PDFInfo{Title: "Instructions for the preparation of papers", Heading: "Deep learning for crop yield prediction"},
			"https://www.example.edu/files/dl.pdf", paper,
			"Deep learning for crop yield prediction", nil, "10.4242/jac.2019.0012", 2019, TypeArticle},
		{"a Title field the heading does not show whole", PDFInfo{Title: "Deep learning for crop yield prediction", Heading: "Deep learning for"},
			"https://www.example.edu/files/dl.pdf", paper,
			"Deep learning for crop yield prediction", nil, "10.4242/jac.2019.0012", 2019, TypeArticle},
		{"a Title field with the site's name", PDFInfo{Title: "Deep learning for crop yield prediction | Example University", Heading: "12"},
			"https://www.example.edu/files/dl.pdf", paper,
			"Deep learning for crop yield prediction", nil, "10.4242/jac.2019.0012", 2019, TypeArticle},
		{"a Title field with a section and the site's name", PDFInfo{Title: "News | Deep learning for crop yield prediction | Example University"},
			"https://www.example.edu/files/dl.pdf", paper,
			"Deep learning for crop yield prediction", nil, "10.4242/jac.2019.0012", 2019, TypeArticle},
		{"no title at all", PDFInfo{Title: "untitled", Heading: "12"}, "https://www.example.edu/files/x.pdf", paper,
			"", nil, "10.4242/jac.2019.0012", 2019, TypeArticle},
		{"thesis in a theses section", PDFInfo{Title: "Graph colouring heuristics", Author: "Sato, Jamal"},
			"https://www.example.edu/theses/graph-colouring.pdf",
			"Graph colouring heuristics\nJamal Sato\nNorthfield University, 2020. doi:10.4242/nfu.thesis.2020.0001\nAbstract\nWe colour graphs.",
			"Graph colouring heuristics", []string{"Jamal Sato"}, "10.4242/nfu.thesis.2020.0001", 2020, TypeThesis},
		{"thesis by its title page", PDFInfo{Title: "Graph colouring heuristics", Author: "Jamal Sato and Ayşe Kaya", Year: 2020},
			"https://repo.example.edu/bitstream/1/gc.pdf",
			"Graph colouring heuristics\nA thesis submitted in partial fulfilment of the requirements for the degree of Doctor of Philosophy\nJamal Sato\nAbstract\nWe colour graphs.",
			"Graph colouring heuristics", []string{"Jamal Sato", "Ayşe Kaya"}, "", 2020, TypeThesis},
		{"Turkish thesis", PDFInfo{Title: "Derin öğrenme ile görüntü sınıflandırma", Author: "Ayşe Kaya"},
			"https://tez.example.edu.tr/dosya/123.pdf",
			"T.C.\nKARADENİZ ÜNİVERSİTESİ\nDerin öğrenme ile görüntü sınıflandırma\nDoktora Tezi\nAyşe Kaya\nÖzet\nBu tezde...",
			"Derin öğrenme ile görüntü sınıflandırma", []string{"Ayşe Kaya"}, "", 0, TypeThesis},
		{"arXiv preprint", PDFInfo{Title: "Quantum error correction codes", Author: "A. Turing, A. Lovelace, G. Hopper"},
			"https://arxiv.org/pdf/2101.00001",
			"arXiv:2101.00001v1 [quant-ph] 1 Jan 2021\nQuantum error correction codes\nAbstract\nCodes.",
			"Quantum error correction codes", []string{"A. Turing", "A. Lovelace", "G. Hopper"}, "", 0, TypePreprint},
		{"conference paper", PDFInfo{Title: "Polite crawling", Author: "Jamal Sato"},
			"https://www.example.edu/papers/polite.pdf",
			"Polite crawling\nJamal Sato\nProceedings of the Web Conference, 2022. https://doi.org/10.1145/3485447.3512000\nAbstract\nBe polite.",
			"Polite crawling", []string{"Jamal Sato"}, "10.1145/3485447.3512000", 2022, TypeProceedings},
		{"ISSN beside the year", PDFInfo{Title: "Polite crawling", Year: 2023},
			"https://www.example.edu/papers/polite.pdf",
			"Polite crawling\nJournal of Web Science, ISSN 2049-3630, vol. 7, pp. 1999-2010, 2021\nAbstract\nBe polite.",
			"Polite crawling", nil, "", 2021, TypeArticle},
		{"DOI in the Subject field", PDFInfo{Title: "Polite crawling", Subject: "Journal of Web Science, doi:10.1000/jws.7"},
			"https://www.example.edu/papers/polite.pdf",
			"Polite crawling\nSee 10.1000/a.1 and 10.1000/b.2.",
			"Polite crawling", nil, "10.1000/jws.7", 0, TypeArticle},
		{"several DOIs, none stated as the document's", PDFInfo{Title: "A review of reviews"},
			"https://www.example.edu/files/review.pdf",
			"A review of reviews\nAbstract\nWe review 10.1000/a.1 and 10.1000/b.2.",
			"A review of reviews", nil, "", 0, TypeOther},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			md := PDF(tc.info, tc.url, tc.text)
			checkInvariants(t, md)
			if md.Title != tc.title || strings.Join(md.Authors, "; ") != strings.Join(tc.authors, "; ") || md.DOI != tc.doi || md.Year != tc.year || md.Type != tc.typ {
				t.Errorf("PDF(%s) = title %q, authors %q, DOI %q, year %d, type %q (%s)\nwant title %q, authors %q, DOI %q, year %d, type %q",
					tc.name, md.Title, md.Authors, md.DOI, md.Year, md.Type, md.TypeRule, tc.title, tc.authors, tc.doi, tc.year, tc.typ)
			}
			if md.DOI != "" && (len(md.DOIs) == 0 || md.DOIs[0] != md.DOI) {
				t.Errorf("PDF(%s): DOIs %q do not start with the DOI %q", tc.name, md.DOIs, md.DOI)
			}
		})
	}
}

func TestPDFAuthors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Jamal Sato", []string{"Jamal Sato"}},
		{"Jamal Sato, Jamal Sato", []string{"Jamal Sato"}},
		{"Jamal Sato; Jamal  Sato; JAMAL SATO", []string{"Jamal Sato"}},
		{"Jamal Sato, Ayşe Kaya; Jamal Sato and Ayşe Kaya", []string{"Jamal Sato", "Ayşe Kaya"}},
		{"Sato, Jamal", []string{"Jamal Sato"}},
		{"Sato, J. A.", []string{"J. A. Sato"}},
		{"Sato, Jamal; Kaya, Ayşe", []string{"Jamal Sato", "Ayşe Kaya"}},
		{"Jamal Sato & Ayşe Kaya", []string{"Jamal Sato", "Ayşe Kaya"}},
		{"Jamal Sato, Ayşe Kaya, and Ada Lovelace", []string{"Jamal Sato", "Ayşe Kaya", "Ada Lovelace"}},
		{"Anna Schmidt und Max Müller", []string{"Anna Schmidt", "Max Müller"}},
		{"https://example.org; info@example.org; 1234", nil},
	} {
		if got := pdfAuthors(tc.in); strings.Join(got, "; ") != strings.Join(tc.want, "; ") {
			t.Errorf("pdfAuthors(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzPDF checks that PDF keeps Extract's promises for any document, that
// its title is one the document gives, and that no two authors read the
// same.
func FuzzPDF(f *testing.F) {
	f.Add("Deep learning", "Jamal Sato, Jamal Sato", "doi:10.1000/x", "a, b", "Deep learning", 2020, "https://x/theses/a.pdf", "T\nNorthfield, 2019. doi:10.1000/y\nAbstract\nz\n\np2")
	f.Add("Microsoft Word - a.docx", "Sato, J.; Kaya & Lovelace and Hopper", "", "", "A Title Here", 0, "", "arXiv:1\nDoktora Tezi\n10.1000/a 10.1000/b")
	f.Fuzz(func(t *testing.T, title, author, subject, keywords, heading string, year int, pageURL, text string) {
		md := PDF(PDFInfo{Title: title, Author: author, Subject: subject, Keywords: keywords, Heading: heading, Year: year}, pageURL, text)
		checkInvariants(t, md)
		if md.Title != "" && md.Title != clean(title, MaxField) && md.Title != clean(heading, MaxField) {
			t.Errorf("PDF: title %q is neither the Title field %q nor the heading %q", md.Title, title, heading)
		}
		seen := map[string]bool{}
		for _, a := range md.Authors {
			if k := authorKey(a); seen[k] {
				t.Errorf("PDF(author %q): authors %q repeat %q", author, md.Authors, a)
			} else {
				seen[k] = true
			}
		}
		if md.DOI != "" && md.DOIs[0] != md.DOI {
			t.Errorf("PDF: DOIs %q do not start with the DOI %q", md.DOIs, md.DOI)
		}
	})
}
