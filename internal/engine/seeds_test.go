package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// seedBatchStore is a store whose adds are addFn's: the seeds' path
// calls nothing else.
type seedBatchStore struct {
	Store
	addFn func(batch []crawl.NewURL) error
}

func (s *seedBatchStore) AddURLs(_ context.Context, urls []crawl.NewURL, _ crawl.Limits) (crawl.AddStats, error) {
	return crawl.AddStats{}, s.addFn(urls)
}

// seedBatchRun is a crawl of batches seed batches of size seeds each
// (a.test's pages) over a store that adds with addFn. It counts the
// batches handed to add and those add returned from.
type seedBatchRun struct {
	cfg Config

	mu              sync.Mutex
	entered, handed int
	read            bool // SeedBatches returned
}

func newSeedBatchRun(t *testing.T, batches, size int) *seedBatchRun {
	tc := newTestCrawl(t, func(rw http.ResponseWriter, r *http.Request) {}, "http://a.test/")
	r := &seedBatchRun{cfg: tc.cfg}
	r.cfg.Seeds = nil
	r.cfg.NoSitemaps = true
	r.cfg.SeedBatches = func(ctx context.Context, add func([]string) error) error {
		defer func() {
			r.mu.Lock()
			r.read = true
			r.mu.Unlock()
		}()
		batch := make([]string, size)
		for b := range batches {
			for i := range batch {
				batch[i] = fmt.Sprintf("http://a.test/%d", b*size+i)
			}
			r.mu.Lock()
			r.entered++
			r.mu.Unlock()
			if err := add(batch); err != nil {
				return err
			}
			clear(batch) // add must not keep it
			r.mu.Lock()
			r.handed++
			r.mu.Unlock()
		}
		return nil
	}
	return r
}

// counts reports the batches SeedBatches offered, those add took and
// whether SeedBatches returned.
func (r *seedBatchRun) counts() (entered, handed int, read bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.entered, r.handed, r.read
}

// seed runs the engine's seeding with addFn as the store's adds.
func (r *seedBatchRun) seed(t *testing.T, addFn func(batch []crawl.NewURL) error) error {
	e, err := New(&seedBatchStore{addFn: addFn}, r.cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e.seed(t.Context())
}

// The batches of SeedBatches are read, checked and scored while the
// store adds the one before, at most two ahead; all are added, in order,
// scored as seeds.
func TestSeedBatchesReadAhead(t *testing.T) {
	const batches, size = 6, 3
	r := newSeedBatchRun(t, batches, size) // its test web outside the bubble
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var added []crawl.NewURL
		done := make(chan error)
		go func() {
			done <- r.seed(t, func(batch []crawl.NewURL) error {
				if len(added) == 0 {
					<-release
				}
				added = append(added, batch...)
				return nil
			})
		}()
		synctest.Wait() // the first add is held; the reader goes as far as it may
		entered, handed, _ := r.counts()
		if handed < 2 {
			t.Errorf("while the first batch was being added, %d batches were prepared, want the next one too", handed)
		}
		if entered > 1+seedsAhead {
			t.Errorf("while the first batch was being added, %d batches were read, want at most %d", entered, 1+seedsAhead)
		}
		close(release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if len(added) != batches*size {
			t.Fatalf("%d URLs added, want %d", len(added), batches*size)
		}
		for i, u := range added {
			if want := fmt.Sprintf("http://a.test/%d", i); u.URL != want || u.Depth != 0 || u.Via != crawl.ViaSeed || u.Priority < 1000 {
				t.Errorf("added[%d] = %s depth %d via %v priority %d, want %s, a seed first in order", i, u.URL, u.Depth, u.Via, u.Priority, want)
			}
		}
	})
}

