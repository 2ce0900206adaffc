package query

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"

	"github.com/acrawler/acrawler/internal/store/postgres/pgtest"
)

// w builds a plain word term.
func w(word string) Term { return Term{Words: []string{word}} }

// ph builds a phrase term.
func ph(words ...string) Term { return Term{Words: words, Phrase: len(words) > 1} }

func not(t Term) Term    { t.Exclude = true; return t }
func prefix(t Term) Term { t.Prefix = true; return t }

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want []Term
	}{
		{"", nil},
		{"   \t\n", nil},
		{"deep learning", []Term{w("deep"), w("learning")}},
		{"Deep LEARNING", []Term{w("deep"), w("learning")}},
		{`"deep learning"`, []Term{ph("deep", "learning")}},
		{`"deep learning`, []Term{ph("deep", "learning")}},
		{`"deep"`, []Term{w("deep")}},
		{`""`, nil},
		{`"`, nil},
		{`"""`, nil},
		{`" . "`, nil},
		{`a"b c"d`, []Term{w("a"), ph("b", "c"), w("d")}},
		{"-graph", []Term{not(w("graph"))}},
		{"--graph", []Term{not(w("graph"))}},
		{`-"neural networks"`, []Term{not(ph("neural", "networks"))}},
		{`- "neural networks"`, []Term{ph("neural", "networks")}},
		{"graph*", []Term{prefix(w("graph"))}},
		{"graph**", []Term{prefix(w("graph"))}},
		{"-graph*", []Term{not(prefix(w("graph")))}},
		{`"deep learn"*`, []Term{prefix(ph("deep", "learn"))}},
		{`"deep learn."*`, []Term{ph("deep", "learn")}},
		{"graph.*", []Term{w("graph")}},
		{"*graph", []Term{w("graph")}},
		{"-", nil},
		{"*", nil},
		{"- * -* *- ---", nil},
		{"e-mail", []Term{ph("e", "mail")}},
		{"-e-mail", []Term{not(ph("e", "mail"))}},
		{"naive*bayes", []Term{ph("naive", "bayes")}},
		{"title:robert", []Term{ph("title", "robert")}},
		{"10.1000/xyz123", []Term{ph("10", "1000", "xyz123")}},
		{":", nil},
		{"AND (", []Term{w("and")}},
		{"a OR b NOT c NEAR d", []Term{w("a"), w("or"), w("b"), w("not"), w("c"), w("near"), w("d")}},
		{"NEAR(a b, 5)", []Term{ph("near", "a"), w("b"), w("5")}},
		{"'; DROP TABLE pages;--", []Term{w("drop"), w("table"), w("pages")}},
		{"Robert'); DROP TABLE students;--", []Term{w("robert"), w("drop"), w("table"), w("students")}},
		{"İSTANBUL Işık ŞEHİR", []Term{w("istanbul"), w("işık"), w("şehir")}},
		{"ışık görüş", []Term{w("ışık"), w("görüş")}},
		{"Straße CAFÉ naïve", []Term{w("straße"), w("café"), w("naïve")}},
		{"cafe\u0301", []Term{w("cafe\u0301")}},
		{"Zoë Müller ZOË", []Term{w("zoë"), w("müller")}},
		{"한국어", []Term{w("한국어")}},
		{"\u0301x", []Term{w("x")}},
		{"हैलो वर्ल्ड", []Term{w("हैलो"), w("वर्ल्ड")}},
		{"你好世界", []Term{w("你好世界")}},
		{"deep\xffnetworks", []Term{ph("deep", "networks")}},
		{"x\u00a0y", []Term{w("x"), w("y")}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			q := Parse(tt.in)
			if !reflect.DeepEqual(q.Terms, tt.want) {
				t.Errorf("Parse(%q) = %+v, want %+v", tt.in, q.Terms, tt.want)
			}
			if q.Raw != tt.in {
				t.Errorf("Parse(%q).Raw = %q", tt.in, q.Raw)
			}
		})
	}
}

