package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

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
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/testweb"
	"github.com/acrawler/acrawler/internal/warc"
)

// Crawl crawls from seeds (URLs; cfg.Seeds names a file of more) into
// cfg.DB, or continues the crawl the database holds when none are given.
// It prints a summary to stdout and logs to stderr. Stopped by a signal
// (ctx canceled with an Interrupted cause) it stops cleanly and returns
// the Interrupted error; run again, it resumes.
func Crawl(ctx context.Context, cfg Config, seeds []string, stdout, stderr io.Writer) error {
	return crawlOrRecrawl(ctx, "crawl", cfg, seeds, stdout, stderr)
}

// Recrawl revisits the pages of an existing crawl that are due (every
// page with cfg.All), with conditional requests, as one recrawl run whose
// figures it records and prints.
func Recrawl(ctx context.Context, cfg Config, seeds []string, stdout, stderr io.Writer) error {
	return crawlOrRecrawl(ctx, "recrawl", cfg, seeds, stdout, stderr)
}

// crawlJob is one crawl or recrawl being set up and run.
type crawlJob struct {
	cmd            string
	cfg            Config
	stdout, stderr io.Writer
	log            *slog.Logger
	seeds          *seedList
	archived       func(ctx context.Context, add func(urls []string) error) error // the web archive's URLs, in batches (nil: none)
	scope          *scope.Scope
	policy         *score.Policy
	client         *fetch.Client
	search         *opensearch.Client // nil: the embedded index only
	store          crawl.Store
	run            int          // the recrawl run, 0 in a crawl
	archive        *warc.Writer // nil: no WARC
	archiveClosed  func() error // the archive's close once started (closeArchive)
	closers        []func() error
}

func (j *crawlJob) recrawl() bool { return j.cmd == "recrawl" }

// close releases what the job opened, last first.
func (j *crawlJob) close() {
	for i := len(j.closers) - 1; i >= 0; i-- {
		j.closers[i]()
	}
}

func crawlOrRecrawl(ctx context.Context, cmd string, cfg Config, args []string, stdout, stderr io.Writer) error {
	j := &crawlJob{cmd: cmd, cfg: cfg, stdout: stdout, stderr: stderr}
	defer j.close()
	if err := j.prepare(ctx, args); err != nil {
		return err
	}
	return j.runCrawl(ctx)
}

// prepare does everything before the engine starts: seeds, scope, the
// fetcher, the store with the crawl's recorded settings, where a crawl
// resumed without seeds may go, the recrawl run.
func (j *crawlJob) prepare(ctx context.Context, args []string) error {
	var err error
	if j.log, err = newLogger(j.stderr, j.cfg.LogLevel, j.cfg.LogFormat); err != nil {
		return err
	}
	if j.seeds, err = newSeedList(&j.cfg, args); err != nil {
		return err
	}
	if j.scope, err = crawlScope(&j.cfg, j.seeds); err != nil {
		return err
	}
	if j.policy, err = priorityPolicy(&j.cfg); err != nil {
		return err
	}
	if err := j.openFetcher(); err != nil {
		return err
	}
	if j.search, err = externalIndex(&j.cfg); err != nil {
		return err
	}
	if err := j.OpenStore(ctx); err != nil {
		return err
	}
	j.archived = archiveBatches(&j.cfg, j.seeds, j.store, j.log)
	if !j.seeds.urls() && j.archived == nil {
		if err := j.resumeScope(ctx); err != nil {
			return err
		}
	}
	if j.recrawl() {
		if j.run, err = j.store.StartRun(ctx, time.Now()); err != nil {
			return err
		}
	}
	return nil
}

// crawlScope is where links may lead: the seeds' domains or hosts (or
// anywhere), less the excluded patterns and the URLs over the limits.
func crawlScope(cfg *Config, seeds *seedList) (*scope.Scope, error) {
	mode, err := scope.ParseMode(cfg.Scope)
	if err != nil {
		return nil, UsageError{err}
	}
	excludes := cfg.Exclude
	if !cfg.NoDefaultExcl {
		excludes = append(append([]string{}, scope.DefaultExcludes...), cfg.Exclude...)
	}
	sc, err := scope.New(mode, seeds.scopeSeeds(cfg), excludes, scope.Limits{MaxLength: cfg.MaxURLLength,
		MaxQueryParams: cfg.MaxQueryParams, MaxRepeats: cfg.MaxPathRepeats})
	if err != nil {
		return nil, UsageError{err}
	}
	return sc, nil
}

