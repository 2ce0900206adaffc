package app

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/store/postgres"
	"github.com/acrawler/acrawler/internal/store/postgres/pgtest"
	"github.com/acrawler/acrawler/internal/store/sqlite"
)

func TestMigrateCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "m.db")
	out, _, err := runCmd(t, "migrate", "--db", db)
	if err != nil || !strings.Contains(out, fmt.Sprintf("from version 0 to %d", sqlite.SchemaVersion())) {
		t.Fatalf("first migrate: %v %q", err, out)
	}
	out, _, err = runCmd(t, "migrate", "--db", db)
	if err != nil || !strings.Contains(out, "nothing to do") {
		t.Fatalf("second migrate: %v %q", err, out)
	}
	pg := pgtest.SchemaDSN(t)
	t.Setenv("ACRAWLER_DB", pg)
	out, _, err = runCmd(t, "migrate")
	if err != nil || !strings.Contains(out, fmt.Sprintf("to %d", postgres.SchemaVersion())) {
		t.Fatalf("migrate on PostgreSQL via ACRAWLER_DB: %v %q", err, out)
	}
}
