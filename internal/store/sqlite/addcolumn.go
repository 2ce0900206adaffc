package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
)

// addColumnIfNotExists matches a statement "ALTER TABLE t ADD COLUMN IF
// NOT EXISTS c ...;" at the start of a line: PostgreSQL's syntax, which
// SQLite lacks.
var addColumnIfNotExists = regexp.MustCompile(`(?im)^[ \t]*ALTER\s+TABLE\s+(\w+)\s+ADD\s+COLUMN\s+IF\s+NOT\s+EXISTS\s+(\w+)([^;]*);`)

// addColumns gives a migration's SQL SQLite can run: each "ADD COLUMN IF
// NOT EXISTS" becomes a plain ADD COLUMN when the table lacks the column
// and is left out when it has it, so that a migration that adds columns
// can run again over a database that has them (as PostgreSQL's runs), as
// every migration must: tests make a database older by lowering its
// version.
func addColumns(ctx context.Context, tx *sql.Tx, migration string) (string, error) {
	var err error
	out := addColumnIfNotExists.ReplaceAllStringFunc(migration, func(stmt string) string {
		m := addColumnIfNotExists.FindStringSubmatch(stmt)
		var n int
		if qerr := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info(?) WHERE name = ?`, m[1], m[2]).Scan(&n); qerr != nil {
			err = fmt.Errorf("columns of %s: %w", m[1], qerr)
			return stmt
		}
		if n > 0 {
			return ""
		}
		return "ALTER TABLE " + m[1] + " ADD COLUMN " + m[2] + m[3] + ";"
	})
	return out, err
}
