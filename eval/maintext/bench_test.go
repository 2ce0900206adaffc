package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLoadPages reads expectations written as the benchmark writes them,
// and leaves out an entry whose file is missing.
func TestLoadPages(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"scripts/comparison", "test-files/comparison", "test-files/mock"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	data := `package main

var comparisonData = map[string]ComparisonEntry{
	"https://a.example/1": {
		File:    "a.html",
		With:    []string{"first \"quoted\"", "second"},
		Without: []string{"menu"},
	},
	"https://b.example/2": {File: "b.html", With: []string{"x"}, Without: []string{"y"}},
	"https://c.example/3": {File: "missing.html", With: []string{"x"}},
}
`
	write := func(p, s string) {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("scripts/comparison/data.go", data)
	write("test-files/comparison/a.html", "<p>a</p>")
	write("test-files/mock/b.html", "<p>b</p>")
	pages, err := loadPages(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 2 {
		t.Fatalf("loadPages: %d pages, want 2", len(pages))
	}
	a := pages[0]
	if a.file != "a.html" || a.url.Host != "a.example" || string(a.body) != "<p>a</p>" ||
		len(a.with) != 2 || a.with[0] != `first "quoted"` || len(a.without) != 1 || a.without[0] != "menu" {
		t.Errorf("loadPages: first page %+v", a)
	}
	if b := pages[1]; b.file != "b.html" || string(b.body) != "<p>b</p>" {
		t.Errorf("loadPages: second page %+v (want the mock directory's file)", b)
	}
}

// TestScore counts as the benchmark does; an empty text misses all.
func TestScore(t *testing.T) {
	p := page{with: []string{"alpha", "beta", "gamma"}, without: []string{"menu", "footer"}}
	for _, tc := range []struct {
		text string
		want eval
	}{
		{"alpha and beta, with the menu", eval{tp: 2, fn: 1, fp: 1, tn: 1}},
		{"", eval{fn: 3, tn: 2}},
		{"alpha beta gamma", eval{tp: 3, tn: 2}},
	} {
		if got := score(p, tc.text); got != tc.want {
			t.Errorf("score(%q) = %+v, want %+v", tc.text, got, tc.want)
		}
	}
	e := eval{tp: 6, fn: 2, fp: 2, tn: 10}
	if e.precision() != 0.75 || e.recall() != 0.75 || e.f1() != 0.75 || e.accuracy() != 0.8 {
		t.Errorf("eval %+v: P %v R %v F %v A %v", e, e.precision(), e.recall(), e.f1(), e.accuracy())
	}
}