// TestLexemes: Lexemes yields the words of folded text, as substrings
// of it, the words Parse reads (words), and nothing else.
func TestLexemes(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"deep learning", []string{"deep", "learning"}},
		{"/usr/bin +1-555-0100 https://x.org/a/", []string{"usr", "bin", "1", "555", "0100", "https", "x", "org", "a"}},
		{"Müller-Lüdenscheidt", []string{"muller", "ludenscheidt"}},
		{"a-\u0301b", []string{"a", "b"}},
		{"हैलो वर्ल्ड", []string{"हैलो", "वर्ल्ड"}},
		{"deep\xffnetworks ²x\ue000", []string{"deep", "networks", "²x\ue000"}},
		{"İstanbul'da ŞEHİR", []string{"istanbul", "da", "sehir"}},
	} {
		f := Fold(tt.in)
		got := slices.Collect(Lexemes(f))
		if !slices.Equal(got, tt.want) {
			t.Errorf("Lexemes(Fold(%q)) = %q, want %q", tt.in, got, tt.want)
		}
		if w := words(f); !slices.Equal(got, w) {
			t.Errorf("Lexemes(Fold(%q)) = %q, but words = %q", tt.in, got, w)
		}
	}
}

// FuzzLexemes: for any text, Lexemes yields the words of its folded form
// in order, each a substring of it at or after the end of the one before.
func FuzzLexemes(f *testing.F) {
	for _, tt := range searches {
		f.Add(tt.in)
	}
	for _, doc := range corpus {
		f.Add(doc[1])
	}
	f.Fuzz(func(t *testing.T, in string) {
		folded := Fold(in)
		got := slices.Collect(Lexemes(folded))
		if w := words(folded); !slices.Equal(got, w) {
			t.Fatalf("Lexemes(%q) = %q, but words = %q", folded, got, w)
		}
		rest := folded
		for _, l := range got {
			i := strings.Index(rest, l)
			if i < 0 {
				t.Fatalf("Lexemes(%q): %q is not in order in the text", folded, l)
			}
			rest = rest[i+len(l):]
		}
	})
}

func TestParseMaxLength(t *testing.T) {
	long := strings.Repeat("a ", MaxLength/2) + "tail"
	q := Parse(long)
	if q.Raw != long {
		t.Errorf("Parse(long).Raw changed")
	}
	if len(q.Terms) != 1 || slices.Contains(q.Positive(), "tail") {
		t.Errorf("Parse(%d bytes) read past MaxLength: %d terms", len(long), len(q.Terms))
	}
	// A rune cut by the limit is dropped, not kept as a broken byte.
	cut := strings.Repeat("x", MaxLength-1) + "ş"
	q = Parse(cut)
	if want := []Term{w(strings.Repeat("x", MaxLength-1))}; !reflect.DeepEqual(q.Terms, want) {
		t.Errorf("Parse(x…ş) = %+v, want the x run alone", q.Terms)
	}
	// A rune that ends at the limit is kept.
	whole := strings.Repeat("x", MaxLength-2) + "ş" + "tail"
	q = Parse(whole)
	if want := []Term{w(strings.Repeat("x", MaxLength-2) + "ş")}; !reflect.DeepEqual(q.Terms, want) {
		t.Errorf("Parse(x…ştail) = %+v, want the x run and ş", q.Terms)
	}
}

func TestIsEmptyPositive(t *testing.T) {
	tests := []struct {
		in       string
		empty    bool
		positive []string
	}{
		{"", true, nil},
		{"-deep", true, nil},
		{`-deep -"a b" -c*`, true, nil},
		{"deep -graph", false, []string{"deep"}},
		{`deep "deep learning" learn* -graph`, false, []string{"deep", "learning", "learn"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			q := Parse(tt.in)
			if got := q.IsEmpty(); got != tt.empty {
				t.Errorf("Parse(%q).IsEmpty() = %v, want %v", tt.in, got, tt.empty)
			}
			if got := q.Positive(); !slices.Equal(got, tt.positive) {
				t.Errorf("Parse(%q).Positive() = %q, want %q", tt.in, got, tt.positive)
			}
		})
	}
}

