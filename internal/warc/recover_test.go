package warc

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Recover closes a file a killed writer left open: the torn record at its
// end is cut off, the file gets its closed name, and every record it kept
// reads back.
func TestRecoverTornTail(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no file locks: Recover leaves open files alone")
	}
	src := t.TempDir()
	xs := sampleExchanges()
	locs := writeAll(t, Options{Dir: src}, xs)
	data := readFile(t, filepath.Join(src, locs[0].File))
	last := locs[len(locs)-1]
	reqStart := locs[len(locs)-2].Offset + locs[len(locs)-2].Length // the last request member
	zeros := func(n int64, pad int) []byte {
		return append(bytes.Clone(data[:n]), make([]byte, pad)...)
	}
	tests := []struct {
		name    string
		content []byte
		end     int64 // the length Recover keeps
	}{
		{"whole", data, int64(len(data))},
		{"cut in last request's gzip header", data[:reqStart+4], reqStart},
		{"cut in last request", data[:reqStart+40], reqStart},
		{"cut between request and response", data[:last.Offset], last.Offset},
		{"cut in last response", data[:last.Offset+last.Length/2], last.Offset},
		{"cut one byte short", data[:len(data)-1], last.Offset},
		{"zero-filled tail", zeros(last.Offset+last.Length/2, 4096), last.Offset},
		{"zeros after the end", zeros(int64(len(data)), 512), int64(len(data))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			closed := filepath.Join(dir, locs[0].File)
			if err := os.WriteFile(closed+OpenSuffix, tt.content, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := Recover(dir)
			if err != nil || len(got) != 1 || got[0].Err != nil || got[0].Path != closed {
				t.Fatalf("Recover = %+v, %v; want %s closed", got, err, closed)
			}
			if want := int64(len(tt.content)) - tt.end; got[0].Cut != want {
				t.Errorf("Recover cut %d bytes, want %d", got[0].Cut, want)
			}
			if _, err := os.Stat(closed + OpenSuffix); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the open file is still there: %v", err)
			}
			kept := readFile(t, closed)
			if !bytes.Equal(kept, tt.content[:tt.end]) {
				t.Fatalf("Recover kept %d bytes, want the first %d", len(kept), tt.end)
			}
			skipped, err := Scan(closed, func(*Record, Location) error { return nil })
			if err != nil || skipped != 0 {
				t.Errorf("Scan of the recovered file = %d, %v; want 0 torn records", skipped, err)
			}
			for _, l := range locs {
				if l.Offset+l.Length > tt.end {
					continue
				}
				if _, err := ReadAt(dir, l); err != nil {
					t.Errorf("ReadAt(%+v) after Recover = %v", l, err)
				}
			}
			// Again: nothing left to do.
			if again, err := Recover(dir); err != nil || len(again) != 0 {
				t.Errorf("second Recover = %+v, %v; want nothing", again, err)
			}
		})
	}
}

// A file a live Writer is writing is left alone, and the Writer goes on.
func TestRecoverLeavesLiveWriter(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no file locks")
	}
	dir := t.TempDir()
	w, err := NewWriter(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	xs := sampleExchanges()
	loc, err := w.Write(xs[0])
	if err != nil {
		t.Fatal(err)
	}
	got, err := Recover(dir)
	if err != nil || len(got) != 0 {
		t.Fatalf("Recover of a file being written = %+v, %v; want nothing done", got, err)
	}
	if _, err := os.Stat(filepath.Join(dir, loc.File+OpenSuffix)); err != nil {
		t.Fatalf("the file being written: %v", err)
	}
	loc2, err := w.Write(xs[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close after Recover: %v", err)
	}
	for _, l := range []Location{loc, loc2} {
		if _, err := ReadAt(dir, l); err != nil {
			t.Errorf("ReadAt(%+v) = %v", l, err)
		}
	}
}

// Files Recover cannot close safely are named, not touched; a file
// without a whole record is removed.
func TestRecoverLeftAlone(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no file locks")
	}
	src := t.TempDir()
	xs := sampleExchanges()
	locs := writeAll(t, Options{Dir: src}, xs)
	data := readFile(t, filepath.Join(src, locs[0].File))

	t.Run("corrupt before the end", func(t *testing.T) {
		dir := t.TempDir()
		bad := bytes.Clone(data)
		bad[locs[1].Offset+20] ^= 0xff
		open := filepath.Join(dir, locs[0].File+OpenSuffix)
		if err := os.WriteFile(open, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Recover(dir)
		if err != nil || len(got) != 1 || got[0].Err == nil || got[0].Path != "" {
			t.Fatalf("Recover = %+v, %v; want the file named with an error", got, err)
		}
		if !bytes.Equal(readFile(t, open), bad) {
			t.Error("a corrupt file was changed")
		}
	})
	t.Run("closed name taken", func(t *testing.T) {
		dir := t.TempDir()
		closed := filepath.Join(dir, locs[0].File)
		if err := os.WriteFile(closed, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(closed+OpenSuffix, data[:len(data)-1], 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Recover(dir)
		if err != nil || len(got) != 1 || got[0].Err == nil {
			t.Fatalf("Recover = %+v, %v; want an error", got, err)
		}
		if !bytes.Equal(readFile(t, closed), data) || len(readFile(t, closed+OpenSuffix)) != len(data)-1 {
			t.Error("files changed")
		}
	})
	t.Run("no whole record", func(t *testing.T) {
		dir := t.TempDir()
		open := filepath.Join(dir, locs[0].File+OpenSuffix)
		if err := os.WriteFile(open, data[:10], 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Recover(dir)
		if err != nil || len(got) != 1 || !got[0].Removed || got[0].Err != nil {
			t.Fatalf("Recover = %+v, %v; want the file removed", got, err)
		}
		if _, err := os.Stat(open); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("file still there: %v", err)
		}
	})
}

// FuzzWholeRecords checks, on any bytes after a valid file, that
// wholeRecords keeps a prefix that Scan reads without a torn record, and
// keeps every record of the valid file when the bytes only follow it.
func FuzzWholeRecords(f *testing.F) {
	f.Add(uint16(0), []byte{})
	f.Add(uint16(100), []byte{0x1f, 0x8b, 0x08, 0})
	f.Add(uint16(7), []byte("WARC/1.1\r\n\r\n"))
	f.Add(uint16(65535), make([]byte, 300))
	dir := f.TempDir()
	xs := sampleExchanges()[:2]
	w, err := NewWriter(Options{Dir: dir})
	if err != nil {
		f.Fatal(err)
	}
	var locs []Location
	for _, x := range xs {
		l, err := w.Write(x)
		if err != nil {
			f.Fatal(err)
		}
		locs = append(locs, l)
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	valid, err := os.ReadFile(filepath.Join(dir, locs[0].File))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cut uint16, tail []byte) {
		n := min(int(cut), len(valid))
		data := append(bytes.Clone(valid[:n]), tail...)
		end, err := wholeRecords(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("wholeRecords error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		if end < 0 || end > int64(len(data)) {
			t.Fatalf("wholeRecords = %d of %d bytes", end, len(data))
		}
		skipped, err := scan(bytes.NewReader(data[:end]), end, "f", func(*Record, Location) error { return nil })
		if err != nil && !errors.Is(err, ErrCorrupt) || skipped != 0 {
			t.Fatalf("scan of the kept %d bytes = %d, %v; want no torn record", end, skipped, err)
		}
		if n == len(valid) && len(tail) == 0 && end != int64(len(valid)) {
			t.Fatalf("wholeRecords of a whole file = %d, want %d", end, len(valid))
		}
	})
}
