package cite

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// These tests give the writers' output to the tools people read it with:
// pybtex, biber, bibtool, bibutils and citation-js. Each skips when its
// tool is not installed, unless ACRAWLER_REQUIRE_CITATION_READERS is set
// (.ci/run sets it and installs them).

const jbmDOI = "10.1002/(SICI)1097-4636(199603)30:3<325::AID-JBM5>3.0.CO;2-F"

// readerWorks carry what the formats must carry through: Unicode titles
// (Turkish, German), TeX's special characters, capitals to protect, names
// with particles, suffixes, initials and organizations, and DOIs with
// parentheses, angle brackets and underscores.
var readerWorks = []Work{
	{ID: "w1", Type: TypeArticle, Title: "Türkiye'de İşçi sağlığı: ğ, ı, ş, ö, ç, ü and Straße in DNA studies",
		Authors: []Name{ParseName("Şahin, İsmail"), ParseName("Ayşe Gül Işık"), ParseName("Hans-Jürgen Müller-Lüdenscheidt")},
		Date:    "1996-03-15", ContainerTitle: "Journal of Biomedical Materials Research", Volume: "30", Issue: "3", FirstPage: "325", LastPage: "334",
		DOI: jbmDOI, URL: "https://journal.test/abs/10.1002_x?id=1&v=2", ISSN: []string{"0021-9304"}},
	{ID: "w2", Type: TypeProceedingsPaper, Title: "50% faster & cheaper: #hashtags, under_scores and ~tildes in R&D",
		Authors: []Name{ParseName("Anna van der Berg"), ParseName("Sato, J."), ParseName("{World Health Organization}"), ParseName("Jamal Sato Jr.")},
		Year:    2020, ContainerTitle: "Proceedings of the Ünal Workshop on Data & Society", FirstPage: "12-34", Publisher: "ACM",
		DOI: "10.1145/3366423.3380_123"},
	{ID: "w3", Type: TypeThesis, Title: "Über die Größe von Mengen", Language: "de",
		Authors: []Name{ParseName("Johann Wolfgang von Goethe")}, Year: 2019, Publisher: "Universität Tübingen",
		DOI: "10.5282/edoc.123(4)"},
	{ID: "w4", Type: TypeArticle, Title: "A {tricky} title: $x^2$ costs \\$5 with a \\ and {braces}",
		Authors: []Name{ParseName("de La Fontaine, Jean"), ParseName("bell hooks")}, Year: 2001, ContainerTitle: "Lettres",
		Volume: "7", DOI: "10.1000/abc_def"},
	{ID: "w5", Type: TypeReport, Title: "Global report on iPhone use by the WHO in İstanbul",
		Authors: []Name{ParseName("Centers for Disease Control and Prevention")}, Date: "2021-11", Publisher: "CDC"},
	{ID: "w6", Type: TypeBook, Title: "Deep Learning", Authors: []Name{ParseName("Goodfellow, Ian"), ParseName("Bengio, Yoshua")},
		Year: 2016, Publisher: "MIT Press", ISBN: []string{"978-0-262-03561-3"}},
	{ID: "w7", Type: TypeDataset, Title: "Crop yields 2020", Authors: []Name{ParseName("Nguyen, Rania")}, Year: 2020},
	{ID: "w9", Type: TypeChapter, Title: "Ownership and ordering", Authors: []Name{ParseName("Nguyen, Rania")}, Year: 2018,
		ContainerTitle: "Handbook of Crawling", Publisher: "Springer", FirstPage: "101", LastPage: "130", ISBN: []string{"978-3-16-148410-0"}},
	{ID: "w10", Type: TypeArticle, Title: "An article whose journal is unknown", Authors: []Name{ParseName("Lee, Ann")}, Year: 2022},
	{ID: "w8", Type: TypePreprint, Title: "Deep Learning", Authors: []Name{ParseName("Goodfellow, Ian")}, Year: 2016, URL: "https://arxiv.test/abs/1234.5678"},
}

// hardTeX reports whether s has characters that some readers decode
// wrongly from their standard LaTeX escapes.
func hardTeX(s string, chars string) bool { return strings.ContainsAny(s, chars) }

func requireReaders() bool { return os.Getenv("ACRAWLER_REQUIRE_CITATION_READERS") != "" }

