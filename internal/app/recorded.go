package app

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/robots"
)

// A crawl records in its database the settings that shape what it stores:
// how URLs are spelt (normalization), which robots.txt groups and meta
// robots tags apply (the User-Agent's product token), how many links a
// page gives and whether its main text is extracted. The commands that
// read the data later (recrawl, reparse, serve, reindex) take these
// settings from the record, so that they see the data as it was written.
//
// A setting given explicitly (a flag or a key of the --config file) that
// contradicts the recorded value is refused, naming both, unless
// --override-recorded is given (crawl, recrawl, reparse): the new value is
// then used and recorded. Pages stored earlier keep what the old value
// made of them until reparse re-extracts them.
//
// The archive directory is recorded as well (settingWARCDir, see
// crawlArchiveDir).
type recordedSetting struct {
	key  string // the store's key; the config file's key; the flag with '-' for '_'
	flag string
	get  func(c *Config) string
	set  func(c *Config, v string) error
	// same reports whether a value given now agrees with the recorded one
	// (nil: equal strings).
	same func(recorded, now string) bool
}

// recordedSettings are the settings recorded by a crawl. Keys are never
// renamed: they are in existing databases.
var recordedSettings = []recordedSetting{
	{key: "user_agent", flag: "user-agent",
		get: func(c *Config) string { return c.UserAgent },
		set: func(c *Config, v string) error { c.UserAgent = v; return nil },
		// Only the product token shapes data: a new version number is
		// no contradiction.
		same: func(rec, now string) bool { return robots.ProductToken(rec) == robots.ProductToken(now) }},
	{key: "sort_query", flag: "sort-query",
		get: func(c *Config) string { return strconv.FormatBool(c.SortQuery) },
		set: func(c *Config, v string) (err error) { c.SortQuery, err = strconv.ParseBool(v); return err }},
	{key: "keep_query_order", flag: "keep-query-order",
		get: func(c *Config) string { return joinList(c.KeepQueryOrder) },
		set: func(c *Config, v string) error { c.KeepQueryOrder = splitList(v); return nil }},
	{key: "strip_params", flag: "strip-params",
		get: func(c *Config) string { return joinList(c.stripParams()) },
		set: func(c *Config, v string) error { c.StripParams = splitList(v); return nil }},
	{key: "max_links_per_page", flag: "max-links-per-page",
		get: func(c *Config) string { return strconv.Itoa(c.MaxLinks) },
		set: func(c *Config, v string) (err error) { c.MaxLinks, err = strconv.Atoi(v); return err }},
	{key: "main_text", flag: "main-text",
		get: func(c *Config) string { return strconv.FormatBool(c.MainText) },
		set: func(c *Config, v string) (err error) { c.MainText, err = strconv.ParseBool(v); return err }},
}

// settingRobotsToken is recorded beside the User-Agent for readers of the
// database: the product token the crawl matched robots.txt groups with.
const settingRobotsToken = "robots_token"

func joinList(l []string) string { return strings.Join(l, "\n") }

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// applyRecorded makes cfg agree with the settings recorded in st: a
// setting not given explicitly takes the recorded value; one given
// explicitly that differs is an error, unless cfg.OverrideRecorded. It
// returns whether cfg holds a setting the store has not recorded (a new
// crawl, a database from before settings were recorded, an override).
func applyRecorded(ctx context.Context, st crawl.Store, cfg *Config) (unrecorded bool, err error) {
	for _, s := range recordedSettings {
		rec, err := st.Setting(ctx, s.key)
		switch {
		case errors.Is(err, crawl.ErrNotFound):
			unrecorded = true
			continue
		case err != nil:
			return false, fmt.Errorf("read the crawl's settings: %w", err)
		}
		now := s.get(cfg)
		same := rec == now
		if s.same != nil {
			same = s.same(rec, now)
		}
		switch {
		case !cfg.explicit[s.flag] || same && s.same == nil:
			if err := s.set(cfg, rec); err != nil {
				return false, fmt.Errorf("the crawl's recorded %s %q: %w", s.key, rec, err)
			}
		case same:
			unrecorded = unrecorded || rec != now
		case cfg.OverrideRecorded:
			unrecorded = true
		default:
			return false, usagef("--%s %s contradicts the crawl in %s, which was made with %s (leave it out, or give --override-recorded to use and record it)",
				s.flag, showSetting(now), redactDB(cfg.DB), showSetting(rec))
		}
	}
	return unrecorded, nil
}

// recordSettings records cfg's settings in st.
func recordSettings(ctx context.Context, st crawl.Store, cfg *Config) error {
	for _, s := range recordedSettings {
		if err := st.SetSetting(ctx, s.key, s.get(cfg)); err != nil {
			return fmt.Errorf("record the crawl's settings: %w", err)
		}
	}
	if err := st.SetSetting(ctx, settingRobotsToken, robots.ProductToken(cfg.UserAgent)); err != nil {
		return fmt.Errorf("record the crawl's settings: %w", err)
	}
	return nil
}

// showSetting is a recorded value as a message shows it.
func showSetting(v string) string {
	if v == "" {
		return `""`
	}
	if strings.ContainsAny(v, "\n ") {
		return strconv.Quote(strings.ReplaceAll(v, "\n", ","))
	}
	return v
}
