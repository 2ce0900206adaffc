package app

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/acrawler/acrawler/internal/archive"
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

// seedBatch is how many seeds go to the frontier at a time: a seeds file
// is read, normalized and added one batch after the other, never whole.
const seedBatch = 10_000

// maxSeedLine bounds a line of a seeds file.
const maxSeedLine = 1 << 20

// seedList is where a crawl starts: the seed URLs given (arguments and
// the --seeds file), the --sitemap URLs and the --oai repositories,
// normalized. The file's URLs are not held: it is read once to check
// every seed and learn their hosts, and again, a batch at a time, when
// they are added (stream).
type seedList struct {
	args     []string // seed URLs given as arguments, as given
	file     string   // the --seeds file ("": none)
	norm     *urlnorm.Normalizer
	count    int      // seed URLs given, arguments and file
	hosts    []string // the seeds' hosts (one "scheme://host/" each), for the scope
	sitemaps []string
	oai      []string // OAI-PMH base URLs
}

// newSeedList reads the seeds of a crawl: args, then the --seeds file.
// They are normalized as cfg says, so that a bad one is refused before
// the database is opened.
func newSeedList(cfg *Config, args []string) (*seedList, error) {
	s := &seedList{args: append([]string(nil), args...), file: cfg.Seeds}
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
// is open. The first time it learns the seeds' hosts; the second it
// reads the seeds again only if the normalizer changed, to refuse a seed
// the recorded settings cannot spell before any is added.
func (s *seedList) normalize(cfg *Config) error {
	norm, err := cfg.normalizer()
	if err != nil {
		return err
	}
	first := s.norm == nil
	same := !first && reflect.DeepEqual(norm, s.norm)
	s.norm, s.sitemaps, s.oai = norm, nil, nil
	if !same {
		hosts := map[string]struct{}{}
		n, err := s.each(func(u string) error {
			if first {
				if h := urlnorm.HostKey(u); h != "" {
					if _, ok := hosts[h]; !ok {
						hosts[strings.Clone(h)] = struct{}{}
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if first {
			s.count, s.hosts = n, make([]string, 0, len(hosts))
			for h := range hosts {
				s.hosts = append(s.hosts, h+"/")
			}
		}
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

// each calls fn with every seed normalized, arguments first, then the
// file's, in order, and returns how many there were. A seed that cannot
// be normalized stops it with an error naming the seed.
func (s *seedList) each(fn func(u string) error) (int, error) {
	f, err := s.open()
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return s.eachFrom(f, fn)
}

// open opens the seeds file (an empty reader when there is none).
func (s *seedList) open() (io.ReadCloser, error) {
	if s.file == "" {
		return io.NopCloser(strings.NewReader("")), nil
	}
	f, err := os.Open(s.file)
	if err != nil {
		return nil, usagef("seeds: %v", err)
	}
	return f, nil
}

// eachFrom is each with the seeds file's content read from file.
func (s *seedList) eachFrom(file io.Reader, fn func(u string) error) (int, error) {
	n := 0
	seed := func(raw string) error {
		u, err := s.norm.Normalize(raw)
		if err != nil {
			return usagef("seed %q: %v", raw, err)
		}
		n++
		return fn(u)
	}
	for _, r := range s.args {
		if err := seed(r); err != nil {
			return n, err
		}
	}
	return n, scanSeeds(file, s.file, func(_ int, raw string) error { return seed(raw) })
}

// stream offers the seeds to add in batches of seedBatch, reading the
// file as it goes (engine.Config.SeedBatches). The batch is reused: add
// must not keep it. It stops between batches when ctx is done.
func (s *seedList) stream(ctx context.Context, add func(seeds []string) error) error {
	f, err := s.open()
	if err != nil {
		return err
	}
	defer f.Close()
	return s.streamFrom(ctx, f, add)
}

// streamFrom is stream with the seeds file's content read from file.
func (s *seedList) streamFrom(ctx context.Context, file io.Reader, add func(seeds []string) error) error {
	batch := make([]string, 0, min(s.count, seedBatch))
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		err := add(batch)
		clear(batch)
		batch = batch[:0]
		return err
	}
	if _, err := s.eachFrom(file, func(u string) error {
		batch = append(batch, u)
		if len(batch) < seedBatch {
			return nil
		}
		return flush()
	}); err != nil {
		return err
	}
	return flush()
}

// urls reports whether URLs were given to start from (seeds, sitemaps or
// OAI-PMH repositories).
func (s *seedList) urls() bool { return s.count+len(s.sitemaps)+len(s.oai) > 0 }

// none reports whether nothing was given to start from, not even a web
// archive to ask for URLs.
func (s *seedList) none(cfg *Config) bool { return !s.urls() && len(cfg.SeedArchive) == 0 }

// scopeSeeds are URLs whose hosts or domains are the crawl's scope: one
// for each host of the seeds (hosts are far fewer than seeds), the
// sitemaps, the OAI-PMH repositories and the web archive's domains.
func (s *seedList) scopeSeeds(cfg *Config) []string {
	out := append(append(append([]string{}, s.hosts...), s.sitemaps...), s.oai...)
	for _, d := range cfg.SeedArchive {
		out = append(out, "http://"+strings.ToLower(d)+"/")
	}
	return out
}

// scanSeeds calls fn with each URL of a seeds file read from r (named
// name in errors) and its line number, one URL per line; blank lines and
// # comments are skipped. A line longer than maxSeedLine is an error
// naming it. It holds one line at a time.
func scanSeeds(r io.Reader, name string, fn func(line int, u string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxSeedLine)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if n == 1 {
			line = strings.TrimPrefix(line, "\ufeff") // a byte order mark
		}
		if i := strings.Index(line, "#"); i >= 0 && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
			line = line[:i]
		}
		if line = strings.TrimSpace(line); line != "" {
			if err := fn(n, line); err != nil {
				return err
			}
		}
	}
	switch err := sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return usagef("seeds %s: line %d is longer than %d bytes", name, n+1, maxSeedLine)
	case err != nil:
		return usagef("seeds %s: %v", name, err)
	}
	return nil
}

// archiveBatches streams the historical URLs the web archive holds for
// the --seed-archive domains (engine.Config.ArchiveBatches): each
// domain's captures, normalized as the seeds are (s.norm when the stream
// runs, once the crawl's recorded settings are known), go to add in
// batches of seedBatch, so that an archive listing of millions of URLs
// is never held whole. A URL already in the batch or the one before is
// not offered again (captures of one URL come together: a URL and its
// variants that normalize to it); the store knows the others. A failing archive is logged and recorded as a source
// error in the store, and the crawl goes on with what it returned. It
// returns nil when no domain is given.
func archiveBatches(cfg *Config, s *seedList, store crawl.Store, log *slog.Logger) func(ctx context.Context, add func(urls []string) error) error {
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
	return func(ctx context.Context, add func(urls []string) error) error {
		batch := make([]string, 0, seedBatch)
		inBatch, inLast := make(map[string]bool, seedBatch), make(map[string]bool, seedBatch)
		var addErr error
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			addErr = add(batch)
			clear(batch)
			batch = batch[:0]
			clear(inLast)
			inBatch, inLast = inLast, inBatch
			return addErr
		}
		for _, d := range cfg.SeedArchive {
			n := 0
			err := client.Captures(ctx, strings.ToLower(d), cfg.ArchiveLimit, func(c archive.Capture) error {
				u, err := s.norm.Normalize(c.URL)
				if err != nil || inBatch[u] || inLast[u] {
					return nil
				}
				inBatch[u] = true
				batch = append(batch, u)
				n++
				if len(batch) < seedBatch {
					return nil
				}
				return flush()
			})
			switch {
			case addErr != nil:
				return addErr
			case ctx.Err() != nil:
				return ctx.Err()
			case err != nil:
				log.Warn("web archive seeding failed; the crawl goes on", "domain", d, "urls", n, "err", err)
				se := crawl.SourceError{At: time.Now(), Kind: "archive", Source: d, URL: cmp.Or(cfg.CDXEndpoint, archive.DefaultEndpoint), Error: err.Error(), URLs: n}
				if err := store.RecordSourceError(ctx, se); err != nil {
					log.Warn("record the web archive's failure", "domain", d, "err", err)
				}
				continue
			}
			log.Info("web archive seeds", "domain", d, "urls", n)
		}
		return flush()
	}
}