func TestExpressions(t *testing.T) {
	tests := []struct{ in, fts5, tsquery string }{
		{"", `""`, ``},
		{"-x", `""`, ``},
		{"deep", `"deep"`, `'deep'`},
		{`a "b c" d*`, `"a" AND "b c" AND "d"*`, `'a' & ('b' <-> 'c') & 'd':*`},
		{`a -x`, `"a" NOT "x"`, `'a' & !'x'`},
		{`a b -x -"y z"*`, `("a" AND "b") NOT ("x" OR "y z"*)`, `'a' & 'b' & !'x' & !('y' <-> 'z':*)`},
		{`"open human-computer" x.org`, `"open human computer" AND "x org"`, `('open' <-> 'human' <-> 'computer') & ('x' <-> 'org')`},
		{`/usr/bin -x.org/a/`, `"usr bin" NOT "x org a"`, `('usr' <-> 'bin') & !('x' <-> 'org' <-> 'a')`},
		{`Müller* -"İ ß"`, `"muller"* NOT "i ss"`, `'muller':* & !('i' <-> 'ss')`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			q := Parse(tt.in)
			if got := q.FTS5(); got != tt.fts5 {
				t.Errorf("Parse(%q).FTS5() = %q, want %q", tt.in, got, tt.fts5)
			}
			if got := q.TSQuery(); got != tt.tsquery {
				t.Errorf("Parse(%q).TSQuery() = %q, want %q", tt.in, got, tt.tsquery)
			}
		})
	}
	// Words never hold quotes, but the writers escape them all the same.
	q := Query{Terms: []Term{{Words: []string{`it"s`, `a'b\c`}, Phrase: true}}}
	if got, want := q.FTS5(), `"it""s a'b\c"`; got != want {
		t.Errorf("FTS5() of quoted words = %q, want %q", got, want)
	}
	if got, want := q.TSQuery(), `('it' <-> 's' <-> 'a' <-> 'b' <-> 'c')`; got != want {
		t.Errorf("TSQuery() of quoted words = %q, want %q", got, want)
	}
	if got, want := tsLexeme(`it"s a'b\c`), `'it"s a\'b\\c'`; got != want {
		t.Errorf("tsLexeme = %q, want %q", got, want)
	}
}

// corpus is the documents the backends are queried over, by row id.
var corpus = map[int][2]string{
	1: {"Deep learning for graphs", "A survey of graph neural networks and learning methods."},
	2: {"Learning deep structures", "Structures in deep networks. No graphs here."},
	3: {"İstanbul Üniversitesi yayınları", "Türkçe metin: ışık, şehir, görüş."},
	4: {"E-mail spam detection", "We detect spam in e-mail with naive Bayes; AND OR NOT NEAR are words too. Data: www.spam-lab.example.org."},
	5: {"Robert'); DROP TABLE pages;--", `SQL injection: ' OR 1=1 -- and "quotes".`},
	6: {"Shell paths", "Binaries live in /usr/bin, manuals at https://docs.example.net/man/ by phone +1-555-0100."},
}

// searches are queries over corpus with the rows both backends return.
var searches = []struct {
	in   string
	rows []int
}{
	{"deep learning", []int{1, 2}},
	{`"deep learning"`, []int{1}},
	{`"learning deep"`, []int{2}},
	{`"deep learning`, []int{1}},
	{"graph", []int{1}},
	{"graph*", []int{1, 2}},
	{"GRAPH*", []int{1, 2}},
	{`"deep learn"*`, []int{1}},
	{"deep -graph", []int{2}},
	{"deep -graph*", nil},
	{`deep -"neural networks"`, []int{2}},
	{"survey --structures", []int{1}},
	{"deep -", []int{1, 2}},
	{"-deep", nil},
	{"e-mail", []int{4}},
	{"spam -e-mail", nil},
	{"naive*bayes", []int{4}},
	{`"spam in e-mail with"`, []int{4}},
	{"www.spam-lab.example.org", []int{4}},
	{`"data www.spam-lab.example.org"`, []int{4}},
	{"AND", []int{1, 4, 5}},
	{"OR", []int{4, 5}},
	{"NEAR", []int{4}},
	{"NOT spam", []int{4}},
	{"AND (", []int{1, 4, 5}},
	{"(deep OR", nil},
	{"NEAR(spam detection)", nil},
	{`"`, nil},
	{`""`, nil},
	{"*", nil},
	{"-", nil},
	{":", nil},
	{"title:robert", nil},
	{"robert');", []int{5}},
	{"'; DROP TABLE pages;--", []int{5}},
	{"SQL'); DROP TABLE t; --", nil},
	{"1=1", []int{5}},
	{`\"quotes\"`, []int{5}},
	{"İSTANBUL", []int{3}},
	{"istanbul", []int{3}},
	{"İstanbul", []int{3}},
	{"ISTANBUL", []int{3}},
	{"ŞEHİR", []int{3}},
	{"ışık şehir", []int{3}},
	{`"üniversitesi yayınları"`, []int{3}},
	{"yayın*", []int{3}},
	// Case and diacritics are folded (Fold) on both sides.
	{"isik SEHIR gorus", []int{3}},
	{"ÜNİVERSİTESİ", []int{3}},
	{`"istanbul universitesi"`, []int{3}},
	{`"universitesi istanbul"`, nil},
	{"turkce*", []int{3}},
	{"Ｄeep", nil}, // full-width letters are not folded
	{"deep\xffnetworks", []int{2}},
	{"² -graph", nil}, // PostgreSQL finds no lexeme in "²"
	{"\"deep\xffnetworks\"", []int{2}},
	// A path, a URL or a signed number is found by its words.
	{"/usr/bin", []int{6}},
	{"/usr/bi*", []int{6}},
	{"https://docs.example.net/man/", []int{6}},
	{"+1-555-0100", []int{6}},
	{`"phone +1-555-0100."`, []int{6}},
	{"paths -/usr/bin", nil},
}

