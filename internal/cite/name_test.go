package cite

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseName(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Name
	}{
		{"Sato, Jamal", Name{Given: "Jamal", Family: "Sato"}},
		{"Jamal Sato", Name{Given: "Jamal", Family: "Sato"}},
		{"J. Sato", Name{Given: "J.", Family: "Sato"}},
		{"Sato, J.", Name{Given: "J.", Family: "Sato"}},
		{"J. A. Sato", Name{Given: "J. A.", Family: "Sato"}},
		{"Sato JA", Name{Given: "J. A.", Family: "Sato"}},
		{"Sato J", Name{Given: "J.", Family: "Sato"}},
		{"  Jamal \n  Sato ", Name{Given: "Jamal", Family: "Sato"}},
		{"van der Berg, Anna", Name{Given: "Anna", Particle: "van der", Family: "Berg"}},
		{"Anna van der Berg", Name{Given: "Anna", Particle: "van der", Family: "Berg"}},
		{"Ludwig van Beethoven", Name{Given: "Ludwig", Particle: "van", Family: "Beethoven"}},
		{"Jean de La Fontaine", Name{Given: "Jean", Particle: "de", Family: "La Fontaine"}},
		{"de La Fontaine, Jean", Name{Given: "Jean", Particle: "de", Family: "La Fontaine"}},
		{"Johann Wolfgang von Goethe", Name{Given: "Johann Wolfgang", Particle: "von", Family: "Goethe"}},
		{"Müller-Lüdenscheidt, Hans-Jürgen", Name{Given: "Hans-Jürgen", Family: "Müller-Lüdenscheidt"}},
		{"Hans-Jürgen Müller-Lüdenscheidt", Name{Given: "Hans-Jürgen", Family: "Müller-Lüdenscheidt"}},
		{"Straß, Jürgen", Name{Given: "Jürgen", Family: "Straß"}},
		{"İsmail Şahin", Name{Given: "İsmail", Family: "Şahin"}},
		{"Şahin, İsmail", Name{Given: "İsmail", Family: "Şahin"}},
		{"Ayşe Gül Işık", Name{Given: "Ayşe Gül", Family: "Işık"}},
		{"Çağlar Öztürk-Yılmaz", Name{Given: "Çağlar", Family: "Öztürk-Yılmaz"}},
		{"García Márquez, Gabriel", Name{Given: "Gabriel", Family: "García Márquez"}},
		{"Jamal Sato Jr.", Name{Given: "Jamal", Family: "Sato", Suffix: "Jr."}},
		{"Jamal Sato, Jr.", Name{Given: "Jamal", Family: "Sato", Suffix: "Jr."}},
		{"Sato, Jr., Jamal", Name{Given: "Jamal", Family: "Sato", Suffix: "Jr."}},
		{"Sato, Jamal, Jr.", Name{Given: "Jamal", Family: "Sato", Suffix: "Jr."}},
		{"Martin Luther King III", Name{Given: "Martin Luther", Family: "King", Suffix: "III"}},
		{"Plato", Name{Family: "Plato"}},
		{"bell hooks", Name{Given: "bell", Family: "hooks"}},
		{"{World Health Organization}", Name{Literal: "World Health Organization"}},
		{"World Health Organization", Name{Literal: "World Health Organization"}},
		{"{Sato and Lee}", Name{Literal: "Sato and Lee"}},
		{"Centers for Disease Control and Prevention", Name{Literal: "Centers for Disease Control and Prevention"}},
		{"Türkiye İstatistik Kurumu", Name{Literal: "Türkiye İstatistik Kurumu"}},
		{"Max-Planck-Gesellschaft", Name{Given: "", Family: "Max-Planck-Gesellschaft"}},
		{"ATLAS Collaboration", Name{Literal: "ATLAS Collaboration"}},
		{"3M", Name{Literal: "3M"}},
		{"Smith, J., Jones, K.", Name{Literal: "Smith, J., Jones, K."}},
		{"", Name{}},
		{" , ; ", Name{}},
		{"{}", Name{}},
	} {
		if got := ParseName(tc.in); got != tc.want {
			t.Errorf("ParseName(%q) = %#v, want %#v", tc.in, got, tc.want)
		}
	}
}

