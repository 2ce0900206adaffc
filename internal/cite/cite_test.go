package cite

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestKeys(t *testing.T) {
	works := []Work{
		{ID: "z", Title: "Deep learning", Year: 2020, Authors: []Name{{Given: "Jamal", Family: "Sato"}}},
		{ID: "a", Title: "Deep learning again", Year: 2020, Authors: []Name{{Given: "Jamal", Family: "Sato"}}},
		{ID: "m", Title: "The Şahin–Öztürk model of straße", Date: "2019-05", Authors: []Name{{Given: "İsmail", Family: "Şahin"}}},
		{ID: "b", Title: "On the Deep", Year: 2020, Authors: []Name{{Given: "J.", Family: "Sato"}}},
		{ID: "c", Title: "Weltbericht", Year: 2021, Authors: []Name{{Literal: "World Health Organization"}}},
		{ID: "d", Title: "Über die Straße", Authors: []Name{{Given: "Anna", Particle: "van der", Family: "Berg"}}},
		{ID: "e", Title: "日本語のタイトル"},
		{ID: "f", Title: "", Authors: []Name{{Family: "Straß"}}, Year: 1999},
		{ID: "g", Title: "İstanbul ışıkları", Year: 2001, Authors: []Name{{Family: "Işık"}}},
		{ID: "h", Title: "Deep", Year: 2020, Authors: []Name{{Family: "Sato"}}}, // base sato2020deep too
		{ID: "i", Title: "a", Year: 2020, Authors: []Name{{Family: "Sato"}}},    // base sato2020, beside sato2020a/b…
	}
	want := []string{"sato2020deepd", "sato2020deepa", "sahin2019sahin", "sato2020deepb", "world2021weltbericht", "bergstrasse", "anon", "strass1999", "isik2001istanbul", "sato2020deepc", "sato2020"}
	got := Keys(works)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("key of %q (%s) = %q, want %q", works[i].Title, works[i].ID, got[i], want[i])
		}
	}
	// Keys are the same in any order of the input.
	rev := make([]Work, len(works))
	for i := range works {
		rev[len(works)-1-i] = works[i]
	}
	gotRev := Keys(rev)
	for i := range works {
		if gotRev[len(works)-1-i] != got[i] {
			t.Errorf("key of %s in reversed input = %q, want %q", works[i].ID, gotRev[len(works)-1-i], got[i])
		}
	}
}

func TestKeysUniqueWhenSuffixesCollide(t *testing.T) {
	var works []Work
	for i := 0; i < 30; i++ {
		works = append(works, Work{ID: string(rune('A' + i)), Authors: []Name{{Family: "Sato"}}, Year: 2020})
	}
	works = append(works, Work{ID: "x", Title: "ab", Authors: []Name{{Family: "Sato"}}, Year: 2020}) // base sato2020ab
	seen := map[string]bool{}
	for _, k := range Keys(works) {
		if seen[k] {
			t.Errorf("key %q given twice", k)
		}
		seen[k] = true
	}
	if !seen["sato2020ab"] || !seen["sato2020ae"] {
		t.Errorf("keys %v: want sato2020ab for the title and the suffixes to skip it", seen)
	}
}

