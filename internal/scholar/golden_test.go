package scholar

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/htmlx"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

var update = flag.Bool("update", false, "rewrite the expected results in testdata/*.json")

// golden is the expected result for testdata/NAME.html, in NAME.json.
type golden struct {
	URL  string    `json:"url"` // the page's URL
	Want *Metadata `json:"want"`
}

// parsePage returns the visible text and links of a page, as the crawl's
// parser gives them to Extract.
func parsePage(t testing.TB, body []byte, pageURL string) (string, []string) {
	t.Helper()
	n, err := urlnorm.New(urlnorm.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	doc, err := htmlx.Parse(body, pageURL, htmlx.Options{Resolver: n})
	if err != nil {
		t.Fatalf("htmlx.Parse(%s): %v", pageURL, err)
	}
	links := make([]string, len(doc.Links))
	for i, l := range doc.Links {
		links[i] = l.URL
	}
	return doc.Text, links
}

// TestGolden runs Extract on the hand-written pages in testdata and checks
// every field against NAME.json. Run with -update to rewrite the files after
// a deliberate change, and review the diff.
func TestGolden(t *testing.T) {
	pages, err := filepath.Glob("testdata/*.html")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no testdata pages: %v", err)
	}
	for _, page := range pages {
		name := strings.TrimSuffix(filepath.Base(page), ".html")
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			jsonPath := strings.TrimSuffix(page, ".html") + ".json"
			raw, err := os.ReadFile(jsonPath)
			if err != nil {
				t.Fatal(err)
			}
			var g golden
			if err := json.Unmarshal(raw, &g); err != nil {
				t.Fatalf("%s: %v", jsonPath, err)
			}
			text, links := parsePage(t, body, g.URL)
			got := Extract(body, g.URL, text, links)
			if *update {
				g.Want = got
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				if err := enc.Encode(g); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(jsonPath, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if g.Want == nil {
				t.Fatalf("%s has no \"want\"", jsonPath)
			}
			compareFields(t, name, got, g.Want)
		})
	}
}

// compareFields reports every field of got that differs from want, by its
// JSON form so that nil and empty lists compare equal.
func compareFields(t *testing.T, name string, got, want *Metadata) {
	t.Helper()
	gm, wm := fieldsOf(t, got), fieldsOf(t, want)
	keys := make([]string, 0, len(wm))
	for k := range wm {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !reflect.DeepEqual(gm[k], wm[k]) {
			t.Errorf("Extract(%s).%s = %s, want %s", name, k, jsonString(gm[k]), jsonString(wm[k]))
		}
	}
}

func fieldsOf(t *testing.T, md *Metadata) map[string]any {
	t.Helper()
	b, err := json.Marshal(md)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range m {
		if l, ok := v.([]any); ok && len(l) == 0 || v == nil {
			m[k] = nil
		}
	}
	return m
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
