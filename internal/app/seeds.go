package app

import (
	"bufio"
	"cmp"
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/acrawler/acrawler/internal/archive"
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

// seedList is where a crawl starts: the seed URLs given (arguments and
// the --seeds file), the --sitemap URLs and the --oai repositories,
// normalized.
type seedList struct {
	raw      []string // as given
	norm     *urlnorm.Normalizer
	seeds    []string
	sitemaps []string
	oai      []string // OAI-PMH base URLs
}

// newSeedList reads the seeds of a crawl: args, then the --seeds file.
// They are normalized as cfg says, so that a bad one is refused before
// the database is opened.
func newSeedList(cfg *Config, args []string) (*seedList, error) {
	s := &seedList{raw: append([]string(nil), args...)}
	if cfg.Seeds != "" {
		fromFile, err := readSeedFile(cfg.Seeds)
		if err != nil {
			return nil, err
		}
		s.raw = append(s.raw, fromFile...)
	}
	if err := s.normalize(cfg); err != nil {
		return nil, err
	}
	for _, d := range cfg.SeedArchive {
		if d == "" || strings.ContainsAny(d, "/ ?#") {
			return nil, usagef("--seed-archive %q: want a domain such as example.edu", d)
		}
	}
	return s, nil
}

// normalize spells the seeds with cfg's normalizer: once with the
// settings given, again with those the crawl recorded once the database
// is open.
func (s *seedList) normalize(cfg *Config) error {
	norm, err := cfg.normalizer()
	if err != nil {
		return err
	}
	s.norm, s.seeds, s.sitemaps, s.oai = norm, make([]string, 0, len(s.raw)), nil, nil
	for _, r := range s.raw {
		u, err := norm.Normalize(r)
		if err != nil {
			return usagef("seed %q: %v", r, err)
		}
		s.seeds = append(s.seeds, u)
	}
	for _, r := range cfg.Sitemaps {
		u, err := norm.Normalize(r)
		if err != nil {
			return usagef("sitemap %q: %v", r, err)
		}
		s.sitemaps = append(s.sitemaps, u)
	}
	for _, r := range cfg.OAI {
		u, err := norm.Normalize(r)
		if err != nil {
			return usagef("oai %q: %v", r, err)
		}
		s.oai = append(s.oai, u)
	}
	return nil
}

// urls reports whether URLs were given to start from (seeds, sitemaps or
// OAI-PMH repositories).
func (s *seedList) urls() bool { return len(s.seeds)+len(s.sitemaps)+len(s.oai) > 0 }

// none reports whether nothing was given to start from, not even a web
// archive to ask for URLs.
func (s *seedList) none(cfg *Config) bool { return !s.urls() && len(cfg.SeedArchive) == 0 }

// scopeSeeds are the URLs whose hosts or domains are the crawl's scope.
func (s *seedList) scopeSeeds(cfg *Config) []string {
	out := append(append(append([]string{}, s.seeds...), s.sitemaps...), s.oai...)
	for _, d := range cfg.SeedArchive {
		out = append(out, "http://"+strings.ToLower(d)+"/")
	}
	return out
}

// readSeedFile reads one URL per line; blank lines and # comments are skipped.
func readSeedFile(file string) ([]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, usagef("seeds: %v", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 {
			line = strings.TrimPrefix(line, "\ufeff") // a byte order mark
		}
		if i := strings.Index(line, "#"); i >= 0 && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
			line = line[:i]
		}
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, usagef("seeds %s: %v", file, err)
	}
	return out, nil
}

// seedArchive asks the web archive for the historical URLs of the
// --seed-archive domains. A failing archive is logged and recorded as a
// source error in the store, and the crawl goes on with what it returned.
func seedArchive(ctx context.Context, cfg *Config, norm *urlnorm.Normalizer, store crawl.Store, log *slog.Logger) []string {
	if len(cfg.SeedArchive) == 0 {
		return nil
	}
	proxy := http.ProxyFromEnvironment
	switch cfg.Proxy {
	case "":
	case "none":
		proxy = nil
	default:
		if pu, err := url.Parse(cfg.Proxy); err == nil {
			// As with the environment's proxy, a CDX server on this machine
			// is asked directly, not through the crawl's proxy.
			proxy = func(r *http.Request) (*url.URL, error) {
				if h := r.URL.Hostname(); h == "localhost" || net.ParseIP(h).IsLoopback() {
					return nil, nil
				}
				return pu, nil
			}
		}
	}
	client := &archive.Client{
		Endpoint:  cfg.CDXEndpoint,
		HTTP:      &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{Proxy: proxy}},
		UserAgent: cfg.UserAgent,
	}
	seen := map[string]bool{}
	var out []string
	for _, d := range cfg.SeedArchive {
		n := 0
		err := client.Captures(ctx, strings.ToLower(d), cfg.ArchiveLimit, func(c archive.Capture) error {
			u, err := norm.Normalize(c.URL)
			if err != nil || seen[u] {
				return nil
			}
			seen[u] = true
			out = append(out, u)
			n++
			return nil
		})
		if err != nil {
			log.Warn("web archive seeding failed; the crawl goes on", "domain", d, "urls", n, "err", err)
			se := crawl.SourceError{At: time.Now(), Kind: "archive", Source: d, URL: cmp.Or(cfg.CDXEndpoint, archive.DefaultEndpoint), Error: err.Error(), URLs: n}
			if err := store.RecordSourceError(ctx, se); err != nil {
				log.Warn("record the web archive's failure", "domain", d, "err", err)
			}
			continue
		}
		log.Info("web archive seeds", "domain", d, "urls", n)
	}
	return out
}
