package main

import (
	"testing"

	"github.com/acrawler/acrawler/internal/app"
	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/crawl"
)

// runCmd runs the program's Run with a deadline.
func runCmd(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return apptest.Run(t, Run, args...)
}

func mustCrawl(t *testing.T, args ...string) string {
	t.Helper()
	return apptest.MustRun(t, Run, args...)
}

// counters reads the crawl-wide counters through the store interface.
func counters(t testing.TB, db string) crawl.Counters {
	t.Helper()
	return apptest.Counters(t, app.OpenStore, db)
}
