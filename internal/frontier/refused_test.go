package frontier_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/frontier"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// TestRobotsRefusedIsFinal: a host whose address the fetcher refused gets
// no retry: its URLs are handed out at once as skips carrying the error.
func TestRobotsRefusedIsFinal(t *testing.T) {
	refused := errors.New("refused: private address")
	f, c, st := setup(t, frontier.Config{Delay: time.Second, RobotsRetry: time.Minute},
		storetest.U("http://a.test/1", 0, 0), storetest.U("http://a.test/2", 0, 0))
	task, _ := waitTask(t, f, c)
	if task.Kind != frontier.FetchRobots {
		t.Fatalf("task %+v, want a robots.txt fetch", task)
	}
	f.RobotsRefused(context.Background(), task, refused)
	start := c.now()
	var skipped []string
	for range 10 {
		task, ok, wake := next(t, f)
		if !ok {
			if wake.IsZero() || len(skipped) == 2 {
				break
			}
			c.set(wake)
			continue
		}
		if task.Kind != frontier.SkipURL || !errors.Is(task.Err, refused) || task.Reason != refused.Error() {
			t.Fatalf("task %+v, want a skip carrying the refusal", task)
		}
		skipped = append(skipped, task.URL.URL)
		upd := f.Done(context.Background(), task, frontier.Feedback{})
		r := crawl.Result{URL: task.URL, Outcome: crawl.OutcomeFailed, Error: task.Reason, ErrorKind: "refused", Host: upd}
		if _, err := st.Commit(context.Background(), []crawl.Result{r}, crawl.Limits{}); err != nil {
			t.Fatal(err)
		}
	}
	if len(skipped) != 2 {
		t.Fatalf("skipped %v, want both URLs", skipped)
	}
	if waited := c.now().Sub(start); waited >= time.Minute {
		t.Fatalf("the URLs came %v after the refusal, want no robots.txt retry wait", waited)
	}
}
