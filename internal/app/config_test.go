package app

import (
	"bytes"
	"errors"
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

func TestConfigFileAndFlags(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "crawl.toml")
	os.WriteFile(file, []byte(`
db = "from-file.db"
max_depth = 2
delay = "750ms"
max_bytes = "2GB"
exclude = ["/private/"]
`), 0o644)
	cfg, rest, err := Load("crawl", []string{"--config", file, "--max-depth", "4", "http://a.test/"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DB != "from-file.db" || cfg.MaxDepth != 4 || time.Duration(cfg.Delay) != 750*time.Millisecond ||
		cfg.MaxBytes != 2e9 || len(cfg.Exclude) != 1 || len(rest) != 1 {
		t.Errorf("config = %+v, rest %v: want file values with the flag winning for max-depth", cfg, rest)
	}
	t.Setenv("ACRAWLER_DB", "from-env.db")
	cfg, _, _ = Load("crawl", []string{"--config", file}, &bytes.Buffer{})
	if cfg.DB != "from-env.db" {
		t.Errorf("db = %q, want the environment over the file", cfg.DB)
	}
	cfg, _, _ = Load("crawl", []string{"--config", file, "--db", "flag.db"}, &bytes.Buffer{})
	if cfg.DB != "flag.db" {
		t.Errorf("db = %q, want the flag over the environment", cfg.DB)
	}
}

func TestByteSizes(t *testing.T) {
	for in, want := range map[string]int64{"2GB": 2e9, "5MiB": 5 << 20, "512k": 512 << 10, "100": 100, "1.5KB": 1500} {
		got, err := parseByteSize(in)
		if err != nil || got != want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "-1", "5 parsecs", "1e99TB"} {
		if _, err := parseByteSize(bad); err == nil {
			t.Errorf("parseByteSize(%q) succeeded", bad)
		}
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
	cfg, _, err := Load("crawl", []string{"--config", file, "--delay", "2s", "--max-bytes", "0",
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

// A politeness delay over a day, asked for or as the cap of robots.txt's
// Crawl-delay, is a usage error; a day is not.
func TestDelayBounded(t *testing.T) {
	for _, args := range [][]string{{"--delay", "25h"}, {"--max-crawl-delay", "24h1ms"}} {
		var ue UsageError
		if _, _, err := Load("crawl", args, &bytes.Buffer{}); !errors.As(err, &ue) || !strings.Contains(err.Error(), "at most 24h0m0s") {
			t.Errorf("crawl %q: %v, want a usage error naming the bound", args, err)
		}
	}
	if _, _, err := Load("crawl", []string{"--delay", "24h", "--max-crawl-delay", "24h"}, &bytes.Buffer{}); err != nil {
		t.Errorf("crawl with a day's delay: %v", err)
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
	for _, cmd := range Commands {
		cfg := DefaultConfig()
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
				c := DefaultConfig()
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
	for _, cmd := range Commands {
		probe := DefaultConfig()
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
					c := DefaultConfig()
					fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
					c.flags(cmd, fs)
					if fs.Set(f.Name, v) == nil {
						val = v
						break
					}
				}
			}
			byFlag := DefaultConfig()
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
					byKey := DefaultConfig()
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
