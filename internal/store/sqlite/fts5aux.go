package sqlite

// FTS5 auxiliary functions written in Go, registered on a connection of
// modernc.org/sqlite through its transpiled C library: what an exact bm25
// over two full-text tables would need (each phrase's hits per column and
// the row's column sizes, per matching row; the table's row count, column
// totals and each phrase's matching rows, per query), which FTS5 hands only
// to auxiliary functions and the driver does not bind.
//
// The mechanism, and what it rests on:
//   - The connection's sqlite3* is the unexported field db of the driver's
//     *conn (the value a connection hook or sql.Conn.Raw receives); no
//     exported method returns it. connHandle finds the field by name and type
//     through reflect and checkHandle proves, before anything is registered,
//     that it is this connection's handle: a statement prepared through the
//     driver must be among the handle's statements. A driver whose layout
//     changed fails there, with an error, instead of registering on memory
//     that is not a connection.
//   - The fts5_api comes from "SELECT fts5(?1)" with the pointer bound as
//     "fts5_api_ptr" (https://sqlite.org/fts5.html#extending_fts5).
//   - A C function pointer in the transpiled library is a Go func value: the
//     address of a top-level function's static funcval, as the driver's own
//     cFuncPointer makes for its trampolines. The functions below keep no Go
//     state, so nothing has to outlive a call, and the pointers stay valid
//     for the life of the process.
//   - Calls into the library take a *libc.TLS. Registration uses its own
//     (as the driver does for sqlite3_interrupt); a callback gets the calling
//     connection's. Out-parameters live in C memory (TLS.Alloc): the Go stack
//     may move during a call.

import (
	"context"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"unsafe"

	"github.com/acrawler/acrawler/internal/postings"
	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

const (
	// ftsHitsFunc(t) is, for the current row of a full-text query on t, the
	// row's token count per column and each phrase's instances per column,
	// encoded as decodeFTSHits reads them.
	ftsHitsFunc = "acrawler_hits"
	// ftsStatsFunc(t) is t's row count, token total per column and, for each
	// phrase of the query, the number of rows it matches (a pass over the
	// phrase's postings on each call: call it on one row), encoded as
	// decodeFTSStats reads them.
	ftsStatsFunc = "acrawler_stats"
)

// registerFTS5Aux registers ftsHitsFunc and ftsStatsFunc on a connection
// modernc.org/sqlite opened: driverConn is what a sqlite.ConnectionHookFn
// or sql.Conn.Raw receives, and nothing else may use it meanwhile.
func registerFTS5Aux(ctx context.Context, driverConn any) error {
	db, err := connHandle(driverConn)
	if err != nil {
		return fmt.Errorf("sqlite: register fts5 functions: %w", err)
	}
	tls := libc.NewTLS()
	defer tls.Close()
	if err := checkHandle(ctx, tls, db, driverConn); err != nil {
		return fmt.Errorf("sqlite: register fts5 functions: %w", err)
	}
	api, err := fts5API(tls, db)
	if err != nil {
		return fmt.Errorf("sqlite: register fts5 functions: %w", err)
	}
	for _, f := range []struct {
		name string
		fn   uintptr
	}{{ftsHitsFunc, cFuncPointer(ftsHitsAux)}, {ftsStatsFunc, cFuncPointer(ftsStatsAux)}} {
		if err := createAuxFunction(tls, db, api, f.name, f.fn); err != nil {
			return fmt.Errorf("sqlite: register fts5 function %s: %w", f.name, err)
		}
	}
	return nil
}

// connHandle returns the sqlite3* of the driver's connection behind
// driverConn: its field db, found by name and type, since the driver
// exports no accessor.
func connHandle(driverConn any) (uintptr, error) {
	for {
		w, ok := driverConn.(interface{ Unwrap() driver.Conn })
		if !ok {
			break
		}
		driverConn = w.Unwrap()
	}
	v := reflect.ValueOf(driverConn)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return 0, fmt.Errorf("connection %T is not modernc.org/sqlite's", driverConn)
	}
	t := v.Elem().Type()
	if t.PkgPath() != "modernc.org/sqlite" || t.Name() != "conn" {
		return 0, fmt.Errorf("connection %T is not modernc.org/sqlite's", driverConn)
	}
	f, ok := t.FieldByName("db")
	if !ok || f.Type.Kind() != reflect.Uintptr {
		return 0, fmt.Errorf("modernc.org/sqlite's conn has no field db uintptr: its layout changed")
	}
	db := v.Elem().FieldByIndex(f.Index).Uint()
	if db == 0 {
		return 0, errors.New("connection is closed")
	}
	return uintptr(db), nil
}

