package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

// roundTripURLs are normalized URLs of every shape a host key takes
// (ports, IPv6, a default port dropped, userinfo dropped, capitals
// folded, no path, a query without a path, escapes), and two offered
// with a host key they do not begin with, kept whole.
func roundTripURLs(t *testing.T) []crawl.NewURL {
	t.Helper()
	n, err := urlnorm.New(urlnorm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []crawl.NewURL
	for i, raw := range []string{
		"HTTP://Example.COM:8080/a/b?x=1&y=2",
		"http://example.com:8080/a/c",
		"http://[::1]:8080/p?q=1",
		"https://[2001:DB8::1]/",
		"https://[2001:db8::1]:8443/x/y",
		"http://a.test",
		"http://a.test?only=query",
		"http://user:secret@b.test/private",
		"http://c.test:80/default-port",
		"https://c.test:443/",
		"https://d.test/%E2%82%AC/caf%C3%A9?a=%20b",
		"http://xn--bcher-kva.test/b%C3%BCcher",
		"http://e.test/path;matrix?q=a/b",
	} {
		u, err := n.Normalize(raw)
		if err != nil {
			t.Fatalf("Normalize(%q): %v", raw, err)
		}
		host := crawl.HostKey(u)
		if !strings.HasPrefix(u, host) || strings.HasPrefix(crawl.RelURL(u, host), "!") {
			t.Fatalf("%s: host key %q is not the prefix urls drops", u, host)
		}
		out = append(out, crawl.NewURL{ID: crawl.URLID(u), URL: u, HostID: crawl.HashID(host), Host: host,
			Priority: i % 3, Via: crawl.ViaSeed})
	}
	for _, u := range []crawl.NewURL{
		{URL: "http://f.test/x", Host: "http://other.test"},
		{URL: "/not/absolute", Host: "http://f.test"},
	} {
		u.ID, u.HostID, u.Via = crawl.HashID(u.URL), crawl.HashID(u.Host), crawl.ViaLink
		out = append(out, u)
	}
	return out
}

// TestHostRelativeURLs: a URL stored without its host's origin comes back
// whole, through every read (URL, a claim) and through the stage, and
// the text kept is the URL less its host key.
func TestHostRelativeURLs(t *testing.T) {
	ctx := context.Background()
	urls := roundTripURLs(t)
	for _, stage := range []bool{false, true} {
		t.Run(fmt.Sprintf("stage=%v", stage), func(t *testing.T) {
			db, err := Open(ctx, filepath.Join(t.TempDir(), "crawl.db"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if stage {
				if _, err := db.StageURLs(ctx, urls, crawl.Limits{}); err != nil {
					t.Fatal(err)
				}
				if n, err := db.MergeStaged(ctx); err != nil || n != len(urls) {
					t.Fatalf("MergeStaged = %d, %v; want %d", n, err, len(urls))
				}
			} else if st, err := db.AddURLs(ctx, urls, crawl.Limits{}); err != nil || st.Added != len(urls) {
				t.Fatalf("AddURLs = %+v, %v", st, err)
			}
			want := map[crawl.ID]string{}
			for _, u := range urls {
				want[u.ID] = u.URL
				r, err := db.URL(ctx, u.ID)
				if err != nil || r.URL != u.URL {
					t.Errorf("URL(%s) = %q, %v", u.URL, r.URL, err)
				}
				var kept string
				if err := db.w.QueryRow(`SELECT url FROM urls WHERE id = ?`, u.ID).Scan(&kept); err != nil {
					t.Fatal(err)
				}
				if kept != crawl.RelURL(u.URL, u.Host) {
					t.Errorf("%s is kept as %q, want %q", u.URL, kept, crawl.RelURL(u.URL, u.Host))
				}
			}
			got := map[crawl.ID]string{}
			for _, us := range claimAll(t, db) {
				for _, u := range us {
					got[u.ID] = u.URL
				}
			}
			for id, u := range want {
				if got[id] != u {
					t.Errorf("claimed %q, want %q", got[id], u)
				}
			}
		})
	}
}

// TestRelURLInverse: fullURL undoes relURL for any text and key, and the
// SQL of fullURLSQL agrees with fullURL.
func TestRelURLInverse(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "crawl.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"h", "t", "p", ":", "/", "?", "#", "!", "a", "é", "[", "]"}
	text := func() string {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 2000 {
		key := text()
		u := text()
		if rng.IntN(2) == 0 {
			u = key + u
		}
		rel := crawl.RelURL(u, key)
		if back := crawl.FullURL(rel, key); back != u {
			t.Fatalf("crawl.FullURL(crawl.RelURL(%q, %q)) = %q", u, key, back)
		}
		var inSQL string
		if err := db.r.QueryRow(`SELECT `+fullURLSQL+` FROM (SELECT ? AS url) u, (SELECT ? AS key) h`, rel, key).Scan(&inSQL); err != nil || inSQL != u {
			t.Fatalf("fullURLSQL of %q, %q = %q, %v; want %q", rel, key, inSQL, err, u)
		}
	}
}

// TestHostRelativeURLMigration: a database whose urls and offers hold
// whole URLs (before migration 0028) keeps its URLs, their states, queue
// order and staged offers when they are cut to their host-relative text,
// answers known URLs as known, and a second run changes nothing.
func TestHostRelativeURLMigration(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "crawl.db")
	db, err := Open(ctx, file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// All but the last: a text beginning with "/" that is not its host's
	// is taken for one kept relative already (as a second run must).
	urls := roundTripURLs(t)
	urls = urls[:len(urls)-1]
	for i := range 60 {
		u := fmt.Sprintf("http://h%d.test/p/%d?x=%d", i%4, i, i)
		urls = append(urls, crawl.NewURL{ID: crawl.URLID(u), URL: u, HostID: crawl.HashID(crawl.HostKey(u)),
			Host: crawl.HostKey(u), Depth: 1, Priority: i % 5, Via: crawl.ViaLink})
	}
	if st, err := db.AddURLs(ctx, urls, crawl.Limits{}); err != nil || st.Added != len(urls) {
		t.Fatalf("AddURLs = %+v, %v", st, err)
	}
	// A URL failed: states other than queued survive.
	if err := db.ExecForTest(ctx, `UPDATE urls SET state = 3, error = 'gone' WHERE rowid = 20;
		UPDATE hosts SET queued = queued - 1 WHERE id = (SELECT host_id FROM urls WHERE rowid = 20);
		UPDATE counters SET value = value - 1 WHERE name = 'queued'`); err != nil {
		t.Fatal(err)
	}
	// Offers staged, one of a host not yet stored.
	staged := []crawl.NewURL{urls[0]}
	for _, u := range []string{"http://staged.test:81/s?1", "http://h1.test/staged"} {
		staged = append(staged, crawl.NewURL{ID: crawl.URLID(u), URL: u, HostID: crawl.HashID(crawl.HostKey(u)),
			Host: crawl.HostKey(u), Via: crawl.ViaSitemap})
	}
	if _, err := db.StageURLs(ctx, staged, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	before := dumpURLs(t, db)
	// The tables as they were: whole URLs.
	if err := db.ExecForTest(ctx, `
		UPDATE urls SET url = (SELECT CASE WHEN substr(urls.url, 1, 1) = '!' THEN substr(urls.url, 2) ELSE h.key || urls.url END
			FROM hosts h WHERE h.id = urls.host_id);
		UPDATE offers SET url = CASE WHEN substr(url, 1, 1) = '!' THEN substr(url, 2)
			ELSE (SELECT o.host FROM offers o WHERE o.host_id = offers.host_id AND o.host IS NOT NULL) || url END;
		PRAGMA user_version = 27`); err != nil {
		t.Fatal(err)
	}
	var whole int
	if err := db.w.QueryRow(`SELECT count(*) FROM urls WHERE url LIKE 'http%'`).Scan(&whole); err != nil || whole != len(urls) {
		t.Fatalf("%d whole URLs before the migration (%v), want %d", whole, err, len(urls))
	}
	db.Close()
	for run := range 2 {
		db, err = Open(ctx, file, Options{})
		if err != nil {
			t.Fatalf("open, run %d: %v", run, err)
		}
		if after := dumpURLs(t, db); after != before {
			t.Fatalf("run %d: after the migration:\n%s\nbefore:\n%s", run, after, before)
		}
		if err := db.w.QueryRow(`SELECT count(*) FROM urls WHERE url LIKE 'http%'`).Scan(&whole); err != nil || whole != 0 {
			t.Fatalf("run %d: %d whole URLs left (%v)", run, whole, err)
		}
		if run == 0 {
			if err := db.ExecForTest(ctx, `PRAGMA user_version = 27`); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}
	}
	defer db.Close()
	// The stage merges as it would have: its known offer is known, the
	// others added.
	if n, err := db.MergeStaged(ctx); err != nil || n != 2 {
		t.Fatalf("MergeStaged = %d, %v; want 2", n, err)
	}
	if st, err := db.AddURLs(ctx, append(slices.Clone(urls), staged...), crawl.Limits{}); err != nil || st.Known != len(urls)+len(staged) {
		t.Fatalf("AddURLs of known URLs = %+v, %v; want all known", st, err)
	}
	for _, u := range append(urls, staged...) {
		if r, err := db.URL(ctx, u.ID); err != nil || r.URL != u.URL {
			t.Errorf("URL(%s) = %q, %v", u.URL, r.URL, err)
		}
	}
	// Every queued URL is claimed, in its host's queue order.
	claimed := 0
	for _, us := range claimAll(t, db) {
		for i := 1; i < len(us); i++ {
			if us[i].Priority > us[i-1].Priority {
				t.Errorf("%s (priority %d) claimed after %s (priority %d)", us[i].URL, us[i].Priority, us[i-1].URL, us[i-1].Priority)
			}
		}
		claimed += len(us)
	}
	if want := len(urls) + 2 - 1; claimed != want {
		t.Errorf("claimed %d URLs after the migration, want %d (one failed)", claimed, want)
	}
}

// claimAll claims every queued URL, a host at a time, and returns each
// claim's URLs in the order claimed.
func claimAll(t *testing.T, db *DB) [][]crawl.ClaimedURL {
	t.Helper()
	ctx, now := context.Background(), time.Unix(1_800_000_000, 0)
	var out [][]crawl.ClaimedURL
	for {
		hosts, err := db.ClaimHosts(ctx, "t", 100, time.Minute, now)
		if err != nil {
			t.Fatal(err)
		}
		if len(hosts) == 0 {
			return out
		}
		var rel []crawl.HostRelease
		for _, h := range hosts {
			us, _, err := db.ClaimURLs(ctx, "t", h.ID, 100, crawl.Limits{}, now)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, us)
			rel = append(rel, crawl.HostRelease{ID: h.ID})
		}
		if err := db.ReleaseHosts(ctx, "t", rel); err != nil {
			t.Fatal(err)
		}
	}
}

// dumpURLs is every URL's whole text and row, in arrival order, and the
// stage's offers with their whole text.
func dumpURLs(t *testing.T, db *DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT u.rowid, u.id, ` + fullURLSQL + `, u.host_id, u.depth, u.priority, u.state, u.via, u.attempts, u.error
			FROM urls u LEFT JOIN hosts h ON h.id = u.host_id ORDER BY u.rowid`,
		`SELECT u.rowid, u.id, ` + fullURLSQL + `, u.host_id, u.host, u.via
			FROM offers u LEFT JOIN (SELECT host_id AS id, host AS key FROM offers WHERE host IS NOT NULL) h ON h.id = u.host_id
			ORDER BY u.rowid`,
		`SELECT id, rowid FROM urls INDEXED BY urls_queue WHERE state = 0 ORDER BY host_id, priority DESC, rowid`,
	} {
		rows, err := db.w.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&b, vals...)
		}
		rows.Close()
	}
	return b.String()
}
