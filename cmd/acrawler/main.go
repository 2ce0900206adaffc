// Command acrawler crawls the academic web politely and in priority order
// into an embedded SQLite file (or PostgreSQL at scale).
//
// Usage:
//
//	acrawler crawl [flags] URL...
//	acrawler testweb --listen ADDR
//	acrawler version
//
// The program is internal/app: this command parses the command line into
// the one configuration (app.Load: defaults, the --config file, the
// environment, flags), calls the command and turns its error into an exit
// status.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/acrawler/acrawler/internal/app"
)

func main() {
	ctx, stop := signalContext(stopMessage(os.Args[1:]))
	defer stop()
	os.Exit(exitCode(Run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// commands are the commands of the program, by name.
var commands = map[string]func(ctx context.Context, cfg app.Config, args []string, stdout, stderr io.Writer) error{
	"crawl":   app.Crawl,
	"recrawl": app.Recrawl,
	"reparse": noArgs(app.Reparse),
	"export":  noArgs(app.Export),
	"serve":   noArgs(app.Serve),
	"stats":   noArgs(app.Stats),
	"rank":    noArgs(app.Rank),
	"reindex": noArgs(app.Reindex),
	"migrate": noArgs(app.Migrate),
	"testweb": noArgs(app.ServeTestWeb),
	"version": noArgs(func(_ context.Context, _ app.Config, stdout, _ io.Writer) error {
		fmt.Fprintf(stdout, "acrawler %s\n", app.Version)
		return nil
	}),
}

// noArgs adapts a command that takes no arguments (app.Load refuses any).
func noArgs(f func(context.Context, app.Config, io.Writer, io.Writer) error) func(context.Context, app.Config, []string, io.Writer, io.Writer) error {
	return func(ctx context.Context, cfg app.Config, _ []string, stdout, stderr io.Writer) error {
		return f(ctx, cfg, stdout, stderr)
	}
}

const usage = `acrawler crawls the academic web politely, in priority order, into SQLite or PostgreSQL.

Usage:
  acrawler crawl [flags] URL...     crawl from seed URLs (acrawler crawl -h for flags)
  acrawler stats [--db DB] [--json] report on a crawl: frontier, figures over time, hosts, trap suspects
  acrawler reparse [--db DB]        re-run extraction on every archived response (no network)
  acrawler export [--db DB]         write every document as JSON lines (--out FILE)
  acrawler serve [--db DB] [--addr 127.0.0.1:8080]  the search API and web page
  acrawler rank [--db DB]           compute PageRank over the link graph (also done after each crawl)
  acrawler reindex [--db DB] [--index opensearch:URL]  rebuild a search index from the store
  acrawler migrate [--db DB]        apply the database schema migrations explicitly
  acrawler recrawl [flags] [--all]  revisit the pages that are due, with conditional requests
  acrawler testweb --listen ADDR    serve the synthetic test web (an origin and an HTTP proxy)
  acrawler version                  print the version

Every command takes --config FILE (TOML: defaults, then the file, then
ACRAWLER_DB, then flags) and -h for its flags. A crawl records the settings
that shape its data (User-Agent, URL normalization, links per page, main
text, archive directory); recrawl, reparse, serve and reindex use them.

Exit status: 0 done, 1 failed, 2 bad usage; 130 or 143 stopped by SIGINT or
SIGTERM (a crawl resumes when run again).
`

// Run runs the program with args (without the program name): the
// command's configuration from app.Load, then the command.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return app.Usagef("no command given")
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
		return nil
	case "--version", "-version":
		name = "version"
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprint(stderr, usage)
		return app.Usagef("unknown command %q", name)
	}
	cfg, rest, err := app.Load(name, rest, stderr)
	if err != nil {
		return err
	}
	return cmd(ctx, cfg, rest, stdout, stderr)
}

// signalContext is canceled by the first SIGINT or SIGTERM (a clean stop),
// with an app.Interrupted error as its cause; a second one exits at once.
func signalContext(msg string) (context.Context, func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := watchSignals(context.Background(), ch, os.Stderr, msg, os.Exit)
	return ctx, func() { signal.Stop(ch); cancel() }
}

// stopMessage is what the first signal prints, for the command in args.
func stopMessage(args []string) string {
	cmd := ""
	if len(args) > 0 {
		cmd = args[0]
	}
	switch cmd {
	case "crawl", "recrawl":
		return "stopping (in-flight URLs go back to the queue); interrupt again to quit at once"
	case "serve":
		return "stopping the server; interrupt again to quit at once"
	case "testweb":
		return "stopping the test web; interrupt again to quit at once"
	}
	return "stopping; interrupt again to quit at once"
}

// watchSignals returns a context canceled by the first signal received on
// ch, which prints msg; the context's cause is then an app.Interrupted
// error. The second signal calls exit with the signal's exit status.
func watchSignals(parent context.Context, ch <-chan os.Signal, stderr io.Writer, msg string, exit func(int)) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	go func() {
		var sig os.Signal
		select {
		case sig = <-ch:
		case <-ctx.Done():
			return
		}
		fmt.Fprintf(stderr, "\nacrawler: %s\n", msg)
		cancel(app.Interrupted{Signal: sig})
		exit(app.Interrupted{Signal: <-ch}.ExitCode())
	}()
	return ctx, func() { cancel(nil) }
}

// exitCode reports err on stderr in one line and returns the exit status:
// 0 done (or help printed), 2 bad usage, 128+n stopped by signal n, 1
// otherwise.
func exitCode(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, app.ErrHelp) {
		return 0
	}
	// One line, whatever the error carries (some drivers join causes with
	// newlines).
	msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
	fmt.Fprintf(stderr, "acrawler: %s\n", msg)
	var u app.UsageError
	if errors.As(err, &u) {
		return 2
	}
	var i app.Interrupted
	if errors.As(err, &i) {
		return i.ExitCode()
	}
	return 1
}