// openFTS5 returns an in-memory FTS5 table t(title, text) holding corpus.
func openFTS5(tb testing.TB) *sql.DB {
	tb.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1) // one connection: one in-memory database
	// The tokenizer of the store's index (see the SQLite migrations).
	if _, err := db.Exec(`CREATE VIRTUAL TABLE t USING fts5(title, text, tokenize = 'unicode61 remove_diacritics 0')`); err != nil {
		tb.Fatal(err)
	}
	for id, doc := range corpus {
		// Indexed through Fold, as the store indexes text.
		if _, err := db.Exec(`INSERT INTO t(rowid, title, text) VALUES (?, ?, ?)`, id, Fold(doc[0]), Fold(doc[1])); err != nil {
			tb.Fatal(err)
		}
	}
	return db
}

// matchFTS5 returns the sorted rows matching expr.
func matchFTS5(db *sql.DB, expr string) ([]int, error) {
	rows, err := db.Query(`SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid`, expr)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func TestFTS5(t *testing.T) {
	db := openFTS5(t)
	for _, tt := range searches {
		t.Run(tt.in, func(t *testing.T) {
			expr := Parse(tt.in).FTS5()
			got, err := matchFTS5(db, expr)
			if err != nil {
				t.Fatalf("MATCH %q (from %q): %v", expr, tt.in, err)
			}
			if !slices.Equal(got, tt.rows) {
				t.Errorf("MATCH %q (from %q) = rows %v, want %v", expr, tt.in, got, tt.rows)
			}
		})
	}
}

// TestFTS5Any: the rows FTS5Any matches are those that hold any one of
// the query's positive terms, each matched alone.
func TestFTS5Any(t *testing.T) {
	db := openFTS5(t)
	for _, tt := range searches {
		q := Parse(tt.in)
		var want []int
		for _, term := range q.Terms {
			if term.Exclude {
				continue
			}
			rows, err := matchFTS5(db, Query{Terms: []Term{term}}.FTS5())
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, rows...)
		}
		slices.Sort(want)
		want = slices.Compact(want)
		got, err := matchFTS5(db, q.FTS5Any())
		if err != nil {
			t.Fatalf("MATCH %q (from %q): %v", q.FTS5Any(), tt.in, err)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("MATCH %q (from %q) = rows %v, want %v", q.FTS5Any(), tt.in, got, want)
		}
	}
}

