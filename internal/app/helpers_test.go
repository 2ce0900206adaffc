package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/crawl"
)

// TestMain runs four of the tests that call t.Parallel at once: they
// crawl loopback servers and wait on delays and time-outs more than they
// compute.
func TestMain(m *testing.M) { os.Exit(apptest.Main(m, 4)) }

// runCmd runs a command through the Go API as the program does, with a
// deadline.
func runCmd(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return apptest.Run(t, run, args...)
}

func mustCrawl(t *testing.T, args ...string) string {
	t.Helper()
	return apptest.MustRun(t, run, args...)
}

// counters reads the crawl-wide counters through the store interface.
func counters(t testing.TB, db string) crawl.Counters {
	t.Helper()
	return apptest.Counters(t, OpenStore, db)
}

// allSeeds are the home pages of every named site of the test web.
func allSeeds(w *apptest.Web) []string { return w.Seeds() }

var errStop = errors.New("stop")

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }

// run runs a command through the Go API as the program does: the
// command's configuration from Load, then its function.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, rest, err := Load(args[0], args[1:], stderr)
	if err != nil {
		return err
	}
	switch args[0] {
	case "crawl":
		return Crawl(ctx, cfg, rest, stdout, stderr)
	case "recrawl":
		return Recrawl(ctx, cfg, rest, stdout, stderr)
	}
	cmd, ok := map[string]func(context.Context, Config, io.Writer, io.Writer) error{
		"reparse": Reparse, "export": Export, "serve": Serve, "stats": Stats, "rank": Rank,
		"reindex": Reindex, "migrate": Migrate, "testweb": ServeTestWeb,
		"version": func(_ context.Context, _ Config, stdout, _ io.Writer) error {
			_, err := fmt.Fprintf(stdout, "acrawler %s\n", Version)
			return err
		},
	}[args[0]]
	if !ok {
		return fmt.Errorf("no command %q", args[0])
	}
	return cmd(ctx, cfg, stdout, stderr)
}

// runQuiet runs a command and returns the exit status the program gives
// its error (0 done or help printed, 2 bad usage, 1 failed), what it
// wrote to stderr and the error's text.
func runQuiet(t *testing.T, args ...string) (code int, stderr, msg string) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := run(ctx, args, &out, &errb)
	var u UsageError
	switch {
	case err == nil || errors.Is(err, ErrHelp):
		return 0, errb.String(), ""
	case errors.As(err, &u):
		code = 2
	default:
		code = 1
	}
	return code, errb.String(), err.Error()
}