// tool finds a program, or skips the test (fails it when the readers are
// required).
func tool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		missing(t, name+" is not installed (Debian package "+pkg+")")
	}
	return p
}

func missing(t *testing.T, why string) {
	t.Helper()
	if requireReaders() {
		t.Fatalf("%s, and ACRAWLER_REQUIRE_CITATION_READERS is set", why)
	}
	t.Skipf("%s; .ci/run installs it", why)
}

func run(t *testing.T, dir string, name string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

func writeTo(t *testing.T, dir, name string, write func(io.Writer, []Work) error, works []Work) string {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b, works); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// pythonWithPybtex finds a Python that imports pybtex: the one on PATH, or
// the system's (Debian's python3-pybtex installs for /usr/bin/python3).
func pythonWithPybtex(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"python3", "/usr/bin/python3"} {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		if exec.Command(p, "-c", "import pybtex, latexcodec").Run() == nil {
			return p
		}
	}
	missing(t, "pybtex is not installed (Debian package python3-pybtex)")
	return ""
}

// lowered are titles of readerWorks as a style that lowercases titles
// prints them.
var lowered = map[string]string{
	"w1": "türkiye'de İşçi sağlığı: ğ, ı, ş, ö, ç, ü and Straße in DNA studies",
	"w3": "über die Größe von Mengen",
	"w5": "global report on iPhone use by the WHO in İstanbul",
	"w6": "deep learning",
}

func TestPybtexReadsBibTeX(t *testing.T) {
	python := pythonWithPybtex(t)
	dir := t.TempDir()
	bib := writeTo(t, dir, "works.bib", WriteBibTeX, readerWorks)
	script, err := filepath.Abs("testdata/pybtex_read.py")
	if err != nil {
		t.Fatal(err)
	}
	out, _ := run(t, dir, python, script, bib)
	var entries []struct {
		Key     string
		Type    string
		Raw     map[string]string
		Fields  map[string]string
		Lowered string
		Authors [][4]string
	}
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatalf("pybtex output: %v\n%s", err, out)
	}
	if len(entries) != len(readerWorks) {
		t.Fatalf("pybtex read %d entries, want %d", len(entries), len(readerWorks))
	}
	keys := Keys(readerWorks)
	for i, e := range entries {
		w := readerWorks[i]
		if e.Key != keys[i] || e.Type != bibtexTypes[bibtexType(&w)] {
			t.Errorf("entry %d: @%s{%s, want @%s{%s", i, e.Type, e.Key, bibtexTypes[bibtexType(&w)], keys[i])
		}
		// latexcodec does not decode \$, \textasciicircum, \textbraceleft
		// and \textbraceright; citation-js does (TestCitationJSReads).
		if !hardTeX(w.Title, "$^{}") && e.Fields["title"] != w.Title {
			t.Errorf("%s: pybtex title %q (written %q), want %q", e.Key, e.Fields["title"], e.Raw["title"], w.Title)
		}
		if want, ok := lowered[w.ID]; ok && e.Lowered != want {
			t.Errorf("%s: pybtex lowercased title %q (written %q), want %q", e.Key, e.Lowered, e.Raw["title"], want)
		}
		if y, _, _ := w.date(); e.Raw["year"] != itoa(y) {
			t.Errorf("%s: pybtex year %q, want %d", e.Key, e.Raw["year"], y)
		}
		if _, m, _ := w.date(); m > 0 && e.Raw["month"] != time.Month(m).String() {
			t.Errorf("%s: pybtex month %q, want %s", e.Key, e.Raw["month"], time.Month(m))
		}
		if e.Raw["doi"] != w.DOI {
			t.Errorf("%s: pybtex doi %q, want %q", e.Key, e.Raw["doi"], w.DOI)
		}
		if w.URL != "" && e.Raw["url"] != w.URL {
			t.Errorf("%s: pybtex url %q, want %q", e.Key, e.Raw["url"], w.URL)
		}
		if len(e.Authors) != len(w.Authors) {
			t.Errorf("%s: pybtex read %d authors, want %d", e.Key, len(e.Authors), len(w.Authors))
			continue
		}
		for j, n := range w.Authors {
			want := [4]string{n.Given, n.Particle, n.Family, n.Suffix}
			if n.Literal != "" {
				want = [4]string{"", "", n.Literal, ""}
			}
			if e.Authors[j] != want {
				t.Errorf("%s: pybtex author %d = %q (first, von, last, jr), want %q", e.Key, j, e.Authors[j], want)
			}
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return ""
	}
	b, _ := json.Marshal(n)
	return string(b)
}

