package warc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Writer appends exchanges to the WARC files of one directory. It is safe
// for concurrent use: records are built and compressed in the calling
// goroutine, at most GOMAXPROCS at once in the process, and appended under
// a lock.
//
// Each exchange reaches the operating system before Write returns; files
// are synced to stable storage when the Writer rotates to a new file and on
// Close. A crash can therefore lose the last exchanges and leave a torn
// record at the end of the open file, which [Scan] skips.
type Writer struct {
	dir      string
	prefix   string
	maxSize  int64
	software string
	hostname string

	mu        sync.Mutex
	f         *os.File // the open file, nil between files
	name      string   // its name without OpenSuffix
	size      int64    // its length
	exchanges int      // exchanges in it
	infoID    string   // record ID of its warcinfo record, or of the next file's
	serial    int      // of the next file
	closed    bool
}

// NewWriter returns a Writer for opts.Dir, creating the directory if
// needed. The first file is created by the first Write.
func NewWriter(opts Options) (*Writer, error) {
	if opts.Dir == "" {
		return nil, errors.New("warc: new writer: no directory")
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if strings.ContainsAny(opts.Prefix, `/\`) {
		return nil, fmt.Errorf("warc: new writer: prefix %q has a path separator", opts.Prefix)
	}
	if opts.MaxFileSize == 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	if opts.MaxFileSize < 0 {
		return nil, fmt.Errorf("warc: new writer: negative MaxFileSize %d", opts.MaxFileSize)
	}
	if opts.Software == "" {
		opts.Software = DefaultSoftware
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("warc: new writer: %w", err)
	}
	hostname, _ := os.Hostname()
	return &Writer{
		dir:      opts.Dir,
		prefix:   opts.Prefix,
		maxSize:  opts.MaxFileSize,
		software: opts.Software,
		hostname: hostname,
		infoID:   newRecordID(),
	}, nil
}

// Write appends a request record and a response record for x and returns
// where the response record is. Before an exchange that would make the
// open file larger than MaxFileSize, the Writer moves on to a new file
// (unless the open file holds no exchange yet). Write fails on an invalid
// Exchange (a URL that is not absolute or holds spaces or control bytes, a
// status outside 100–999, an unknown truncation reason, a method that is
// not a token), on I/O errors, and with ErrClosed after Close.
func (w *Writer) Write(x Exchange) (Location, error) {
	e := getEncoder()
	defer putEncoder(e)

	w.mu.Lock()
	closed, infoID := w.closed, w.infoID
	w.mu.Unlock()
	if closed {
		return Location{}, ErrClosed
	}
	if err := e.exchange(&x, infoID); err != nil {
		return Location{}, fmt.Errorf("warc: write %s: %w", x.URL, err)
	}

	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return Location{}, ErrClosed
	}
	if w.f != nil && w.exchanges > 0 && w.size+int64(e.buf.Len()) > w.maxSize {
		if err := w.closeFile(); err != nil {
			return Location{}, fmt.Errorf("warc: write %s: rotate: %w", x.URL, err)
		}
	}
	if w.f == nil {
		if err := w.createFile(); err != nil {
			return Location{}, fmt.Errorf("warc: write %s: %w", x.URL, err)
		}
	}
	if e.infoID != w.infoID {
		// The file changed since the records were built: they must
		// name its warcinfo record. Rare, so done under the lock.
		if err := e.exchange(&x, w.infoID); err != nil {
			return Location{}, fmt.Errorf("warc: write %s: %w", x.URL, err)
		}
	}
	off := w.size
	if _, err := w.f.WriteAt(e.buf.Bytes(), off); err != nil {
		err = fmt.Errorf("warc: write %s: %w", x.URL, err)
		if terr := w.f.Truncate(off); terr != nil {
			// The file ends in a torn record now, which readers
			// skip; append no more to it.
			err = errors.Join(err, terr, w.closeFile())
		}
		return Location{}, err
	}
	w.size += int64(e.buf.Len())
	w.exchanges++
	return Location{
		File:   w.name,
		Offset: off + int64(e.respOff),
		Length: int64(e.buf.Len() - e.respOff),
	}, nil
}

// Close syncs and closes the open file, dropping its OpenSuffix. Later
// calls return nil.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	if w.f == nil {
		return nil
	}
	if err := w.closeFile(); err != nil {
		return fmt.Errorf("warc: close: %w", err)
	}
	return nil
}

// createFile creates the next file with its warcinfo record.
func (w *Writer) createFile() error {
	// An encoder of its own: the caller holds one of the encoders, and
	// the others may be waiting for w.mu.
	e := newEncoder()
	now := time.Now()
	stamp := now.UTC().Format("20060102150405")
	for range 1000 {
		name := fmt.Sprintf("%s-%s-%05d%s", w.prefix, stamp, w.serial, Extension)
		w.serial++
		path := filepath.Join(w.dir, name)
		if _, err := os.Lstat(path); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		f, err := os.OpenFile(path+OpenSuffix, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		// The lock tells Recover the file is being written; it goes with
		// the process.
		if _, lerr := tryLock(f); lerr != nil {
			return errors.Join(fmt.Errorf("lock %s: %w", f.Name(), lerr), f.Close(), os.Remove(f.Name()))
		}
		err = e.warcinfo(w.infoID, name, w.software, w.hostname, now)
		if err == nil {
			_, err = f.WriteAt(e.buf.Bytes(), 0)
		}
		if err == nil {
			err = syncDir(w.dir)
		}
		if err != nil {
			return errors.Join(err, f.Close(), os.Remove(f.Name()))
		}
		w.f, w.name, w.size, w.exchanges = f, name, int64(e.buf.Len()), 0
		return nil
	}
	return fmt.Errorf("no free file name for %s-%s-NNNNN%s in %s", w.prefix, stamp, Extension, w.dir)
}

// closeFile syncs, renames and closes the open file: renamed while its
// lock is held, so that Recover never takes it for a dead writer's. The
// Writer moves on to a new file whatever happens.
func (w *Writer) closeFile() error {
	f := w.f
	w.f = nil
	w.infoID = newRecordID()
	if err := f.Sync(); err != nil {
		return errors.Join(err, f.Close())
	}
	if err := os.Rename(f.Name(), filepath.Join(w.dir, w.name)); err != nil {
		return errors.Join(err, f.Close())
	}
	if err := f.Close(); err != nil {
		return err
	}
	return syncDir(w.dir)
}

// syncDir makes the directory entries of dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
