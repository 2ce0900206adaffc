package app

import (
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/acrawler/acrawler/internal/api"
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/engine"
	"github.com/acrawler/acrawler/internal/schedule"
	"github.com/acrawler/acrawler/internal/scope"
	"github.com/acrawler/acrawler/internal/score"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

// config is every setting of every command, in one place. Precedence:
// defaults (defaultConfig), then the --config file (TOML: a setting's key
// is its flag's name with '_' for '-'; the settings of one command only are
// in its section, such as [serve]), then the environment (ACRAWLER_DB),
// then flags. Which flags a command takes is config.flags; the settings a
// crawl records in its database and the commands after it take from there
// are recordedSettings. validate checks the whole configuration once.
type Config struct {
	DB              string   `toml:"db"`
	Seeds           string   `toml:"seeds"`
	MaxDepth        int      `toml:"max_depth"`
	MaxPages        int64    `toml:"max_pages"`
	MaxPagesPerHost int64    `toml:"max_pages_per_host"`
	MaxBytes        ByteSize `toml:"max_bytes"`
	MaxDuration     Duration `toml:"max_duration"`
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
	MetricsEvery    Duration `toml:"metrics_every"`

	Priority     score.Config  `toml:"priority"`
	Recrawl      RecrawlConfig `toml:"recrawl"`
	All          bool          `toml:"-"`
	RevisitEvery Duration      `toml:"revisit_every"`
	MaxLinks     int           `toml:"max_links_per_page"`
	Order        string        `toml:"order"`

	Delay         Duration `toml:"delay"`
	MaxCrawlDelay Duration `toml:"max_crawl_delay"`
	HostInflight  int      `toml:"host_inflight"`
	Workers       int      `toml:"workers"`

	UserAgent    string   `toml:"user_agent"`
	Timeout      Duration `toml:"timeout"`
	MaxBody      ByteSize `toml:"max_body"`
	Proxy        string   `toml:"proxy"`
	AllowPrivate bool     `toml:"allow_private"`

	MaxAttempts int      `toml:"max_attempts"`
	RetryBase   Duration `toml:"retry_base"`
	MaxBackoff  Duration `toml:"max_backoff"`
	RobotsRetry Duration `toml:"robots_retry"`
	Lease       Duration `toml:"lease"`
	StoreOutage Duration `toml:"store_outage"`
	PGConns     int      `toml:"pg_conns"`

	SortQuery      bool     `toml:"sort_query"`
	KeepQueryOrder []string `toml:"keep_query_order"`
	StripParams    []string `toml:"strip_params"`

	TestWeb bool `toml:"testweb"`

	Index     string `toml:"index"`
	IndexName string `toml:"index_name"`
	NoRank    bool   `toml:"no_rank"`
	// RankEvery runs the rank pass (PageRank, the anchor texts that
	// changed, the pages waiting for the index delay) this often while a
	// crawl runs, so that a long crawl's search sees its links before it
	// ends (0: at its end only).
	RankEvery Duration `toml:"rank_every"`
	// IndexDelay is how long a page waits after it is stored before the
	// embedded index (SQLite) tokenizes it, with the anchor texts of the
	// links found meanwhile (0: at once).
	IndexDelay Duration `toml:"index_delay"`
	// IndexEngine is the embedded index's engine for a new SQLite
	// database: "fts5" (the default) or "segments" (sqlite.Options.Engine).
	IndexEngine string   `toml:"index_engine"`
	WARC        string   `toml:"warc"`
	MaxPDFBody  ByteSize `toml:"max_pdf_body"`
	// NearDistance is the SimHash distance of a near-duplicate (0: none).
	NearDistance int  `toml:"near_distance"`
	NoPDF        bool `toml:"no_pdf"`
	MainText     bool `toml:"main_text"`

	Sitemaps     []string `toml:"sitemaps"`
	NoSitemaps   bool     `toml:"no_sitemaps"`
	SeedArchive  []string `toml:"seed_archive"`
	CDXEndpoint  string   `toml:"cdx_endpoint"`
	ArchiveLimit int      `toml:"archive_limit"`
	OAI          []string `toml:"oai"`

	LogLevel  string `toml:"log_level"`
	LogFormat string `toml:"log_format"`
	Progress  string `toml:"progress"`

	// OverrideRecorded lets explicit settings replace those the crawl
	// recorded (see recordedSettings).
	OverrideRecorded bool `toml:"-"`

	Serve     ServeConfig   `toml:"serve"`
	Reparse   ReparseConfig `toml:"reparse"`
	Reindex   ReindexConfig `toml:"reindex"`
	Stats     StatsConfig   `toml:"stats"`
	Export    ExportConfig  `toml:"export"`
	Synthetic TestwebConfig `toml:"synthetic_web"` // acrawler testweb

	// explicit holds the flags given on the command line and the keys of
	// the config file, by flag name.
	explicit map[string]bool
}

// serveConfig is the [serve] section: the search API and web page.
type ServeConfig struct {
	Addr              string   `toml:"addr"`
	PageRankWeight    float64  `toml:"pagerank_weight"`
	MaxSearches       int      `toml:"max_searches"`
	MaxClientSearches int      `toml:"max_client_searches"`
	Timeout           Duration `toml:"timeout"`
	Grace             Duration `toml:"grace"`
}

// reparseConfig is the [reparse] section.
type ReparseConfig struct {
	Workers int `toml:"workers"`
}

// reindexConfig is the [reindex] section.
type ReindexConfig struct {
	Wait Duration `toml:"wait"`
}

// statsConfig is the [stats] section.
type StatsConfig struct {
	JSON   bool `toml:"json"`
	Hosts  int  `toml:"hosts"`
	Points int  `toml:"points"`
}

// exportConfig is the [export] section.
type ExportConfig struct {
	What   string `toml:"what"` // pages or works
	Format string `toml:"format"`
	Out    string `toml:"out"`
	All    bool   `toml:"all"`
	Text   bool   `toml:"text"`
}

// testwebConfig is the [synthetic_web] section: the synthetic web that
// `acrawler testweb` serves (testweb = true is crawl's setting).
type TestwebConfig struct {
	Listen   string   `toml:"listen"`
	Seed     int64    `toml:"seed"`
	Sites    int      `toml:"sites"`
	Pages    int      `toml:"pages"`
	NoFaults bool     `toml:"no_faults"`
	Slow     Duration `toml:"slow"`
}

func DefaultConfig() Config {
	return Config{
		DB:              "acrawler.db",
		MaxDepth:        5,
		MaxPagesPerHost: 5000,
		Scope:           "domain",
		MaxURLLength:    scope.DefaultLimits.MaxLength,
		MaxQueryParams:  scope.DefaultLimits.MaxQueryParams,
		MaxPathRepeats:  scope.DefaultLimits.MaxRepeats,
		TrapPolicy:      "throttle",
		MetricsEvery:    Duration(10 * time.Second),
		Priority:        score.DefaultConfig(),
		Recrawl:         defaultRecrawlConfig(),
		MaxLinks:        1000,
		Order:           "priority",
		Delay:           Duration(2 * time.Second),
		MaxCrawlDelay:   Duration(30 * time.Second),
		HostInflight:    1,
		Workers:         16,
		UserAgent:       fmt.Sprintf("acrawler/%s (+%s)", Version, ProjectURL),
		Timeout:         Duration(10 * time.Second),
		MaxBody:         5 << 20,
		MaxAttempts:     3,
		RetryBase:       Duration(30 * time.Second),
		MaxBackoff:      Duration(10 * time.Minute),
		RobotsRetry:     Duration(time.Minute),
		Lease:           Duration(time.Minute),
		StoreOutage:     Duration(5 * time.Minute),
		CDXEndpoint:     "https://web.archive.org/cdx/search/cdx",
		WARC:            "auto",
		Index:           "embedded",
		IndexDelay:      Duration(time.Minute),
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
		Serve: ServeConfig{Addr: "127.0.0.1:8080", PageRankWeight: 0.5, MaxSearches: api.DefaultMaxSearches(),
			Timeout: Duration(api.DefaultTimeout), Grace: Duration(5 * time.Second)},
		Reparse:   ReparseConfig{Workers: runtime.GOMAXPROCS(0)},
		Reindex:   ReindexConfig{Wait: Duration(10 * time.Minute)},
		Stats:     StatsConfig{Hosts: 20, Points: 12},
		Export:    ExportConfig{Format: "jsonl"},
		Synthetic: TestwebConfig{Listen: "127.0.0.1:8080", Seed: 1, Pages: 60, Slow: Duration(3 * time.Second)},
	}
}

// stripParams are the query parameters URLs lose: the configured ones,
// else urlnorm's defaults.
func (c *Config) stripParams() []string {
	if len(c.StripParams) > 0 {
		return c.StripParams
	}
	return urlnorm.DefaultOptions().StripParams
}

// normalizer is the URL normalizer of the configuration.
func (c *Config) normalizer() (*urlnorm.Normalizer, error) {
	opts := urlnorm.DefaultOptions()
	opts.SortQuery = c.SortQuery
	opts.KeepQueryOrder = c.KeepQueryOrder
	opts.StripParams = c.stripParams()
	n, err := urlnorm.New(opts)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return n, nil
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
// so a misspelt setting is not silently ignored. The file's top-level keys
// are marked explicit.
func loadConfigFile(file string, cfg *Config) error {
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
	if cfg.explicit == nil {
		cfg.explicit = map[string]bool{}
	}
	for _, k := range md.Keys() {
		if len(k) == 1 {
			cfg.explicit[strings.ReplaceAll(k[0], "_", "-")] = true
		}
	}
	return nil
}

// Commands are the commands of acrawler, each with the flags config.flags
// gives it.
var Commands = []string{"crawl", "recrawl", "serve", "stats", "export", "reparse", "rank", "reindex", "migrate", "testweb", "version"}

// flags declares the flags of cmd over c: which settings each command
// takes from the command line. Every command takes --config, and every
// command that opens a database --db. The settings a crawl records
// (recordedSettings) come from the database in recrawl, reparse, serve
// and reindex unless given explicitly.
func (c *Config) flags(cmd string, fs *flag.FlagSet) {
	fs.String("config", "", "TOML `file` with settings (flags override it)")
	if cmd == "version" {
		return
	}
	if cmd == "testweb" {
		c.testwebFlags(fs)
		return
	}
	fs.StringVar(&c.DB, "db", c.DB, "crawl database: a SQLite `path` or a postgres:// DSN (env ACRAWLER_DB)")
	switch cmd {
	case "crawl", "recrawl":
		c.crawlFlags(fs)
		c.recordedFlags(fs)
		c.indexFlags(fs, "search index besides the embedded one: opensearch:URL (documents go through an outbox)")
		c.logFlags(fs)
		c.extractFlags(fs)
		fs.IntVar(&c.PGConns, "pg-conns", c.PGConns, "PostgreSQL connection pool size")
		fs.StringVar(&c.WARC, "warc", c.WARC, "`directory` for the WARC archive of raw responses; auto: beside the database (DB.warc), or where the crawl recorded it; off: no archive")
		if cmd == "recrawl" {
			fs.BoolVar(&c.All, "all", c.All, "revisit every known page now, whatever its schedule")
		}
	case "reparse":
		c.recordedFlags(fs)
		c.logFlags(fs)
		c.extractFlags(fs)
		fs.StringVar(&c.WARC, "warc", c.WARC, "`directory` of the WARC archive (auto: where the crawl recorded it, else beside the database)")
		fs.IntVar(&c.Reparse.Workers, "workers", c.Reparse.Workers, "pages extracted at the same time")
	case "serve":
		c.indexFlags(fs, "search index: embedded (the store's own) or opensearch:URL")
		c.logFlags(fs)
		fs.StringVar(&c.Serve.Addr, "addr", c.Serve.Addr, "`address` to serve on")
		fs.Float64Var(&c.Serve.PageRankWeight, "pagerank-weight", c.Serve.PageRankWeight, "how much link-graph rank moves the score")
		fs.IntVar(&c.Serve.MaxSearches, "max-searches", c.Serve.MaxSearches, "requests that read the store at once (searches, documents, the dashboard); more wait a second, then get 503 with Retry-After")
		fs.IntVar(&c.Serve.MaxClientSearches, "max-client-searches", c.Serve.MaxClientSearches, "of those, how many one client address may hold at once (0: no cap; behind a reverse proxy every user shares the proxy's address)")
		fs.Var(&c.Serve.Timeout, "timeout", "time budget of a request; past it the answer is 503 with Retry-After")
		fs.Var(&c.Serve.Grace, "grace", "on a stop, how long requests in progress may take to finish")
	case "reindex":
		c.indexFlags(fs, "the index to rebuild: embedded or opensearch:URL")
		c.logFlags(fs)
		fs.IntVar(&c.PGConns, "pg-conns", c.PGConns, "PostgreSQL connection pool size")
		fs.Var(&c.Reindex.Wait, "wait", "how long to wait for OpenSearch to take the documents")
	case "rank":
		fs.IntVar(&c.PGConns, "pg-conns", c.PGConns, "PostgreSQL connection pool size")
	case "stats":
		fs.BoolVar(&c.Stats.JSON, "json", c.Stats.JSON, "print the report as JSON")
		fs.IntVar(&c.Stats.Hosts, "hosts", c.Stats.Hosts, "hosts listed (0: all)")
		fs.IntVar(&c.Stats.Points, "points", c.Stats.Points, "intervals of the series shown (0: all)")
	case "export":
		fs.StringVar(&c.Export.What, "what", c.Export.What, "what to export: pages, or works (the copies of a paper joined)")
		fs.StringVar(&c.Export.Format, "format", c.Export.Format, "output format: jsonl; for works also bibtex, ris or csl-json")
		fs.StringVar(&c.Export.Out, "out", c.Export.Out, "write to this `file` instead of standard output")
		fs.BoolVar(&c.Export.All, "all", c.Export.All, "every recorded page, not only 2xx HTML and PDF documents")
		fs.BoolVar(&c.Export.Text, "text", c.Export.Text, "include the full visible text beside the main text")
	}
}

// recordedFlags are the flags of the settings a crawl records.
func (c *Config) recordedFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.UserAgent, "user-agent", c.UserAgent, "User-Agent header; its product token selects robots.txt groups and meta robots tags (recorded by the crawl)")
	fs.BoolVar(&c.SortQuery, "sort-query", c.SortQuery, "sort query parameters when normalizing URLs (recorded by the crawl)")
	fs.Func("keep-query-order", "comma-separated host `patterns` whose query order is kept (*.example.org; recorded by the crawl)", func(s string) error {
		c.KeepQueryOrder = splitComma(s)
		return nil
	})
	fs.Func("strip-params", "comma-separated query `parameters` removed from URLs, utm_* for a prefix; replaces the default list (recorded by the crawl)", func(s string) error {
		c.StripParams = splitComma(s)
		return nil
	})
	fs.IntVar(&c.MaxLinks, "max-links-per-page", c.MaxLinks, "links taken from one page (recorded by the crawl)")
	fs.BoolVar(&c.MainText, "main-text", c.MainText, "extract the main text of pages, boilerplate removed (recorded by the crawl)")
	fs.BoolVar(&c.OverrideRecorded, "override-recorded", c.OverrideRecorded, "use and record the settings given here where they contradict those the crawl recorded")
}