func TestBiberValidatesBibTeX(t *testing.T) {
	biber := tool(t, "biber", "biber")
	dir := t.TempDir()
	writeTo(t, dir, "works.bib", WriteBibTeX, readerWorks)
	stdout, stderr := run(t, dir, biber, "--tool", "--validate-datamodel", "--output-file", "checked.bib", "works.bib")
	for _, line := range strings.Split(stdout+stderr, "\n") {
		// biblatex requires an editor for a chapter (@incollection); the
		// crawler does not know editors.
		if strings.HasPrefix(line, "ERROR") || strings.HasPrefix(line, "WARN") && !strings.Contains(line, "Missing mandatory field 'editor'") {
			t.Errorf("biber: %s", line)
		}
	}
	checked, err := os.ReadFile(filepath.Join(dir, "checked.bib"))
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range Keys(readerWorks) {
		typ := strings.ToUpper(bibtexTypes[bibtexType(&readerWorks[i])])
		if typ == "PHDTHESIS" {
			typ = "THESIS" // biber's type for it, with type = phdthesis
		}
		if typ == "TECHREPORT" {
			typ = "REPORT"
		}
		if !strings.Contains(string(checked), "@"+typ+"{"+k+",") {
			t.Errorf("biber's output has no @%s{%s:\n%s", typ, k, checked)
		}
		if doi := readerWorks[i].DOI; doi != "" && !strings.Contains(string(checked), "DOI = {"+doi+"}") {
			t.Errorf("biber's output has no DOI = {%s}", doi)
		}
	}
}

func TestBibtoolReadsBibTeX(t *testing.T) {
	bibtool := tool(t, "bibtool", "bibtool")
	dir := t.TempDir()
	bib := writeTo(t, dir, "works.bib", WriteBibTeX, readerWorks)
	_, stderr := run(t, dir, bibtool, "-o", filepath.Join(dir, "out.bib"), bib)
	if strings.TrimSpace(stderr) != "" {
		t.Errorf("bibtool: %s", stderr)
	}
	out, err := os.ReadFile(filepath.Join(dir, "out.bib"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), "\n@"); n != len(readerWorks) {
		t.Errorf("bibtool wrote %d entries, want %d:\n%s", n, len(readerWorks), out)
	}
}

// mods is the part of bibutils' MODS XML the tests compare.
type mods struct {
	Records []struct {
		ID    string `xml:"ID,attr"`
		Title []struct {
			Type     string `xml:"type,attr"`
			Title    string `xml:"title"`
			SubTitle string `xml:"subTitle"`
		} `xml:"titleInfo"`
		Host []struct {
			Title []struct {
				Type     string `xml:"type,attr"`
				Title    string `xml:"title"`
				SubTitle string `xml:"subTitle"`
			} `xml:"titleInfo"`
		} `xml:"relatedItem"`
		Names []struct {
			Type  string `xml:"type,attr"`
			Role  string `xml:"role>roleTerm"`
			Parts []struct {
				Type string `xml:"type,attr"`
				Text string `xml:",chardata"`
			} `xml:"namePart"`
		} `xml:"name"`
		DateIssued  string `xml:"originInfo>dateIssued"`
		PartDate    string `xml:"part>date"`
		Identifiers []struct {
			Type string `xml:"type,attr"`
			Text string `xml:",chardata"`
		} `xml:"identifier"`
	} `xml:"mods"`
}

func readMODS(t *testing.T, s string) mods {
	t.Helper()
	var m mods
	if err := xml.Unmarshal([]byte(strings.TrimPrefix(s, "\uFEFF")), &m); err != nil {
		t.Fatalf("bibutils MODS: %v\n%s", err, s)
	}
	return m
}

