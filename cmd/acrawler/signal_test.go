package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/app"
	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/testweb"
)

// The first signal cancels the context with the signal as its cause; the
// second exits at once with the signal's status.
func TestWatchSignals(t *testing.T) {
	for _, tc := range []struct {
		sig  os.Signal
		code int
	}{{os.Interrupt, 130}, {syscall.SIGTERM, 143}} {
		t.Run(app.Interrupted{Signal: tc.sig}.Error(), func(t *testing.T) {
			ch := make(chan os.Signal, 2)
			exited := make(chan int, 1)
			var stderr bytes.Buffer
			ctx, stop := watchSignals(context.Background(), ch, &stderr, "stopping", func(code int) { exited <- code })
			defer stop()
			ch <- tc.sig
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
				t.Fatal("the first signal did not cancel the context")
			}
			err := context.Cause(ctx)
			var msg strings.Builder
			if code := exitCode(err, &msg); code != tc.code {
				t.Errorf("exit status %d (%q) after %s, want %d", code, msg.String(), tc.sig, tc.code)
			}
			ch <- tc.sig
			select {
			case code := <-exited:
				if code != tc.code {
					t.Errorf("second %s exits %d, want %d", tc.sig, code, tc.code)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the second signal did not exit")
			}
		})
	}
}

// The first signal's message fits the command: only a crawl has URLs in
// flight to put back in the queue.
func TestStopMessage(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"crawl", "http://a.test/"}, "in-flight URLs go back to the queue", ""},
		{[]string{"recrawl"}, "in-flight URLs go back to the queue", ""},
		{[]string{"serve", "--addr", ":0"}, "stopping the server", "URLs"},
		{[]string{"reparse"}, "stopping", "URLs"},
		{nil, "stopping", "URLs"},
	} {
		ch := make(chan os.Signal, 1)
		var stderr bytes.Buffer
		ctx, stop := watchSignals(context.Background(), ch, &stderr, stopMessage(tc.args), func(int) {})
		ch <- os.Interrupt
		<-ctx.Done()
		stop()
		// The message is written before the context is canceled.
		got := stderr.String()
		if !strings.Contains(got, tc.want) || tc.not != "" && strings.Contains(got, tc.not) || !strings.Contains(got, "interrupt again") {
			t.Errorf("acrawler %s, first signal prints %q; want %q and not %q", strings.Join(tc.args, " "), got, tc.want, tc.not)
		}
	}
}

// A crawl stopped by a signal exits with the signal's status, not 0 as a
// finished crawl does; one stopped otherwise (a deadline) is no error.
func TestInterruptedCrawlExitStatus(t *testing.T) {
	t.Parallel()
	web := apptest.NewWeb(t, testweb.Config{Seed: 4, PagesPerSite: 30})
	db := apptest.Backends[0].NewDB(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() {
		deadline := time.Now().Add(time.Minute)
		for len(apptest.PageRequests(web)) < 10 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		cancel(app.Interrupted{Signal: syscall.SIGTERM})
	}()
	var stdout, stderr bytes.Buffer
	err := Run(ctx, append(web.CrawlArgs(db, "--delay", "50ms"), "http://www.northfield-university.test/"), &stdout, &stderr)
	var msg strings.Builder
	if code := exitCode(err, &msg); code != 143 || !strings.Contains(msg.String(), "SIGTERM") {
		t.Errorf("interrupted crawl: exit %d, message %q; want 143 and the signal named", code, msg.String())
	}
	if !strings.Contains(stdout.String(), "crawl stopped: interrupted") {
		t.Errorf("summary does not say the crawl was interrupted:\n%s", stdout.String())
	}

	// Resumed and stopped by a deadline: no signal, no error.
	dctx, dcancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer dcancel()
	if err := Run(dctx, web.CrawlArgs(db, "--delay", "50ms"), &stdout, &stderr); err != nil {
		t.Errorf("crawl stopped by its context's deadline: %v", err)
	}
}
