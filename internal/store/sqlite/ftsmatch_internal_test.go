package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestHitsOfLooksKeysUp: hitsOf's statement reads the keys first and looks
// each up in the full-text table's matches by key, for both tables of an
// index, never the matches first (a common word's, most of the index).
func TestHitsOfLooksKeysUp(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "plan.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, table := range []string{fullIndex.text, fullIndex.anchors, tierIndex.text, tierIndex.anchors} {
		rows, err := db.r.QueryContext(ctx, `EXPLAIN QUERY PLAN `+hitsOfSQL(table), "[1, 2]", `"a" OR "b"`)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		if len(plan) != 2 || !strings.HasPrefix(plan[0], "SCAN j") || !strings.Contains(plan[1], ":=M") {
			t.Errorf("%s: plan %q; want the keys scanned, then the table searched by key and match", table, plan)
		}
	}
}
