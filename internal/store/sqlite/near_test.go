package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestNearDuplicateLookupUsesBandIndexes checks the plan of the
// near-duplicate lookup, which runs for every committed page: each band is
// one search of its covering index, with no scan and no table row read.
// A plan that scans makes a crawl quadratic in its page count.
func TestNearDuplicateLookupUsesBandIndexes(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "near.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.w.QueryContext(ctx, `EXPLAIN QUERY PLAN `+nearDupQuery, 1, 2, 3, 4, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var searches int
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		t.Log(detail)
		if strings.HasPrefix(detail, "SCAN pages") {
			t.Errorf("near-duplicate lookup scans: %s", detail)
		}
		if strings.HasPrefix(detail, "SEARCH pages USING COVERING INDEX pages_near") {
			searches++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if searches != 4 {
		t.Errorf("plan has %d covering band-index searches, want 4", searches)
	}
}