func TestBibutilsReadsBibTeXAndRIS(t *testing.T) {
	bib2xml := tool(t, "bib2xml", "bibutils")
	ris2xml := tool(t, "ris2xml", "bibutils")
	dir := t.TempDir()
	bib := writeTo(t, dir, "works.bib", WriteBibTeX, readerWorks)
	ris := writeTo(t, dir, "works.ris", WriteRIS, readerWorks)
	for _, tc := range []struct {
		format string
		prog   string
		file   string
	}{{"bibtex", bib2xml, bib}, {"ris", ris2xml, ris}} {
		t.Run(tc.format, func(t *testing.T) {
			out, _ := run(t, dir, tc.prog, tc.file)
			m := readMODS(t, out)
			if len(m.Records) != len(readerWorks) {
				t.Fatalf("bibutils read %d records, want %d", len(m.Records), len(readerWorks))
			}
			for i, r := range m.Records {
				w := readerWorks[i]
				title := ""
				for _, ti := range r.Title {
					if ti.Type == "" {
						title = ti.Title
						if ti.SubTitle != "" { // bibutils splits a title at its first colon
							title += ": " + ti.SubTitle
						}
						break
					}
				}
				// bibutils decodes {\textbackslash} and {\textasciicircum}
				// wrongly (as "\textbackslash" and U+2303); RIS is not TeX.
				if tc.format == "bibtex" {
					// LaTeX typesets ' as ’, which bibutils gives.
					title = strings.ReplaceAll(title, "’", "'")
				}
				if (tc.format == "ris" || !hardTeX(w.Title, `\^`)) && title != w.Title {
					t.Errorf("%s: bibutils title %q, want %q", w.ID, title, w.Title)
				}
				if w.Type == TypeArticle {
					journal := ""
					for _, h := range r.Host {
						for _, ti := range h.Title {
							if ti.Type == "" && ti.Title != "" {
								journal = ti.Title
							}
						}
					}
					if journal != w.ContainerTitle {
						t.Errorf("%s: bibutils journal %q, want %q", w.ID, journal, w.ContainerTitle)
					}
				}
				date := r.DateIssued
				if date == "" {
					date = r.PartDate
				}
				if y, _, _ := w.date(); !strings.HasPrefix(date, itoa(y)) {
					t.Errorf("%s: bibutils date %q, want year %d", w.ID, date, y)
				}
				doi := ""
				for _, id := range r.Identifiers {
					if id.Type == "doi" {
						doi = id.Text
					}
				}
				if doi != w.DOI {
					t.Errorf("%s: bibutils DOI %q, want %q", w.ID, doi, w.DOI)
				}
				names := r.Names[:0:0]
				for _, n := range r.Names {
					if n.Role == "author" {
						names = append(names, n)
					}
				}
				if tc.format == "ris" && slices.ContainsFunc(w.Authors, func(n Name) bool { return strings.Contains(n.Literal, " and ") }) {
					continue // bibutils splits a RIS name at " and "
				}
				if len(names) != len(w.Authors) {
					t.Errorf("%s: bibutils read %d authors, want %d", w.ID, len(names), len(w.Authors))
					continue
				}
				for j, n := range w.Authors {
					var given []string
					var family, suffix, literal string
					for _, p := range names[j].Parts {
						switch p.Type {
						case "given":
							// bibutils leaves the comma of RIS's "Family,
							// Given, Suffix" on the given name
							given = append(given, strings.TrimSuffix(p.Text, ","))
						case "family":
							family = p.Text
						case "suffix":
							suffix = p.Text
						case "":
							literal = p.Text
						}
					}
					if n.Literal != "" {
						// RIS has no mark for an organization: bibutils
						// takes it for a person's name.
						if tc.format == "bibtex" && (literal != n.Literal || names[j].Type == "personal") {
							t.Errorf("%s: bibutils name %d = %+v, want the organization %q", w.ID, j, names[j], n.Literal)
						}
						continue
					}
					// bibutils writes initials without their periods.
					wantGiven := strings.ReplaceAll(n.Given, ".", "")
					if g := strings.Join(given, " "); g != wantGiven || family != joinWords(n.Particle, n.Family) || suffix != n.Suffix {
						t.Errorf("%s: bibutils name %d = given %q family %q suffix %q, want %q %q %q", w.ID, j, g, family, suffix, wantGiven, joinWords(n.Particle, n.Family), n.Suffix)
					}
				}
			}
		})
	}
}