// priorityPolicy is the crawl order and how URLs are scored in it.
func priorityPolicy(cfg *Config) (*score.Policy, error) {
	order, err := score.ParseOrder(cfg.Order)
	if err != nil {
		return nil, UsageError{err}
	}
	sc := cfg.Priority
	sc.Order = order
	policy, err := score.New(sc)
	if err != nil {
		return nil, UsageError{err}
	}
	return policy, nil
}

// openFetcher starts the synthetic web when cfg.TestWeb (served
// in-process on loopback and used as the proxy: the whole pipeline runs,
// no packet leaves the machine) and opens the HTTP client.
func (j *crawlJob) openFetcher() error {
	if j.cfg.TestWeb {
		srv, err := startTestWeb(testweb.Config{Seed: 1})
		if err != nil {
			return err
		}
		j.closers = append(j.closers, srv.Close)
		j.cfg.Proxy = "http://" + srv.Addr
	}
	client, err := fetch.New(j.fetchConfig())
	if err != nil {
		return UsageError{err}
	}
	j.client = client
	j.closers = append(j.closers, func() error { j.client.Close(); return nil })
	return nil
}

func (j *crawlJob) fetchConfig() fetch.Config {
	return fetch.Config{
		UserAgent:    j.cfg.UserAgent,
		Timeout:      time.Duration(j.cfg.Timeout),
		MaxBody:      int64(j.cfg.MaxBody),
		Proxy:        j.cfg.Proxy,
		AllowPrivate: j.cfg.AllowPrivate,
		// Per-host politeness is the frontier's job; and through a proxy
		// every request shares one connection pool.
		MaxConnsPerHost: j.cfg.Workers,
	}
}

// externalIndex is the OpenSearch index cfg names, nil for the embedded
// index alone.
func externalIndex(cfg *Config) (*opensearch.Client, error) {
	spec, err := parseIndex(cfg.Index)
	if err != nil || spec.kind != "opensearch" {
		return nil, err
	}
	return openSearchClient(spec, cfg.IndexName)
}

// openStore opens the crawl's database and makes the configuration agree
// with the settings the crawl recorded there (recording them if new); the
// seeds are normalized again, and the client follows a recorded
// User-Agent.
func (j *crawlJob) OpenStore(ctx context.Context) error {
	cfg := &j.cfg
	if j.seeds.none(cfg) && !isPostgres(cfg.DB) {
		// Nothing to resume in a database that does not exist: say so
		// without creating it.
		if _, err := os.Stat(cfg.DB); errors.Is(err, fs.ErrNotExist) {
			if j.recrawl() {
				return usagef("%s does not exist: nothing to revisit", cfg.DB)
			}
			return usagef("no seed URLs given and %s does not exist (acrawler %s URL... or --seeds FILE)", cfg.DB, j.cmd)
		}
	}
	st, err := openStoreWith(ctx, cfg.DB, storeOptions{pgConns: cfg.PGConns, outbox: j.search != nil,
		nearDistance: cfg.NearDistance, indexDelay: time.Duration(cfg.IndexDelay), indexEngine: cfg.IndexEngine, log: j.log})
	if err != nil {
		return err
	}
	j.store = st
	j.closers = append(j.closers, st.Close)
	ua := cfg.UserAgent
	unrecorded, err := applyRecorded(ctx, st, cfg)
	if err != nil {
		return err
	}
	if unrecorded {
		if err := recordSettings(ctx, st, cfg); err != nil {
			return err
		}
	}
	if err := j.seeds.normalize(cfg); err != nil {
		return err
	}
	if cfg.UserAgent != ua {
		j.client.Close()
		if j.client, err = fetch.New(j.fetchConfig()); err != nil {
			return UsageError{err}
		}
	}
	return nil
}

