package api_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/works"
)

// jsonShape lists the JSON names of a type's fields, and of the fields of
// the structs it holds, as "name" and "name.inner".
func jsonShape(t reflect.Type, prefix string) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		out = append(out, prefix+name+":"+kindOf(f.Type))
		out = append(out, jsonShape(f.Type, prefix+name+".")...)
	}
	slices.Sort(out)
	return out
}

// kindOf names a field's JSON kind: a named string type is a string.
func kindOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Map, reflect.Pointer:
		return t.Kind().String() + " of " + kindOf(t.Elem())
	}
	return t.Kind().String()
}

// The API reads the record package works writes (works.Work, kept as
// JSON by the stores) as crawl.Work: the domain type and the pure leaf may
// not import each other, so the two must keep one JSON shape.
func TestWorkTypesShareTheirJSON(t *testing.T) {
	written, read := jsonShape(reflect.TypeFor[works.Work](), ""), jsonShape(reflect.TypeFor[crawl.Work](), "")
	if len(written) < 25 {
		t.Fatalf("works.Work has %d JSON fields: %v", len(written), written)
	}
	if !slices.Equal(written, read) {
		t.Errorf("works.Work and crawl.Work differ in JSON:\nworks: %v\ncrawl: %v", written, read)
	}
}