func (c *Config) extractFlags(fs *flag.FlagSet) {
	fs.BoolVar(&c.NoPDF, "no-pdf", c.NoPDF, "do not fetch PDFs for their text (reparse: leave them as they are)")
	fs.IntVar(&c.NearDistance, "near-distance", c.NearDistance, "SimHash distance (bits, 0 to 3) within which a page is a near-duplicate of an earlier one and not indexed; 0: no near-duplicate detection")
}

func (c *Config) indexFlags(fs *flag.FlagSet, usage string) {
	fs.StringVar(&c.Index, "index", c.Index, usage)
	fs.StringVar(&c.IndexName, "index-name", c.IndexName, "OpenSearch index name")
}

func (c *Config) logFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.LogLevel, "log-level", c.LogLevel, "debug, info, warn or error")
	fs.StringVar(&c.LogFormat, "log-format", c.LogFormat, "text or json")
}

func (c *Config) testwebFlags(fs *flag.FlagSet) {
	t := &c.Synthetic
	fs.StringVar(&t.Listen, "listen", t.Listen, "`address` to serve on")
	fs.Int64Var(&t.Seed, "seed", t.Seed, "seed of the generated web")
	fs.IntVar(&t.Sites, "sites", t.Sites, "generated sites beside the named ones")
	fs.IntVar(&t.Pages, "pages", t.Pages, "content pages per site")
	fs.BoolVar(&t.NoFaults, "no-faults", t.NoFaults, "leave out the slow, dripping, oversized and gzip-bomb pages")
	fs.Var(&t.Slow, "slow", "how long the slow pages take")
}

