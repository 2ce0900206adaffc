package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/acrawler/acrawler/internal/crawl"
)

// settingWARCDir is the crawl setting that says where the crawl's WARC
// archive is, as an absolute path.
const settingWARCDir = "warc_dir"

// crawlArchiveDir is where a crawl archives its responses, as an absolute
// path ("" when --warc off). With --warc auto a resumed crawl keeps the
// directory it recorded when it started, wherever it is run from; a new
// one takes warcDir's default. The directory is recorded in the store, so
// that reparse finds it from any directory.
func crawlArchiveDir(ctx context.Context, st crawl.Store, flag, db string) (string, error) {
	dir := warcDir(flag, db)
	if dir == "" {
		return "", nil
	}
	if flag == "auto" {
		rec, err := recordedDir(ctx, st, dir)
		if err != nil || rec != "" {
			return rec, err
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("warc: %w", err)
	}
	if err := st.SetSetting(ctx, settingWARCDir, abs); err != nil {
		return "", fmt.Errorf("warc: record the crawl's archive directory: %w", err)
	}
	return abs, nil
}

// recordedArchiveDir is the archive a command reads: --warc DIR, or with
// auto the directory the crawl recorded, else warcDir's default (also when
// the recorded one is gone and the default exists).
func recordedArchiveDir(ctx context.Context, st crawl.Store, flag, db string) (string, error) {
	dir := warcDir(flag, db)
	if flag == "auto" {
		rec, err := recordedDir(ctx, st, dir)
		if err != nil || rec != "" {
			return rec, err
		}
	}
	return dir, nil
}

// recordedDir is the archive directory the crawl recorded, "" when none
// was or when it is gone and the default directory def exists: a SQLite
// file moved with its DB.warc directory beside it.
func recordedDir(ctx context.Context, st crawl.Store, def string) (string, error) {
	rec, err := st.Setting(ctx, settingWARCDir)
	switch {
	case errors.Is(err, crawl.ErrNotFound):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("warc: read the crawl's archive directory: %w", err)
	}
	if _, err := os.Stat(rec); err != nil {
		if _, err := os.Stat(def); err == nil {
			return "", nil
		}
	}
	return rec, nil
}