// citationJS finds citation-js: ACRAWLER_CITATION_JS names a directory
// holding node_modules/citation-js (.ci/run installs it there with npm).
func citationJS(t *testing.T) (node, dir string) {
	t.Helper()
	node = tool(t, "node", "nodejs")
	dir = os.Getenv("ACRAWLER_CITATION_JS")
	if dir == "" {
		missing(t, "ACRAWLER_CITATION_JS is not set (a directory where `npm install citation-js` was run)")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "citation-js")); err != nil {
		missing(t, "citation-js is not installed in ACRAWLER_CITATION_JS="+dir)
	}
	return node, dir
}

type cslRead struct {
	Type           string    `json:"type"`
	Title          string    `json:"title"`
	Author         []cslName `json:"author"`
	Issued         *cslDate  `json:"issued"`
	ContainerTitle string    `json:"container-title"`
	EventTitle     string    `json:"event-title"`
	Volume         any       `json:"volume"`
	Issue          any       `json:"issue"`
	Page           string    `json:"page"`
	DOI            string    `json:"DOI"`
	URL            string    `json:"URL"`
}

func TestCitationJSReads(t *testing.T) {
	node, lib := citationJS(t)
	dir := t.TempDir()
	script, err := filepath.Abs("testdata/citationjs_read.js")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"@bibtex/text":     writeTo(t, dir, "works.bib", WriteBibTeX, readerWorks),
		"@ris/file":        writeTo(t, dir, "works.ris", WriteRIS, readerWorks),
		"@csl/list+object": writeTo(t, dir, "works.json", WriteCSLJSON, readerWorks),
	}
	for _, format := range []string{"@bibtex/text", "@ris/file", "@csl/list+object"} {
		t.Run(strings.Trim(strings.ReplaceAll(format, "/", "_"), "@"), func(t *testing.T) {
			out, _ := run(t, dir, node, script, lib, files[format], format)
			var items []cslRead
			if err := json.Unmarshal([]byte(out), &items); err != nil {
				t.Fatalf("citation-js output: %v\n%s", err, out)
			}
			if len(items) != len(readerWorks) {
				t.Fatalf("citation-js read %d items, want %d", len(items), len(readerWorks))
			}
			for i, it := range items {
				w := readerWorks[i]
				want := cslOf(&w, w.authors(), "")
				if it.Title != w.Title {
					t.Errorf("%s: citation-js title %q, want %q", w.ID, it.Title, w.Title)
				}
				if it.DOI != w.DOI {
					t.Errorf("%s: citation-js DOI %q, want %q", w.ID, it.DOI, w.DOI)
				}
				wantType := want.Type
				if format == "@ris/file" && w.Type == TypePreprint {
					wantType = "manuscript" // RIS UNPB
				}
				if format == "@bibtex/text" && bibtexType(&w) == TypeOther || format == "@bibtex/text" && (w.Type == TypeDataset || w.Type == TypePreprint) {
					wantType = "document" // BibTeX @misc
				}
				if it.Type != wantType {
					t.Errorf("%s: citation-js type %q, want %q", w.ID, it.Type, wantType)
				}
				if it.Issued == nil || len(it.Issued.DateParts) != 1 || !equalInts(it.Issued.DateParts[0], want.Issued.DateParts[0], format) {
					t.Errorf("%s: citation-js issued %+v, want %v", w.ID, it.Issued, want.Issued.DateParts)
				}
				container := it.ContainerTitle
				if format == "@ris/file" && w.Type == TypeProceedingsPaper {
					container = it.EventTitle // RIS CPAPER's T2 is the conference's name
				}
				if container != want.ContainerTitle && !(format == "@bibtex/text" && (w.Type == TypeBook || w.Type == TypeReport)) {
					t.Errorf("%s: citation-js container %q, want %q", w.ID, container, want.ContainerTitle)
				}
				if it.Page != want.Page {
					t.Errorf("%s: citation-js page %q, want %q", w.ID, it.Page, want.Page)
				}
				if len(it.Author) != len(want.Author) {
					t.Errorf("%s: citation-js read %d authors, want %d", w.ID, len(it.Author), len(want.Author))
					continue
				}
				for j, a := range want.Author {
					got := it.Author[j]
					switch {
					case format == "@bibtex/text" && a.Literal != "":
						a = cslName{Family: a.Literal} // BibTeX's braced name is a family name
					case format == "@ris/file" && a.Particle != "":
						a.Family, a.Particle = a.Particle+" "+a.Family, "" // RIS has no particle
					}
					if got != a {
						t.Errorf("%s: citation-js author %d = %+v, want %+v", w.ID, j, got, a)
					}
				}
			}
		})
	}
}

