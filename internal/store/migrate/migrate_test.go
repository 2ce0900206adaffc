package migrate_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/migrate"
)

func files(names ...string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for _, n := range names {
		fsys["m/"+n] = &fstest.MapFile{Data: []byte("-- " + n)}
	}
	return fsys
}

func TestLoadOrdersByNumber(t *testing.T) {
	s, err := migrate.Load(files("0010_ten.sql", "0002_two.sql", "0001_one.sql"), "m")
	if err != nil {
		t.Fatal(err)
	}
	if s.Latest() != 10 {
		t.Errorf("Latest() = %d, want 10", s.Latest())
	}
	var got []string
	to, err := s.Apply(context.Background(), nil, "db", 0, func(_ context.Context, m migrate.Migration) error {
		if m.SQL != "-- "+m.Name {
			t.Errorf("%s: SQL %q", m.Name, m.SQL)
		}
		got = append(got, m.Name)
		return nil
	})
	if err != nil || to != 10 || strings.Join(got, " ") != "0001_one.sql 0002_two.sql 0010_ten.sql" {
		t.Errorf("Apply from 0 = %d, %v, applied %v; want 10, nil, the three in order", to, err, got)
	}
}

func TestLoadRefusesBadNames(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"0001_one.sql", "init.sql"}, "init.sql: name must start with a number"},
		{[]string{"x1_one.sql"}, "x1_one.sql: name must start with a number"},
		{[]string{"0000_zero.sql"}, "0000_zero.sql: name must start with a number above 0"},
		{[]string{"0002_a.sql", "2_b.sql"}, "same version 2"},
	} {
		_, err := migrate.Load(files(tc.names...), "m")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%v) = %v, want an error saying %q", tc.names, err, tc.want)
		}
	}
	if _, err := migrate.Load(files(), "missing"); err == nil {
		t.Error("Load of a missing directory succeeded")
	}
}

func TestApplyFromAVersion(t *testing.T) {
	s := migrate.MustLoad(files("0001_a.sql", "0002_b.sql", "0003_c.sql"), "m")
	ctx := context.Background()
	for _, tc := range []struct {
		from, wantTo int
		applied      string
		fail         string // the step that fails
		wantErr      string
		is           error
	}{
		{from: 3, wantTo: 3},
		{from: 1, wantTo: 3, applied: "0002_b.sql 0003_c.sql"},
		{from: 0, wantTo: 1, applied: "0001_a.sql", fail: "0002_b.sql", wantErr: "0002_b.sql: boom"},
		{from: 4, wantTo: 4, wantErr: "db has schema version 4, this acrawler knows up to 3", is: crawl.ErrSchemaTooNew},
	} {
		var got []string
		to, err := s.Apply(ctx, nil, "db", tc.from, func(_ context.Context, m migrate.Migration) error {
			if m.Name == tc.fail {
				return errors.New("boom")
			}
			got = append(got, m.Name)
			return nil
		})
		if to != tc.wantTo || strings.Join(got, " ") != tc.applied {
			t.Errorf("Apply from %d = %d, applied %v; want %d, %q", tc.from, to, got, tc.wantTo, tc.applied)
		}
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("Apply from %d: %v", tc.from, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("Apply from %d: err %v, want %q", tc.from, err, tc.wantErr)
		case tc.is != nil && !errors.Is(err, tc.is):
			t.Errorf("Apply from %d: err %v is not %v", tc.from, err, tc.is)
		}
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if to, err := s.Apply(canceled, nil, "db", 0, func(context.Context, migrate.Migration) error { return nil }); to != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("Apply with a canceled context = %d, %v; want 0, context.Canceled", to, err)
	}
}

func TestCheck(t *testing.T) {
	s := migrate.MustLoad(files("0001_a.sql", "0002_b.sql"), "m")
	for _, tc := range []struct {
		v    int
		want string
		is   error
	}{
		{2, "", nil},
		{1, "db has schema version 1, this acrawler reads 2: it needs migration", crawl.ErrNeedsMigration},
		{0, "db has schema version 0, this acrawler reads 2", crawl.ErrNeedsMigration},
		{3, "db has schema version 3, this acrawler knows up to 2", crawl.ErrSchemaTooNew},
	} {
		err := s.Check("db", tc.v)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.is)) {
			t.Errorf("Check(%d) = %v, want %q", tc.v, err, tc.want)
		}
	}
}

// An upgrade of an existing database logs each step at Info, naming it;
// a new database's steps are logged at Debug only.
func TestApplyLogsUpgrades(t *testing.T) {
	s := migrate.MustLoad(files("0001_a.sql", "0002_b.sql", "0003_c.sql"), "m")
	for _, tc := range []struct {
		from int
		want string
	}{
		{from: 1, want: "level=INFO msg=\"upgrading the database schema\" db=x.db migration=0002_b.sql from=1\n" +
			"level=INFO msg=\"upgrading the database schema\" db=x.db migration=0003_c.sql from=2\n"},
		{from: 0, want: ""},
		{from: 3, want: ""},
	} {
		var buf strings.Builder
		log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
			ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			}}))
		if _, err := s.Apply(context.Background(), log, "x.db", tc.from, func(context.Context, migrate.Migration) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if buf.String() != tc.want {
			t.Errorf("from %d: logged\n%s\nwant\n%s", tc.from, buf.String(), tc.want)
		}
	}
}
