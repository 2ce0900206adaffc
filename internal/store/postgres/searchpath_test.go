package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/acrawler/acrawler/internal/store/postgres/pgtest"
)

var searchPaths = []struct {
	path, want string
	ok         bool
}{
	{"physics", "physics", true},
	{"Physics, public", "physics", true},
	{"  physics_2 ,public", "physics_2", true},
	{`"Physics Lab", public`, "Physics Lab", true},
	{`"a""b"`, `a"b`, true},
	{`"a,b" , c`, "a,b", true},
	{"Ünï", "Ünï", true},
	{strings.Repeat("s", 70), strings.Repeat("s", 63), true},
	{strings.Repeat("é", 40), strings.Repeat("é", 31), true},
	{`"$user", public`, "", false},
	{`$user, public`, "", false},
	{"", "", false},
	{"  , public", "", false},
	{`"unterminated`, "", false},
	{`""`, "", false},
	{`"a" b`, "", false},
	{"a b", "", false},
	{`Ab"c, public`, `ab"c`, true}, // a quote inside an unquoted name is a character of it
}

func TestFirstSchema(t *testing.T) {
	for _, c := range searchPaths {
		got, ok := firstSchema(c.path)
		if got != c.want || ok != c.ok {
			t.Errorf("firstSchema(%q) = %q, %v; want %q, %v", c.path, got, ok, c.want, c.ok)
		}
	}
}

// TestFirstSchemaAsTheServer: the server, given each search_path whose
// first schema exists, works in the schema firstSchema reads from it, and
// refuses the settings it finds malformed.
func TestFirstSchemaAsTheServer(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var b [4]byte
	rand.Read(b[:])
	tag := hex.EncodeToString(b[:])
	for _, c := range searchPaths {
		if !c.ok {
			continue
		}
		// The same names with this run's own prefix.
		at := strings.IndexFunc(c.path, func(r rune) bool { return r != ' ' && r != '"' })
		path := c.path[:at] + "t" + tag + "_" + c.path[at:]
		want, ok := firstSchema(path)
		if !ok {
			t.Fatalf("firstSchema(%q) refused", path)
		}
		if _, err := conn.Exec(ctx, `CREATE SCHEMA `+pgx.Identifier{want}.Sanitize()); err != nil {
			t.Fatalf("create schema %q: %v", want, err)
		}
		var got string
		err := conn.QueryRow(ctx, `SELECT set_config('search_path', $1, false), current_schema()`, path).Scan(new(string), &got)
		if _, derr := conn.Exec(ctx, `RESET search_path; DROP SCHEMA `+pgx.Identifier{want}.Sanitize()); derr != nil {
			t.Fatal(derr)
		}
		if err != nil || got != want {
			t.Errorf("search_path %q: the server works in %q (%v), firstSchema says %q", path, got, err, want)
		}
	}
}

// FuzzFirstSchema: a name is never empty nor longer than the server's
// names, and a quoted name comes back as it was written.
func FuzzFirstSchema(f *testing.F) {
	for _, c := range searchPaths {
		f.Add(c.path, c.want)
	}
	f.Fuzz(func(t *testing.T, path, name string) {
		if got, ok := firstSchema(path); ok && (got == "" || len(got) > maxNameBytes || utf8.ValidString(path) && !utf8.ValidString(got)) {
			t.Fatalf("firstSchema(%q) = %q", path, got)
		}
		if name == "" || name == "$user" || len(name) > maxNameBytes || !utf8.ValidString(name) {
			return
		}
		quoted := `"` + strings.ReplaceAll(name, `"`, `""`) + `" , other`
		if got, ok := firstSchema(quoted); !ok || got != name {
			t.Fatalf("firstSchema(%q) = %q, %v; want %q", quoted, got, ok, name)
		}
	})
}
