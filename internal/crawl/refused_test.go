package crawl

import (
	"errors"
	"fmt"
	"testing"
)

func TestRefused(t *testing.T) {
	base := errors.New("constraint failed")
	err := fmt.Errorf("sqlite: commit: %w", Refused(base))
	if !errors.Is(err, ErrRefused) || !errors.Is(err, base) {
		t.Errorf("errors.Is(%v): refused %v, cause %v; want both", err, errors.Is(err, ErrRefused), errors.Is(err, base))
	}
	if err.Error() != "sqlite: commit: constraint failed" {
		t.Errorf("message %q; want the store's own", err)
	}
	if errors.Is(base, ErrRefused) || errors.Is(fmt.Errorf("x: %w", base), ErrRefused) {
		t.Error("an error not marked counts as refused")
	}
	if Refused(nil) != nil {
		t.Error("Refused(nil) is not nil")
	}
}