func splitComma(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// crawlFlags are the flags of crawl and recrawl alone.
func (c *Config) crawlFlags(fs *flag.FlagSet) {
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
	fs.Func("oai", "seed from the records of the OAI-PMH repository at this base `URL` (repeatable)", func(s string) error {
		c.OAI = append(c.OAI, s)
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
	fs.StringVar(&c.Order, "order", c.Order, "crawl order: priority, bfs or dfs")
	fs.Var(&c.Delay, "delay", "minimum gap between requests to one host")
	fs.Var(&c.MaxCrawlDelay, "max-crawl-delay", "cap on a robots.txt Crawl-delay")
	fs.IntVar(&c.HostInflight, "host-inflight", c.HostInflight, "requests in flight per host")
	fs.IntVar(&c.Workers, "workers", c.Workers, "requests in flight in total")
	fs.Var(&c.Timeout, "timeout", "limit for a whole exchange, body included")
	fs.Var(&c.MaxBody, "max-body", "largest HTML body kept, after decompression")
	fs.StringVar(&c.Proxy, "proxy", c.Proxy, "HTTP proxy `URL` (default: HTTP_PROXY/HTTPS_PROXY)")
	fs.BoolVar(&c.AllowPrivate, "allow-private", c.AllowPrivate, "allow connecting to loopback, private and link-local addresses")
	fs.BoolVar(&c.NoRank, "no-rank", c.NoRank, "do not compute PageRank at the end of the crawl")
	fs.Var(&c.RankEvery, "rank-every", "also run the rank pass (PageRank, changed anchor texts) this often while the crawl runs (0: at its end only)")
	fs.Var(&c.IndexDelay, "index-delay", "how long a stored page waits before the embedded index tokenizes it with the anchor texts found meanwhile (0: at once; the end of the crawl indexes every page)")
	fs.StringVar(&c.IndexEngine, "index-engine", c.IndexEngine, "the embedded index's engine for a new SQLite database: fts5 or segments (a database keeps the engine it was made with)")
	fs.Var(&c.MaxPDFBody, "max-pdf-body", "largest PDF fetched")
	fs.BoolVar(&c.TestWeb, "testweb", c.TestWeb, "crawl the built-in synthetic test web (served in-process, used as the proxy) instead of the internet")
	fs.IntVar(&c.MaxAttempts, "max-attempts", c.MaxAttempts, "attempts per URL on transient failures")
	fs.Var(&c.RetryBase, "retry-base", "first retry delay after a transient failure (doubles)")
	fs.Var(&c.MaxBackoff, "max-backoff", "cap on a host's back-off after 429/503 answers or soft blocks (it doubles from 1s)")
	fs.Var(&c.RobotsRetry, "robots-retry", "first retry delay for an unreachable robots.txt (doubles)")
	fs.Var(&c.Lease, "lease", "host lease length (several processes on one PostgreSQL: a dead process's hosts wait this long)")
	fs.Var(&c.StoreOutage, "store-outage", "how long to wait for an unavailable database before giving up")
	fs.StringVar(&c.Progress, "progress", c.Progress, "progress output: auto (a live line on a terminal), line, plain or off")
}

// commandUsage is the first line of a command's -h.
var commandUsage = map[string]string{
	"crawl":   "crawl [flags] [URL...]",
	"recrawl": "recrawl [flags] [--all]",
	"serve":   "serve [flags]",
	"stats":   "stats [flags]",
	"export":  "export [flags]",
	"reparse": "reparse [flags]",
	"rank":    "rank [flags]",
	"reindex": "reindex [flags]",
	"migrate": "migrate [flags]",
	"testweb": "testweb [flags]",
	"version": "version [--config FILE]",
}

// parseArgs builds the configuration of cmd from its arguments: defaults,
// the --config file, the environment, the flags; then validates it. It
// returns the arguments left after the flags.
func Load(cmd string, args []string, stderr io.Writer) (Config, []string, error) {
	cfg := DefaultConfig()
	cfg.explicit = map[string]bool{}
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
	cfg.flags(cmd, fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: acrawler %s\n\nFlags:\n", commandUsage[cmd])
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return cfg, nil, err
	}
	fs.Visit(func(f *flag.Flag) { cfg.explicit[f.Name] = true })
	if cmd != "crawl" && cmd != "recrawl" && fs.NArg() > 0 {
		return cfg, nil, usagef("%s takes no arguments, got %q", cmd, fs.Args())
	}
	return cfg, fs.Args(), cfg.validate(cmd)
}

// maxPoliteDelay is the longest gap between requests to one host that
// --delay and --max-crawl-delay may ask for.
const maxPoliteDelay = Duration(24 * time.Hour)

func (c *Config) validate(cmd string) error {
	for _, v := range []struct {
		flag string
		neg  bool
	}{
		{"max-depth", c.MaxDepth < 0}, {"max-pages", c.MaxPages < 0}, {"max-pages-per-host", c.MaxPagesPerHost < 0},
		{"max-bytes", c.MaxBytes < 0}, {"max-duration", c.MaxDuration < 0}, {"delay", c.Delay < 0}, {"index-delay", c.IndexDelay < 0}, {"rank-every", c.RankEvery < 0},
		{"max-crawl-delay", c.MaxCrawlDelay < 0}, {"retry-base", c.RetryBase < 0}, {"max-backoff", c.MaxBackoff < 0},
		{"robots-retry", c.RobotsRetry < 0}, {"store-outage", c.StoreOutage < 0}, {"revisit-every", c.RevisitEvery < 0},
	} {
		if v.neg {
			return usagef("--%s cannot be negative", v.flag)
		}
	}
	switch c.IndexEngine {
	case "", sqlite.EngineFTS5, sqlite.EngineSegments:
	default:
		return usagef("--index-engine: %q is neither %s nor %s", c.IndexEngine, sqlite.EngineFTS5, sqlite.EngineSegments)
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
	case c.Lease < Duration(time.Second):
		return usagef("--lease must be at least 1s")
	case c.Delay > maxPoliteDelay || c.MaxCrawlDelay > maxPoliteDelay:
		// A host's delay is kept in milliseconds, in 32 bits on
		// PostgreSQL; a gap of days is no crawl.
		return usagef("--delay and --max-crawl-delay must be at most %s", time.Duration(maxPoliteDelay))
	case !(c.MaxHostShare >= 0 && c.MaxHostShare <= 1): // NaN too
		return usagef("--max-host-share must be between 0 and 1")
	case c.MaxHostShare > 0 && c.MaxBytes == 0:
		return usagef("--max-host-share needs --max-bytes")
	case c.MetricsEvery < Duration(time.Second):
		return usagef("--metrics-every must be at least 1s")
	case c.Recrawl.policy().Validate() != nil:
		return UsageError{c.Recrawl.policy().Validate()}
	case c.TestWeb && c.Proxy != "":
		return usagef("--testweb and --proxy cannot be used together")
	}
	switch c.Progress {
	case "auto", "line", "plain", "off":
	default:
		return usagef("--progress must be auto, line, plain or off")
	}
	if _, err := c.normalizer(); err != nil {
		return err
	}
	if _, err := parseIndex(c.Index); err != nil {
		return err
	}
	s := c.Serve
	switch {
	case s.MaxSearches < 1:
		return usagef("serve: --max-searches must be at least 1, got %d", s.MaxSearches)
	case s.MaxClientSearches < 0:
		return usagef("serve: --max-client-searches cannot be negative, got %d", s.MaxClientSearches)
	case s.Timeout <= 0 || s.Grace < 0:
		return usagef("serve: --timeout must be positive and --grace not negative, got %v and %v", time.Duration(s.Timeout), time.Duration(s.Grace))
	case c.Reparse.Workers < 1:
		return usagef("reparse: --workers must be at least 1")
	case c.Reindex.Wait < 0:
		return usagef("reindex: --wait cannot be negative")
	case c.Stats.Hosts < 0 || c.Stats.Points < 0:
		return usagef("stats: --hosts and --points cannot be negative")
	case c.Export.What != "" && c.Export.What != "pages" && c.Export.What != "works":
		return usagef("export: unknown --what %q (want pages or works)", c.Export.What)
	case c.Export.Format != "jsonl" && (c.Export.What != "works" || !citeFormat(c.Export.Format)):
		return usagef("export: unknown format %q (want jsonl; for --what works also bibtex, ris or csl-json)", c.Export.Format)
	case c.Synthetic.Sites < 0 || c.Synthetic.Pages < 0 || c.Synthetic.Slow < 0:
		return usagef("testweb: --sites, --pages and --slow cannot be negative")
	case cmd == "reparse" && (c.WARC == "off" || c.WARC == ""):
		return usagef("reparse needs the WARC archive (--warc DIR)")
	}
	if _, err := newLogger(io.Discard, c.LogLevel, c.LogFormat); err != nil {
		return err
	}
	return nil
}

// duration is a time.Duration read from flags and TOML as "2s", "1m30s".
type Duration time.Duration

func (d *Duration) String() string { return time.Duration(*d).String() }
func (d *Duration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}
func (d *Duration) UnmarshalText(b []byte) error { return d.Set(string(b)) }

// byteSize is a byte count read as "5MiB", "2GB", "512k" or plain digits.
type ByteSize int64

func (b *ByteSize) String() string { return strconv.FormatInt(int64(*b), 10) }
func (b *ByteSize) Set(s string) error {
	v, err := parseByteSize(s)
	if err != nil {
		return err
	}
	*b = ByteSize(v)
	return nil
}
func (b *ByteSize) UnmarshalText(t []byte) error { return b.Set(string(t)) }

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
type RecrawlConfig struct {
	MinInterval      Duration `toml:"min_interval"`
	MaxInterval      Duration `toml:"max_interval"`
	Home             Duration `toml:"home"`
	Listing          Duration `toml:"listing"`
	Article          Duration `toml:"article"`
	Other            Duration `toml:"other"`
	MissesToRemove   int      `toml:"misses_to_remove"`
	UnseenToInactive int      `toml:"unseen_to_inactive"`
}

func defaultRecrawlConfig() RecrawlConfig {
	p := schedule.DefaultPolicy()
	return RecrawlConfig{MinInterval: Duration(p.Min), MaxInterval: Duration(p.Max), Home: Duration(p.Home),
		Listing: Duration(p.Listing), Article: Duration(p.Article), Other: Duration(p.Other),
		MissesToRemove: p.MissesToRemove, UnseenToInactive: p.UnseenToInactive}
}

func (r RecrawlConfig) policy() schedule.Policy {
	return schedule.Policy{Min: time.Duration(r.MinInterval), Max: time.Duration(r.MaxInterval), Home: time.Duration(r.Home),
		Listing: time.Duration(r.Listing), Article: time.Duration(r.Article), Other: time.Duration(r.Other),
		MissesToRemove: r.MissesToRemove, UnseenToInactive: r.UnseenToInactive}
}