// checkHandle proves db is driverConn's handle: a statement prepared
// through the driver, of a text no other connection has, must be among
// db's prepared statements.
func checkHandle(ctx context.Context, tls *libc.TLS, db uintptr, driverConn any) error {
	p, ok := driverConn.(driver.ConnPrepareContext)
	if !ok {
		return fmt.Errorf("connection %T cannot prepare", driverConn)
	}
	query := fmt.Sprintf("SELECT 'handle check %016x'", rand.Uint64())
	st, err := p.PrepareContext(ctx, query)
	if err != nil {
		return fmt.Errorf("prepare handle check: %w", err)
	}
	defer st.Close()
	for s := sqlite3.Xsqlite3_next_stmt(tls, db, 0); s != 0; s = sqlite3.Xsqlite3_next_stmt(tls, db, s) {
		if libc.GoString(sqlite3.Xsqlite3_sql(tls, s)) == query {
			return nil
		}
	}
	return errors.New("modernc.org/sqlite's conn.db is not the connection's handle: its layout changed")
}

// fts5API returns db's fts5_api*.
func fts5API(tls *libc.TLS, db uintptr) (uintptr, error) {
	zSQL, err := libc.CString("SELECT fts5(?1)")
	if err != nil {
		return 0, err
	}
	defer libc.Xfree(tls, zSQL)
	zType, err := libc.CString("fts5_api_ptr")
	if err != nil {
		return 0, err
	}
	defer libc.Xfree(tls, zType)
	out := tls.Alloc(16) // the statement, then the fts5_api*
	defer tls.Free(16)
	*cval[uintptr](out), *cval[uintptr](out + 8) = 0, 0
	if rc := sqlite3.Xsqlite3_prepare_v2(tls, db, zSQL, -1, out, 0); rc != sqlite3.SQLITE_OK {
		return 0, dbError(tls, db, "prepare fts5(?)", rc)
	}
	stmt := *cval[uintptr](out)
	defer sqlite3.Xsqlite3_finalize(tls, stmt)
	if rc := sqlite3.Xsqlite3_bind_pointer(tls, stmt, 1, out+8, zType, 0); rc != sqlite3.SQLITE_OK {
		return 0, dbError(tls, db, "bind fts5_api_ptr", rc)
	}
	if rc := sqlite3.Xsqlite3_step(tls, stmt); rc != sqlite3.SQLITE_ROW {
		return 0, dbError(tls, db, "step fts5(?)", rc)
	}
	api := *cval[uintptr](out + 8)
	if api == 0 {
		return 0, errors.New("fts5(?) gave no fts5_api")
	}
	if v := cval[sqlite3.Tfts5_api](api).FiVersion; v < 2 {
		return 0, fmt.Errorf("fts5_api version %d, want at least 2", v)
	}
	return api, nil
}

// createAuxFunction calls fts5_api.xCreateFunction, which copies the name.
func createAuxFunction(tls *libc.TLS, db, api uintptr, name string, fn uintptr) error {
	zName, err := libc.CString(name)
	if err != nil {
		return err
	}
	defer libc.Xfree(tls, zName)
	create := cfunc[func(*libc.TLS, uintptr, uintptr, uintptr, uintptr, uintptr) int32](cval[sqlite3.Tfts5_api](api).FxCreateFunction)
	if rc := create(tls, api, zName, 0, fn, 0); rc != sqlite3.SQLITE_OK {
		return dbError(tls, db, "xCreateFunction", rc)
	}
	return nil
}

func dbError(tls *libc.TLS, db uintptr, op string, rc int32) error {
	return fmt.Errorf("%s: %s (%d)", op, libc.GoString(sqlite3.Xsqlite3_errmsg(tls, db)), rc)
}