func TestNameString(t *testing.T) {
	for _, tc := range []struct {
		n             Name
		str, bib, ris string
	}{
		{Name{Given: "Anna", Particle: "van der", Family: "Berg", Suffix: "Jr."},
			"van der Berg, Jr., Anna", "van der Berg, Jr., Anna", "van der Berg, Anna, Jr."},
		{Name{Given: "Jamal", Family: "Sato"}, "Sato, Jamal", "Sato, Jamal", "Sato, Jamal"},
		{Name{Family: "Plato"}, "Plato", "Plato", "Plato"},
		{Name{Family: "García Márquez"}, "García Márquez,", "{García Márquez}", "García Márquez"},
		{Name{Literal: "World Health Organization"}, "{World Health Organization}", "{World Health Organization}", "World Health Organization"},
		{Name{Literal: "Bill & Melinda Gates Foundation"}, "{Bill & Melinda Gates Foundation}", `{Bill \& Melinda Gates Foundation}`, "Bill & Melinda Gates Foundation"},
		{Name{Literal: `\LaTeX{} Project`}, `{\LaTeX{} Project}`, `{{{\textbackslash}LaTeX{\textbraceleft}{\textbraceright} Project}}`, `\LaTeX{} Project`},
		{Name{Given: "Anna", Family: "Smith and Jones"}, "Smith and Jones, Anna", "{Smith and Jones}, Anna", "Smith and Jones, Anna"},
	} {
		if got := tc.n.String(); got != tc.str {
			t.Errorf("%#v.String() = %q, want %q", tc.n, got, tc.str)
		}
		if got := bibtexName(tc.n); got != tc.bib {
			t.Errorf("bibtexName(%#v) = %q, want %q", tc.n, got, tc.bib)
		}
		if got, want := ParseName(tc.n.Display()), ParseName(tc.n.String()); tc.n.Particle == "" && tc.n.Suffix == "" && !strings.Contains(tc.n.Family, " ") && got != want {
			t.Errorf("ParseName(%q) = %#v, want %#v as from %q", tc.n.Display(), got, want, tc.n.String())
		}
		if got := risName(tc.n); got != tc.ris {
			t.Errorf("risName(%#v) = %q, want %q", tc.n, got, tc.ris)
		}
	}
}

// TestParseNameLinear checks that a long input is cut, not taken apart
// word by word: the result is bounded by MaxField.
func TestParseNameLong(t *testing.T) {
	long := strings.Repeat("Anna van ", 100000)
	n := ParseName(long)
	if n.Literal == "" || len(n.Literal) > MaxField || !utf8.ValidString(n.Literal) {
		t.Errorf("ParseName(long) = %d bytes of literal, want a literal of at most %d", len(n.Literal), MaxField)
	}
}

func FuzzParseName(f *testing.F) {
	for _, s := range []string{
		"Sato, Jamal", "Anna van der Berg", "J. Sato", "Sato, Jr., Jamal", "{World Health Organization}",
		"İsmail Şahin", "de La Fontaine, Jean", "Sato JA", "bell hooks", ", Jr., Anna", "a,b,c", "{a}b{c}",
		"Jamal Sato Jr.", "García Márquez,", "\xff\xfe", "{{x}}", "Jr., Jr.",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := ParseName(s)
		for _, p := range []string{n.Given, n.Particle, n.Family, n.Suffix, n.Literal} {
			if !utf8.ValidString(p) || p != strings.TrimSpace(p) || len(p) > MaxField {
				t.Fatalf("ParseName(%q) = %#v: a part is not clean", s, n)
			}
		}
		if n.Literal != "" && (n.Given != "" || n.Particle != "" || n.Family != "" || n.Suffix != "") {
			t.Fatalf("ParseName(%q) = %#v: a literal with parts", s, n)
		}
		if n.Literal == "" && !n.IsZero() && n.Family == "" {
			t.Fatalf("ParseName(%q) = %#v: a person without a family name", s, n)
		}
		if again := ParseName(n.String()); again != n {
			t.Fatalf("ParseName(%q) = %#v; its String %q parses as %#v", s, n, n.String(), again)
		}
	})
}
