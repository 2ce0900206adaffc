package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/crawl"
)

// readSeedFile is the URLs of a seeds file, in order.
func readSeedFile(file string) ([]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	err = scanSeeds(f, file, func(_ int, u string) error { out = append(out, u); return nil })
	return out, err
}

// seedLines is a seeds file of n lines made as it is read, counting the
// bytes read from it.
type seedLines struct {
	n, next int
	pending string
	read    int64
}

func (r *seedLines) line(i int) string {
	return fmt.Sprintf("http://www.inst%d.test/dept/%d/page-%d.html\n", i%97, i%13, i)
}

func (r *seedLines) Read(p []byte) (int, error) {
	for len(r.pending) < len(p) && r.next < r.n {
		r.pending += r.line(r.next)
		r.next++
	}
	if r.pending == "" {
		return 0, io.EOF
	}
	k := copy(p, r.pending)
	r.pending = r.pending[k:]
	r.read += int64(k)
	return k, nil
}

// The seeds file is consumed a batch at a time: each batch reaches the
// frontier before much more of the file than the batch has been read, in
// the file's order, and no batch is larger than seedBatch.
func TestSeedsStreamInBatches(t *testing.T) {
	t.Parallel()
	const n = 3*seedBatch + 123
	file := &seedLines{n: n}
	norm, err := (&Config{}).normalizer()
	if err != nil {
		t.Fatal(err)
	}
	s := &seedList{file: "seeds.txt", norm: norm, count: n}
	var consumed int64 // bytes of the lines delivered so far
	next, batches := 0, 0
	err = s.streamFrom(context.Background(), file, func(batch []string) error {
		batches++
		if len(batch) > seedBatch {
			t.Fatalf("batch of %d seeds, want at most %d", len(batch), seedBatch)
		}
		for _, u := range batch {
			if want, _ := norm.Normalize(strings.TrimSpace(file.line(next))); u != want {
				t.Fatalf("seed %d = %q, want %q", next, u, want)
			}
			consumed += int64(len(file.line(next)))
			next++
		}
		// The reader is at most its buffer and one line ahead of the
		// batch: the file was not read whole first.
		if ahead := file.read - consumed; ahead > 64<<10+200 {
			t.Fatalf("after batch %d, %d bytes read beyond the seeds delivered", batches, ahead)
		}
		return nil
	})
	if err != nil || next != n || batches != 4 {
		t.Fatalf("stream: %v; %d seeds in %d batches, want %d in 4", err, next, batches, n)
	}
}

// A seeds file larger than a batch is added whole, in its order, through
// the crawl: the same URLs with the same priorities as when given as
// arguments, and a host's cap admits its first seeds in the file whatever
// batch they fall in.
func TestSeedsFileCrawl(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n = 2*seedBatch + 17
	var lines, args []string
	for i := range n {
		u := fmt.Sprintf("http://www.inst%d.test/p/%d?utm_source=x&b=2&a=1", i%40, i)
		lines, args = append(lines, u), append(args, u)
	}
	lines = append([]string{"# seeds", ""}, lines...)
	file := filepath.Join(dir, "seeds.txt")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--progress", "off", "--log-level", "warn", "--max-duration", "1ns", "--no-sitemaps"}
	crawled := func(db string, extra ...string) []string {
		mustCrawl(t, append(append([]string{"crawl", "--db", db}, flags...), extra...)...)
		d := apptest.OpenDB(t, db)
		return apptest.QueryStrings(t, d, `SELECT url || ' ' || priority || ' ' || depth || ' ' || via FROM `+d.URLs()+` AS urls
			ORDER BY host_id, arrival`)
	}
	fromFile := crawled(filepath.Join(dir, "file.db"), "--seeds", file)
	fromArgs := crawled(filepath.Join(dir, "args.db"), args...)
	if len(fromFile) != n || strings.Join(fromFile, "\n") != strings.Join(fromArgs, "\n") {
		t.Fatalf("%d seeds from the file, %d from arguments (want %d, the same)", len(fromFile), len(fromArgs), n)
	}
	// Each host's seeds in the file's order.
	byHost := func(rows []string) map[string][]string {
		m := map[string][]string{}
		for _, row := range rows {
			u := strings.SplitN(row, " ", 2)[0]
			m[crawl.HostKey(u)] = append(m[crawl.HostKey(u)], u)
		}
		return m
	}
	all := byHost(fromFile)
	if h := all["http://www.inst0.test"]; len(h) == 0 || h[0] != "http://www.inst0.test/p/0?a=1&b=2" || h[1] != "http://www.inst0.test/p/40?a=1&b=2" {
		t.Errorf("inst0's first seeds %q", h[:min(2, len(h))])
	}
	if !strings.HasSuffix(fromFile[0], " 0 seed") {
		t.Errorf("first seed %q", fromFile[0])
	}
	capped := crawled(filepath.Join(dir, "capped.db"), "--seeds", file, "--max-pages-per-host", "300")
	if len(capped) != 40*300 {
		t.Fatalf("%d seeds admitted under a cap of 300 for 40 hosts", len(capped))
	}
	for host, us := range byHost(capped) {
		if want := all[host][:min(300, len(all[host]))]; !slices.Equal(us, want) {
			t.Fatalf("%s's seeds admitted under the cap: %d, from %q; want its first 300 in the file, from %q", host, len(us), us[0], want[0])
		}
	}
}

// A bad seed anywhere in the file, or a line over the limit, is refused
// before anything is written, naming the seed or the line.
func TestSeedsFileRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	for i := range seedBatch + 5 {
		fmt.Fprintf(&b, "http://a.test/%d\n", i)
	}
	good := b.String()
	for _, tt := range []struct{ name, content, msg string }{
		{"bad seed", good + "mailto:x@y.org\n", `seed "mailto:x@y.org"`},
		{"long line", good + "http://a.test/" + strings.Repeat("x", maxSeedLine) + "\n", fmt.Sprintf("line %d is longer than", seedBatch+6)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, tt.name+".txt")
			os.WriteFile(file, []byte(tt.content), 0o644)
			db := filepath.Join(dir, tt.name+".db")
			_, _, err := runCmd(t, "crawl", "--db", db, "--progress", "off", "--seeds", file)
			var ue UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("error %v, want a usage error naming %q", err, tt.msg)
			}
			if _, err := os.Stat(db); err == nil {
				t.Errorf("%s written", db)
			}
		})
	}
}