// ftsHitsAux is ftsHitsFunc, an fts5_extension_function.
func ftsHitsAux(tls *libc.TLS, pApi, pFts, pCtx uintptr, nVal int32, apVal uintptr) {
	defer recoverAux(tls, pCtx)
	api, nCol, nPhrase, ok := auxArgs(tls, pApi, pFts, pCtx, nVal, ftsHitsFunc)
	if !ok {
		return
	}
	out := tls.Alloc(16)
	defer tls.Free(16)
	var stack [64]byte
	b := binary.AppendUvarint(stack[:0], uint64(nCol))
	b = binary.AppendUvarint(b, uint64(nPhrase))
	columnSize := cfunc[func(*libc.TLS, uintptr, int32, uintptr) int32](api.FxColumnSize)
	for c := range nCol {
		if rc := columnSize(tls, pFts, c, out); rc != sqlite3.SQLITE_OK {
			sqlite3.Xsqlite3_result_error_code(tls, pCtx, rc)
			return
		}
		b = binary.AppendUvarint(b, uint64(*cval[int32](out)))
	}
	var countStack [32]uint32
	counts := countStack[:0]
	if n := int(nPhrase * nCol); n <= len(countStack) {
		counts = countStack[:n]
	} else {
		counts = make([]uint32, n)
	}
	if rc := cfunc[func(*libc.TLS, uintptr, uintptr) int32](api.FxInstCount)(tls, pFts, out); rc != sqlite3.SQLITE_OK {
		sqlite3.Xsqlite3_result_error_code(tls, pCtx, rc)
		return
	}
	inst := cfunc[func(*libc.TLS, uintptr, int32, uintptr, uintptr, uintptr) int32](api.FxInst)
	for i, n := int32(0), *cval[int32](out); i < n; i++ {
		if rc := inst(tls, pFts, i, out, out+4, out+8); rc != sqlite3.SQLITE_OK {
			sqlite3.Xsqlite3_result_error_code(tls, pCtx, rc)
			return
		}
		p, c := *cval[int32](out), *cval[int32](out + 4)
		if p >= 0 && p < nPhrase && c >= 0 && c < nCol {
			counts[p*nCol+c]++
		}
	}
	for _, n := range counts {
		b = binary.AppendUvarint(b, uint64(n))
	}
	resultBlob(tls, pCtx, b)
}

// ftsStatsAux is ftsStatsFunc, an fts5_extension_function.
func ftsStatsAux(tls *libc.TLS, pApi, pFts, pCtx uintptr, nVal int32, apVal uintptr) {
	defer recoverAux(tls, pCtx)
	api, nCol, nPhrase, ok := auxArgs(tls, pApi, pFts, pCtx, nVal, ftsStatsFunc)
	if !ok {
		return
	}
	out := tls.Alloc(8)
	defer tls.Free(8)
	var b []byte
	*cval[int64](out) = 0
	if rc := cfunc[func(*libc.TLS, uintptr, uintptr) int32](api.FxRowCount)(tls, pFts, out); rc != sqlite3.SQLITE_OK {
		sqlite3.Xsqlite3_result_error_code(tls, pCtx, rc)
		return
	}
	b = binary.AppendUvarint(b, uint64(*cval[int64](out)))
	b = binary.AppendUvarint(b, uint64(nCol))
	total := cfunc[func(*libc.TLS, uintptr, int32, uintptr) int32](api.FxColumnTotalSize)
	for c := range nCol {
		*cval[int64](out) = 0
		if rc := total(tls, pFts, c, out); rc != sqlite3.SQLITE_OK {
			sqlite3.Xsqlite3_result_error_code(tls, pCtx, rc)
			return
		}
		b = binary.AppendUvarint(b, uint64(*cval[int64](out)))
	}
	b = binary.AppendUvarint(b, uint64(nPhrase))
	query := cfunc[func(*libc.TLS, uintptr, int32, uintptr, uintptr) int32](api.FxQueryPhrase)
	for p := range nPhrase {
		*cval[int64](out) = 0
		if rc := query(tls, pFts, p, out, cFuncPointer(countRow)); rc != sqlite3.SQLITE_OK {
			sqlite3.Xsqlite3_result_error_code(tls, pCtx, rc)
			return
		}
		b = binary.AppendUvarint(b, uint64(*cval[int64](out)))
	}
	resultBlob(tls, pCtx, b)
}

// auxArgs checks that the function fn was called with the table alone and
// returns the API, the table's columns and the query's phrases.
func auxArgs(tls *libc.TLS, pApi, pFts, pCtx uintptr, nVal int32, fn string) (api *sqlite3.TFts5ExtensionApi, nCol, nPhrase int32, ok bool) {
	if nVal != 0 {
		auxError(tls, pCtx, fn+": no argument after the table")
		return nil, 0, 0, false
	}
	api = cval[sqlite3.TFts5ExtensionApi](pApi)
	nCol = cfunc[func(*libc.TLS, uintptr) int32](api.FxColumnCount)(tls, pFts)
	nPhrase = cfunc[func(*libc.TLS, uintptr) int32](api.FxPhraseCount)(tls, pFts)
	return api, nCol, nPhrase, true
}

// countRow is xQueryPhrase's callback for ftsStatsAux: one more row.
func countRow(tls *libc.TLS, pApi, pFts, pUserData uintptr) int32 {
	*cval[int64](pUserData)++
	return sqlite3.SQLITE_OK
}

