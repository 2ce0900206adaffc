package crawl_test

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// layers says, for every package of the module, which of the module's
// packages it may import directly (test files aside), in the style of
// go/build's deps_test.go. A package missing from the table fails the
// test: a new package takes its place in the architecture on purpose.
//
// The order, from the bottom: pure leaves (values in, values out: no I/O,
// no logging) and the domain package; the clients and parsers with I/O;
// the pipeline stages; the stores, which know only the domain and pure
// leaves; the API; the program.
var layers = func() map[string][]string {
	pure := []string{
		"internal/urlnorm", "internal/robots", "internal/sitemap", "internal/htmlx",
		"internal/fingerprint", "internal/score", "internal/scope", "internal/schedule",
		"internal/query", "internal/rank", "internal/maintext", "internal/scholar",
		"internal/title", "internal/cite", "internal/works", "internal/passage",
		"internal/postings", "internal/urlrun",
	}
	m := map[string][]string{
		// The domain: the standard library only.
		"internal/crawl": nil,
		// Leaves with I/O or a runtime of their own.
		"internal/fetch":     nil,
		"internal/oai":       nil, // parses bytes; harvests through its Getter
		"internal/warc":      nil,
		"internal/pdf":       nil,
		"internal/archive":   nil,
		"internal/cputime":   nil,
		"internal/testweb":   nil,
		"internal/api/chart": nil,
		// Test helpers.
		"internal/api/apitest":           nil,
		"internal/apptest":               {"internal/crawl", "internal/testweb", "internal/store/postgres/pgtest", "internal/store/sqlite"},
		"internal/scholar/scholartest":   nil,
		"internal/store/postgres/pgtest": nil,
		"internal/store/storetest":       {"internal/crawl", "internal/query"},
		"internal/index/indextest":       {"internal/crawl", "internal/query"},
		// Stages.
		"internal/extract":  {"internal/crawl", "internal/pdf"},
		"internal/frontier": {"internal/crawl"},
		"internal/report":   {"internal/crawl"},
		"internal/engine":   {"internal/crawl", "internal/extract", "internal/fetch", "internal/frontier", "internal/warc"},
		"internal/harvest":  {"internal/crawl", "internal/fetch", "internal/oai"}, // OAI-PMH as a seed source
		// Backends: the domain and pure leaves, nothing of the pipeline.
		"internal/store/migrate":    {"internal/crawl"}, // the migration rule both stores follow
		"internal/store/keyset":     nil,                // how both stores stream a table
		"internal/store/outlinks":   nil,                // how both stores encode a page's outlinks
		"internal/snippet":          {"internal/crawl"}, // search hits' snippets, the same for both stores
		"internal/store/sqlite":     {"internal/crawl", "internal/store/migrate", "internal/store/keyset", "internal/store/outlinks", "internal/snippet"},
		"internal/store/postgres":   {"internal/crawl", "internal/store/migrate", "internal/store/keyset", "internal/store/outlinks", "internal/snippet"},
		"internal/index/opensearch": {"internal/crawl"},
		"internal/indexer":          {"internal/crawl", "internal/index/opensearch"},
		// The API knows the domain, the report and the query syntax, not
		// the stores.
		"internal/api": {"internal/crawl", "internal/report", "internal/api/chart"},
		// The application wires everything; the program is a thin main
		// over it (the standard library and the application only).
		"internal/app": {"*"},
		"cmd/acrawler": {"internal/app"},
	}
	isPure := map[string]bool{}
	for _, p := range pure {
		isPure[p] = true
	}
	for p, deps := range m {
		if p != "internal/crawl" && !strings.HasPrefix(p, "internal/api/") && p != "internal/testweb" && p != "cmd/acrawler" {
			m[p] = append(deps, pure...)
		}
	}
	for _, p := range pure {
		m[p] = pure // pure leaves import only other pure leaves
	}
	return m
}()

// TestLayering holds the architecture for every package of the module.
func TestLayering(t *testing.T) {
	const mod = "github.com/acrawler/acrawler/"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "../../...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, ok := strings.CutPrefix(f[0], mod)
		if !ok {
			continue
		}
		seen++
		allowed, known := layers[pkg]
		if !known {
			t.Errorf("package %s has no place in the layering table (internal/crawl/layering_test.go): add it", pkg)
			continue
		}
		var bad []string
		for _, imp := range f[1:] {
			dep, ours := strings.CutPrefix(imp, mod)
			if !ours || dep == pkg {
				continue
			}
			if !allows(allowed, dep) {
				bad = append(bad, dep)
			}
		}
		sort.Strings(bad)
		for _, dep := range bad {
			t.Errorf("%s imports %s, which its layer forbids", pkg, dep)
		}
	}
	if seen < len(layers)/2 {
		t.Fatalf("go list named %d packages of the module; the table has %d", seen, len(layers))
	}
}

func allows(allowed []string, dep string) bool {
	for _, a := range allowed {
		if a == "*" || a == dep {
			return true
		}
	}
	return false
}

// TestLayersForbid checks the table itself: a rule that allowed anything
// would make TestLayering pass whatever the code imports.
func TestLayersForbid(t *testing.T) {
	for _, tc := range []struct{ pkg, dep string }{
		{"internal/crawl", "internal/urlnorm"},
		{"internal/urlnorm", "internal/crawl"},
		{"internal/htmlx", "internal/fetch"},
		{"internal/store/sqlite", "internal/engine"},
		{"internal/store/postgres", "internal/frontier"},
		{"internal/api", "internal/store/sqlite"},
		{"internal/frontier", "internal/engine"},
		{"internal/engine", "internal/store/sqlite"},
		{"internal/extract", "internal/engine"},
	} {
		if allows(layers[tc.pkg], tc.dep) {
			t.Errorf("the layering table lets %s import %s", tc.pkg, tc.dep)
		}
	}
}
