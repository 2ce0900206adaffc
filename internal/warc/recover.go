package warc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// Recovered is a file a Writer left open (its process was killed) and what
// Recover did with it.
type Recovered struct {
	Path    string // the file, without OpenSuffix (empty when removed)
	Open    string // the file as it was found, with OpenSuffix
	Cut     int64  // bytes of a torn last record cut off the end
	Removed bool   // the file held no whole record and was removed
	Err     error  // why the file was left as it was, if it was
}

// Recover closes the files of dir that a Writer left open when its process
// died: a torn record at the end is cut off, and the file is renamed
// without OpenSuffix (a file without a whole record is removed). Files
// still being written (a Writer holds a lock on its open file) are left
// alone, as is a file with a corrupt record before its end or one whose
// closed name is taken: those are returned with Err set. Where a Writer
// cannot lock its file (not a Unix system), Recover does nothing.
//
// A Location returned by Write is never in a torn record: Write returns
// it once the whole record is written.
func Recover(dir string) ([]Recovered, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("warc: recover: %w", err)
	}
	var out []Recovered
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, Extension+OpenSuffix) {
			continue
		}
		r, ok := recoverFile(filepath.Join(dir, name))
		if ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// recoverFile closes one file left open; ok is false when the file is in
// use or gone.
func recoverFile(open string) (r Recovered, ok bool) {
	r = Recovered{Open: open}
	f, err := os.OpenFile(open, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return r, false // closed by its writer meanwhile
	}
	if err != nil {
		r.Err = err
		return r, true
	}
	defer f.Close()
	if held, err := tryLock(f); err != nil || !held {
		return r, false // being written, or no way to tell
	}
	// Renamed by its writer between ReadDir and the lock?
	if _, err := os.Stat(open); errors.Is(err, fs.ErrNotExist) {
		return r, false
	}
	st, err := f.Stat()
	if err != nil {
		r.Err = err
		return r, true
	}
	end, err := wholeRecords(f, st.Size())
	if err != nil {
		r.Err = err
		return r, true
	}
	dir, closed := filepath.Dir(open), strings.TrimSuffix(open, OpenSuffix)
	if end == 0 {
		// Not even the warcinfo record was written: nothing refers to
		// the file.
		if err := os.Remove(open); err != nil {
			r.Err = err
			return r, true
		}
		r.Removed = true
		return r, true
	}
	if _, err := os.Lstat(closed); err == nil {
		r.Err = fmt.Errorf("%s exists", filepath.Base(closed))
		return r, true
	}
	if end < st.Size() {
		if err := f.Truncate(end); err != nil {
			r.Err = err
			return r, true
		}
		r.Cut = st.Size() - end
	}
	if err := f.Sync(); err != nil {
		r.Err = err
		return r, true
	}
	if err := os.Rename(open, closed); err != nil {
		r.Err = err
		return r, true
	}
	if err := syncDir(dir); err != nil {
		r.Err = err
	}
	r.Path = closed
	return r, true
}

// wholeRecords returns where the whole records at the start of r, size
// bytes long, end: before a torn record at the end, as a crash while
// writing leaves it. A bad record followed by a good one is corruption,
// an error wrapping ErrCorrupt.
func wholeRecords(r io.ReaderAt, size int64) (int64, error) {
	sr := &offsetReader{r: r, end: size}
	br := bufio.NewReaderSize(sr, 64<<10)
	var zr gzip.Reader
	var buf []byte
	plain := false
	for {
		off := sr.off - int64(br.Buffered())
		next, err := br.Peek(1)
		if err != nil {
			if sr.err != nil {
				return 0, sr.err
			}
			return off, nil
		}
		if plain && (next[0] == '\r' || next[0] == '\n') {
			br.Discard(1)
			continue
		}
		if off == 0 {
			plain = !isGzip(br)
		}
		data, err := readRecord(&zr, br, buf[:0])
		buf = data
		if sr.err != nil {
			return 0, sr.err
		}
		if err != nil {
			if recordAfter(r, off+1, size, plain) {
				return 0, fmt.Errorf("record at offset %d: %w", off, err)
			}
			return off, nil
		}
	}
}
