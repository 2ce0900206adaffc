// Package app is acrawler's application: one function per command (Crawl,
// Recrawl, Reparse, Export, Serve, Stats, Rank, Reindex, Migrate,
// TestWeb), each taking a Config. Load builds that Config for a command
// from defaults, the --config file, the environment and flags, and
// validates it once; the settings a crawl records in its database
// (recorded.go) are applied by the commands that read the data later.
// cmd/acrawler parses the command line with Load, calls the command and
// turns its error into an exit status.
package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"syscall"
)

// Version is the program version, reported in the default User-Agent.
const Version = "0.1.0"

// ProjectURL is where the crawler's operators can be reached.
const ProjectURL = "https://github.com/acrawler/acrawler"

// Interrupted is the cause of a command stopped by a signal: the command
// stops cleanly and the program exits with 128 + the signal's number (130
// for SIGINT, 143 for SIGTERM), as a shell reports a process killed by it.
// A caller cancels a command's context with it as the cause
// (context.WithCancelCause); crawl and recrawl then return it.
type Interrupted struct{ Signal os.Signal }

func (i Interrupted) Error() string { return "interrupted by " + signalName(i.Signal) }

// ExitCode is the exit status for the signal.
func (i Interrupted) ExitCode() int {
	if s, ok := i.Signal.(syscall.Signal); ok {
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

// interruption returns the Interrupted error when ctx was canceled by a
// signal, nil otherwise (a deadline, a test's cancel).
func interruption(ctx context.Context) error {
	var i Interrupted
	if errors.As(context.Cause(ctx), &i) {
		return i
	}
	return nil
}

// UsageError is a problem with the command line or configuration (the
// program exits with 2).
type UsageError struct{ Err error }

func (u UsageError) Error() string { return u.Err.Error() }
func (u UsageError) Unwrap() error { return u.Err }

// Usagef is a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return UsageError{fmt.Errorf(format, args...)}
}

func usagef(format string, args ...any) error { return Usagef(format, args...) }

// ErrHelp is returned by Load when help was asked for and printed.
var ErrHelp = errors.New("help requested")

// parseFlags parses a command's flags. A bad flag is a UsageError that the
// program reports in one line; the flag package's own report (the error
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
		return ErrHelp
	}
	return UsageError{err}
}
