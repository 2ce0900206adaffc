package main

import (
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/engine"
	"github.com/acrawler/acrawler/internal/schedule"
	"github.com/acrawler/acrawler/internal/scope"
	"github.com/acrawler/acrawler/internal/score"
)

// crawlConfig is every setting of a crawl. Precedence: defaults, then the
// --config file, then the environment (ACRAWLER_DB), then flags.
type crawlConfig struct {
	DB              string   `toml:"db"`
	Seeds           string   `toml:"seeds"`
	MaxDepth        int      `toml:"max_depth"`
	MaxPages        int64    `toml:"max_pages"`
	MaxPagesPerHost int64    `toml:"max_pages_per_host"`
	MaxBytes        byteSize `toml:"max_bytes"`
	MaxDuration     duration `toml:"max_duration"`
	Scope           string   `toml:"scope"`
	Exclude         []string `toml:"exclude"`
	NoDefaultExcl   bool     `toml:"no_default_excludes"`
	MaxURLLength    int      `toml:"max_url_length"`
	MaxQueryParams  int      `toml:"max_query_params"`
	MaxPathRepeats  int      `toml:"max_path_repeats"`
	MaxHostShare    float64  `toml:"max_host_share"`
	TrapPolicy      string   `toml:"trap_policy"`
	BlockMarkers    []string `toml:"soft_block_markers"`
	MetricsAddr     string   `toml:"metrics_addr"`
	MetricsEvery    duration `toml:"metrics_every"`

	Priority     score.Config  `toml:"priority"`
	Recrawl      recrawlConfig `toml:"recrawl"`
	All          bool          `toml:"-"`
	RevisitEvery duration      `toml:"revisit_every"`
	MaxLinks     int           `toml:"max_links_per_page"`
	Order        string        `toml:"order"`

	Delay         duration `toml:"delay"`
	MaxCrawlDelay duration `toml:"max_crawl_delay"`
	HostInflight  int      `toml:"host_inflight"`
	Workers       int      `toml:"workers"`

	UserAgent    string   `toml:"user_agent"`
	Timeout      duration `toml:"timeout"`
	MaxBody      byteSize `toml:"max_body"`
	Proxy        string   `toml:"proxy"`
	AllowPrivate bool     `toml:"allow_private"`

	MaxAttempts int      `toml:"max_attempts"`
	RetryBase   duration `toml:"retry_base"`
	MaxBackoff  duration `toml:"max_backoff"`
	RobotsRetry duration `toml:"robots_retry"`
	Lease       duration `toml:"lease"`
	StoreOutage duration `toml:"store_outage"`
	PGConns     int      `toml:"pg_conns"`

	SortQuery      bool     `toml:"sort_query"`
	KeepQueryOrder []string `toml:"keep_query_order"`
	StripParams    []string `toml:"strip_params"`

	TestWeb bool `toml:"testweb"`

	Index      string   `toml:"index"`
	IndexName  string   `toml:"index_name"`
	NoRank     bool     `toml:"no_rank"`
	WARC       string   `toml:"warc"`
	MaxPDFBody byteSize `toml:"max_pdf_body"`
	// NearDistance is the SimHash distance of a near-duplicate (0: none).
	NearDistance int  `toml:"near_distance"`
	NoPDF        bool `toml:"no_pdf"`
	MainText     bool `toml:"main_text"`

	Sitemaps     []string `toml:"sitemaps"`
	NoSitemaps   bool     `toml:"no_sitemaps"`
	SeedArchive  []string `toml:"seed_archive"`
	CDXEndpoint  string   `toml:"cdx_endpoint"`
	ArchiveLimit int      `toml:"archive_limit"`

	LogLevel  string `toml:"log_level"`
	LogFormat string `toml:"log_format"`
	Progress  string `toml:"progress"`
}

