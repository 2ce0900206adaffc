package main

import (
	"context"
	"errors"
	"fmt"
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
		rec, err := st.Setting(ctx, settingWARCDir)
		switch {
		case err == nil && rec != "":
			return rec, nil
		case err != nil && !errors.Is(err, crawl.ErrNotFound):
			return "", fmt.Errorf("warc: read the crawl's archive directory: %w", err)
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
// auto the directory the crawl recorded, else warcDir's default.
func recordedArchiveDir(ctx context.Context, st crawl.Store, flag, db string) (string, error) {
	if flag == "auto" {
		rec, err := st.Setting(ctx, settingWARCDir)
		switch {
		case err == nil && rec != "":
			return rec, nil
		case err != nil && !errors.Is(err, crawl.ErrNotFound):
			return "", fmt.Errorf("warc: read the crawl's archive directory: %w", err)
		}
	}
	return warcDir(flag, db), nil
}