// resumeScope lets a crawl resumed without its seeds go where it went:
// the hosts the database has. It refuses a database with nothing to
// crawl.
func (j *crawlJob) resumeScope(ctx context.Context) error {
	c, err := j.store.Counters(ctx)
	if err != nil {
		return err
	}
	due, err := j.store.DueCount(ctx, time.Now())
	if err != nil {
		return err
	}
	if c.Queued == 0 && c.InFlight == 0 && c.Pages == 0 {
		return usagef("no seed URLs given and %s has nothing to crawl (acrawler %s URL... or --seeds FILE)", redactDB(j.cfg.DB), j.cmd)
	}
	j.log.Info("continuing the crawl in the database", "db", redactDB(j.cfg.DB), "queued", c.Queued, "due", due)
	hosts, err := j.store.HostStats(ctx, 0)
	if err != nil {
		return err
	}
	for _, h := range hosts {
		j.scope.Allow(h.Key + "/")
	}
	return nil
}

// limits are the crawl's budgets.
func (j *crawlJob) limits() crawl.Limits {
	cfg := &j.cfg
	lim := crawl.Limits{MaxDepth: cfg.MaxDepth, MaxPages: cfg.MaxPages, MaxPagesPerHost: cfg.MaxPagesPerHost, MaxBytes: int64(cfg.MaxBytes)}
	if cfg.MaxHostShare > 0 {
		lim.MaxHostBytes = int64(cfg.MaxHostShare * float64(cfg.MaxBytes))
	}
	lim.InlinkBonus, lim.MaxInlinkBonus = j.policy.InlinkBonus()
	return lim
}

// newEngine builds the crawl engine over the store, with the archive, the
// PDF extractor and the progress printer.
func (j *crawlJob) newEngine(ctx context.Context, prog *progressPrinter) (*engine.Engine, error) {
	cfg := &j.cfg
	trapPolicy, err := engine.ParseTrapPolicy(cfg.TrapPolicy)
	if err != nil {
		return nil, UsageError{err}
	}
	lim := j.limits()
	var markers []string
	for _, m := range cfg.BlockMarkers {
		markers = append(markers, strings.ToLower(m))
	}
	archiveDir, err := crawlArchiveDir(ctx, j.store, cfg.WARC, cfg.DB)
	if err != nil {
		return nil, err
	}
	recoverArchive(archiveDir, j.log)
	archive, err := openArchive(archiveDir, cfg.DB, cfg.UserAgent)
	if err != nil {
		return nil, err
	}
	if archive != nil {
		j.archive = archive
		j.closers = append(j.closers, func() error {
			j.closeArchive()
			return j.archiveClosed()
		})
	}
	var pdfs *lazyPDF
	if !cfg.NoPDF {
		pdfs = newLazyPDF(j.log)
		j.closers = append(j.closers, pdfs.Close)
	}
	eng, err := engine.New(j.store, engine.Config{
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
		SeedBatches:    j.seeds.stream,
		SitemapSeeds:   j.seeds.sitemaps,
		ArchiveBatches: j.archived,
		NoSitemaps:     cfg.NoSitemaps,
		MaxDuration:    time.Duration(cfg.MaxDuration),
		Scope:          j.scope,
		Normalizer:     j.seeds.norm,
		Score:          j.policy,
		Fetcher:        j.client,
		Workers:        cfg.Workers,
		MaxAttempts:    cfg.MaxAttempts,
		RetryBase:      time.Duration(cfg.RetryBase),
		MaxLinks:       cfg.MaxLinks,
		MaxBody:        int64(cfg.MaxBody),
		StoreOutage:    time.Duration(cfg.StoreOutage),
		TrapPolicy:     trapPolicy,
		BlockMarkers:   markers,
		MetricsEvery:   time.Duration(cfg.MetricsEvery),
		MaxPDFBody:     int64(cfg.MaxPDFBody),
		MainText:       cfg.MainText,
		Schedule:       cfg.Recrawl.policy(),
		Run:            j.run,
		DueAtStart:     true,
		DueAll:         j.recrawl() && cfg.All,
		RevisitEvery:   time.Duration(cfg.RevisitEvery),
		Log:            j.log,
		Progress:       prog.print,
		ProgressEvery:  prog.every,
	})
	if err != nil {
		return nil, err
	}
	if archive != nil {
		eng.SetArchive(archive)
	}
	if pdfs != nil {
		eng.SetPDF(pdfs)
	}
	return eng, nil
}

