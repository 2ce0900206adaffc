package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// runQuiet runs acrawler and returns its exit status, what it wrote to
// standard error before the final message, and that message (as main
// prints it).
func runQuiet(t *testing.T, args ...string) (code int, stderr, msg string) {
	t.Helper()
	var out, errb, m bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	code = exitCode(Run(ctx, args, &out, &errb), &m)
	return code, errb.String(), m.String()
}

// A bad flag value is one line naming the problem, as README promises,
// not that line preceded by the same error and the whole flag list; -h
// still prints the flag list.
func TestBadFlagIsOneLine(t *testing.T) {
	db := filepath.Join(t.TempDir(), "x.db")
	for _, args := range [][]string{
		{"crawl", "--db", db, "--max-depth", "x", "http://a.test/"},
		{"crawl", "--db", db, "--max-bytes", "99999999999999GB", "http://a.test/"},
		{"crawl", "--db", db, "--delay", "5", "http://a.test/"},
		{"crawl", "--db", db, "--no-such-flag", "http://a.test/"},
		{"recrawl", "--db", db, "--max-duration", "soon"},
		{"stats", "--db", db, "--hosts", "many"},
	} {
		code, stderr, msg := runQuiet(t, args...)
		if code != 2 || stderr != "" || strings.Count(msg, "\n") != 1 {
			t.Errorf("acrawler %s: exit %d, standard error %d lines:\n%s%s\nwant exit 2 and one line",
				strings.Join(args, " "), code, strings.Count(stderr+msg, "\n"), firstLines(stderr, 3), msg)
		}
	}
	code, stderr, _ := runQuiet(t, "crawl", "-h")
	if code != 0 || !strings.Contains(stderr, "-max-bytes") {
		t.Errorf("crawl -h: exit %d, %q; want the flag list and exit 0", code, firstLines(stderr, 3))
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	return strings.Join(lines[:min(n, len(lines))], "")
}

// Bad arguments write nothing: no database file, no lock file beside it.
func TestNothingWrittenOnBadArgs(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		msg  string
	}{
		{"bad trap policy", []string{"--trap-policy", "bogus", "http://a.test/"}, "trap policy"},
		{"no seeds and no database", nil, "no seed"},
		{"recrawl of no database", []string{"recrawl"}, "nothing to revisit"},
		{"negative max-duration", []string{"--max-duration", "-1s", "http://a.test/"}, "--max-duration"},
		{"negative retry-base", []string{"--retry-base", "-30s", "http://a.test/"}, "--retry-base"},
		{"negative max-backoff", []string{"--max-backoff", "-1m", "http://a.test/"}, "--max-backoff"},
		{"negative robots-retry", []string{"--robots-retry", "-1m", "http://a.test/"}, "--robots-retry"},
		{"negative store-outage", []string{"--store-outage", "-1m", "http://a.test/"}, "--store-outage"},
		{"negative revisit-every", []string{"--revisit-every", "-1h", "http://a.test/"}, "--revisit-every"},
		{"negative max-pages", []string{"--max-pages", "-1", "http://a.test/"}, "--max-pages"},
		{"no links per page", []string{"--max-links-per-page", "0", "http://a.test/"}, "--max-links-per-page"},
		{"host share not a number", []string{"--max-bytes", "1GB", "--max-host-share", "NaN", "http://a.test/"}, "--max-host-share"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd, rest := "crawl", tt.args
			if len(rest) > 0 && rest[0] == "recrawl" {
				cmd, rest = rest[0], rest[1:]
			}
			args := append([]string{cmd, "--db", filepath.Join(dir, "x.db"), "--progress", "off"}, rest...)
			code, _, msg := runQuiet(t, args...)
			if code != 2 || !strings.Contains(msg, tt.msg) {
				t.Errorf("exit %d, %q; want exit 2 and a message naming %q", code, msg, tt.msg)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				t.Errorf("%s written although the arguments are bad", e.Name())
			}
		})
	}
}

// A seeds file saved by an editor that starts it with a byte order mark
// (and ends lines with CRLF) is read as the URLs it holds.
func TestSeedFileBOM(t *testing.T) {
	file := filepath.Join(t.TempDir(), "seeds.txt")
	os.WriteFile(file, []byte("\ufeffhttp://a.test/x\r\n# comment\r\n\r\n  http://b.test/  # the other\r\n"), 0o644)
	got, err := readSeedFile(file)
	if want := []string{"http://a.test/x", "http://b.test/"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("readSeedFile = %q, %v; want %q", got, err, want)
	}
}

// Decimal sizes are exact: 2.01MB is 2,010,000 bytes, not one less.
func TestByteSizesExact(t *testing.T) {
	for in, want := range map[string]int64{"2.01MB": 2_010_000, "4.35MB": 4_350_000, "1.1GB": 1_100_000_000,
		"0.07KB": 70, "1.5GiB": 3 << 29, "0": 0} {
		if got, err := parseByteSize(in); err != nil || got != want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"99999999999999GB", "8388608TiB", "9223372036854775808", "1.2.3MB", ".", "-0"} {
		if got, err := parseByteSize(bad); err == nil {
			t.Errorf("parseByteSize(%q) = %d, want an error", bad, got)
		}
	}
}