// equalInts compares date parts; BibTeX carries no day.
func equalInts(got, want []int, format string) bool {
	if format == "@bibtex/text" && len(want) == 3 {
		want = want[:2]
	}
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

// adversarialWorks have values meant to break an entry: stray braces and
// backslashes, "and" and "others" in names, TeX commands, control
// characters, record separators of RIS, invalid UTF-8.
func adversarialWorks() []Work {
	ws := fuzzWorks("w1\x1farticle\x1f}{ unbalanced { title } } \\end{document} %comment\x1fand;others;{a}b{c};Smith and Jones|Ann;\\relax|{\x1f2020-02-30\x1fJ}{ournal\x1f1}\x1f2{\x1f12--34\x1f\x1f\\\\pub\x1f10.1/a{b}c d\x1fhttps://x.test/{a}?b=%7D\x1fabs\r\nER  - \x1fk1,}k2{\x1fen"+
		"\x1ew2\x1fthesis\x1f@article{evil, title={x}}\x1f@misc{x,\x1f\x1f\x1f\x1f\x1f\x1f\x1f\x1f\x1f\x1f\x1f\x1f\x1f"+
		"\x1ew3\x1fother\x1f\xff\xfe invalid \x00 utf8\x1f\xff;\x1f\x1f\x1f\x1f\x1f\x1f\x1f\x1f\x1f\x1f\x1f\x1f\x1f", 2000)
	return append(ws, readerWorks...)
}

func TestPybtexParsesAdversarial(t *testing.T) {
	python := pythonWithPybtex(t)
	dir := t.TempDir()
	works := adversarialWorks()
	bib := writeTo(t, dir, "works.bib", WriteBibTeX, works)
	script, err := filepath.Abs("testdata/pybtex_read.py")
	if err != nil {
		t.Fatal(err)
	}
	out, _ := run(t, dir, python, script, bib)
	var entries []struct {
		Key    string
		Fields map[string]string
	}
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatalf("pybtex output: %v\n%s", err, out)
	}
	keys := Keys(works)
	if len(entries) != len(works) {
		t.Fatalf("pybtex read %d entries, want %d", len(entries), len(works))
	}
	for i, e := range entries {
		if e.Key != keys[i] {
			t.Errorf("entry %d: key %q, want %q", i, e.Key, keys[i])
		}
		// A title without TeX's specials reads back as it was.
		if title := clean(works[i].Title); !hardTeX(title, `$^{}\`) && e.Fields["title"] != title {
			t.Errorf("%s: title %q, want %q", e.Key, e.Fields["title"], title)
		}
	}
}

func TestBibtoolParsesAdversarial(t *testing.T) {
	bibtool := tool(t, "bibtool", "bibtool")
	dir := t.TempDir()
	works := adversarialWorks()
	bib := writeTo(t, dir, "works.bib", WriteBibTeX, works)
	_, stderr := run(t, dir, bibtool, "-o", filepath.Join(dir, "out.bib"), bib)
	if strings.TrimSpace(stderr) != "" {
		t.Errorf("bibtool: %s", stderr)
	}
	out, err := os.ReadFile(filepath.Join(dir, "out.bib"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Keys(works) {
		if !strings.Contains(string(out), k+",") {
			t.Errorf("bibtool's output has no entry %s", k)
		}
	}
}

func TestBiberParsesAdversarial(t *testing.T) {
	biber := tool(t, "biber", "biber")
	dir := t.TempDir()
	works := adversarialWorks()
	writeTo(t, dir, "works.bib", WriteBibTeX, works)
	stdout, stderr := run(t, dir, biber, "--tool", "--output-file", "checked.bib", "works.bib")
	for _, line := range strings.Split(stdout+stderr, "\n") {
		if strings.HasPrefix(line, "ERROR") || strings.Contains(line, "BibTeX subsystem") {
			t.Errorf("biber: %s", line)
		}
	}
	checked, err := os.ReadFile(filepath.Join(dir, "checked.bib"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Keys(works) {
		if !strings.Contains(string(checked), "{"+k+",") {
			t.Errorf("biber's output has no entry %s", k)
		}
	}
}