// runCrawl harvests the OAI-PMH repositories, runs the engine (with the
// metrics server, and documents going to OpenSearch as it runs), then the PageRank pass, the rest of the
// OpenSearch backlog and the recrawl run's figures.
func (j *crawlJob) runCrawl(ctx context.Context) error {
	cfg := &j.cfg
	// The OAI-PMH repositories' records join the frontier first.
	harvestOAI(ctx, *cfg, j.seeds.oai, harvest.Config{Fetcher: j.client, Store: j.store, Normalizer: j.seeds.norm, Score: j.policy,
		Admit: func(u string) bool { return j.scope.Check(u) == scope.In }, Limits: j.limits(), Log: j.log})
	prog := newProgressPrinter(j.stderr, cfg.Progress)
	eng, err := j.newEngine(ctx, prog)
	if err != nil {
		return err
	}
	if cfg.MetricsAddr != "" {
		stop, err := serveMetrics(cfg.MetricsAddr, eng.Collectors(), j.log)
		if err != nil {
			return err
		}
		defer stop()
	}
	j.log.Info("crawl starting", "db", redactDB(cfg.DB), "seeds", j.seeds.count, "workers", cfg.Workers,
		"delay", time.Duration(cfg.Delay), "scope", cfg.Scope, "order", cfg.Order)
	stopDrain := j.drainWhileCrawling(ctx)
	stopRanks := j.rankWhileCrawling(ctx)
	sum, err := eng.Run(ctx)
	j.closeArchive()
	stopRanks()
	prog.finish()
	stopDrain()
	printSummary(j.stdout, sum, *cfg)
	stopped := interruption(ctx)
	if err != nil {
		if stopped != nil {
			return fmt.Errorf("%w: %w", stopped, err)
		}
		return err
	}
	if !cfg.NoRank && ctx.Err() == nil && sum.Fetched > 0 {
		if n := j.othersAtWork(ctx); n > 0 {
			j.log.Info("PageRank left to the crawl's last process: other processes hold hosts", "hosts", n)
		} else {
			j.rankPass(ctx)
		}
	}
	if j.search != nil {
		j.drainBacklog(ctx)
	}
	if j.recrawl() {
		if err := finishRun(ctx, j.stdout, j.store, eng, j.run, cfg.Recrawl.policy().UnseenToInactive); err != nil {
			return err
		}
	}
	// An interrupted crawl exits with the signal's status: a script can
	// tell it from a finished one (run the same command to resume it).
	return stopped
}

// closeArchive starts closing the WARC archive, once, in the background:
// after the engine has run nothing writes to it, and syncing its last file
// then overlaps the rank pass instead of following it. The job's closer
// waits for it.
func (j *crawlJob) closeArchive() {
	if j.archive == nil || j.archiveClosed != nil {
		return
	}
	done := make(chan error, 1)
	go func() {
		err := j.archive.Close()
		if err != nil {
			j.log.Error("WARC archive not closed whole", "err", err)
		}
		done <- err
	}()
	j.archiveClosed = sync.OnceValue(func() error { return <-done })
}

// drainWhileCrawling delivers documents to OpenSearch through the outbox
// while the crawl runs; if it is down the crawl goes on and the backlog
// waits. The indexer creates the index with its mapping before its first
// bulk request, retrying with back-off until OpenSearch answers. The
// function returned stops the delivery and waits for it.
func (j *crawlJob) drainWhileCrawling(ctx context.Context) (stop func()) {
	if j.search == nil {
		return func() {}
	}
	drained := make(chan struct{})
	drainCtx, cancel := context.WithCancel(ctx)
	go func() {
		defer close(drained)
		indexer.New(j.store, j.search, indexer.Config{Log: j.log}).Drain(drainCtx, true)
	}()
	return func() { cancel(); <-drained }
}

