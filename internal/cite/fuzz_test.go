package cite

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// fuzzWorks builds works from fuzz input: records separated by \x1e,
// fields by \x1f.
func fuzzWorks(data string, year int) []Work {
	var works []Work
	for i, rec := range strings.Split(data, "\x1e") {
		if i == 8 {
			break
		}
		f := strings.Split(rec, "\x1f")
		for len(f) < 16 {
			f = append(f, "")
		}
		w := Work{
			ID: f[0], Type: Type(f[1]), Title: f[2], Date: f[4], ContainerTitle: f[5], Volume: f[6], Issue: f[7],
			FirstPage: f[8], LastPage: f[9], Publisher: f[10], DOI: f[11], URL: f[12], PDFURL: f[12], Abstract: f[13],
			Keywords: strings.Split(f[14], ","), ISSN: []string{f[15]}, Language: f[15], Year: year + i,
		}
		for _, a := range strings.Split(f[3], ";") {
			w.Authors = append(w.Authors, ParseName(a))
			if given, family, ok := strings.Cut(a, "|"); ok { // parts as a caller may set them
				w.Authors = append(w.Authors, Name{Given: given, Family: family})
			}
		}
		works = append(works, w)
	}
	return works
}

var keyPattern = regexp.MustCompile(`^[a-z0-9]+$`)

// parseBibTeX reads entries written by WriteBibTeX: "@type{key," then
// "name = {value}," or "name = macro," fields, then "}". It fails on
// anything else, so that no value can break out of its field.
func parseBibTeX(t *testing.T, s string) (keys []string, fields []map[string]string) {
	t.Helper()
	i := 0
	fail := func(what string) {
		t.Fatalf("bibtex at byte %d: %s in\n%s", i, what, s)
	}
	for {
		for i < len(s) && (s[i] == '\n' || s[i] == ' ') {
			i++
		}
		if i == len(s) {
			return keys, fields
		}
		if s[i] != '@' {
			fail("no @")
		}
		open := strings.IndexByte(s[i:], '{')
		comma := strings.IndexByte(s[i:], ',')
		if open < 0 || comma < open {
			fail("no {key,")
		}
		keys = append(keys, s[i+open+1:i+comma])
		i += comma + 1
		m := map[string]string{}
		for {
			for i < len(s) && (s[i] == '\n' || s[i] == ' ') {
				i++
			}
			if i < len(s) && s[i] == '}' {
				i++
				break
			}
			eq := strings.Index(s[i:], " = ")
			if eq < 0 {
				fail("no field")
			}
			name := s[i : i+eq]
			i += eq + 3
			if i < len(s) && s[i] == '{' {
				depth, start := 0, i
				for ; i < len(s); i++ {
					if s[i] == '{' {
						depth++
					} else if s[i] == '}' {
						if depth--; depth == 0 {
							break
						}
					}
				}
				if depth != 0 {
					fail("unbalanced value")
				}
				m[name] = s[start+1 : i]
				i++
			} else {
				end := strings.IndexByte(s[i:], ',')
				if end < 0 {
					fail("no end of macro")
				}
				m[name] = s[i : i+end]
				i += end
			}
			if i >= len(s) || s[i] != ',' {
				fail("no comma after field " + name)
			}
			i++
		}
		fields = append(fields, m)
	}
}

