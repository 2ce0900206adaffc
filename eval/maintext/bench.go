package main

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
)

// moduleDir returns the directory of a module version in the module
// cache, downloading it through the Go module proxy if need be.
func moduleDir(ctx context.Context, modVersion string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "mod", "download", "-json", modVersion).Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", modVersion, err)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil {
		return "", fmt.Errorf("go mod download %s: %w", modVersion, err)
	}
	if m.Error != "" || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", modVersion, m.Error)
	}
	return m.Dir, nil
}

// loadPages reads the benchmark's expectations from
// scripts/comparison/data.go (a Go map literal from URL to entry, read
// with go/parser) and its pages from test-files/comparison or
// test-files/mock, as the benchmark does; entries whose URL or file is
// bad are left out, as the benchmark leaves them out.
func loadPages(dir string) ([]page, error) {
	path := filepath.Join(dir, "scripts", "comparison", "data.go")
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, fmt.Errorf("read benchmark: %w", err)
	}
	var lit *ast.CompositeLit
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "comparisonData" || len(vs.Values) != 1 {
			return lit == nil
		}
		lit, _ = vs.Values[0].(*ast.CompositeLit)
		return false
	})
	if lit == nil {
		return nil, fmt.Errorf("read benchmark: no comparisonData in %s", path)
	}
	var pages []page
	seen := map[string]bool{}
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		rawURL, ok := stringLit(kv.Key)
		entry, ok2 := kv.Value.(*ast.CompositeLit)
		if !ok || !ok2 || seen[rawURL] {
			continue
		}
		seen[rawURL] = true
		u, err := url.ParseRequestURI(rawURL)
		if err != nil {
			continue
		}
		p := page{url: u}
		for _, fe := range entry.Elts {
			fkv, ok := fe.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			id, ok := fkv.Key.(*ast.Ident)
			if !ok {
				continue
			}
			switch id.Name {
			case "File":
				p.file, _ = stringLit(fkv.Value)
			case "With":
				p.with = stringsLit(fkv.Value)
			case "Without":
				p.without = stringsLit(fkv.Value)
			}
		}
		for _, sub := range []string{"comparison", "mock"} {
			if body, err := os.ReadFile(filepath.Join(dir, "test-files", sub, p.file)); err == nil {
				p.body = body
				break
			}
		}
		if p.file == "" || p.body == nil {
			continue
		}
		pages = append(pages, p)
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("read benchmark: no pages under %s", dir)
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].file < pages[j].file })
	return pages, nil
}

func stringLit(e ast.Expr) (string, bool) {
	bl, ok := e.(*ast.BasicLit)
	if !ok || bl.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(bl.Value)
	return s, err == nil
}

func stringsLit(e ast.Expr) []string {
	cl, ok := e.(*ast.CompositeLit)
	if !ok {
		return nil
	}
	var out []string
	for _, el := range cl.Elts {
		if s, ok := stringLit(el); ok {
			out = append(out, s)
		}
	}
	return out
}