// rankWhileCrawling runs the rank pass every --rank-every while the crawl
// runs (never with 0): each pass ranks the link graph committed so far
// and writes what changed since the last (the anchor texts the stores
// mark, the ranks that moved), its writes taking turns with the crawl's
// commits. In a fleet on one PostgreSQL, a process whose time comes while
// another's pass runs leaves its own out (lockedRanks). The function
// returned stops the passes, ending one under way (what it wrote stays
// consistent, and the next pass completes it), and waits for it.
func (j *crawlJob) rankWhileCrawling(ctx context.Context) (stop func()) {
	every := time.Duration(j.cfg.RankEvery)
	if every <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	rankCtx, cancel := context.WithCancel(ctx)
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-rankCtx.Done():
				return
			case <-tick.C:
			}
			start := time.Now()
			nodes, edges, ran, err := lockedRanks(rankCtx, j.store, false)
			switch {
			case rankCtx.Err() != nil:
				return
			case err != nil:
				j.log.Warn("rank pass during the crawl", "err", err)
			case !ran:
				j.log.Info("rank pass during the crawl left to the process running one")
			default:
				j.log.Info("rank pass during the crawl", "pages", nodes, "links", edges, "took", time.Since(start).Round(time.Millisecond))
			}
		}
	}()
	return func() { cancel(); <-done }
}

// leaseCounter is a store shared by several crawl processes (PostgreSQL):
// it tells how many hosts are leased with a lease that runs past now.
type leaseCounter interface {
	LiveLeases(ctx context.Context, now time.Time) (int64, error)
}

var _ leaseCounter = (*postgres.DB)(nil)

// othersAtWork returns how many hosts other processes of the crawl hold,
// once this one has given up all of its leases: the PageRank pass over the
// whole graph is left to the last process to finish (each gives up its
// leases before it looks, so the last sees none and ranks), not run by
// every process that ends. A process that died holds its hosts until
// their leases run out; one that ends before then leaves the pass to the
// next crawl or to `acrawler rank`. A SQLite crawl has one process; an
// error reading the leases ranks all the same.
func (j *crawlJob) othersAtWork(ctx context.Context) int64 {
	lc, ok := j.store.(leaseCounter)
	if !ok {
		return 0
	}
	n, err := lc.LiveLeases(ctx, time.Now())
	if err != nil {
		return 0
	}
	return n
}

// rankPass computes PageRank over the link graph after a crawl, after the
// pass another process of a fleet may be running (lockedRanks); a failure
// is logged, not the crawl's.
//
// The crawl's heap, mostly garbage once its workers have stopped, is
// given back to the system first: the pass's own memory (the link graph,
// the anchor texts, the store's caches and index buffers) would otherwise
// come on top of what the crawl had grown to, and the process's peak
// would be the pass's.
func (j *crawlJob) rankPass(ctx context.Context) {
	debug.FreeOSMemory()
	start := time.Now()
	if nodes, edges, _, err := lockedRanks(ctx, j.store, true); err != nil {
		j.log.Warn("PageRank", "err", err)
	} else {
		j.log.Info("PageRank computed", "pages", nodes, "links", edges, "took", time.Since(start).Round(time.Millisecond))
	}
}

// drainBacklog delivers what the outbox still holds to OpenSearch, for at
// most two minutes; the rest waits for reindex or the next crawl.
func (j *crawlJob) drainBacklog(ctx context.Context) {
	stats, err := drainFor(context.WithoutCancel(ctx), j.store, j.search, 2*time.Minute, j.log)
	fmt.Fprintf(j.stdout, "  index:     OpenSearch %s: %d documents indexed, %d deleted, %d refused\n", j.cfg.IndexName, stats.Indexed, stats.Deleted, stats.Failed)
	if err != nil {
		j.log.Warn("OpenSearch backlog left in the outbox (acrawler reindex or the next crawl delivers it)", "err", err)
	}
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
