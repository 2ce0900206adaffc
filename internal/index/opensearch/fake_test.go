package opensearch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/index/indextest"
	"github.com/acrawler/acrawler/internal/query"
)

// TestIndexConformance runs the index conformance suite on a client of
// fakeIndex, which folds the text fields when the mapping says they are
// analyzed with asciifolding.
func TestIndexConformance(t *testing.T) {
	indextest.Run(t, indextest.Features{Folding: mappingFolds(t)}, func(t *testing.T) crawl.Index {
		f := &fakeIndex{docs: map[string]source{}, fold: mappingFolds(t)}
		srv := httptest.NewServer(f)
		t.Cleanup(srv.Close)
		cl, err := New(Config{URL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cl.Close() })
		if err := cl.EnsureIndex(ctx(t)); err != nil {
			t.Fatal(err)
		}
		return cl
	})
}

// fakeIndex is one OpenSearch index in memory, served over HTTP, that
// answers the requests Client sends (create, _bulk, _search) as a
// cluster with mapping.json does, within limits: the standard analyzer
// is read as lowercased runs of letters and digits, and the .en and .tr
// sub-fields as the field itself (no stemming, no stop words, no
// folding); a score is the sum of field boosts times occurrences, plus
// the rank_feature boost; the highlighter marks every occurrence of a
// positive word (or prefix) in a fragment around the first one.
type fakeIndex struct {
	mu   sync.Mutex
	docs map[string]source
	fold bool // the text fields' analyzer folds (asciifolding), read as query.Fold
}

// mappingFolds reports whether mapping.json analyzes title, text and
// anchors with an analyzer that ends with asciifolding.
func mappingFolds(t *testing.T) bool {
	t.Helper()
	var m struct {
		Settings struct {
			Analysis struct {
				Analyzer map[string]struct {
					Filter []string `json:"filter"`
				} `json:"analyzer"`
			} `json:"analysis"`
		} `json:"settings"`
		Mappings struct {
			Properties map[string]struct {
				Analyzer string `json:"analyzer"`
			} `json:"properties"`
		} `json:"mappings"`
	}
	if err := json.Unmarshal(mapping, &m); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"title", "text", "anchors"} {
		a := m.Settings.Analysis.Analyzer[m.Mappings.Properties[f].Analyzer]
		if !slices.Contains(a.Filter, "asciifolding") {
			return false
		}
	}
	return true
}

