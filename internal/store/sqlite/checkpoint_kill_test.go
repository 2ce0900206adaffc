package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// TestCheckpointerSurvivesKill: a store whose checkpointer copies the log
// back every few frames, killed (SIGKILL) while its writer commits and
// its checkpointer copies, opens again with every URL a returned commit
// added, and whole.
func TestCheckpointerSurvivesKill(t *testing.T) {
	if file := os.Getenv("ACRAWLER_TEST_CHECKPOINT_CHILD"); file != "" {
		addForever(t, file)
		return
	}
	file := filepath.Join(t.TempDir(), "killed.db")
	cmd, lines := startChild(t, "TestCheckpointerSurvivesKill", "ACRAWLER_TEST_CHECKPOINT_CHILD", file)
	last, rounds := int64(-1), int64(0)
	for (last < 300 || rounds < 3) && lines.Scan() {
		var n, r int64
		if _, err := fmt.Sscan(strings.TrimSpace(lines.Text()), &n, &r); err == nil {
			last, rounds = n, r
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if last < 300 || rounds < 3 {
		t.Fatalf("the child committed up to batch %d with %d checkpoints before it stopped, want 300 and 3", last, rounds)
	}
	db, err := Open(context.Background(), file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	var check string
	if err := db.w.QueryRow(`SELECT count(*) FROM urls`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if want := (last + 1) * killBatch; n < want {
		t.Errorf("after the kill the store holds %d URLs, but batches up to %d (%d URLs) were committed", n, last, want)
	}
	if err := db.w.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check after the kill: %q, %v", check, err)
	}
}

const killBatch = 50

// addForever adds batches of URLs to the store at file, with the
// checkpointer woken every 32 frames, and prints each batch's number and
// the checkpoints done once its commit has returned, until it is killed.
func addForever(t *testing.T, file string) {
	checkpointFrames = 32
	ctx := context.Background()
	db, err := Open(ctx, file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for b := int64(0); ; b++ {
		urls := make([]crawl.NewURL, killBatch)
		for i := range urls {
			urls[i] = storetest.U(fmt.Sprintf("http://h%d.test/batch/%d/url/%d", i%7, b, i), 0, 0)
		}
		if _, err := db.AddURLs(ctx, urls, crawl.Limits{}); err != nil {
			t.Fatal(err)
		}
		db.mu.Lock()
		rounds := db.ckpt.rounds.Load()
		db.mu.Unlock()
		fmt.Println(b, rounds)
	}
}
