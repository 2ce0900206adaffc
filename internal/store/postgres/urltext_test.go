package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// textURLs are URLs of the shapes a host key takes (a port, IPv6,
// escapes, a path parameter) and two offered with a host key they do not
// begin with, kept whole, each under its own path.
func textURLs(path string) []crawl.NewURL {
	var out []crawl.NewURL
	for _, raw := range []string{
		"http://example.com:8080/" + path + "?x=1&y=2",
		"http://[::1]:8080/" + path,
		"https://[2001:db8::1]/" + path,
		"https://d.test/%E2%82%AC/" + path + "?a=%20b",
		"http://e.test/" + path + ";matrix?q=a/b",
	} {
		out = append(out, storetest.U(raw, 1, 2))
	}
	for _, u := range []crawl.NewURL{
		{URL: "http://f.test/" + path, Host: "http://other.test"},
		{URL: "/not/absolute/" + path, Host: "http://g.test"},
	} {
		u.ID, u.HostID, u.Via = crawl.HashID(u.URL), crawl.HashID(u.Host), crawl.ViaLink
		out = append(out, u)
	}
	return out
}

// TestHostRelativeURLs: each way a URL reaches urls (AddURLs' COPY, a
// commit's discovered URLs, a merge of staged offers) keeps its text
// without its host's key (crawl.RelURL), and reads give the whole URL
// back: URL, ClaimURLs, Inlinks. Migration 0018 cuts the whole URLs of an
// earlier database the same way, and a second run changes nothing.
func TestHostRelativeURLs(t *testing.T) {
	ctx := context.Background()
	dsn, schema := freshSchema(t)
	db := open(t, dsn, schema)
	now := time.Now()
	added, discovered, staged := textURLs("added"), textURLs("discovered"), textURLs("staged")
	if st, err := db.AddURLs(ctx, added, crawl.Limits{}); err != nil || st.Added != len(added) {
		t.Fatalf("AddURLs = %+v, %v", st, err)
	}
	// Commits of the pages at added[0], [3] and [4] link to added[1] (their
	// host-relative texts sort in another order than their URLs), the
	// first discovering the second set.
	hosts, err := db.ClaimHosts(ctx, "w", 100, time.Minute, now)
	if err != nil {
		t.Fatal(err)
	}
	var claimed []crawl.ClaimedURL
	for _, h := range hosts {
		cs, _, err := db.ClaimURLs(ctx, "w", h.ID, 10, crawl.Limits{}, now)
		if err != nil {
			t.Fatal(err)
		}
		claimed = append(claimed, cs...)
	}
	whole := map[crawl.ID]string{}
	for _, u := range added {
		whole[u.ID] = u.URL
	}
	var results []crawl.Result
	var sources []string
	for _, c := range claimed {
		if c.URL != whole[c.ID] {
			t.Errorf("claimed %d as %q, want %q", c.ID, c.URL, whole[c.ID])
		}
		if c.ID != added[0].ID && c.ID != added[3].ID && c.ID != added[4].ID {
			continue
		}
		r := crawl.Result{URL: c, Outcome: crawl.OutcomeDone,
			Links: []crawl.Link{{TargetID: added[1].ID, Target: added[1].URL, Anchor: "a"}},
			Page:  &crawl.Page{URL: c.URL, Status: 200, ContentType: "text/html", Title: "t", Text: "x", FetchedAt: now}}
		if c.ID == added[0].ID {
			r.Discovered = discovered
		}
		results, sources = append(results, r), append(sources, c.URL)
	}
	if len(claimed) != len(added) || len(results) != 3 {
		t.Fatalf("claimed %d URLs, want %d", len(claimed), len(added))
	}
	if _, err := db.Commit(ctx, results, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(sources)
	if _, err := db.StageURLs(ctx, staged, crawl.Limits{}); err != nil {
		t.Fatal(err)
	}
	if n, err := db.MergeStaged(ctx); err != nil || n != len(staged) {
		t.Fatalf("MergeStaged = %d, %v; want %d", n, err, len(staged))
	}
	all := append(append(append([]crawl.NewURL(nil), added...), discovered...), staged...)
	check := func(when string) {
		t.Helper()
		for _, u := range all {
			var kept string
			if err := queryRow(t, dsn, schema, `SELECT url FROM urls WHERE id = $1`, []any{int64(u.ID)}, &kept); err != nil {
				t.Fatalf("%s: %s: %v", when, u.URL, err)
			}
			if want := crawl.RelURL(u.URL, u.Host); kept != want {
				t.Errorf("%s: %s is kept as %q, want %q", when, u.URL, kept, want)
			}
			r, err := db.URL(ctx, u.ID)
			if err != nil || r.URL != u.URL {
				t.Errorf("%s: URL(%d) = %q, %v; want %q", when, u.ID, r.URL, err, u.URL)
			}
		}
		in, err := db.Inlinks(ctx, added[1].ID, 10)
		var got []string
		for _, l := range in {
			got = append(got, l.URL)
		}
		if err != nil || !slices.Equal(got, sources) {
			t.Errorf("%s: Inlinks from %q, %v; want from %q", when, got, err, sources)
		}
	}
	check("stored")
	// The table as it was before the migration: whole URLs (all but the
	// three not absolute begin with a scheme).
	exec(t, dsn, schema, `UPDATE urls u SET url = `+postgres.FullURLSQLForTest("u.url", "h.key")+` FROM hosts h WHERE h.id = u.host_id`)
	var n int
	if err := queryRow(t, dsn, schema, `SELECT count(*) FROM urls WHERE url NOT LIKE '!%' AND url NOT LIKE '/%'`, nil, &n); err != nil || n != len(all)-3 {
		t.Fatalf("%d whole URLs before the migration (%v), want %d", n, err, len(all)-3)
	}
	db.Close()
	// A whole text beginning with "/" is taken for one kept relative
	// already (as a second run must): the normalizer makes none, and the
	// migration's URLs are those beginning with a scheme.
	all = slices.DeleteFunc(all, func(u crawl.NewURL) bool { return strings.HasPrefix(u.URL, "/") })
	for run := range 2 {
		exec(t, dsn, schema, `DELETE FROM schema_migrations WHERE version >= 18`)
		db = open(t, dsn, schema)
		check(fmt.Sprintf("migration run %d", run+1))
		db.Close()
	}
}

// TestURLTextSQL: relURLSQL and fullURLSQL agree with crawl.RelURL and
// crawl.FullURL on texts made of a URL's special characters.
func TestURLTextSQL(t *testing.T) {
	dsn, schema := freshSchema(t)
	open(t, dsn, schema).Close()
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"h", "t", "p", ":", "/", "?", "#", "!", "a", "é", "[", "]", "%"}
	text := func() string {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 500 {
		key, u := text(), text()
		if rng.IntN(2) == 0 {
			u = key + u
		}
		var rel, back string
		if err := queryRow(t, dsn, schema, `SELECT r, `+postgres.FullURLSQLForTest("r", "k")+` FROM (SELECT `+
			postgres.RelURLSQLForTest("$1::text", "$2::text")+` AS r, $2::text AS k) x`, []any{u, key}, &rel, &back); err != nil {
			t.Fatal(err)
		}
		if want := crawl.RelURL(u, key); rel != want {
			t.Fatalf("relURLSQL(%q, %q) = %q, want %q", u, key, rel, want)
		}
		if back != u {
			t.Fatalf("fullURLSQL(%q, %q) = %q, want %q", rel, key, back, u)
		}
	}
}

// TestPackedURLsMigration: migration 0019 rewrites urls in its packed
// column order and keeps every row (a NULL error read as ""), the
// sequence seq draws from (the next URL numbered after the others), the
// indexes and the privileges granted on the table.
func TestPackedURLsMigration(t *testing.T) {
	ctx := context.Background()
	dsn, schema := freshSchema(t)
	migrateBelow(t, dsn, schema, 19)
	role, hasRole := grantedReader(t, dsn, schema, "SELECT", "urls")
	exec(t, dsn, schema, `INSERT INTO hosts (id, key, admitted, queued) VALUES (7, 'http://a.test', 3, 2);
		INSERT INTO urls (id, url, host_id, depth, priority, state, via, discovered_at) VALUES
			(1, '/one', 7, 0, 5, 0, 'seed', 1000), (2, '/two', 7, 1, 3, 0, 'link', 2000);
		INSERT INTO urls (id, url, host_id, depth, priority, state, via, discovered_at, error, attempts, fetched_at, lastmod, changefreq, inlinks, kind)
			VALUES (3, '/three', 7, 2, 1, 3, 'link', 3000, 'gone', 2, 4000, 5000, 'daily', 6, 1);
		UPDATE counters SET queued = 2 WHERE slot = 0`)
	before := dumpURLRows(t, dsn, schema)
	if _, _, err := postgres.Migrate(ctx, dsn, postgres.Options{Schema: schema}); err != nil {
		t.Fatal(err)
	}
	if after := dumpURLRows(t, dsn, schema); after != before {
		t.Errorf("urls after the migration:\n%s\nbefore:\n%s", after, before)
	}
	var cols, indexes string
	var granted bool
	if err := queryRow(t, dsn, schema, `SELECT
		(SELECT string_agg(column_name || CASE WHEN is_nullable = 'YES' THEN '?' ELSE '' END, ' ' ORDER BY ordinal_position)
			FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'urls'),
		(SELECT string_agg(indexname, ' ' ORDER BY indexname) FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'urls'),
		CASE WHEN $2 THEN has_table_privilege($1, 'urls', 'SELECT') ELSE false END`, []any{role, hasRole}, &cols, &indexes, &granted); err != nil {
		t.Fatal(err)
	}
	if want := "id host_id parent_id seq retry_at discovered_at fetched_at claimed_at lastmod depth priority attempts inlinks state kind url via changefreq error"; cols != want {
		t.Errorf("columns %q, want %q", cols, want)
	}
	if want := "urls_host_fetched urls_inflight urls_pkey urls_queue"; indexes != want {
		t.Errorf("indexes %q, want %q", indexes, want)
	}
	if hasRole && !granted {
		t.Errorf("%s lost its SELECT on urls", role)
	}
	// The next URL is numbered after those there, and the store reads
	// the rows as before.
	db := open(t, dsn, schema)
	u := storetest.U("http://a.test/four", 1, 9)
	if st, err := db.AddURLs(ctx, []crawl.NewURL{u}, crawl.Limits{}); err != nil || st.Added != 1 {
		t.Fatalf("AddURLs = %+v, %v", st, err)
	}
	var seq, maxSeq int64
	if err := queryRow(t, dsn, schema, `SELECT (SELECT seq FROM urls WHERE id = $1), (SELECT max(seq) FROM urls WHERE id <> $1)`,
		[]any{int64(u.ID)}, &seq, &maxSeq); err != nil || seq <= maxSeq {
		t.Errorf("the new URL's seq %d, after %d (%v)", seq, maxSeq, err)
	}
	if r, err := db.URL(ctx, 3); err != nil || r.URL != "http://a.test/three" || r.Error != "gone" || r.Inlinks != 6 {
		t.Errorf("URL(3) = %+v, %v", r, err)
	}
	if r, err := db.URL(ctx, 1); err != nil || r.URL != "http://a.test/one" || r.Error != "" {
		t.Errorf("URL(1) = %+v, %v", r, err)
	}
}

// dumpURLRows is every urls row, a line each, its columns by name.
func dumpURLRows(t *testing.T, dsn, schema string) string {
	t.Helper()
	var s string
	if err := queryRow(t, dsn, schema, `SELECT coalesce(string_agg(concat_ws(' ', id, url, host_id, depth, priority, state, via,
		parent_id, seq, attempts, retry_at, discovered_at, fetched_at, claimed_at, coalesce(error, ''), kind, lastmod, changefreq,
		inlinks), E'\n' ORDER BY id), '') FROM urls`, nil, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// migrateBelow applies the migrations below version to the schema and
// records them in schema_migrations, as a database of that age has them.
func migrateBelow(t *testing.T, dsn, schema string, version int) {
	t.Helper()
	files, err := os.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	var versions []string
	for _, f := range files {
		v, err := strconv.Atoi(strings.SplitN(f.Name(), "_", 2)[0])
		if err != nil || v >= version {
			continue
		}
		b, err := os.ReadFile("migrations/" + f.Name())
		if err != nil {
			t.Fatal(err)
		}
		exec(t, dsn, schema, string(b))
		versions = append(versions, fmt.Sprintf("(%d)", v))
	}
	exec(t, dsn, schema, `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now());
		INSERT INTO schema_migrations (version) VALUES `+strings.Join(versions, ", "))
}

// grantedReader is a reader role (readerRole) granted privileges on
// table; ok is false where the test's user cannot make one.
func grantedReader(t *testing.T, dsn, schema, privileges, table string) (role string, ok bool) {
	t.Helper()
	role, ok = readerRole(t, dsn, schema)
	if ok {
		exec(t, dsn, schema, `GRANT `+privileges+` ON `+table+` TO `+role)
	}
	return role, ok
}

// readerRole creates a role of the test's own to grant to, where its
// user may create one (ok: it could); the role is dropped with its
// privileges at the end.
func readerRole(t *testing.T, dsn, schema string) (role string, ok bool) {
	t.Helper()
	role = schema + "_reader"
	exec(t, dsn, schema, `DO $$ BEGIN CREATE ROLE `+role+`;
		EXCEPTION WHEN insufficient_privilege THEN NULL; END $$`)
	if err := queryRow(t, dsn, schema, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, []any{role}, &ok); err != nil {
		t.Fatal(err)
	}
	if ok {
		t.Cleanup(func() {
			exec(t, dsn, schema, `DROP OWNED BY `+role)
			exec(t, dsn, schema, `DROP ROLE `+role)
		})
	}
	return role, ok
}

// TestNarrowHostsMigration: migration 0030 rebuilds hosts with narrower
// counts and its columns widest first, and keeps every row and value
// (a lease, robots, statistics, a trap, a mirror), the indexes, the
// fillfactor and the privileges granted on the table; the store then
// claims the host with URLs queued.
func TestNarrowHostsMigration(t *testing.T) {
	ctx := context.Background()
	dsn, schema := freshSchema(t)
	migrateBelow(t, dsn, schema, 30)
	role, hasRole := grantedReader(t, dsn, schema, "SELECT, UPDATE", "hosts")
	exec(t, dsn, schema, `INSERT INTO hosts (id, key, admitted, queued, top_priority, next_fetch_at, delay_ms, due) VALUES (7, 'http://a.test', 3, 2, 5, 1000, 250, true);
		INSERT INTO hosts (id, key, next_fetch_at, delay_ms, backoff, robots_status, robots_body, robots_fetched_at, robots_expires_at,
			robots_failures, admitted, queued, fetched, bytes, lease_owner, lease_session, lease_until, s2xx, s3xx, s4xx, s5xx,
			duplicates, blocked, discovered, trap, top_priority, value, value_fetched, value_pages, value_research, value_related,
			value_copies, due, mirror_of)
		VALUES (-9, 'https://b.test:8443', 9000000000000, 2147483647, 3, 200, '\x557365722d6167656e743a202a', 8000000000000, 8100000000000,
			1, 40, 0, 38, 12345678901, 'proc-1', -77, 9100000000000, 30, 4, 3, 1,
			2, 5, 17, 'calendar', -1000000000, 12, 38, 36, 20, 4, 1, false, 7)`)
	dump := func() string {
		var s string
		if err := queryRow(t, dsn, schema, `SELECT string_agg(to_jsonb(h)::text, E'\n' ORDER BY id) FROM hosts h`, nil, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := dump()
	if _, _, err := postgres.Migrate(ctx, dsn, postgres.Options{Schema: schema}); err != nil {
		t.Fatal(err)
	}
	if after := dump(); after != before {
		t.Errorf("hosts after the migration:\n%s\nbefore:\n%s", after, before)
	}
	var cols, indexes, options string
	var granted bool
	if err := queryRow(t, dsn, schema, `SELECT
		(SELECT string_agg(column_name || ' ' || data_type, ', ' ORDER BY ordinal_position)
			FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'hosts'),
		(SELECT string_agg(indexdef, E'\n' ORDER BY indexname) FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'hosts'),
		(SELECT array_to_string(reloptions, ',') FROM pg_class WHERE oid = 'hosts'::regclass),
		CASE WHEN $2 THEN has_table_privilege($1, 'hosts', 'SELECT') AND has_table_privilege($1, 'hosts', 'UPDATE') ELSE false END`,
		[]any{role, hasRole}, &cols, &indexes, &options, &granted); err != nil {
		t.Fatal(err)
	}
	if want := "id bigint, next_fetch_at bigint, bytes bigint, lease_session bigint, lease_until bigint, mirror_of bigint, " +
		"robots_fetched_at bigint, robots_expires_at bigint, delay_ms integer, backoff integer, admitted integer, queued integer, " +
		"fetched integer, top_priority integer, value integer, value_fetched integer, value_pages integer, value_research integer, " +
		"value_related integer, value_copies integer, s2xx integer, s3xx integer, s4xx integer, s5xx integer, duplicates integer, " +
		"blocked integer, discovered integer, robots_failures integer, robots_status integer, due boolean, has_queued boolean, " +
		"key text, trap text, lease_owner text, robots_body bytea"; cols != want {
		t.Errorf("columns\n%s\nwant\n%s", cols, want)
	}
	for _, want := range []string{"UNIQUE INDEX hosts_pkey ON " + schema + ".hosts USING btree (id)",
		"INDEX hosts_leased ON " + schema + ".hosts USING btree (lease_until) WHERE (lease_owner IS NOT NULL)",
		"INDEX hosts_ready ON " + schema + ".hosts USING btree (next_fetch_at, id) WHERE (has_queued AND (lease_owner IS NULL))",
		"INDEX hosts_wake ON " + schema + ".hosts USING btree (due, next_fetch_at) WHERE (has_queued AND (lease_owner IS NULL))",
		"INDEX hosts_best ON " + schema + ".hosts USING btree (((top_priority + value)) DESC, next_fetch_at, id) WHERE (has_queued AND (lease_owner IS NULL) AND due)"} {
		if !strings.Contains(indexes, want) {
			t.Errorf("indexes\n%s\nwithout %s", indexes, want)
		}
	}
	if n := strings.Count(indexes, "\n") + 1; n != 5 {
		t.Errorf("%d indexes on hosts, want 5:\n%s", n, indexes)
	}
	if options != "fillfactor=70" {
		t.Errorf("hosts' options %q, want fillfactor=70", options)
	}
	if hasRole && !granted {
		t.Errorf("%s lost its SELECT or UPDATE on hosts", role)
	}
	db := open(t, dsn, schema)
	hs, err := db.ClaimHosts(ctx, "p", 2, time.Minute, time.Unix(1_800_000_000, 0))
	if err != nil || len(hs) != 1 || hs[0].Key != "http://a.test" {
		t.Errorf("ClaimHosts after the migration = %+v, %v; want a.test, the host with URLs queued", hs, err)
	}
}
