package app

import (
	"context"
	"errors"
	"iter"
	"sync"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// refreshingRanks is a rank store that refreshes anchors apart
// (anchorRefresher) and records the order of the calls.
type refreshingRanks struct {
	mu         sync.Mutex
	calls      []string
	refreshErr error
	release    chan struct{} // RefreshAnchors waits for it
}

func (s *refreshingRanks) record(c string) {
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
}

func (s *refreshingRanks) LinkGraph(ctx context.Context) iter.Seq2[[2]crawl.ID, error] {
	return func(yield func([2]crawl.ID, error) bool) {
		s.record("graph")
		close(s.release) // the refresh is under way while the graph is read
		for _, e := range [][2]crawl.ID{{1, 2}, {2, 3}, {3, 1}} {
			if !yield(e, nil) {
				return
			}
		}
	}
}

func (s *refreshingRanks) RefreshAnchors(ctx context.Context) error {
	select {
	case <-s.release:
		s.record("refresh")
	case <-time.After(5 * time.Second):
		s.record("refresh, the graph not read meanwhile")
		return errors.New("the graph was not read while the anchors were refreshed")
	}
	return s.refreshErr
}

func (s *refreshingRanks) SetRanks(ctx context.Context, ranks map[crawl.ID]float64) error {
	s.record("ranks")
	return nil
}

// The rank pass refreshes anchors while it reads and ranks the graph, and
// sets the ranks after the refresh, not before; a failed refresh fails it.
func TestComputeRanksRefreshesAnchorsMeanwhile(t *testing.T) {
	st := &refreshingRanks{release: make(chan struct{})}
	nodes, edges, err := computeRanks(context.Background(), st)
	if err != nil || nodes != 3 || edges != 3 {
		t.Fatalf("computeRanks = %d, %d, %v; want 3 nodes, 3 edges", nodes, edges, err)
	}
	if got := st.calls; len(got) != 3 || got[0] != "graph" || got[1] != "refresh" || got[2] != "ranks" {
		t.Errorf("calls %v, want the graph read, the refresh, then the ranks", got)
	}

	failing := errors.New("disk full")
	st = &refreshingRanks{release: make(chan struct{}), refreshErr: failing}
	if _, _, err := computeRanks(context.Background(), st); !errors.Is(err, failing) {
		t.Errorf("computeRanks with a failed refresh: %v, want %v", err, failing)
	}
	for _, c := range st.calls {
		if c == "ranks" {
			t.Errorf("ranks set after a failed refresh: %v", st.calls)
		}
	}
}