func (f *fakeIndex) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	f.mu.Lock()
	defer f.mu.Unlock()
	var out any
	switch {
	case r.Method == http.MethodHead:
		return // the index exists
	case r.Method == http.MethodPut:
		out = map[string]any{"acknowledged": true}
	case strings.HasSuffix(r.URL.Path, "/_bulk"):
		out = f.bulk(body)
	case strings.HasSuffix(r.URL.Path, "/_search"):
		var req map[string]any
		if err := json.Unmarshal(body, &req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"type":"parsing_exception","reason":"bad body"},"status":400}`)
			return
		}
		out = f.search(req)
	default:
		w.WriteHeader(http.StatusNotFound)
		return
	}
	json.NewEncoder(w).Encode(out)
}

func (f *fakeIndex) bulk(body []byte) any {
	var items []any
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var a bulkAction
		if json.Unmarshal(sc.Bytes(), &a) != nil {
			continue
		}
		switch {
		case a.Index != nil:
			var s source
			if !sc.Scan() || json.Unmarshal(sc.Bytes(), &s) != nil {
				items = append(items, map[string]any{"index": map[string]any{"_id": a.Index.ID, "status": 400,
					"error": map[string]any{"type": "mapper_parsing_exception", "reason": "failed to parse"}}})
				continue
			}
			f.docs[a.Index.ID] = s
			items = append(items, map[string]any{"index": map[string]any{"_id": a.Index.ID, "status": 201, "result": "created"}})
		case a.Delete != nil:
			status, result := 200, "deleted"
			if _, ok := f.docs[a.Delete.ID]; !ok {
				status, result = 404, "not_found"
			}
			delete(f.docs, a.Delete.ID)
			items = append(items, map[string]any{"delete": map[string]any{"_id": a.Delete.ID, "status": status, "result": result}})
		}
	}
	return map[string]any{"took": 1, "errors": false, "items": items}
}

// token is a word of a field: its lowercased text and byte range.
type token struct {
	text       string
	start, end int
}

// analyze splits s as the fake's standard analyzer does, folding the
// words when fold is set.
func (f *fakeIndex) analyze(s string) []token {
	toks := analyze(s)
	if f.fold {
		for i := range toks {
			toks[i].text = query.Fold(toks[i].text)
		}
	}
	return toks
}

// analyze splits s into lowercased runs of letters and digits.
func analyze(s string) []token {
	var out []token
	start := -1
	for i, r := range s + " " {
		word := unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			out = append(out, token{strings.ToLower(s[start:i]), start, i})
			start = -1
		}
	}
	return out
}

// fakeClause is a multi_match clause.
type fakeClause struct {
	typ    string
	words  []string
	fields map[string]float64 // base field → summed boost
}

func (f *fakeIndex) clauseOf(v any) fakeClause {
	mm, _ := at1(v, "multi_match").(map[string]any)
	c := fakeClause{typ: "most_fields", fields: map[string]float64{}}
	if t, ok := mm["type"].(string); ok {
		c.typ = t
	}
	q, _ := mm["query"].(string)
	for _, tk := range f.analyze(q) {
		c.words = append(c.words, tk.text)
	}
	fields, _ := mm["fields"].([]any)
	for _, fv := range fields {
		name, _ := fv.(string)
		boost := 1.0
		if i := strings.IndexByte(name, '^'); i >= 0 {
			json.Unmarshal([]byte(name[i+1:]), &boost)
			name = name[:i]
		}
		name, _, _ = strings.Cut(name, ".")
		c.fields[name] += boost
	}
	return c
}

func at1(v any, key string) any {
	m, _ := v.(map[string]any)
	return m[key]
}

// fieldTokens returns the tokens of a document's text fields.
func (f *fakeIndex) fieldTokens(s source) map[string][]token {
	return map[string][]token{"title": f.analyze(s.Title), "text": f.analyze(s.Text), "anchors": f.analyze(strings.Join(s.Anchors, " "))}
}

// score returns how a clause matches a field's tokens: the occurrences
// of its words (any word for most_fields, the whole phrase otherwise).
func (c fakeClause) occurrences(toks []token) int {
	if len(c.words) == 0 {
		return 0
	}
	n := 0
	if c.typ == "most_fields" {
		for _, t := range toks {
			for _, w := range c.words {
				if t.text == w {
					n++
				}
			}
		}
		return n
	}
	for i := 0; i+len(c.words) <= len(toks); i++ {
		ok := true
		for j, w := range c.words {
			t := toks[i+j].text
			last := j == len(c.words)-1
			if !(t == w || last && c.typ == "phrase_prefix" && strings.HasPrefix(t, w)) {
				ok = false
				break
			}
		}
		if ok {
			n++
		}
	}
	return n
}

func (c fakeClause) score(toks map[string][]token) float64 {
	s := 0.0
	for f, boost := range c.fields {
		if n := c.occurrences(toks[f]); n > 0 {
			s += boost * (1 + math.Log(float64(n)))
		}
	}
	return s
}

// marks reports whether a token is a word of one of the clauses.
func marks(cs []fakeClause, t string) bool {
	for _, c := range cs {
		for i, w := range c.words {
			if t == w || c.typ == "phrase_prefix" && i == len(c.words)-1 && strings.HasPrefix(t, w) {
				return true
			}
		}
	}
	return false
}

// fakeEscape is the html encoder's escaping.
var fakeEscape = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;", "/", "&#x2F;")

// highlight returns s[from:to] escaped with the marked tokens in <mark>.
func highlight(s string, toks []token, cs []fakeClause, from, to int) string {
	var b strings.Builder
	pos := from
	for _, t := range toks {
		if t.start < from || t.end > to || !marks(cs, t.text) {
			continue
		}
		b.WriteString(fakeEscape.Replace(s[pos:t.start]))
		b.WriteString("<mark>" + fakeEscape.Replace(s[t.start:t.end]) + "</mark>")
		pos = t.end
	}
	b.WriteString(fakeEscape.Replace(s[pos:to]))
	return b.String()
}

func (f *fakeIndex) search(req map[string]any) any {
	boolQ, _ := at1(at1(req, "query"), "bool").(map[string]any)
	var must, mustNot []fakeClause
	for _, v := range asList(boolQ["must"]) {
		must = append(must, f.clauseOf(v))
	}
	for _, v := range asList(boolQ["must_not"]) {
		mustNot = append(mustNot, f.clauseOf(v))
	}
	type hit struct {
		id    string
		score float64
		s     source
	}
	var hits []hit
	for id, s := range f.docs {
		toks := f.fieldTokens(s)
		score, ok := 0.0, true
		for _, c := range must {
			sc := c.score(toks)
			ok = ok && sc > 0
			score += sc
		}
		for _, c := range mustNot {
			ok = ok && c.score(toks) == 0
		}
		for _, fl := range asList(boolQ["filter"]) {
			ok = ok && f.filter(fl, s)
		}
		if !ok {
			continue
		}
		for _, sh := range asList(boolQ["should"]) {
			if rf, _ := at1(sh, "rank_feature").(map[string]any); rf != nil && s.PageRank > 0 {
				boost, _ := rf["boost"].(float64)
				score += boost * s.PageRank / (s.PageRank + 1)
			}
		}
		hits = append(hits, hit{id, score, s})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].id < hits[j].id
	})
	aggs := map[string]any{}
	for name, a := range asMap(req["aggs"]) {
		terms := asMap(at1(a, "terms"))
		field, _ := terms["field"].(string)
		size, _ := terms["size"].(float64)
		counts := map[any]int{}
		for _, h := range hits {
			switch field {
			case "host":
				counts[strings.ToLower(h.s.Host)]++
			case "type":
				if h.s.Type != "" {
					counts[h.s.Type]++
				}
			case "year":
				if h.s.Year != 0 {
					counts[h.s.Year]++
				}
			}
		}
		type bucket struct {
			Key      any `json:"key"`
			DocCount int `json:"doc_count"`
		}
		var bs []bucket
		for k, n := range counts {
			bs = append(bs, bucket{k, n})
		}
		sort.Slice(bs, func(i, j int) bool {
			if bs[i].DocCount != bs[j].DocCount {
				return bs[i].DocCount > bs[j].DocCount
			}
			ki, _ := json.Marshal(bs[i].Key)
			kj, _ := json.Marshal(bs[j].Key)
			return string(ki) < string(kj)
		})
		bs = bs[:min(len(bs), int(size))]
		aggs[name] = map[string]any{"buckets": bs}
	}
	from, _ := req["from"].(float64)
	size, _ := req["size"].(float64)
	total := len(hits)
	hits = hits[min(len(hits), int(from)):]
	hits = hits[:min(len(hits), int(size))]
	var hl []fakeClause
	for _, v := range asList(at1(at1(at1(req, "highlight"), "highlight_query"), "bool").(map[string]any)["should"]) {
		hl = append(hl, f.clauseOf(v))
	}
	var out []any
	for _, h := range hits {
		src := h.s
		src.Text, src.Anchors = "", nil // _source excludes
		highlights := map[string][]string{}
		if toks := f.analyze(h.s.Title); slicesAny(toks, hl) {
			highlights["title"] = []string{highlight(h.s.Title, toks, hl, 0, len(h.s.Title))}
		}
		if text := h.s.Text; text != "" {
			toks := f.analyze(text)
			from, to := 0, min(len(text), snippetSize)
			for _, t := range toks {
				if marks(hl, t.text) {
					from = max(0, t.start-snippetSize/4)
					to = min(len(text), from+snippetSize)
					break
				}
			}
			from, to = wordStart(text, from), wordEnd(text, to)
			highlights["text"] = []string{highlight(text, toks, hl, from, to)}
		}
		out = append(out, map[string]any{"_id": h.id, "_score": h.score, "_source": src, "highlight": highlights})
	}
	return map[string]any{
		"took":         1,
		"hits":         map[string]any{"total": map[string]any{"value": total, "relation": "eq"}, "hits": out},
		"aggregations": aggs,
	}
}

func slicesAny(toks []token, cs []fakeClause) bool {
	for _, t := range toks {
		if marks(cs, t.text) {
			return true
		}
	}
	return false
}

// wordStart moves i back to the start of its word; wordEnd moves i on to
// the end of its word.
func wordStart(s string, i int) int {
	for i > 0 && s[i-1] != ' ' {
		i--
	}
	return i
}

func wordEnd(s string, i int) int {
	for i < len(s) && s[i] != ' ' {
		i++
	}
	return i
}

func (f *fakeIndex) filter(v any, s source) bool {
	if term := asMap(at1(v, "term")); term != nil {
		for field, want := range term {
			w, _ := want.(string)
			switch field {
			case "host":
				return strings.EqualFold(s.Host, w)
			case "lang":
				return strings.EqualFold(s.Lang, w)
			case "type":
				return s.Type == w
			}
			return false
		}
	}
	if rng := asMap(at1(at1(v, "range"), "year")); rng != nil {
		y := float64(s.Year)
		if s.Year == 0 {
			return false // no value: no range matches
		}
		if gte, ok := rng["gte"].(float64); ok && y < gte {
			return false
		}
		if lte, ok := rng["lte"].(float64); ok && y > lte {
			return false
		}
		return true
	}
	return false
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