func defaultCrawlConfig() crawlConfig {
	return crawlConfig{
		DB:              "acrawler.db",
		MaxDepth:        5,
		MaxPagesPerHost: 5000,
		Scope:           "domain",
		MaxURLLength:    scope.DefaultLimits.MaxLength,
		MaxQueryParams:  scope.DefaultLimits.MaxQueryParams,
		MaxPathRepeats:  scope.DefaultLimits.MaxRepeats,
		TrapPolicy:      "throttle",
		MetricsEvery:    duration(10 * time.Second),
		Priority:        score.DefaultConfig(),
		Recrawl:         defaultRecrawlConfig(),
		MaxLinks:        1000,
		Order:           "priority",
		Delay:           duration(2 * time.Second),
		MaxCrawlDelay:   duration(30 * time.Second),
		HostInflight:    1,
		Workers:         16,
		UserAgent:       fmt.Sprintf("acrawler/%s (+%s)", Version, ProjectURL),
		Timeout:         duration(10 * time.Second),
		MaxBody:         5 << 20,
		MaxAttempts:     3,
		RetryBase:       duration(30 * time.Second),
		MaxBackoff:      duration(10 * time.Minute),
		RobotsRetry:     duration(time.Minute),
		Lease:           duration(time.Minute),
		StoreOutage:     duration(5 * time.Minute),
		CDXEndpoint:     "https://web.archive.org/cdx/search/cdx",
		WARC:            "auto",
		Index:           "embedded",
		IndexName:       "acrawler",
		MaxPDFBody:      20 << 20,
		NearDistance:    crawl.DefaultNearDistance,
		MainText:        true,
		ArchiveLimit:    10000,
		PGConns:         8,
		SortQuery:       true,
		LogLevel:        "info",
		LogFormat:       "text",
		Progress:        "auto",
	}
}