// TestLowerLikeFTS5 checks every word character that Parse lowercases:
// FTS5's tokenizer, as the store configures it, must read the character
// indexed through Fold and its lowercase alike, or a query would miss the
// documents that hold the word as typed. unicode61 folds case by Unicode
// 6's simple case folding, which leaves "İ" and the letters cased since
// then as they are: Fold must lowercase exactly those.
func TestLowerLikeFTS5(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, stmt := range []string{
		`CREATE VIRTUAL TABLE t USING fts5(text, tokenize = 'unicode61 remove_diacritics 0')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	// Row i holds the i-th character that Parse changes, folded, and what
	// Parse changes it to, each after an "a".
	var changed [][2]string
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if ws := words(string(r)); len(ws) == 1 && ws[0] != string(r) {
			changed = append(changed, [2]string{string(r), Fold(ws[0])})
		}
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range changed {
		if _, err := tx.Exec(`INSERT INTO t (rowid, text) VALUES (?, ?)`, i, "a"+Fold(c[0])+" a"+c[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tokens := make([][]string, len(changed))
	rows, err := db.Query(`SELECT doc, term FROM v ORDER BY doc, offset`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var i int
		var term string
		if err := rows.Scan(&i, &term); err != nil {
			t.Fatal(err)
		}
		tokens[i] = append(tokens[i], term)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i, c := range changed {
		if tk := tokens[i]; len(tk) != 2 || tk[0] != tk[1] {
			if bad++; bad <= 10 {
				t.Errorf("Parse lowercases %q (%U) to %q, but FTS5 reads it folded and that as %q", c[0], []rune(c[0])[0], c[1], tk)
			}
		}
	}
	if bad > 10 {
		t.Errorf("… %d characters in all", bad)
	}
}

// pgMatcher answers whether a tsquery matches a text on a real server.
type pgMatcher struct{ conn *pgx.Conn }

func connectPostgres(tb testing.TB, dsn string) pgMatcher {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		tb.Fatalf("connect to the test server: %v", err)
	}
	tb.Cleanup(func() { conn.Close(context.Background()) })
	return pgMatcher{conn}
}

// match reports whether tsq matches text, or the server's error. The
// text is indexed as the PostgreSQL store indexes it: folded, split by
// Lexemes, each word at its position.
func (m pgMatcher) match(text, tsq string) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var vec strings.Builder
	n := 0
	for l := range Lexemes(Fold(text)) {
		n++
		fmt.Fprintf(&vec, "%s:%d ", tsLexeme(l), n)
	}
	var ok bool
	// querytree(q) <> 'T' is the guard TSQuery's doc asks callers for.
	err := m.conn.QueryRow(ctx, `SELECT $1::tsvector @@ q AND querytree(q) <> 'T' FROM CAST($2 AS tsquery) AS q`,
		vec.String(), tsq).Scan(&ok)
	return ok, err
}

func TestTSQuery(t *testing.T) {
	pg := connectPostgres(t, pgtest.DSN(t))
	for _, tt := range searches {
		t.Run(tt.in, func(t *testing.T) {
			tsq := Parse(tt.in).TSQuery()
			var got []int
			for id := 1; id <= len(corpus); id++ {
				ok, err := pg.match(corpus[id][0]+"\n"+corpus[id][1], tsq)
				if err != nil {
					t.Fatalf("tsquery %q (from %q): %v", tsq, tt.in, err)
				}
				if ok {
					got = append(got, id)
				}
			}
			if !slices.Equal(got, tt.rows) {
				t.Errorf("tsquery %q (from %q) matches rows %v, want %v", tsq, tt.in, got, tt.rows)
			}
		})
	}
}

// envPostgres returns the test server's DSN, or "" without one: the fuzz
// target then checks TSQuery's syntax only.
func envPostgres() string { return os.Getenv("ACRAWLER_TEST_POSTGRES") }

// canonical writes q in the syntax Parse reads, each term quoted.
func canonical(q Query) string {
	var parts []string
	for _, t := range q.Terms {
		s := `"` + strings.Join(t.Words, " ") + `"`
		if t.Exclude {
			s = "-" + s
		}
		if t.Prefix {
			s += "*"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// FuzzParse checks, for any input:
//   - Parse answers, with non-empty lowercased words of word characters and
//     Phrase set exactly for several words;
//   - the terms written back in canonical syntax parse to the same terms;
//   - FTS5() is accepted by a real FTS5 MATCH, matches nothing when the
//     query is empty, and only rows its positive part matches;
//   - TSQuery() has balanced parentheses and quotes, and is accepted by
//     PostgreSQL when ACRAWLER_TEST_POSTGRES is set.
func FuzzParse(f *testing.F) {
	for _, tt := range searches {
		f.Add(tt.in)
	}
	f.Add(`NEAR("a" "b", 3) AND title:x OR -y* "z`)
	f.Add("\"\x00'\\\"\u0130\u0301*-")
	db := openFTS5(f)
	var pg *pgMatcher
	if dsn := envPostgres(); dsn != "" {
		m := connectPostgres(f, dsn)
		pg = &m
	}
	f.Fuzz(func(t *testing.T, in string) {
		q := Parse(in)
		for _, term := range q.Terms {
			if len(term.Words) == 0 || term.Phrase != (len(term.Words) > 1) {
				t.Fatalf("Parse(%q): bad term %+v", in, term)
			}
			for _, word := range term.Words {
				if got := words(word); len(got) != 1 || got[0] != word {
					t.Fatalf("Parse(%q): word %q is not one lowercased word (%q)", in, word, got)
				}
			}
		}
		for i := range q.Terms {
			for j := range i {
				if reflect.DeepEqual(q.Terms[i], q.Terms[j]) {
					t.Fatalf("Parse(%q): term %+v repeated", in, q.Terms[i])
				}
			}
		}
		if err := q.Check(); err != nil {
			if !errors.Is(err, ErrTooBroad) {
				t.Fatalf("Parse(%q).Check() = %v, not ErrTooBroad", in, err)
			}
		} else {
			words, prefixes := 0, 0
			for _, term := range q.Terms {
				words += len(term.Words)
				if term.Prefix {
					prefixes++
					if utf8.RuneCountInString(term.Words[len(term.Words)-1]) < MinPrefix {
						t.Fatalf("Parse(%q).Check() passed a short prefix: %+v", in, term)
					}
				}
			}
			if words > MaxWords || prefixes > MaxPrefixes {
				t.Fatalf("Parse(%q).Check() passed %d words, %d prefixes", in, words, prefixes)
			}
		}
		if c := canonical(q); len(c) <= MaxLength {
			if again := Parse(c); !reflect.DeepEqual(again.Terms, q.Terms) {
				t.Fatalf("Parse(%q) = %+v, but Parse(%q) = %+v", in, q.Terms, c, again.Terms)
			}
		}

		expr := q.FTS5()
		rows, err := matchFTS5(db, expr)
		if err != nil {
			t.Fatalf("Parse(%q).FTS5() = %q: %v", in, expr, err)
		}
		if q.IsEmpty() && len(rows) > 0 {
			t.Fatalf("Parse(%q) is empty, but FTS5 %q matches rows %v", in, expr, rows)
		}
		positive := Query{Terms: slices.DeleteFunc(slices.Clone(q.Terms), func(t Term) bool { return t.Exclude })}
		all, err := matchFTS5(db, positive.FTS5())
		if err != nil {
			t.Fatalf("FTS5 %q: %v", positive.FTS5(), err)
		}
		for _, r := range rows {
			if !slices.Contains(all, r) {
				t.Fatalf("Parse(%q): FTS5 %q matches row %d, which its positive part %q does not", in, expr, r, positive.FTS5())
			}
		}

		tsq := q.TSQuery()
		if err := balanced(tsq); err != nil {
			t.Fatalf("Parse(%q).TSQuery() = %q: %v", in, tsq, err)
		}
		if pg != nil {
			if _, err := pg.match(corpus[1][1], tsq); err != nil {
				t.Fatalf("Parse(%q).TSQuery() = %q: %v", in, tsq, err)
			}
		}
	})
}

// balanced checks that the parentheses of a tsquery balance outside quoted
// lexemes and that every quote closes.
func balanced(tsq string) error {
	depth, quoted := 0, false
	for i := 0; i < len(tsq); i++ {
		switch c := tsq[i]; {
		case quoted && c == '\\':
			i++
		case c == '\'':
			quoted = !quoted
		case !quoted && c == '(':
			depth++
		case !quoted && c == ')':
			if depth--; depth < 0 {
				return fmt.Errorf("unopened ')' at %d", i)
			}
		}
	}
	if quoted || depth != 0 {
		return fmt.Errorf("unclosed quote or parenthesis")
	}
	return nil
}

// longest are inputs of MaxLength bytes that make the largest expressions.
var longest = []string{
	strings.Repeat("a ", MaxLength/2),
	strings.Repeat("a* ", MaxLength/3),
	"a" + strings.Repeat(" -b", MaxLength/3-1),
	"a" + strings.Repeat(` -"b c"*`, MaxLength/8-1),
	`"` + strings.Repeat("a ", MaxLength/2-1),
	strings.Repeat(`"a`, MaxLength/2),
	strings.Repeat("a-", MaxLength/2),
}

func TestLongest(t *testing.T) {
	db := openFTS5(t)
	var pg *pgMatcher
	if dsn := envPostgres(); dsn != "" {
		m := connectPostgres(t, dsn)
		pg = &m
	}
	for _, in := range longest {
		t.Run(in[:16], func(t *testing.T) {
			q := Parse(in)
			if _, err := matchFTS5(db, q.FTS5()); err != nil {
				t.Errorf("Parse(%q).FTS5() = %q: %v", in, q.FTS5(), err)
			}
			if pg != nil {
				if _, err := pg.match(corpus[1][1], q.TSQuery()); err != nil {
					t.Errorf("Parse(%q).TSQuery() = %q: %v", in, q.TSQuery(), err)
				}
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	for _, in := range []string{`"deep learning" graph* -survey`, longest[3]} {
		b.Run(fmt.Sprintf("%dB", len(in)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				q := Parse(in)
				_ = q.FTS5()
				_ = q.TSQuery()
			}
		})
	}
}

func TestFold(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"plain ascii, nothing to fold", "plain ascii, nothing to fold"},
		{"Plain ASCII", "plain ascii"},
		{"café, ışık şehir", "cafe, isik sehir"},
		{"İstanbul İTÜ", "istanbul itu"},
		{"Zoë Hoffmann", "zoe hoffmann"},
		{"Müller MÜLLER Mu\u0308ller", "muller muller muller"}, // composed and decomposed
		{"Straße STRASSE ẞ", "strasse strasse ss"},
		{"ﬁnancial ﬂow oﬀ", "financial flow off"},
		{"Æsir œuvre Ø ø Đ ð Ł ħ ŧ Þ ĳ", "aesir oeuvre o o d d l h t th ij"},
		{"Ἀθῆναι Ёлка", "αθηναι елка"},
		{"हिन्दी 한국어 中文", "हिन्दी 한국어 中文"},   // other marks kept, Hangul composed
		{"Acme™ m² ½ ＡＢＣ", "acme™ m² ½ ａｂｃ"}, // compatibility forms kept
		{"\xffİ\xfe", "\ufffdi\ufffd"},       // invalid UTF-8 replaced
		{"Ꭰ ᏸ Ა", "ꭰ ᏸ ა"},                   // Cherokee, Georgian Mtavruli
		{"e\u0301\u0301x", "ex"},
	} {
		if got := Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
		folded, spans := FoldSpans(tt.in)
		if folded != Fold(tt.in) {
			t.Errorf("FoldSpans(%q) = %q, Fold %q", tt.in, folded, Fold(tt.in))
		}
		if n := len(spans); len(tt.in) > 0 && (n == 0 || spans[n-1].Orig != len(tt.in) || spans[n-1].Folded != len(folded)) {
			t.Errorf("FoldSpans(%q) spans %v do not end at %d, %d", tt.in, spans, len(tt.in), len(folded))
		}
		if again := Fold(tt.want); again != tt.want {
			t.Errorf("Fold(%q) = %q: not idempotent", tt.want, again)
		}
	}
	s := "nothing to fold: lowercase ascii"
	if got := Fold(s); unsafe.StringData(got) != unsafe.StringData(s) {
		t.Errorf("Fold(%q) made a copy", s)
	}
}

func TestUnfold(t *testing.T) {
	orig := "Şehir: İSTANBUL'da İzmir \xff ve istanbul. Zoë Hoffmann, Straße 5, ﬁnance."
	for _, tt := range []struct{ snip, want string }{
		{"sehir: \x01istanbul\x02'da izmir…", "Şehir: \x01İSTANBUL\x02'da İzmir…"},
		{"…\x01izmir\x02 \ufffd ve \x01istanbul\x02.", "…\x01İzmir\x02 \xff ve \x01istanbul\x02."},
		{"…'da \x01izmir\x02…", "…'da \x01İzmir\x02…"},
		{"\x01zoe hoffmann\x02, \x01strasse\x02 5", "\x01Zoë Hoffmann\x02, \x01Straße\x02 5"},
		{"\x01finance\x02.", "\x01ﬁnance\x02."},
		{"not a fragment", "not a fragment"},
		{"", ""},
	} {
		if got := Unfold(tt.snip, orig); got != tt.want {
			t.Errorf("Unfold(%q) = %q, want %q", tt.snip, got, tt.want)
		}
	}
	// A snippet of text Fold leaves as it is is returned as it is.
	if got := Unfold("a \x01b\x02", "a b"); got != "a \x01b\x02" {
		t.Errorf("Unfold of unfolded text = %q", got)
	}
}

// FuzzFold: Fold is idempotent, FoldSpans agrees with it and its spans
// cover the text in order, and Unfold of a marked fragment gives back the
// original's text with the same markers.
func FuzzFold(f *testing.F) {
	for _, s := range []string{"Zoë Hoffmann", "İstanbul", "Straße ﬁ", "e\u0301\u0301", "한국어 हिन्दी", "\xff\u0301a"} {
		f.Add(s, 0, 3)
	}
	f.Fuzz(func(t *testing.T, s string, a, n int) {
		folded := Fold(s)
		if again := Fold(folded); again != folded {
			t.Fatalf("Fold(%q) = %q, Fold of that %q", s, folded, again)
		}
		fs, spans := FoldSpans(s)
		if fs != folded {
			t.Fatalf("FoldSpans(%q) = %q, Fold %q", s, fs, folded)
		}
		po, pf := 0, 0
		for _, sp := range spans {
			if sp.Orig <= po || sp.Folded < pf {
				t.Fatalf("FoldSpans(%q): spans %v out of order", s, spans)
			}
			if Fold(s[po:sp.Orig]) != folded[pf:sp.Folded] {
				t.Fatalf("FoldSpans(%q): span %q folds to %q, not %q", s, s[po:sp.Orig], Fold(s[po:sp.Orig]), folded[pf:sp.Folded])
			}
			po, pf = sp.Orig, sp.Folded
		}
		if po != len(s) || pf != len(folded) {
			t.Fatalf("FoldSpans(%q): spans end at %d, %d", s, po, pf)
		}
		// Mark a span-aligned fragment of the folded text.
		if len(spans) == 0 || strings.ContainsAny(s, "\x01\x02…") {
			return
		}
		a = (a%len(spans) + len(spans)) % len(spans)
		n = a + (n%len(spans)+len(spans))%(len(spans)-a)
		fa, fb := 0, spans[n].Folded
		oa, ob := 0, spans[n].Orig
		if a > 0 {
			fa, oa = spans[a-1].Folded, spans[a-1].Orig
		}
		snip := "\x01" + folded[fa:fb] + "\x02"
		got := Unfold(snip, s)
		// Spaces may differ (a mark that follows a space folds with it);
		// the stores collapse them.
		collapse := func(s string) string { return strings.Join(strings.Fields(s), " ") }
		if plain := strings.NewReplacer("\x01", "", "\x02", "").Replace(got); folded[fa:fb] != "" && !strings.Contains(collapse(s), collapse(plain)) {
			t.Fatalf("Unfold(%q, %q) = %q, not text of the original", snip, s, got)
		}
		if folded != s && strings.Index(folded, folded[fa:fb]) == fa && folded[fa:fb] != "" {
			inner, ok := strings.CutPrefix(got, "\x01")
			if inner, ok2 := strings.CutSuffix(inner, "\x02"); !ok || !ok2 || collapse(Fold(inner)) != collapse(folded[fa:fb]) || !strings.Contains(collapse(s[oa:ob]), collapse(inner)) {
				t.Fatalf("Unfold(%q, %q) = %q, want the marked text of %q", snip, s, got, s[oa:ob])
			}
		}
	})
}

// BenchmarkFold: what indexing a 20 KB text through Fold costs, in English
// (a capital in every sentence), in lowercase ASCII (returned as it is)
// and in Turkish (a capital İ in every sentence).
func BenchmarkFold(b *testing.B) {
	for _, tc := range []struct{ name, sentence string }{
		{"english", "We study how a polite crawler schedules hosts and spends its budget. "},
		{"lower", "we study how a polite crawler schedules hosts and spends its budget. "},
		{"turkish", "İstanbul'da odaklı tarama yöntemleri üzerine bir araştırma yaptık. "},
	} {
		text := strings.Repeat(tc.sentence, 20_000/len(tc.sentence))
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				Fold(text)
			}
		})
	}
}

