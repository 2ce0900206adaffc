package postgres_test

import (
	"context"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/store/postgres"
)

func TestServerSettingsAdvice(t *testing.T) {
	const gb = 1 << 30
	for _, c := range []struct {
		autovacuum  bool
		walSize     int64
		compression string
		want        []string
	}{
		{true, 16 * gb, "lz4", nil},
		{true, 4 * gb, "pglz", nil},
		{true, 4 * gb, "on", nil},
		{true, 4*gb - 1<<20, "zstd", []string{"max_wal_size"}},
		{true, 1 * gb, "lz4", []string{"max_wal_size"}},
		{true, 16 * gb, "off", []string{"wal_compression"}},
		{false, 16 * gb, "lz4", []string{"autovacuum"}},
		{false, 1 * gb, "off", []string{"autovacuum", "max_wal_size", "wal_compression"}},
	} {
		if got := postgres.Advice(c.autovacuum, c.walSize, c.compression); !slices.Equal(got, c.want) {
			t.Errorf("Advice(%v, %d, %q) = %q, want %q", c.autovacuum, c.walSize, c.compression, got, c.want)
		}
	}
}

// TestServerSettingsAdvised opens a store with the server's settings as
// they are, but for wal_compression, set for the session: a store opened
// for writing that holds settingsFrom URLs advises on each setting that
// costs a large crawl, in its log; an empty one, or one opened
// read-only, says nothing.
func TestServerSettingsAdvised(t *testing.T) {
	dsn, schema := freshSchema(t)
	ctx := context.Background()
	var autovacuum string
	var walSize int64
	conn := schemaConn(t, dsn, schema)
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, `SELECT current_setting('autovacuum'), pg_size_bytes(current_setting('max_wal_size'))`).Scan(&autovacuum, &walSize); err != nil {
		t.Fatal(err)
	}
	opened := func(compression string, ro bool, from int64) string {
		t.Helper()
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal(err)
		}
		// A space as %20: pgx reads a + as itself.
		if u.RawQuery != "" {
			u.RawQuery += "&"
		}
		u.RawQuery += "options=" + strings.ReplaceAll(url.QueryEscape("-c wal_compression="+compression), "+", "%20")
		var logged strings.Builder
		log := slog.New(slog.NewTextHandler(&logged, nil))
		db, err := postgres.Open(ctx, u.String(), postgres.Tuned(postgres.Options{Schema: schema, MaxConns: 1, Log: log, ReadOnly: ro},
			postgres.SettingsFrom(from)))
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		db.Close()
		return logged.String()
	}
	advised := func(logged string) []string {
		var names []string
		for line := range strings.Lines(logged) {
			if strings.Contains(line, `msg="postgres: a server setting costs a large crawl"`) {
				_, rest, _ := strings.Cut(line, " setting=")
				name, _, _ := strings.Cut(rest, " ")
				names = append(names, name)
			}
		}
		return names
	}
	opened("off", false, 1) // migrates
	// on is pglz, a value every version knows.
	for _, compression := range []string{"off", "on"} {
		want := postgres.Advice(autovacuum == "on", walSize, compression)
		if got := advised(opened(compression, false, 0)); !slices.Equal(got, want) {
			t.Errorf("wal_compression %s, autovacuum %s, max_wal_size %d: advised on %q, want %q", compression, autovacuum, walSize, got, want)
		}
		if compression == "off" && !slices.Contains(want, "wal_compression") {
			t.Errorf("wal_compression off is not advised against")
		}
	}
	// Below the size, and read-only: nothing.
	for _, c := range []struct {
		ro   bool
		from int64
	}{{false, 1}, {true, 0}} {
		if got := advised(opened("off", c.ro, c.from)); len(got) > 0 {
			t.Errorf("read-only %v, from %d URLs, an empty store: advised on %q", c.ro, c.from, got)
		}
	}
}