// untex undoes texEscape and drops the braces that protect words.
func untex(s string) string {
	r := strings.NewReplacer(`{\textbackslash}`, `\`, `{\textbraceleft}`, "\x01", `{\textbraceright}`, "\x02",
		`{\textasciitilde}`, "~", `{\textasciicircum}`, "^", `\%`, "%", `\&`, "&", `\$`, "$", `\#`, "#", `\_`, "_")
	s = r.Replace(s)
	s = strings.NewReplacer("{", "", "}", "").Replace(s)
	return strings.NewReplacer("\x01", "{", "\x02", "}").Replace(s)
}

func FuzzWriters(f *testing.F) {
	f.Add("w1\x1farticle\x1fDeep learning for DNA {x} 50%\x1fSato, Jamal;Anna van der Berg;{WHO}\x1f2020-03-15\x1fJ & K\x1f1\x1f2\x1f12-34\x1f\x1fACM\x1f10.1/a_b(c)\x1fhttps://x.test/{a}\x1fabs\x1fa,b\x1fen", 2020)
	f.Add("a\x1fthesis\x1fİş\x1fŞahin|İsmail\x1e"+"a\x1fthesis\x1fİş\x1fŞahin|İsmail\x1eb\x1f\x1f\\\\}{\x1f}{|{{", 0)
	f.Add("\x1e\x1e\x1e", -3)
	f.Add("x\x1fother\x1f~^\\%&$#_\r\nER  - \x1fand;others|and\x1f\x1f\x1f\x1f\x1f\x1f\x1f\x1f\x1f\x1f\x1fline\rbreak", 99999)
	f.Fuzz(func(t *testing.T, data string, year int) {
		works := fuzzWorks(data, year)

		var bib bytes.Buffer
		if err := WriteBibTeX(&bib, works); err != nil {
			t.Fatal(err)
		}
		// Output is linear in the input: an escape is at most 17 bytes
		// for 1, and a work adds a bounded frame.
		if limit := 17*len(data) + 2048*len(works); bib.Len() > limit {
			t.Fatalf("%d bytes of BibTeX for %d bytes of input", bib.Len(), len(data))
		}
		keys, fields := parseBibTeX(t, bib.String())
		if len(keys) != len(works) {
			t.Fatalf("%d entries for %d works:\n%s", len(keys), len(works), bib.String())
		}
		seen := map[string]bool{}
		for i, k := range keys {
			if !keyPattern.MatchString(k) || seen[k] {
				t.Fatalf("key %q is not [a-z0-9]+ or is given twice", k)
			}
			seen[k] = true
			if title := clean(works[i].Title); untex(fields[i]["title"]) != title {
				t.Fatalf("title %q written as %q, which reads %q", title, fields[i]["title"], untex(fields[i]["title"]))
			}
			if abs := clean(works[i].Abstract); untex(fields[i]["abstract"]) != abs {
				t.Fatalf("abstract %q written as %q", abs, fields[i]["abstract"])
			}
		}
		if again := Keys(works); strings.Join(again, " ") != strings.Join(keys, " ") {
			t.Fatalf("keys %v, then %v", keys, again)
		}

		var ris bytes.Buffer
		if err := WriteRIS(&ris, works); err != nil {
			t.Fatal(err)
		}
		ty, er := 0, 0
		lines := strings.Split(ris.String(), "\r\n")
		for _, line := range lines[:len(lines)-1] {
			if line == "" {
				continue
			}
			if len(line) < 6 || line[2:6] != "  - " || strings.ContainsAny(line, "\r\n") ||
				line[0] < 'A' || line[0] > 'Z' || !(line[1] >= 'A' && line[1] <= 'Z' || line[1] >= '0' && line[1] <= '9') {
				t.Fatalf("RIS line %q", line)
			}
			switch line[:2] {
			case "TY":
				ty++
			case "ER":
				er++
			}
		}
		if ty != len(works) || er != len(works) || lines[len(lines)-1] != "" {
			t.Fatalf("%d TY and %d ER for %d works:\n%q", ty, er, len(works), ris.String())
		}

		var csl bytes.Buffer
		if err := WriteCSLJSON(&csl, works); err != nil {
			t.Fatal(err)
		}
		var items []struct {
			ID    string `json:"id"`
			Title string `json:"title"`
		}
		if err := json.Unmarshal(csl.Bytes(), &items); err != nil || len(items) != len(works) {
			t.Fatalf("CSL-JSON: %v, %d items for %d works", err, len(items), len(works))
		}
		ids := map[string]bool{}
		for i, it := range items {
			if it.ID == "" || ids[it.ID] {
				t.Fatalf("CSL id %q empty or given twice", it.ID)
			}
			ids[it.ID] = true
			if it.Title != clean(works[i].Title) {
				t.Fatalf("CSL title %q, want %q", it.Title, clean(works[i].Title))
			}
		}
	})
}
