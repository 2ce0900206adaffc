package postgres

import (
	"embed"

	"github.com/acrawler/acrawler/internal/store/migrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrations are the schema steps of a database, applied by package
// migrate's runner (which explains why the two stores number them apart).
var migrations = migrate.MustLoad(migrationFS, "migrations")

// SchemaVersion is the newest schema this build knows.
func SchemaVersion() int { return migrations.Latest() }
