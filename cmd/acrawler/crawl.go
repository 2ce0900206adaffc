package main

import (
	"bufio"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/acrawler/acrawler/internal/archive"
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/engine"
	"github.com/acrawler/acrawler/internal/fetch"
	"github.com/acrawler/acrawler/internal/frontier"
	"github.com/acrawler/acrawler/internal/harvest"
	"github.com/acrawler/acrawler/internal/index/opensearch"
	"github.com/acrawler/acrawler/internal/indexer"
	"github.com/acrawler/acrawler/internal/robots"
	"github.com/acrawler/acrawler/internal/scope"
	"github.com/acrawler/acrawler/internal/score"
	"github.com/acrawler/acrawler/internal/testweb"
	"github.com/acrawler/acrawler/internal/urlnorm"
	"github.com/acrawler/acrawler/internal/warc"
)

func runCrawl(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return crawlOrRecrawl(ctx, "crawl", args, stdout, stderr)
}

// runRecrawl revisits the pages of an existing crawl that are due (every
// page with --all), with conditional requests, as one recrawl run.
func runRecrawl(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return crawlOrRecrawl(ctx, "recrawl", args, stdout, stderr)
}

func crawlOrRecrawl(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) error {
	recrawl := cmd == "recrawl"
	cfg, rest, err := parseArgs(cmd, args, stderr)
	if err != nil {
		return err
	}
	log, err := newLogger(stderr, cfg.LogLevel, cfg.LogFormat)
	if err != nil {
		return err
	}
	raw := rest
	if cfg.Seeds != "" {
		fromFile, err := readSeedFile(cfg.Seeds)
		if err != nil {
			return err
		}
		raw = append(raw, fromFile...)
	}
	// The seeds are normalized as the flags say, to refuse a bad one before
	// the database is opened, and again with the settings the crawl
	// recorded once it is.
	var norm *urlnorm.Normalizer
	var seeds, sitemaps, oaiEndpoints []string
	normalizeSeeds := func() error {
		if norm, err = cfg.normalizer(); err != nil {
			return err
		}
		seeds, sitemaps, oaiEndpoints = make([]string, 0, len(raw)), nil, nil
		for _, s := range raw {
			u, err := norm.Normalize(s)
			if err != nil {
				return usagef("seed %q: %v", s, err)
			}
			seeds = append(seeds, u)
		}
		for _, s := range cfg.Sitemaps {
			u, err := norm.Normalize(s)
			if err != nil {
				return usagef("sitemap %q: %v", s, err)
			}
			sitemaps = append(sitemaps, u)
		}
		for _, s := range cfg.OAI {
			u, err := norm.Normalize(s)
			if err != nil {
				return usagef("oai %q: %v", s, err)
			}
			oaiEndpoints = append(oaiEndpoints, u)
		}
		return nil
	}
	if err := normalizeSeeds(); err != nil {
		return err
	}
	for _, d := range cfg.SeedArchive {
		if d == "" || strings.ContainsAny(d, "/ ?#") {
			return usagef("--seed-archive %q: want a domain such as example.edu", d)
		}
	}
	mode, err := scope.ParseMode(cfg.Scope)
	if err != nil {
		return usageError{err}
	}
	excludes := cfg.Exclude
	if !cfg.NoDefaultExcl {
		excludes = append(append([]string{}, scope.DefaultExcludes...), cfg.Exclude...)
	}
	scopeSeeds := append(append(append([]string{}, seeds...), sitemaps...), oaiEndpoints...)
	for _, d := range cfg.SeedArchive {
		scopeSeeds = append(scopeSeeds, "http://"+strings.ToLower(d)+"/")
	}
	sc, err := scope.New(mode, scopeSeeds, excludes, scope.Limits{MaxLength: cfg.MaxURLLength,
		MaxQueryParams: cfg.MaxQueryParams, MaxRepeats: cfg.MaxPathRepeats})
	if err != nil {
		return usageError{err}
	}
	order, err := score.ParseOrder(cfg.Order)
	if err != nil {
		return usageError{err}
	}
	scoreCfg := cfg.Priority
	scoreCfg.Order = order
	policy, err := score.New(scoreCfg)
	if err != nil {
		return usageError{err}
	}
	if cfg.TestWeb {
		// The synthetic web, served in-process on loopback and used as the
		// proxy: the whole pipeline runs, no packet leaves the machine.
		srv, err := startTestWeb(testweb.Config{Seed: 1})
		if err != nil {
			return err
		}
		defer srv.Close()
		cfg.Proxy = "http://" + srv.Addr
	}
	fetchConfig := func() fetch.Config {
		return fetch.Config{
			UserAgent:    cfg.UserAgent,
			Timeout:      time.Duration(cfg.Timeout),
			MaxBody:      int64(cfg.MaxBody),
			Proxy:        cfg.Proxy,
			AllowPrivate: cfg.AllowPrivate,
			// Per-host politeness is the frontier's job; and through a
			// proxy every request shares one connection pool.
			MaxConnsPerHost: cfg.Workers,
		}
	}
	client, err := fetch.New(fetchConfig())
	if err != nil {
		return usageError{err}
	}
	defer func() { client.Close() }()

	spec, err := parseIndex(cfg.Index)
	if err != nil {
		return err
	}
	var search *opensearch.Client
	if spec.kind == "opensearch" {
		if search, err = openSearchClient(spec, cfg.IndexName); err != nil {
			return err
		}
	}
	if len(seeds) == 0 && len(sitemaps) == 0 && len(cfg.SeedArchive) == 0 && len(cfg.OAI) == 0 && !isPostgres(cfg.DB) {
		// Nothing to resume in a database that does not exist: say so
		// without creating it.
		if _, err := os.Stat(cfg.DB); errors.Is(err, fs.ErrNotExist) {
			if cmd == "recrawl" {
				return usagef("%s does not exist: nothing to revisit", cfg.DB)
			}
			return usagef("no seed URLs given and %s does not exist (acrawler %s URL... or --seeds FILE)", cfg.DB, cmd)
		}
	}
	store, err := openStoreWith(ctx, cfg.DB, cfg.PGConns, search != nil, cfg.NearDistance)
	if err != nil {
		return err
	}
	defer store.Close()
	ua := cfg.UserAgent
	unrecorded, err := applyRecorded(ctx, store, &cfg)
	if err != nil {
		return err
	}
	if unrecorded {
		if err := recordSettings(ctx, store, &cfg); err != nil {
			return err
		}
	}
	if err := normalizeSeeds(); err != nil {
		return err
	}
	if cfg.UserAgent != ua {
		client.Close()
		if client, err = fetch.New(fetchConfig()); err != nil {
			return usageError{err}
		}
	}
	archived := seedArchive(ctx, cfg, norm, store, log)
	if len(seeds) == 0 && len(sitemaps) == 0 && len(archived) == 0 && len(oaiEndpoints) == 0 {
		c, err := store.Counters(ctx)
		if err != nil {
			return err
		}
		due, err := store.DueCount(ctx, time.Now())
		if err != nil {
			return err
		}
		if c.Queued == 0 && c.InFlight == 0 && c.Pages == 0 {
			return usagef("no seed URLs given and %s has nothing to crawl (acrawler %s URL... or --seeds FILE)", redactDB(cfg.DB), cmd)
		}
		log.Info("continuing the crawl in the database", "db", redactDB(cfg.DB), "queued", c.Queued, "due", due)
		// The scope of a crawl resumed without its seeds: the hosts it has.
		hosts, err := store.HostStats(ctx, 0)
		if err != nil {
			return err
		}
		for _, h := range hosts {
			sc.Allow(h.Key + "/")
		}
	}
	var run int
	if recrawl {
		if run, err = store.StartRun(ctx, time.Now()); err != nil {
			return err
		}
	}

	trapPolicy, err := engine.ParseTrapPolicy(cfg.TrapPolicy)
	if err != nil {
		return usageError{err}
	}
	lim := crawl.Limits{MaxDepth: cfg.MaxDepth, MaxPages: cfg.MaxPages, MaxPagesPerHost: cfg.MaxPagesPerHost, MaxBytes: int64(cfg.MaxBytes)}
	if cfg.MaxHostShare > 0 {
		lim.MaxHostBytes = int64(cfg.MaxHostShare * float64(cfg.MaxBytes))
	}
	lim.InlinkBonus, lim.MaxInlinkBonus = policy.InlinkBonus()
	var markers []string
	for _, m := range cfg.BlockMarkers {
		markers = append(markers, strings.ToLower(m))
	}
	archiveDir, err := crawlArchiveDir(ctx, store, cfg.WARC, cfg.DB)
	if err != nil {
		return err
	}
	recoverArchive(archiveDir, log)
	archive, err := openArchive(archiveDir, cfg.DB, cfg.UserAgent)
	if err != nil {
		return err
	}
	if archive != nil {
		defer archive.Close()
	}
	var pdfs *lazyPDF
	if !cfg.NoPDF {
		pdfs = newLazyPDF(log)
		defer pdfs.Close()
	}
	harvestOAI(ctx, cfg, oaiEndpoints, harvest.Config{Fetcher: client, Store: store, Normalizer: norm, Score: policy,
		Admit: func(u string) bool { return sc.Check(u) == scope.In }, Limits: lim, Log: log})
	prog := newProgressPrinter(stderr, cfg.Progress)
	eng, err := engine.New(store, engine.Config{
		Frontier: frontier.Config{
			Owner:         ownerName(),
			Limits:        lim,
			Token:         robots.ProductToken(cfg.UserAgent),
			Delay:         time.Duration(cfg.Delay),
			MaxCrawlDelay: time.Duration(cfg.MaxCrawlDelay),
			HostInflight:  cfg.HostInflight,
			Lease:         time.Duration(cfg.Lease),
			RobotsRetry:   time.Duration(cfg.RobotsRetry),
			MaxBackoff:    time.Duration(cfg.MaxBackoff),
		},
		Seeds:         seeds,
		SitemapSeeds:  sitemaps,
		ArchiveSeeds:  archived,
		NoSitemaps:    cfg.NoSitemaps,
		MaxDuration:   time.Duration(cfg.MaxDuration),
		Scope:         sc,
		Normalizer:    norm,
		Score:         policy,
		Fetcher:       client,
		Workers:       cfg.Workers,
		MaxAttempts:   cfg.MaxAttempts,
		RetryBase:     time.Duration(cfg.RetryBase),
		MaxLinks:      cfg.MaxLinks,
		MaxBody:       int64(cfg.MaxBody),
		StoreOutage:   time.Duration(cfg.StoreOutage),
		TrapPolicy:    trapPolicy,
		BlockMarkers:  markers,
		MetricsEvery:  time.Duration(cfg.MetricsEvery),
		MaxPDFBody:    int64(cfg.MaxPDFBody),
		MainText:      cfg.MainText,
		Schedule:      cfg.Recrawl.policy(),
		Run:           run,
		DueAtStart:    true,
		DueAll:        recrawl && cfg.All,
		RevisitEvery:  time.Duration(cfg.RevisitEvery),
		Log:           log,
		Progress:      prog.print,
		ProgressEvery: prog.every,
	})
	if err != nil {
		return err
	}
	if archive != nil {
		eng.SetArchive(archive)
	}
	if pdfs != nil {
		eng.SetPDF(pdfs)
	}
	if cfg.MetricsAddr != "" {
		stop, err := serveMetrics(cfg.MetricsAddr, eng.Collectors(), log)
		if err != nil {
			return err
		}
		defer stop()
	}
	log.Info("crawl starting", "db", redactDB(cfg.DB), "seeds", len(seeds), "workers", cfg.Workers, "delay", time.Duration(cfg.Delay),
		"scope", cfg.Scope, "order", cfg.Order)
	drained := make(chan struct{})
	drainCtx, stopDrain := context.WithCancel(ctx)
	if search != nil {
		// Documents reach OpenSearch through the outbox while the crawl
		// runs; if it is down the crawl goes on and the backlog waits. The
		// indexer creates the index with its mapping before its first bulk
		// request, retrying with back-off until OpenSearch answers.
		go func() {
			defer close(drained)
			indexer.New(store, search, indexer.Config{Log: log}).Drain(drainCtx, true)
		}()
	} else {
		close(drained)
	}
	sum, err := eng.Run(ctx)
	prog.finish()
	stopDrain()
	<-drained
	printSummary(stdout, sum, cfg)
	stopped := interruption(ctx)
	if err != nil {
		if stopped != nil {
			return fmt.Errorf("%w: %w", stopped, err)
		}
		return err
	}
	if !cfg.NoRank && ctx.Err() == nil && sum.Fetched > 0 {
		start := time.Now()
		if nodes, edges, err := computeRanks(ctx, store); err != nil {
			log.Warn("PageRank", "err", err)
		} else {
			log.Info("PageRank computed", "pages", nodes, "links", edges, "took", time.Since(start).Round(time.Millisecond))
		}
	}
	if search != nil {
		stats, err := drainFor(context.WithoutCancel(ctx), store, search, 2*time.Minute, log)
		fmt.Fprintf(stdout, "  index:     OpenSearch %s: %d documents indexed, %d deleted, %d refused\n", cfg.IndexName, stats.Indexed, stats.Deleted, stats.Failed)
		if err != nil {
			log.Warn("OpenSearch backlog left in the outbox (acrawler reindex or the next crawl delivers it)", "err", err)
		}
	}
	if recrawl {
		if err := finishRun(ctx, stdout, store, eng, run, cfg.Recrawl.policy().UnseenToInactive); err != nil {
			return err
		}
	}
	// An interrupted crawl exits with the signal's status: a script can
	// tell it from a finished one (run the same command to resume it).
	return stopped
}

