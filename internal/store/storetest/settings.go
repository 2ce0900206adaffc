package storetest

import (
	"errors"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

var settingsTests = []test{
	{"Settings", testSettings},
}

// testSettings: a setting never set is ErrNotFound; a set one reads back
// as set, empty and multi-line values included; setting it again replaces
// it; settings survive a reopen and do not touch each other.
func testSettings(t *testing.T, e *env) {
	if v, err := e.s.Setting(e.ctx, "robots_token"); !errors.Is(err, crawl.ErrNotFound) {
		t.Fatalf("Setting(robots_token) of a new store = %q, %v; want ErrNotFound", v, err)
	}
	want := map[string]string{
		"robots_token": "mybot",
		"strip_params": "utm_source\nsid",
		"warc_dir":     "/srv/crawl/acrawler-warc",
		"empty":        "",
	}
	for k, v := range want {
		if err := e.s.SetSetting(e.ctx, k, v); err != nil {
			t.Fatalf("SetSetting(%q, %q): %v", k, v, err)
		}
	}
	if err := e.s.SetSetting(e.ctx, "robots_token", "otherbot"); err != nil {
		t.Fatalf("SetSetting(robots_token) again: %v", err)
	}
	want["robots_token"] = "otherbot"
	e.s.Close()
	e.s = e.reopen()
	for k, v := range want {
		if got, err := e.s.Setting(e.ctx, k); err != nil || got != v {
			t.Errorf("Setting(%q) after reopen = %q, %v; want %q", k, got, err, v)
		}
	}
	if v, err := e.s.Setting(e.ctx, "sort_query"); !errors.Is(err, crawl.ErrNotFound) {
		t.Errorf("Setting(sort_query), never set = %q, %v; want ErrNotFound", v, err)
	}
}