// configFileArg finds --config in args before flags are parsed, since the
// file's values become the flags' defaults.
func configFileArg(args []string) (string, error) {
	for i, a := range args {
		if a == "--" {
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "config" {
			continue
		}
		if hasVal {
			return val, nil
		}
		if i+1 >= len(args) {
			return "", usagef("flag --config needs a file name")
		}
		return args[i+1], nil
	}
	return "", nil
}

// loadConfigFile applies a TOML file over cfg. Unknown keys are an error,
// so a misspelt setting is not silently ignored.
func loadConfigFile(file string, cfg *crawlConfig) error {
	if file == "" {
		return nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return usagef("config: %v", err)
	}
	md, err := toml.Decode(string(b), cfg)
	if err != nil {
		return usagef("config %s: %v", file, err)
	}
	if un := md.Undecoded(); len(un) > 0 {
		keys := make([]string, len(un))
		for i, k := range un {
			keys[i] = k.String()
		}
		return usagef("config %s: unknown setting(s): %s", file, strings.Join(keys, ", "))
	}
	return nil
}

func (c *crawlConfig) flags(fs *flag.FlagSet) {
	fs.String("config", "", "TOML `file` with settings (flags override it)")
	fs.StringVar(&c.DB, "db", c.DB, "crawl database: a SQLite `path` or a postgres:// DSN (env ACRAWLER_DB)")
	fs.StringVar(&c.Seeds, "seeds", c.Seeds, "`file` of seed URLs, one per line, # comments")
	fs.Func("sitemap", "seed from this sitemap `URL` (repeatable)", func(s string) error {
		c.Sitemaps = append(c.Sitemaps, s)
		return nil
	})
	fs.BoolVar(&c.NoSitemaps, "no-sitemaps", c.NoSitemaps, "do not read the sitemaps that robots.txt names (or /sitemap.xml)")
	fs.Func("seed-archive", "seed from the historical URLs of this `domain` in a web archive (repeatable)", func(s string) error {
		c.SeedArchive = append(c.SeedArchive, s)
		return nil
	})
	fs.StringVar(&c.CDXEndpoint, "cdx-endpoint", c.CDXEndpoint, "CDX API endpoint for --seed-archive")
	fs.IntVar(&c.ArchiveLimit, "archive-limit", c.ArchiveLimit, "URLs asked from the archive per domain")
	fs.IntVar(&c.MaxDepth, "max-depth", c.MaxDepth, "links followed from a seed (0: no limit)")
	fs.Int64Var(&c.MaxPages, "max-pages", c.MaxPages, "pages fetched in the whole crawl (0: no limit)")
	fs.Int64Var(&c.MaxPagesPerHost, "max-pages-per-host", c.MaxPagesPerHost, "URLs admitted per host (0: no limit)")
	fs.Var(&c.MaxBytes, "max-bytes", "bytes downloaded in the whole crawl, e.g. 2GB (0: no limit)")
	fs.Var(&c.MaxDuration, "max-duration", "stop cleanly after this long, e.g. 30m (0: no limit)")
	fs.StringVar(&c.Scope, "scope", c.Scope, "where links may lead: domain (the seeds' registrable domains), host or any")
	fs.Func("exclude", "exclude URLs matching this Go `regexp` (repeatable; adds to the built-in patterns and the config file's)", func(s string) error {
		c.Exclude = append(c.Exclude, s)
		return nil
	})
	fs.BoolVar(&c.NoDefaultExcl, "no-default-excludes", c.NoDefaultExcl, "drop the built-in exclusion patterns")
	fs.IntVar(&c.MaxURLLength, "max-url-length", c.MaxURLLength, "longest URL admitted, in bytes")
	fs.IntVar(&c.MaxQueryParams, "max-query-params", c.MaxQueryParams, "URLs with more query parameters are not admitted (0: no limit)")
	fs.IntVar(&c.MaxPathRepeats, "max-path-repeats", c.MaxPathRepeats, "URLs whose path repeats one segment more often are not admitted (0: no limit)")
	fs.Float64Var(&c.MaxHostShare, "max-host-share", c.MaxHostShare, "largest share of --max-bytes one host may use, e.g. 0.2 (0: no limit)")
	fs.StringVar(&c.TrapPolicy, "trap-policy", c.TrapPolicy, "a suspected trap host is: warn (reported), throttle (nothing new admitted from it) or stop (nothing more fetched)")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", c.MetricsAddr, "serve Prometheus metrics on this `address` (e.g. 127.0.0.1:9090)")
	fs.Var(&c.MetricsEvery, "metrics-every", "how often crawl figures are recorded in the database")
	fs.Var(&c.RevisitEvery, "revisit-every", "during a long crawl, queue pages as they come due this often (0: only at the start)")
	fs.IntVar(&c.Recrawl.MissesToRemove, "misses-to-remove", c.Recrawl.MissesToRemove, "404 answers in a row that remove a page")
	fs.IntVar(&c.MaxLinks, "max-links-per-page", c.MaxLinks, "links taken from one page")
	fs.StringVar(&c.Order, "order", c.Order, "crawl order: priority, bfs or dfs")
	fs.Var(&c.Delay, "delay", "minimum gap between requests to one host")
	fs.Var(&c.MaxCrawlDelay, "max-crawl-delay", "cap on a robots.txt Crawl-delay")
	fs.IntVar(&c.HostInflight, "host-inflight", c.HostInflight, "requests in flight per host")
	fs.IntVar(&c.Workers, "workers", c.Workers, "requests in flight in total")
	fs.StringVar(&c.UserAgent, "user-agent", c.UserAgent, "User-Agent header; its product token selects robots.txt groups")
	fs.Var(&c.Timeout, "timeout", "limit for a whole exchange, body included")
	fs.Var(&c.MaxBody, "max-body", "largest HTML body kept, after decompression")
	fs.StringVar(&c.Proxy, "proxy", c.Proxy, "HTTP proxy `URL` (default: HTTP_PROXY/HTTPS_PROXY)")
	fs.BoolVar(&c.AllowPrivate, "allow-private", c.AllowPrivate, "allow connecting to loopback, private and link-local addresses")
	fs.StringVar(&c.Index, "index", c.Index, "search index besides the embedded one: opensearch:URL (documents go through an outbox)")
	fs.StringVar(&c.IndexName, "index-name", c.IndexName, "OpenSearch index name")
	fs.BoolVar(&c.NoRank, "no-rank", c.NoRank, "do not compute PageRank at the end of the crawl")
	fs.StringVar(&c.WARC, "warc", c.WARC, "`directory` for the WARC archive of raw responses; auto: beside the database (DB.warc); off: no archive")
	fs.Var(&c.MaxPDFBody, "max-pdf-body", "largest PDF fetched")
	fs.BoolVar(&c.NoPDF, "no-pdf", c.NoPDF, "do not fetch PDFs for their text")
	fs.IntVar(&c.NearDistance, "near-distance", c.NearDistance, "SimHash distance (bits, 0 to 3) within which a page is a near-duplicate of an earlier one and not indexed; 0: no near-duplicate detection")
	fs.BoolVar(&c.MainText, "main-text", c.MainText, "extract the main text of pages (boilerplate removed)")
	fs.BoolVar(&c.TestWeb, "testweb", c.TestWeb, "crawl the built-in synthetic test web (served in-process, used as the proxy) instead of the internet")
	fs.IntVar(&c.MaxAttempts, "max-attempts", c.MaxAttempts, "attempts per URL on transient failures")
	fs.Var(&c.RetryBase, "retry-base", "first retry delay after a transient failure (doubles)")
	fs.Var(&c.MaxBackoff, "max-backoff", "cap on a host's back-off after 429/503 answers or soft blocks (it doubles from 1s)")
	fs.Var(&c.RobotsRetry, "robots-retry", "first retry delay for an unreachable robots.txt (doubles)")
	fs.Var(&c.Lease, "lease", "host lease length (several processes on one PostgreSQL: a dead process's hosts wait this long)")
	fs.Var(&c.StoreOutage, "store-outage", "how long to wait for an unavailable database before giving up")
	fs.IntVar(&c.PGConns, "pg-conns", c.PGConns, "PostgreSQL connection pool size")
	fs.BoolVar(&c.SortQuery, "sort-query", c.SortQuery, "sort query parameters when normalizing URLs")
	fs.StringVar(&c.LogLevel, "log-level", c.LogLevel, "debug, info, warn or error")
	fs.StringVar(&c.LogFormat, "log-format", c.LogFormat, "text or json")
	fs.StringVar(&c.Progress, "progress", c.Progress, "progress output: auto (a live line on a terminal), line, plain or off")
}

// parseCrawlArgs builds the configuration of a crawl from its arguments.
func parseCrawlArgs(cmd string, args []string, stderr io.Writer) (crawlConfig, []string, error) {
	cfg := defaultCrawlConfig()
	file, err := configFileArg(args)
	if err != nil {
		return cfg, nil, err
	}
	if err := loadConfigFile(file, &cfg); err != nil {
		return cfg, nil, err
	}
	if v := os.Getenv("ACRAWLER_DB"); v != "" {
		cfg.DB = v
	}
	fs := flag.NewFlagSet("acrawler "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg.flags(fs)
	if cmd == "recrawl" {
		fs.BoolVar(&cfg.All, "all", cfg.All, "revisit every known page now, whatever its schedule")
	}
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: acrawler %s [flags] [URL...]\n\nFlags:\n", cmd)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return cfg, nil, err
	}
	return cfg, fs.Args(), cfg.validate()
}

func (c *crawlConfig) validate() error {
	for _, v := range []struct {
		flag string
		neg  bool
	}{
		{"max-depth", c.MaxDepth < 0}, {"max-pages", c.MaxPages < 0}, {"max-pages-per-host", c.MaxPagesPerHost < 0},
		{"max-bytes", c.MaxBytes < 0}, {"max-duration", c.MaxDuration < 0}, {"delay", c.Delay < 0},
		{"max-crawl-delay", c.MaxCrawlDelay < 0}, {"retry-base", c.RetryBase < 0}, {"max-backoff", c.MaxBackoff < 0},
		{"robots-retry", c.RobotsRetry < 0}, {"store-outage", c.StoreOutage < 0}, {"revisit-every", c.RevisitEvery < 0},
	} {
		if v.neg {
			return usagef("--%s cannot be negative", v.flag)
		}
	}
	if _, err := engine.ParseTrapPolicy(c.TrapPolicy); err != nil {
		return usagef("--trap-policy: %v", err)
	}
	switch {
	case c.DB == "":
		return usagef("--db is empty")
	case c.Workers < 1:
		return usagef("--workers must be at least 1")
	case c.MaxLinks < 1:
		// Not "no limit": the limit bounds the memory of one page's links.
		return usagef("--max-links-per-page must be at least 1")
	case c.NearDistance < 0 || c.NearDistance > crawl.MaxNearDistance:
		return usagef("--near-distance must be between 0 and %d", crawl.MaxNearDistance)
	case c.HostInflight < 1:
		return usagef("--host-inflight must be at least 1")
	case c.Timeout <= 0:
		return usagef("--timeout must be positive")
	case c.MaxBody <= 0:
		return usagef("--max-body must be positive")
	case c.MaxAttempts < 1:
		return usagef("--max-attempts must be at least 1")
	case c.UserAgent == "":
		return usagef("--user-agent is empty")
	case c.LogFormat != "text" && c.LogFormat != "json":
		return usagef("--log-format must be text or json")
	case c.PGConns < 1:
		return usagef("--pg-conns must be at least 1")
	case c.Lease < duration(time.Second):
		return usagef("--lease must be at least 1s")
	case !(c.MaxHostShare >= 0 && c.MaxHostShare <= 1): // NaN too
		return usagef("--max-host-share must be between 0 and 1")
	case c.MaxHostShare > 0 && c.MaxBytes == 0:
		return usagef("--max-host-share needs --max-bytes")
	case c.MetricsEvery < duration(time.Second):
		return usagef("--metrics-every must be at least 1s")
	case c.Recrawl.policy().Validate() != nil:
		return usageError{c.Recrawl.policy().Validate()}
	case c.TestWeb && c.Proxy != "":
		return usagef("--testweb and --proxy cannot be used together")
	}
	switch c.Progress {
	case "auto", "line", "plain", "off":
	default:
		return usagef("--progress must be auto, line, plain or off")
	}
	return nil
}

// duration is a time.Duration read from flags and TOML as "2s", "1m30s".
type duration time.Duration

func (d *duration) String() string { return time.Duration(*d).String() }
func (d *duration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = duration(v)
	return nil
}
func (d *duration) UnmarshalText(b []byte) error { return d.Set(string(b)) }

// byteSize is a byte count read as "5MiB", "2GB", "512k" or plain digits.
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }
func (b *byteSize) Set(s string) error {
	v, err := parseByteSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(v)
	return nil
}
func (b *byteSize) UnmarshalText(t []byte) error { return b.Set(string(t)) }

func parseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	// Decimal, not floating point: 2.01MB is 2010000 bytes, not 2009999.
	f, ok := new(big.Rat).SetString(num)
	if !ok || num == "" {
		return 0, fmt.Errorf("bad size %q (want e.g. 500MB, 2GiB, 1024)", s)
	}
	mult := map[string]int64{
		"": 1, "b": 1,
		"k": 1 << 10, "kib": 1 << 10, "kb": 1e3,
		"m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
		"g": 1 << 30, "gib": 1 << 30, "gb": 1e9,
		"t": 1 << 40, "tib": 1 << 40, "tb": 1e12,
	}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("bad size unit in %q (want B, KB, MB, GB, TB or KiB, MiB, GiB, TiB)", s)
	}
	f.Mul(f, new(big.Rat).SetInt64(mult))
	v := new(big.Int).Quo(f.Num(), f.Denom()) // whole bytes
	if !v.IsInt64() || v.Int64() > 1<<62 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return v.Int64(), nil
}

// recrawlConfig is the revisit policy in the config file ([recrawl]).
type recrawlConfig struct {
	MinInterval      duration `toml:"min_interval"`
	MaxInterval      duration `toml:"max_interval"`
	Home             duration `toml:"home"`
	Listing          duration `toml:"listing"`
	Article          duration `toml:"article"`
	Other            duration `toml:"other"`
	MissesToRemove   int      `toml:"misses_to_remove"`
	UnseenToInactive int      `toml:"unseen_to_inactive"`
}

func defaultRecrawlConfig() recrawlConfig {
	p := schedule.DefaultPolicy()
	return recrawlConfig{MinInterval: duration(p.Min), MaxInterval: duration(p.Max), Home: duration(p.Home),
		Listing: duration(p.Listing), Article: duration(p.Article), Other: duration(p.Other),
		MissesToRemove: p.MissesToRemove, UnseenToInactive: p.UnseenToInactive}
}

func (r recrawlConfig) policy() schedule.Policy {
	return schedule.Policy{Min: time.Duration(r.MinInterval), Max: time.Duration(r.MaxInterval), Home: time.Duration(r.Home),
		Listing: time.Duration(r.Listing), Article: time.Duration(r.Article), Other: time.Duration(r.Other),
		MissesToRemove: r.MissesToRemove, UnseenToInactive: r.UnseenToInactive}
}
