package postgres_test

import (
	"context"
	"crypto/md5"
	"encoding/binary"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/storetest"
)

// BenchmarkClaimLarge measures the claim cycle in a large frontier
// (storetest.RunClaimLarge), the URLs and hosts written straight with SQL,
// or, with ACRAWLER_BENCH_PACKED=1, staged and merged as seeds are, so
// that the URLs are packed in runs:
//
//	ACRAWLER_TEST_POSTGRES=... ACRAWLER_BENCH_FRONTIER=10000000:1000000 ACRAWLER_BENCH_OWNERS=1,4 go test -run '^$' -bench BenchmarkClaimLarge -benchtime 30000x -timeout 60m ./internal/store/postgres
func BenchmarkClaimLarge(b *testing.B) {
	storetest.RunClaimLarge(b, func(b *testing.B, urls, hosts, owners int) storetest.LargeFrontier {
		dsn, schema := freshSchema(b)
		ctx := context.Background()
		migrated := open(b, dsn, schema) // migrates the schema
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close(ctx)
		if os.Getenv("ACRAWLER_BENCH_PACKED") != "" {
			return stagedLargeFrontier(b, migrated, conn, dsn, schema, urls, hosts, owners)
		}
		for _, q := range []string{
			`SET search_path TO ` + schema,
			`SET maintenance_work_mem = '256MB'`,
			`INSERT INTO hosts (id, key, queued, admitted, top_priority, next_fetch_at, due)
			 SELECT i, 'http://h' || i || '.test', $2, $2, 9, 0, true FROM generate_series(1, $1::bigint) i`,
			// URL IDs laid out as crawl.URLID's: the host's ID in the
			// high bits (0 for these small host IDs), a hash of the URL
			// below (claimLargeURLID), so that the pages a commit
			// inserts fall where a crawl's do (pages is keyed by URL
			// ID), not in ID order.
			`INSERT INTO urls (id, url, host_id, depth, priority, state, via, discovered_at)
			 SELECT ` + claimLargeURLIDSQL(`'http://h' || h || '.test/papers/' || j || '/a-page-of-research'`, "h") + `,
			        '/papers/' || j || '/a-page-of-research', h, 1,
			        CASE WHEN j = 1 THEN 9 ELSE (h * 7919 + j * 31) % 9 END, 0, 'link', 0
			 FROM generate_series(1, $1::bigint) h, generate_series(1, $2::bigint) j`,
			`UPDATE counters SET queued = $1::bigint * $2, hosts = $1 WHERE slot = 0`,
			`ANALYZE`,
		} {
			var args []any
			if strings.Contains(q, "$1") {
				args = []any{hosts, urls / hosts}
			}
			if _, err := conn.Exec(ctx, q, args...); err != nil {
				b.Fatalf("%s: %v", q, err)
			}
		}
		// The IDs computed in SQL are those computed in Go.
		rows, err := conn.Query(ctx, `SELECT u.id, h.key || u.url, u.host_id FROM urls u JOIN hosts h ON h.id = u.host_id LIMIT 100`)
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
			var id, host crawl.ID
			var u string
			if err := rows.Scan(&id, &u, &host); err != nil {
				b.Fatal(err)
			}
			if want := claimLargeURLID(u, host); id != want {
				b.Fatalf("URL %s: ID %d, claimLargeURLID %d", u, id, want)
			}
		}
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
		return largeFrontier(b, dsn, schema, owners, claimLargeURLID)
	})
}

