package crawl_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayering holds the architecture: pure leaves import nothing of ours
// but other pure leaves, the domain package imports only the standard
// library, and store backends import no pipeline stage.
func TestLayering(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/acrawler/acrawler/"
	pure := map[string]bool{
		"internal/urlnorm": true, "internal/robots": true, "internal/htmlx": true,
		"internal/fingerprint": true, "internal/score": true, "internal/scope": true,
		"internal/sitemap": true, "internal/scholar": true, "internal/maintext": true, "internal/query": true,
		"internal/rank": true, "internal/schedule": true,
	}
	rules := map[string]func(dep string) bool{
		"internal/crawl": func(dep string) bool { return false },
	}
	for p := range pure {
		rules[p] = func(dep string) bool { return pure[dep] }
	}
	for _, b := range []string{"internal/store/sqlite", "internal/store/postgres"} {
		rules[b] = func(dep string) bool { return dep == "internal/crawl" || pure[dep] }
	}
	for pkg, allowed := range rules {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "../../"+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			rel, ours := strings.CutPrefix(dep, mod)
			if !ours || rel == pkg {
				continue
			}
			if !allowed(rel) {
				t.Errorf("%s imports %s, which its layer forbids", pkg, rel)
			}
		}
	}
}
