package warc

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// fileName matches the names a Writer gives its files.
var fileName = regexp.MustCompile(`^.*-(\d{14})-(\d{5,})\.warc\.gz$`)

// Files returns the paths of the WARC files in dir (names ending in
// ".warc.gz", or ".warc.gz.open" while being written), oldest first: by the
// time stamp and serial number in the name. Files named otherwise come
// first, by name. A file listed both with and without OpenSuffix (renamed
// while the directory was read) is listed once, without it.
func Files(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("warc: files: %w", err)
	}
	type file struct {
		base   string // name without OpenSuffix
		name   string
		stamp  string
		serial int
	}
	byBase := map[string]file{}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		name := e.Name()
		base := strings.TrimSuffix(name, OpenSuffix)
		if !strings.HasSuffix(base, Extension) {
			continue
		}
		if prev, ok := byBase[base]; ok && prev.name == base {
			continue
		}
		f := file{base: base, name: name}
		if m := fileName.FindStringSubmatch(base); m != nil {
			f.stamp = m[1]
			f.serial, _ = strconv.Atoi(m[2])
		}
		byBase[base] = f
	}
	files := make([]file, 0, len(byBase))
	for _, f := range byBase {
		files = append(files, f)
	}
	slices.SortFunc(files, func(a, b file) int {
		return cmp.Or(
			cmp.Compare(a.stamp, b.stamp),
			cmp.Compare(a.serial, b.serial),
			cmp.Compare(a.base, b.base),
		)
	})
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = filepath.Join(dir, f.name)
	}
	return paths, nil
}
