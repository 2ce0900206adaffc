// Command acrawler crawls the academic web politely and in priority order
// into an embedded SQLite file (or PostgreSQL at scale).
//
// Usage:
//
//	acrawler crawl [flags] URL...
//	acrawler testweb --listen ADDR
//	acrawler version
//
// Every command's settings come from one configuration (config): defaults,
// the --config file, the environment, flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// Version is the program version, reported in the default User-Agent.
const Version = "0.1.0"

// ProjectURL is where the crawler's operators can be reached.
const ProjectURL = "https://github.com/acrawler/acrawler"

func main() {
	ctx, stop := signalContext(stopMessage(os.Args[1:]))
	defer stop()
	os.Exit(exitCode(Run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// signalContext is canceled by the first SIGINT or SIGTERM (a clean stop),
// with an interrupted error as its cause; a second one exits at once.
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
// ch, which prints msg; the context's cause is then an interrupted error.
// The second signal calls exit with the signal's exit status.
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
		cancel(interrupted{sig})
		exit(interrupted{<-ch}.ExitCode())
	}()
	return ctx, func() { cancel(nil) }
}

// interrupted is the cause of a command stopped by a signal: the command
// stops cleanly and the program exits with 128 + the signal's number (130
// for SIGINT, 143 for SIGTERM), as a shell reports a process killed by it.
type interrupted struct{ sig os.Signal }

func (i interrupted) Error() string { return "interrupted by " + signalName(i.sig) }

// ExitCode is the exit status for the signal.
func (i interrupted) ExitCode() int {
	if s, ok := i.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// interruption returns the interrupted error when ctx was canceled by a
// signal, nil otherwise (a deadline, a test's cancel).
func interruption(ctx context.Context) error {
	var i interrupted
	if errors.As(context.Cause(ctx), &i) {
		return i
	}
	return nil
}

// usageError is a problem with the command line or configuration: exit 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// errHelp is returned when help was asked for and printed.
var errHelp = errors.New("help requested")

// parseFlags parses a command's flags. A bad flag is a usage error that
// exitCode reports in one line; the flag package's own report (the error
// and then the whole flag list) is kept for -h.
func parseFlags(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return errHelp
	}
	return usageError{err}
}

func exitCode(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, errHelp) {
		return 0
	}
	// One line, whatever the error carries (some drivers join causes with
	// newlines).
	msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
	fmt.Fprintf(stderr, "acrawler: %s\n", msg)
	var u usageError
	if errors.As(err, &u) {
		return 2
	}
	var i interrupted
	if errors.As(err, &i) {
		return i.ExitCode()
	}
	return 1
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

// Run runs the program with args (without the program name).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usagef("no command given")
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "crawl":
		return runCrawl(ctx, rest, stdout, stderr)
	case "recrawl":
		return runRecrawl(ctx, rest, stdout, stderr)
	case "testweb":
		return runTestweb(ctx, rest, stdout, stderr)
	case "migrate":
		return runMigrate(ctx, rest, stdout, stderr)
	case "stats":
		return runStats(ctx, rest, stdout, stderr)
	case "serve":
		return runServe(ctx, rest, stdout, stderr)
	case "rank":
		return runRank(ctx, rest, stdout, stderr)
	case "reindex":
		return runReindex(ctx, rest, stdout, stderr)
	case "reparse":
		return runReparse(ctx, rest, stdout, stderr)
	case "export":
		return runExport(ctx, rest, stdout, stderr)
	case "version", "--version", "-version":
		if _, _, err := parseArgs("version", rest, stderr); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "acrawler %s\n", Version)
		return nil
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return usagef("unknown command %q", cmd)
}