// finishRun closes a recrawl run: pages no longer linked become inactive,
// and the run's figures are recorded and printed.
func finishRun(ctx context.Context, w io.Writer, store crawl.Store, eng *engine.Engine, run, unseen int) error {
	ctx = context.WithoutCancel(ctx)
	inactive, err := store.FinishRun(ctx, run, unseen, time.Now())
	if err != nil {
		return err
	}
	rs := eng.RunStats()
	rs.Inactive = int64(inactive)
	if rs.DueLeft, err = store.DueCount(ctx, time.Now()); err != nil {
		return err
	}
	if err := store.RecordRun(ctx, rs); err != nil {
		return err
	}
	printRun(w, rs)
	return nil
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

// ownerName names this process in host leases.
func ownerName() string {
	h, _ := os.Hostname()
	var b [4]byte
	rand.Read(b[:])
	return fmt.Sprintf("%s/%d/%s", h, os.Getpid(), hex.EncodeToString(b[:]))
}

func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, usagef("--log-level %q: want debug, info, warn or error", level)
	}
	o := &slog.HandlerOptions{Level: lv}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, o)), nil
	}
	return slog.New(slog.NewTextHandler(w, o)), nil
}

// seedArchive asks the web archive for the historical URLs of the
// --seed-archive domains. A failing archive is logged and recorded as a
// source error in the store, and the crawl goes on with what it returned.
func seedArchive(ctx context.Context, cfg config, norm *urlnorm.Normalizer, store crawl.Store, log *slog.Logger) []string {
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

// recoverArchive closes the WARC files a killed crawl left open (their
// torn last record cut off) and names those it cannot close.
func recoverArchive(dir string, log *slog.Logger) {
	if dir == "" {
		return
	}
	files, err := warc.Recover(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			log.Warn("WARC files left open by an earlier crawl", "dir", dir, "err", err)
		}
		return
	}
	for _, f := range files {
		switch {
		case f.Err != nil:
			log.Warn("WARC file left open by an earlier crawl; left as it is", "file", f.Open, "err", f.Err)
		case f.Removed:
			log.Info("WARC file left open by an earlier crawl held no record; removed", "file", f.Open)
		default:
			log.Info("WARC file left open by an earlier crawl closed", "file", f.Path, "torn_bytes_cut", f.Cut)
		}
	}
}