// largeFrontier returns the store handles of owners over the frontier in
// schema, whose URL IDs id gives.
func largeFrontier(b *testing.B, dsn, schema string, owners int, id func(string, crawl.ID) crawl.ID) storetest.LargeFrontier {
	ctx := context.Background()
	stores := make([]crawl.Store, owners)
	for w := range stores {
		db, err := postgres.Open(ctx, dsn, postgres.Options{Schema: schema, MaxConns: 2})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		stores[w] = db
	}
	wal, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { wal.Close(ctx) })
	return storetest.LargeFrontier{Stores: stores, URLID: id, Written: func() int64 {
		var v int64
		if err := wal.QueryRow(ctx, `SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint`).Scan(&v); err != nil {
			b.Fatal(err)
		}
		return v
	}, Frontier: func() int64 {
		// The URLs' tables with their indexes; the stages (offers,
		// inlinks_staged) left out.
		var v int64
		if err := wal.QueryRow(ctx, `SELECT sum(pg_total_relation_size(c.oid))::bigint
			FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = $1 AND c.relname IN ('urls', 'hosts', 'queue_runs', 'seen')`, schema).Scan(&v); err != nil {
			b.Fatal(err)
		}
		return v
	}}
}

// stagedLargeFrontier writes the frontier of BenchmarkClaimLarge through
// db's stage, host by host, and merges it: packed in runs (a host's URLs
// in one merge, so in one run), the URLs' IDs crawl's (stagedURLID).
func stagedLargeFrontier(b *testing.B, db *postgres.DB, conn *pgx.Conn, dsn, schema string, urls, hosts, owners int) storetest.LargeFrontier {
	ctx := context.Background()
	per := urls / hosts
	batch := make([]crawl.NewURL, 0, 10_000)
	flush := func() {
		if _, err := db.StageURLs(ctx, batch, crawl.Limits{}); err != nil {
			b.Fatal(err)
		}
		batch = batch[:0]
	}
	for h := 1; h <= hosts; h++ {
		for j := 1; j <= per; j++ {
			key := "http://h" + strconv.Itoa(h) + ".test"
			u := key + "/papers/" + strconv.Itoa(j) + "/a-page-of-research"
			prio := (h*7919 + j*31) % 9
			if j == 1 {
				prio = 9
			}
			batch = append(batch, crawl.NewURL{URL: u, ID: stagedURLID(u, crawl.ID(h)), Host: key, HostID: crawl.ID(h), Depth: 1,
				Priority: prio, Via: crawl.ViaLink})
			if len(batch) == cap(batch) {
				flush()
			}
		}
	}
	flush()
	if _, err := db.MergeStaged(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SET search_path TO `+schema); err != nil {
		b.Fatal(err)
	}
	var packed int64
	if err := conn.QueryRow(ctx, `SELECT coalesce(sum(cardinality(ids)), 0) FROM seen`).Scan(&packed); err != nil || packed != int64(per*hosts) {
		b.Fatalf("%d URLs packed (%v), want %d", packed, err, per*hosts)
	}
	if _, err := conn.Exec(ctx, `UPDATE hosts SET due = true; ANALYZE`); err != nil {
		b.Fatal(err)
	}
	return largeFrontier(b, dsn, schema, owners, stagedURLID)
}

// stagedURLID is the ID of URL u of host as crawl gives it to a URL of a
// host whose ID is its key's hash (crawl.URLID), with the benchmark's
// host IDs in place of those hashes.
func stagedURLID(u string, host crawl.ID) crawl.ID {
	return crawl.URLIDOf(crawl.HashID(u), host)
}

// claimLargeURLID is the ID BenchmarkClaimLarge gives URL u of host: the
// host's ID's high bits (crawl.URLHostBits), the first 52 bits of the
// URL's MD5 below, which SQL computes as well (claimLargeURLIDSQL).
func claimLargeURLID(u string, host crawl.ID) crawl.ID {
	sum := md5.Sum([]byte(u))
	return crawl.URLIDOf(crawl.ID(binary.BigEndian.Uint64(sum[:8])>>crawl.URLHostBits), host)
}

// claimLargeURLIDSQL is claimLargeURLID in SQL, of the expressions u and
// host.
func claimLargeURLIDSQL(u, host string) string {
	low := strconv.FormatInt(1<<(64-crawl.URLHostBits)-1, 10)
	return `((` + host + `) & ~` + low + `) | ('x' || substr(md5(` + u + `), 1, 13))::bit(52)::bigint`
}