// Flags win over the file even when set to their default; repeatable
// flags add to the file's list (as README says), and a list flag such as
// --exclude cannot silently drop the file's exclusions.
func TestFlagsOverFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "crawl.toml")
	os.WriteFile(file, []byte(`
delay = "5s"
max_bytes = "2GB"
sort_query = false
workers = 4
exclude = ["/private/"]
`), 0o644)
	cfg, _, err := parseArgs("crawl", []string{"--config", file, "--delay", "2s", "--max-bytes", "0",
		"--sort-query", "--workers", "16", "--exclude", "/tmp/", "--exclude", "/old/"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if time.Duration(cfg.Delay) != 2*time.Second || cfg.MaxBytes != 0 || !cfg.SortQuery || cfg.Workers != 16 {
		t.Errorf("delay %v, max-bytes %d, sort-query %v, workers %d: want the flags' values 2s, 0, true, 16",
			time.Duration(cfg.Delay), cfg.MaxBytes, cfg.SortQuery, cfg.Workers)
	}
	if want := []string{"/private/", "/tmp/", "/old/"}; !slices.Equal(cfg.Exclude, want) {
		t.Errorf("exclude = %q, want %q", cfg.Exclude, want)
	}
}

// Every flag of every command can be set in the config file under its
// name with '_', at the top or in the command's section, except those
// README names (sitemaps, [recrawl] misses_to_remove) and the command-line
// only ones.
func TestEveryFlagHasAKey(t *testing.T) {
	sections := map[string]string{"serve": "serve", "reparse": "reparse", "reindex": "reindex", "stats": "stats",
		"export": "export", "testweb": "synthetic_web"}
	documented := map[string]string{"config": "", "sitemap": "sitemaps = []", "override-recorded": "",
		"misses-to-remove": "[recrawl]\nmisses_to_remove = 3"}
	file := filepath.Join(t.TempDir(), "c.toml")
	for _, cmd := range commands {
		cfg := defaultConfig()
		fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
		cfg.flags(cmd, fs)
		fs.VisitAll(func(f *flag.Flag) {
			doc, ok := documented[f.Name]
			if ok && doc == "" || cmd == "recrawl" && f.Name == "all" {
				return
			}
			key := strings.ReplaceAll(f.Name, "-", "_")
			docs := []string{doc}
			if !ok {
				// A value of the wrong type is an error naming the key; an
				// unknown key is reported as such.
				docs = []string{key + " = {}"}
				if s := sections[cmd]; s != "" {
					docs = append(docs, "["+s+"]\n"+key+" = {}")
				}
			}
			var errs []string
			for _, doc := range docs {
				os.WriteFile(file, []byte(doc+"\n"), 0o644)
				c := defaultConfig()
				err := loadConfigFile(file, &c)
				if err == nil || !ok && !strings.Contains(err.Error(), "unknown setting") {
					return
				}
				errs = append(errs, err.Error())
			}
			t.Errorf("%s --%s: no key: %q", cmd, f.Name, errs)
		})
	}
}

// A flag and its config file key set the same setting: for every flag of
// every command, the flag given a value and the key given the same value
// make the same configuration.
func TestFlagAndKeyAgree(t *testing.T) {
	sections := map[string]string{"serve": "serve", "reparse": "reparse", "reindex": "reindex", "stats": "stats",
		"export": "export", "testweb": "synthetic_web"}
	keyOf := map[string]string{"sitemap": "sitemaps", "misses-to-remove": "[recrawl]\nmisses_to_remove"}
	file := filepath.Join(t.TempDir(), "c.toml")
	for _, cmd := range commands {
		probe := defaultConfig()
		pfs := flag.NewFlagSet(cmd, flag.ContinueOnError)
		probe.flags(cmd, pfs)
		pfs.VisitAll(func(f *flag.Flag) {
			if f.Name == "config" || f.Name == "override-recorded" || cmd == "recrawl" && f.Name == "all" {
				return
			}
			// A value the flag takes, other than its default.
			val := ""
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				val = "true"
				if f.DefValue == "true" {
					val = "false"
				}
			} else {
				for _, v := range []string{"7", "7s", "x7"} {
					c := defaultConfig()
					fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
					c.flags(cmd, fs)
					if fs.Set(f.Name, v) == nil {
						val = v
						break
					}
				}
			}
			byFlag := defaultConfig()
			fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
			byFlag.flags(cmd, fs)
			if err := fs.Set(f.Name, val); err != nil {
				t.Fatalf("%s --%s %s: %v", cmd, f.Name, val, err)
			}
			key, ok := keyOf[f.Name]
			if !ok {
				key = strings.ReplaceAll(f.Name, "-", "_")
			}
			var prefixes []string
			if !strings.Contains(key, "[") {
				prefixes = append(prefixes, "")
				if s := sections[cmd]; s != "" {
					prefixes = append(prefixes, "["+s+"]\n")
				}
			} else {
				prefixes = []string{""}
			}
			for _, p := range prefixes {
				for _, form := range []string{"%s", "%q", "[%s]", "[%q]"} {
					os.WriteFile(file, []byte(p+key+" = "+fmt.Sprintf(form, val)+"\n"), 0o644)
					byKey := defaultConfig()
					if loadConfigFile(file, &byKey) != nil {
						continue
					}
					byKey.explicit = nil
					if reflect.DeepEqual(byFlag, byKey) {
						return
					}
				}
			}
			t.Errorf("%s --%s %s: no config file key makes the same configuration", cmd, f.Name, val)
		})
	}
}