func resultBlob(tls *libc.TLS, pCtx uintptr, b []byte) {
	p := tls.Alloc(len(b))
	defer tls.Free(len(b))
	copy(unsafe.Slice(cval[byte](p), len(b)), b)
	sqlite3.Xsqlite3_result_blob(tls, pCtx, p, int32(len(b)), sqlite3.SQLITE_TRANSIENT)
}

func auxError(tls *libc.TLS, pCtx uintptr, msg string) {
	z, err := libc.CString(msg)
	if err != nil {
		sqlite3.Xsqlite3_result_error_nomem(tls, pCtx)
		return
	}
	defer libc.Xfree(tls, z)
	sqlite3.Xsqlite3_result_error(tls, pCtx, z, -1)
}

// recoverAux turns a panic in a callback into the statement's error: one
// unwinding through the library's frames would leave its locks held.
func recoverAux(tls *libc.TLS, pCtx uintptr) {
	if r := recover(); r != nil {
		auxError(tls, pCtx, fmt.Sprint("fts5 auxiliary function: ", r))
	}
}

// cval is the C object of type T at p, memory the library allocated
// outside the Go heap. (Read as a pointer from p's memory: the same
// conversion, that vet does not take for a Go pointer kept as an integer.)
func cval[T any](p uintptr) *T {
	return *(**T)(unsafe.Pointer(&p))
}

// cFuncPointer is the C function pointer the transpiled library calls for
// the top-level function f (a Go func value: see the driver's function of
// the same name).
func cFuncPointer[T any](f T) uintptr {
	return *(*uintptr)(unsafe.Pointer(&f))
}

// cfunc is the Go function the library's C function pointer fp is, of
// signature T.
func cfunc[T any](fp uintptr) T {
	return *(*T)(unsafe.Pointer(&fp))
}

// ftsHits is a row's ftsHitsFunc.
type ftsHits struct {
	colSize []int // tokens per column
	hits    []int // phrase p's instances in column c at p*len(colSize)+c
}

// ftsStats is a query's ftsStatsFunc.
type ftsStats struct {
	rows       int64   // rows in the table
	colTotal   []int64 // tokens per column over the table
	phraseRows []int64 // rows each phrase matches
}

func decodeFTSHits(b []byte) (ftsHits, error) {
	r := uvarintReader{b: b}
	nCol, nPhrase := r.next(), r.next()
	if nCol > 1<<10 || nPhrase > 1<<16 {
		return ftsHits{}, fmt.Errorf("%s: %d columns, %d phrases", ftsHitsFunc, nCol, nPhrase)
	}
	h := ftsHits{colSize: make([]int, nCol), hits: make([]int, nCol*nPhrase)}
	for i := range h.colSize {
		h.colSize[i] = int(r.next())
	}
	for i := range h.hits {
		h.hits[i] = int(r.next())
	}
	return h, r.done(ftsHitsFunc)
}

func decodeFTSStats(b []byte) (ftsStats, error) {
	r := uvarintReader{b: b}
	s := ftsStats{rows: int64(r.next())}
	nCol := r.next()
	if nCol > 1<<10 {
		return ftsStats{}, fmt.Errorf("%s: %d columns", ftsStatsFunc, nCol)
	}
	s.colTotal = make([]int64, nCol)
	for i := range s.colTotal {
		s.colTotal[i] = int64(r.next())
	}
	nPhrase := r.next()
	if nPhrase > 1<<16 {
		return ftsStats{}, fmt.Errorf("%s: %d phrases", ftsStatsFunc, nPhrase)
	}
	s.phraseRows = make([]int64, nPhrase)
	for i := range s.phraseRows {
		s.phraseRows[i] = int64(r.next())
	}
	return s, r.done(ftsStatsFunc)
}

type uvarintReader struct {
	b   []byte
	err bool
}

func (r *uvarintReader) next() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *uvarintReader) done(fn string) error {
	if r.err || len(r.b) != 0 {
		return fmt.Errorf("%s: malformed value", fn)
	}
	return nil
}

// bm25 is FTS5's bm25 of one row from its hits, the query's stats and the
// column weights, as postings.BM25 computes it. Nothing in it needs the
// numbers to come from one table: rows, column totals and phrase rows over
// a split index, and a row's hits and sizes summed over its tables, give
// the one-table score.
func bm25(st ftsStats, h ftsHits, weights []float64) float64 {
	return postings.BM25(postings.Stats{Rows: st.rows, FieldTotal: st.colTotal, PhraseRows: st.phraseRows}, h.colSize, h.hits, weights)
}