// BenchmarkLexemes: what splitting a folded 20 KB text into its words
// costs, in English and in Turkish (the index's documents are split so):
//
//	go test -run '^$' -bench BenchmarkLexemes ./internal/query
func BenchmarkLexemes(b *testing.B) {
	for _, tc := range []struct{ name, sentence string }{
		{"english", "We study how a polite crawler schedules hosts and spends its budget (2024, p. 12). "},
		{"turkish", "İstanbul'da odaklı tarama yöntemleri üzerine bir araştırma yaptık. "},
	} {
		text := Fold(strings.Repeat(tc.sentence, 20_000/len(tc.sentence)))
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				for range Lexemes(text) {
				}
			}
		})
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"learning", true},
		{"re*", true},
		{"r*", false},
		{"-r*", false},
		{`"deep r"*`, false},
		{`"deep re"*`, true},
		{strings.Repeat("r* ", 160), false},
		{strings.Repeat("rea* ", 100), true}, // one term once repeats are merged
		{"ab* cd* ef* gh* ij*", true},
		{"abc* cde* efg* ghi* ijk* klm*", false},
		{"a* cd*", false},
		{strings.Repeat("a ", 5) + strings.Repeat("b ", 5), true},
		{strings.TrimSpace(strings.Repeat("w ", MaxWords)), true},
		{func() string {
			var ws []string
			for i := range MaxWords + 1 {
				ws = append(ws, fmt.Sprintf("w%d", i))
			}
			return strings.Join(ws, " ")
		}(), false},
		{`"` + strings.Repeat("x ", MaxWords+1) + `"`, false}, // a phrase of many words
		{"中文*", true},
	} {
		err := Parse(tc.in).Check()
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, ErrTooBroad) {
			t.Errorf("Parse(%q).Check() = %v, want ok %v", tc.in, err, tc.ok)
		}
	}
}

func TestParseMergesRepeatedTerms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"r* r* r*", 1},
		{"a a -a -a", 2},
		{`"a b" "a b" a b`, 3},
		{"a* a", 2},
		{"e-mail e.mail", 1}, // the same words
		{"A a", 1},
	} {
		if got := len(Parse(tc.in).Terms); got != tc.want {
			t.Errorf("Parse(%q) has %d terms, want %d", tc.in, got, tc.want)
		}
	}
}
