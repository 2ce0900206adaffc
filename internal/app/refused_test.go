package app

import (
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/apptest"
	"github.com/acrawler/acrawler/internal/testweb"
)

// refuseSQL makes a database refuse every page after its fifth, as a
// constraint the store enforces would: a trigger that raises an error.
var refuseSQL = map[bool][]string{
	false: {`CREATE TRIGGER refuse_pages BEFORE INSERT ON pages WHEN (SELECT count(*) FROM pages) >= 5
		BEGIN SELECT RAISE(ABORT, 'pages refused by the test trigger'); END`},
	true: {`CREATE FUNCTION refuse_pages() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF (SELECT count(*) FROM pages) >= 5 THEN
				RAISE EXCEPTION 'pages refused by the test trigger' USING ERRCODE = 'check_violation';
			END IF;
			RETURN NEW;
		END $$`,
		`CREATE TRIGGER refuse_pages BEFORE INSERT ON pages FOR EACH ROW EXECUTE FUNCTION refuse_pages()`},
}

var allowSQL = map[bool][]string{
	false: {`DROP TRIGGER refuse_pages`},
	true:  {`DROP TRIGGER refuse_pages ON pages`, `DROP FUNCTION refuse_pages()`},
}

// TestStoreRefusal: a store that refuses a commit (here a trigger raising
// an error, as a constraint would) ends the crawl at once with the store's
// own message, although --store-outage would retry an outage for ten
// minutes; what was committed stays, and once the cause is gone the next
// run completes the crawl without fetching a recorded page again.
func TestStoreRefusal(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls twice")
	}
	apptest.ForEachBackend(t, func(t *testing.T, be apptest.Backend) {
		db := be.NewDB(t)
		apptest.MustRun(t, run, "migrate", "--db", db)
		execAll(t, db, refuseSQL[apptest.IsPostgres(db)])

		cfg := testweb.Config{Seed: 4, PagesPerSite: 30}
		web := apptest.NewWeb(t, cfg)
		stderr, done := runOutageCrawl(t, web, db, "--store-outage", "10m")
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("crawl succeeded although its store refused its pages")
			}
			var u UsageError
			var i Interrupted
			msg := err.Error()
			if errors.As(err, &u) || errors.As(err, &i) || !strings.Contains(msg, "refused by the store") ||
				!strings.Contains(msg, "pages refused by the test trigger") {
				t.Errorf("error %q; want a failure saying the store refused, with its reason", msg)
			}
			t.Logf("message: %s", msg)
		case <-time.After(time.Minute):
			t.Fatalf("crawl still retrying a refused commit after a minute\n%s", stderr)
		}
		if strings.Contains(stderr.String(), "retrying") {
			t.Errorf("a refused commit was retried:\n%s", stderr)
		}
		atCut := recordedURLs(t, db)
		if len(atCut) == 0 {
			t.Fatal("nothing recorded before the store refused: the test needs a refusal in the middle of a crawl")
		}

		execAll(t, db, allowSQL[apptest.IsPostgres(db)])
		resumeAndCheck(t, web, db, db, cfg, atCut)
	})
}

// execAll runs statements on a crawl database, writable.
func execAll(t *testing.T, db string, stmts []string) {
	t.Helper()
	driver := "sqlite"
	if apptest.IsPostgres(db) {
		driver = "pgx"
	}
	d, err := sql.Open(driver, db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, s := range stmts {
		if _, err := d.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}
