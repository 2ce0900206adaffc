// Package pgtest gives tests a real PostgreSQL to work in: the server named
// by ACRAWLER_TEST_POSTGRES, with a fresh schema per test so that runs never
// see each other's data. Without the variable, tests skip with a message,
// unless ACRAWLER_REQUIRE_POSTGRES is set (as .ci/run sets it), in which
// case they fail: CI must never pass by skipping them.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DSN returns the test server's DSN, or skips (or fails) the test.
func DSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv("ACRAWLER_TEST_POSTGRES")
	if dsn == "" {
		if os.Getenv("ACRAWLER_REQUIRE_POSTGRES") != "" {
			tb.Fatal("ACRAWLER_REQUIRE_POSTGRES is set but ACRAWLER_TEST_POSTGRES is not: the PostgreSQL tests cannot run")
		}
		tb.Skip("ACRAWLER_TEST_POSTGRES not set: set it to a PostgreSQL DSN (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable) to run the PostgreSQL tests")
	}
	return dsn
}

// Schema creates an empty schema for one test, dropped when it ends, and
// returns the server DSN and the schema name.
func Schema(tb testing.TB) (dsn, schema string) {
	tb.Helper()
	dsn = DSN(tb)
	var b [6]byte
	rand.Read(b[:])
	schema = "acrawler_test_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		tb.Fatalf("connect to the test server: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			tb.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			tb.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return dsn, schema
}

// SchemaDSN creates a fresh schema and returns a DSN whose connections use
// it (search_path), for code that only takes a DSN, such as acrawler --db.
func SchemaDSN(tb testing.TB) string {
	tb.Helper()
	dsn, schema := Schema(tb)
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		tb.Fatalf("ACRAWLER_TEST_POSTGRES must be a postgres:// URL to add a search_path: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
