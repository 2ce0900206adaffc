package postgres

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/acrawler/acrawler/internal/crawl"
)

// TestRefusal: which of PostgreSQL's errors a store marks as refused (the
// crawl stops at once) and which it leaves to be retried as an outage.
func TestRefusal(t *testing.T) {
	for code, refused := range map[string]bool{
		"23514": true,  // check_violation
		"23502": true,  // not_null_violation
		"42P01": true,  // undefined_table
		"42703": true,  // undefined_column
		"22021": true,  // character_not_in_repertoire
		"54000": true,  // program_limit_exceeded
		"0A000": true,  // feature_not_supported
		"21000": true,  // cardinality_violation
		"P0001": true,  // raise_exception
		"XX001": true,  // data_corrupted
		"23505": false, // unique_violation: another process's key
		"23P01": false, // exclusion_violation
		"40001": false, // serialization_failure
		"40P01": false, // deadlock_detected
		"08006": false, // connection_failure
		"53100": false, // disk_full
		"57P01": false, // admin_shutdown
		"55P03": false, // lock_not_available
		"XX000": false, // internal_error
	} {
		err := refusal(fmt.Errorf("commit: %w", &pgconn.PgError{Code: code, Message: "m"}))
		if got := errors.Is(err, crawl.ErrRefused); got != refused {
			t.Errorf("SQLSTATE %s: refused %v, want %v", code, got, refused)
		}
	}
	for _, err := range []error{io.ErrUnexpectedEOF, errors.New("dial tcp: connection refused")} {
		if errors.Is(refusal(err), crawl.ErrRefused) {
			t.Errorf("%v counted as refused", err)
		}
	}
}
