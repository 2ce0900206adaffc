package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
)

// settingsStore is a store that keeps settings in memory.
type settingsStore struct {
	crawl.Store
	m map[string]string
}

func (s *settingsStore) SetSetting(ctx context.Context, key, value string) error {
	s.m[key] = value
	return nil
}

func (s *settingsStore) Setting(ctx context.Context, key string) (string, error) {
	v, ok := s.m[key]
	if !ok {
		return "", fmt.Errorf("setting %s: %w", key, crawl.ErrNotFound)
	}
	return v, nil
}

// The archive directory of a crawl is recorded as an absolute path when
// the crawl starts; a resumed crawl and reparse find it from any working
// directory.
func TestArchiveDirRecorded(t *testing.T) {
	ctx := context.Background()
	const pg = "postgres://crawler@db.example/crawl"
	first, elsewhere := t.TempDir(), t.TempDir()

	st := &settingsStore{m: map[string]string{}}
	t.Chdir(first)
	dir, err := crawlArchiveDir(ctx, st, "auto", pg)
	want := filepath.Join(first, "acrawler-warc")
	if err != nil || dir != want || st.m[settingWARCDir] != want {
		t.Fatalf("crawlArchiveDir(auto) = %q, %v, recorded %q; want %q", dir, err, st.m[settingWARCDir], want)
	}

	t.Chdir(elsewhere)
	if dir, err := crawlArchiveDir(ctx, st, "auto", pg); err != nil || dir != want {
		t.Errorf("resumed elsewhere: crawlArchiveDir(auto) = %q, %v; want the recorded %q", dir, err, want)
	}
	if dir, err := recordedArchiveDir(ctx, st, "auto", pg); err != nil || dir != want {
		t.Errorf("reparse elsewhere: recordedArchiveDir(auto) = %q, %v; want the recorded %q", dir, err, want)
	}
	if dir, err := recordedArchiveDir(ctx, st, "/srv/warc", pg); err != nil || dir != "/srv/warc" {
		t.Errorf("recordedArchiveDir(/srv/warc) = %q, %v; want the flag", dir, err)
	}

	// --warc DIR is recorded too, absolute.
	if dir, err := crawlArchiveDir(ctx, st, "w", pg); err != nil || dir != filepath.Join(elsewhere, "w") ||
		st.m[settingWARCDir] != dir {
		t.Errorf("crawlArchiveDir(w) = %q, %v, recorded %q; want %q", dir, err, st.m[settingWARCDir], filepath.Join(elsewhere, "w"))
	}
	if dir, err := crawlArchiveDir(ctx, st, "off", pg); err != nil || dir != "" {
		t.Errorf("crawlArchiveDir(off) = %q, %v; want no archive", dir, err)
	}

	// A SQLite file moved with its archive beside it: the recorded
	// directory is gone, the default one is there.
	moved := filepath.Join(elsewhere, "moved")
	os.MkdirAll(filepath.Join(moved, "crawl.db.warc"), 0o755)
	st.m[settingWARCDir] = filepath.Join(first, "crawl.db.warc") // never created
	db := filepath.Join(moved, "crawl.db")
	if dir, err := recordedArchiveDir(ctx, st, "auto", db); err != nil || dir != db+".warc" {
		t.Errorf("moved database: recordedArchiveDir(auto) = %q, %v; want the archive beside it, %q", dir, err, db+".warc")
	}
	if dir, err := crawlArchiveDir(ctx, st, "auto", db); err != nil || dir != db+".warc" || st.m[settingWARCDir] != dir {
		t.Errorf("moved database: crawlArchiveDir(auto) = %q, %v, recorded %q; want %q", dir, err, st.m[settingWARCDir], db+".warc")
	}

}