func TestLetters(t *testing.T) {
	for n, want := range map[int]string{1: "a", 2: "b", 26: "z", 27: "aa", 28: "ab", 52: "az", 53: "ba", 702: "zz", 703: "aaa"} {
		if got := letters(n); got != want {
			t.Errorf("letters(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestTexEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain":           "plain",
		"50% & $5 #1 a_b": `50\% \& \$5 \#1 a\_b`,
		`a\b`:             `a{\textbackslash}b`,
		"{x}":             `{\textbraceleft}x{\textbraceright}`,
		"~^":              `{\textasciitilde}{\textasciicircum}`,
		"Işık ß ü":        "Işık ß ü",
	} {
		if got := texEscape(in); got != want {
			t.Errorf("texEscape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestProtectTitle(t *testing.T) {
	for in, want := range map[string]string{
		"Deep learning for DNA sequencing":       "Deep learning for {DNA} sequencing",
		"Deep Learning For DNA Sequencing":       "Deep Learning For {DNA} Sequencing",
		"The iPhone and the city of Berlin":      "The {iPhone} and the city of {Berlin}",
		"Bayesian Methods In Practice":           "Bayesian Methods In Practice",
		"İstanbul'da deprem riski ve Türk halkı": "İstanbul'da deprem riski ve {Türk} halkı",
		"A {set} of 50% of $x^2$":                `A {\textbraceleft}set{\textbraceright} of 50\% of \$x{\textasciicircum}2\$`,
		"on \\DNA words in TeX":                  `on {{{\textbackslash}DNA}} words in {TeX}`,
	} {
		if got := protectTitle(in, ""); got != want {
			t.Errorf("protectTitle(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestProtectTitleGerman(t *testing.T) {
	in := "Über die Größe von Mengen und Zahlen"
	if got, want := protectTitle(in, "de-AT"), "Über die {Größe} von {Mengen} und {Zahlen}"; got != want {
		t.Errorf("protectTitle(%q, de-AT) = %q, want %q", in, got, want)
	}
	if got, want := protectTitle(in, "en"), in; got != want {
		t.Errorf("protectTitle(%q, en) = %q, want %q", in, got, want)
	}
}

func TestWorkDate(t *testing.T) {
	for _, tc := range []struct {
		year    int
		date    string
		y, m, d int
	}{
		{2020, "", 2020, 0, 0},
		{0, "2020-03-15", 2020, 3, 15},
		{0, "2020-03-15T10:00:00Z", 2020, 3, 15},
		{2020, "2020-03", 2020, 3, 0},
		{2021, "2020-03-15", 2021, 0, 0}, // disagreeing: the year alone
		{0, "2020-13-01", 2020, 0, 0},
		{0, "2021-02-29", 2021, 2, 0},
		{0, "2020-02-29", 2020, 2, 29},
		{0, "20-03-15", 0, 0, 0},
		{0, "March 2020", 0, 0, 0},
		{-5, "", 0, 0, 0},
	} {
		w := Work{Year: tc.year, Date: tc.date}
		if y, m, d := w.date(); y != tc.y || m != tc.m || d != tc.d {
			t.Errorf("Work{Year: %d, Date: %q}.date() = %d, %d, %d, want %d, %d, %d", tc.year, tc.date, y, m, d, tc.y, tc.m, tc.d)
		}
	}
}

func TestPages(t *testing.T) {
	for _, tc := range []struct{ first, last, f, l string }{
		{"12", "34", "12", "34"},
		{"12-34", "", "12", "34"},
		{"12–34", "", "12", "34"},
		{"12--34", "", "12", "34"},
		{"e1234", "", "e1234", ""},
		{"7", "7", "7", ""},
	} {
		w := Work{FirstPage: tc.first, LastPage: tc.last}
		if f, l := w.pages(); f != tc.f || l != tc.l {
			t.Errorf("pages(%q, %q) = %q, %q, want %q, %q", tc.first, tc.last, f, l, tc.f, tc.l)
		}
	}
}

// sample is a work with every field set, and characters every format must
// carry.
var sample = Work{
	ID:             "w1",
	Type:           "proceedings",
	Title:          "Türk ve Alman: İş, Straße & 50% of {braces} in DNA_seq",
	Authors:        []Name{ParseName("Anna van der Berg"), ParseName("Şahin, İsmail"), ParseName("{World Health Organization}"), ParseName("Jamal Sato Jr.")},
	Date:           "2020-03-15",
	ContainerTitle: "Proceedings of the Ünal Workshop",
	Volume:         "12",
	Issue:          "3",
	FirstPage:      "12",
	LastPage:       "34",
	Publisher:      "ACM",
	DOI:            "10.1002/(SICI)1097-4636(199603)30:3<325::AID-JBM5>3.0.CO;2-F",
	ISSN:           []string{"1234-5678"},
	ISBN:           []string{"978-3-16-148410-0"},
	URL:            "https://example.test/paper?id=1&x=a_b",
	PDFURL:         "https://example.test/paper.pdf",
	Abstract:       "We study\nthings.",
	Keywords:       []string{"deep learning", "Ölçüm"},
	Language:       "tr",
}

func TestWriteBibTeX(t *testing.T) {
	var b bytes.Buffer
	if err := WriteBibTeX(&b, []Work{sample, {ID: "w2", Type: TypeThesis, Title: "A thesis", Year: 2001, Publisher: "Boğaziçi Üniversitesi", Authors: []Name{{Family: "García Márquez"}}}}); err != nil {
		t.Fatal(err)
	}
	want := `@inproceedings{berg2020turk,
  author = {van der Berg, Anna and Şahin, İsmail and {World Health Organization} and Sato, Jr., Jamal},
  title = {Türk ve Alman: İş, Straße \& 50\% of {\textbraceleft}braces{\textbraceright} in {DNA\_seq}},
  booktitle = {Proceedings of the Ünal Workshop},
  publisher = {ACM},
  year = {2020},
  month = mar,
  volume = {12},
  number = {3},
  pages = {12--34},
  doi = {10.1002/(SICI)1097-4636(199603)30:3<325::AID-JBM5>3.0.CO;2-F},
  isbn = {978-3-16-148410-0},
  url = {https://example.test/paper?id=1&x=a_b},
  abstract = {We study things.},
  keywords = {deep learning, Ölçüm},
  language = {tr},
}

@phdthesis{garciamarquez2001thesis,
  author = {{García Márquez}},
  title = {A thesis},
  school = {Boğaziçi Üniversitesi},
  year = {2001},
}

`
	if b.String() != want {
		t.Errorf("WriteBibTeX =\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWriteRIS(t *testing.T) {
	var b bytes.Buffer
	if err := WriteRIS(&b, []Work{sample, {Type: "nonsense", Title: "Untitled", Year: 1999}}); err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(`TY  - CPAPER
AU  - van der Berg, Anna
AU  - Şahin, İsmail
AU  - World Health Organization
AU  - Sato, Jamal, Jr.
TI  - Türk ve Alman: İş, Straße & 50% of {braces} in DNA_seq
T2  - Proceedings of the Ünal Workshop
PY  - 2020
DA  - 2020/03/15/
VL  - 12
IS  - 3
SP  - 12
EP  - 34
PB  - ACM
SN  - 1234-5678
SN  - 978-3-16-148410-0
DO  - 10.1002/(SICI)1097-4636(199603)30:3<325::AID-JBM5>3.0.CO;2-F
UR  - https://example.test/paper?id=1&x=a_b
L1  - https://example.test/paper.pdf
AB  - We study things.
KW  - deep learning
KW  - Ölçüm
LA  - tr
ER  - 

TY  - GEN
TI  - Untitled
PY  - 1999
DA  - 1999///
ER  - 

`, "\n", "\r\n")
	if b.String() != want {
		t.Errorf("WriteRIS =\n%q\nwant\n%q", b.String(), want)
	}
}

func TestWriteCSLJSON(t *testing.T) {
	var b bytes.Buffer
	dup := Work{ID: "w1", Type: TypeDataset, Title: "Data", Year: 2020, Date: "2020-07"}
	if err := WriteCSLJSON(&b, []Work{sample, dup, {Type: TypePreprint, Title: "Pre"}}); err != nil {
		t.Fatal(err)
	}
	var items []map[string]any
	if err := json.Unmarshal(b.Bytes(), &items); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, b.String())
	}
	if len(items) != 3 {
		t.Fatalf("%d items, want 3", len(items))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(items[0])
	got := strings.TrimSpace(buf.String())
	want := `{"DOI":"10.1002/(SICI)1097-4636(199603)30:3<325::AID-JBM5>3.0.CO;2-F","ISBN":"978-3-16-148410-0","ISSN":"1234-5678","URL":"https://example.test/paper?id=1&x=a_b","abstract":"We study things.","author":[{"family":"Berg","given":"Anna","non-dropping-particle":"van der"},{"family":"Şahin","given":"İsmail"},{"literal":"World Health Organization"},{"family":"Sato","given":"Jamal","suffix":"Jr."}],"citation-key":"berg2020turk","container-title":"Proceedings of the Ünal Workshop","id":"berg2020turk","issue":"3","issued":{"date-parts":[[2020,3,15]]},"keyword":"deep learning, Ölçüm","language":"tr","page":"12-34","publisher":"ACM","title":"Türk ve Alman: İş, Straße & 50% of {braces} in DNA_seq","type":"paper-conference","volume":"12"}`
	if got != want {
		t.Errorf("item 0 =\n%s\nwant\n%s", got, want)
	}
	// w1 is shared: both items take their citation keys as ids.
	for i, want := range []struct{ id, typ string }{{"berg2020turk", "paper-conference"}, {"anon2020data", "dataset"}, {"anonpre", "article"}} {
		if items[i]["id"] != want.id || items[i]["type"] != want.typ {
			t.Errorf("item %d: id %v, type %v, want %s, %s", i, items[i]["id"], items[i]["type"], want.id, want.typ)
		}
	}
	if d := items[1]["issued"]; d == nil || len(d.(map[string]any)["date-parts"].([]any)[0].([]any)) != 2 {
		t.Errorf("item 1 issued = %v, want [[2020, 7]]", d)
	}
}

func TestTypeNormalize(t *testing.T) {
	for in, want := range map[Type]Type{
		"article": TypeArticle, "Proceedings": TypeProceedingsPaper, "proceedings-paper": TypeProceedingsPaper,
		"person": TypeOther, "": TypeOther, " thesis ": TypeThesis, "dataset": TypeDataset,
	} {
		if got := in.Normalize(); got != want {
			t.Errorf("Type(%q).Normalize() = %q, want %q", in, got, want)
		}
	}
}

func TestBibtexType(t *testing.T) {
	for _, tc := range []struct {
		w    Work
		want string
	}{
		{Work{Type: TypeArticle, ContainerTitle: "Nature"}, "article"},
		{Work{Type: TypeArticle}, "misc"},
		{Work{Type: TypeChapter, ContainerTitle: "Handbook"}, "incollection"},
		{Work{Type: TypeChapter}, "misc"},
		{Work{Type: "proceedings", ContainerTitle: "Proc. X"}, "inproceedings"},
		{Work{Type: TypeProceedingsPaper, ContainerTitle: " "}, "misc"},
		{Work{Type: TypeThesis}, "phdthesis"},
		{Work{Type: TypeReport}, "techreport"},
		{Work{Type: TypeBook}, "book"},
		{Work{Type: "news"}, "misc"},
	} {
		if got := bibtexTypes[bibtexType(&tc.w)]; got != tc.want {
			t.Errorf("bibtexType(%q, container %q) = @%s, want @%s", tc.w.Type, tc.w.ContainerTitle, got, tc.want)
		}
	}
}

func TestWriteEmpty(t *testing.T) {
	for name, tc := range map[string]struct {
		write func(io.Writer, []Work) error
		want  string
	}{
		"bibtex":   {WriteBibTeX, ""},
		"ris":      {WriteRIS, ""},
		"csl-json": {WriteCSLJSON, "[]\n"},
	} {
		var b bytes.Buffer
		if err := tc.write(&b, nil); err != nil || b.String() != tc.want {
			t.Errorf("%s of no works = %q, %v, want %q", name, b.String(), err, tc.want)
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteError(t *testing.T) {
	for name, write := range map[string]func(io.Writer, []Work) error{"bibtex": WriteBibTeX, "ris": WriteRIS, "csl-json": WriteCSLJSON} {
		if err := write(failWriter{}, []Work{sample}); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%s to a failing writer: %v, want the writer's error", name, err)
		}
	}
}

func TestCleanCutsAtCharacter(t *testing.T) {
	s := strings.Repeat("a", MaxField-1) + "ş" + "tail"
	got := clean(s)
	if len(got) != MaxField-1 || !utf8.ValidString(got) {
		t.Errorf("clean(%d bytes ending ş…) = %d bytes (valid %v), want %d", len(s), len(got), utf8.ValidString(got), MaxField-1)
	}
	if got := clean(" a\n\tb\u2028c\x00d\uFEFF "); got != "a b c d" {
		t.Errorf("clean = %q, want %q", got, "a b c d")
	}
}

func BenchmarkWriteBibTeX(b *testing.B) {
	works := make([]Work, 1000)
	for i := range works {
		works[i] = sample
		works[i].ID = strings.Repeat("x", i%7) + string(rune('a'+i%26))
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteBibTeX(io.Discard, works); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseName(b *testing.B) {
	names := []string{"Anna van der Berg", "Şahin, İsmail", "{World Health Organization}", "Jamal Sato Jr.", "Sato JA"}
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range names {
			ParseName(n)
		}
	}
}