// A store error stops the reading of the seeds: the reader ends before
// the error is returned, wrapped once, and no batch is added after it.
func TestSeedBatchesStopOnStoreError(t *testing.T) {
	const batches = 50
	r := newSeedBatchRun(t, batches, 2)
	r.cfg.StoreOutage = time.Nanosecond
	synctest.Test(t, func(t *testing.T) {
		errFull := errors.New("disk full")
		var firsts []string // the first URL of each batch the store was given
		err := r.seed(t, func(batch []crawl.NewURL) error {
			firsts = append(firsts, batch[0].URL)
			if len(firsts) >= 2 {
				return errFull
			}
			return nil
		})
		if !errors.Is(err, errFull) || strings.Count(err.Error(), errFull.Error()) != 1 || !strings.Contains(err.Error(), "add seeds") {
			t.Errorf("seed error %v, want the store's error, once, in the adding of seeds", err)
		}
		entered, _, read := r.counts()
		if !read {
			t.Error("the seeds were still being read after the error was returned")
		}
		if entered > 2+1+seedsAhead {
			t.Errorf("%d of %d batches read, want the reading stopped by the error", entered, batches)
		}
		for _, u := range firsts[1:] {
			if u != firsts[1] { // the failing batch may be retried
				t.Errorf("batches given to the store: %q, want none after the failing one", firsts)
				break
			}
		}
	})
}

// A batch large enough to be prepared in parts gives the seeds in scope
// in the batch's order, each once, and leaves out those out of scope
// wherever they fall, after what the slice already held.
func TestSeedURLsInParts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	r := newSeedBatchRun(t, 1, 1)
	e, err := New(&seedBatchStore{}, r.cfg)
	if err != nil {
		t.Fatal(err)
	}
	var seeds, want []string
	for i := range 3*seedPart + 17 {
		u := fmt.Sprintf("http://a.test/%d", i)
		if i%97 == 5 || i/seedPart == 1 && i%seedPart < 40 {
			u = fmt.Sprintf("http://b.test/%d", i) // out of scope
		} else {
			want = append(want, u)
		}
		seeds = append(seeds, u)
	}
	held := crawl.NewURL{URL: "http://a.test/held"}
	got := e.seedURLs([]crawl.NewURL{held}, seeds)
	if len(got) != 1+len(want) || got[0] != held {
		t.Fatalf("%d URLs, the first %q; want the one held and %d seeds", len(got), got[0].URL, len(want))
	}
	for i, u := range got[1:] {
		if u.URL != want[i] || u.ID != crawl.URLID(want[i]) || u.Via != crawl.ViaSeed {
			t.Fatalf("URL %d is %q (%v), want the seed %q", i, u.URL, u.Via, want[i])
		}
	}
}

// The web archive's batches are added after the seeds, in their order,
// at depth 1 and via the archive, those out of scope left out; the seeds
// stay first.
func TestArchiveBatches(t *testing.T) {
	r := newSeedBatchRun(t, 1, 2)
	const batches, size = 4, 5
	r.cfg.ArchiveBatches = func(ctx context.Context, add func([]string) error) error {
		batch := make([]string, size)
		for b := range batches {
			for i := range batch {
				batch[i] = fmt.Sprintf("http://a.test/old/%d", b*size+i)
			}
			batch[size-1] = fmt.Sprintf("http://elsewhere.test/%d", b) // out of scope
			if err := add(batch); err != nil {
				return err
			}
			clear(batch) // add must not keep it
		}
		return nil
	}
	var added []crawl.NewURL
	if err := r.seed(t, func(batch []crawl.NewURL) error {
		added = append(added, batch...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(added) != 2+batches*(size-1) {
		t.Fatalf("%d URLs added, want the 2 seeds and %d of the archive's", len(added), batches*(size-1))
	}
	for i, u := range added[:2] {
		if u.Via != crawl.ViaSeed || u.URL != fmt.Sprintf("http://a.test/%d", i) {
			t.Errorf("added[%d] = %s via %v, want the seed", i, u.URL, u.Via)
		}
	}
	for i, u := range added[2:] {
		want := fmt.Sprintf("http://a.test/old/%d", i/(size-1)*size+i%(size-1))
		if u.URL != want || u.Depth != 1 || u.Via != crawl.ViaArchive || u.Priority >= 1000 {
			t.Errorf("archive URL %d = %s depth %d via %v priority %d, want %s at depth 1 via the archive", i, u.URL, u.Depth, u.Via, u.Priority, want)
		}
	}
}
