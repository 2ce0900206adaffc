package report

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
)

// store serves Build the rows it reads: all of Store.
type store struct {
	metrics []crawl.Metrics
	hosts   []crawl.HostStats
}

func (s store) Counters(context.Context) (crawl.Counters, error) { return crawl.Counters{}, nil }
func (s store) Metrics(context.Context, time.Time) ([]crawl.Metrics, error) {
	return s.metrics, nil
}
func (s store) HostStats(context.Context, int) ([]crawl.HostStats, error)      { return s.hosts, nil }
func (s store) Runs(context.Context) ([]crawl.RunStats, error)                 { return nil, nil }
func (s store) ChangeStats(context.Context) ([]crawl.ChangeStat, error)        { return nil, nil }
func (s store) SourceErrors(context.Context, int) ([]crawl.SourceError, error) { return nil, nil }

func build(t *testing.T, s store) *Report {
	t.Helper()
	r, err := Build(context.Background(), s, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatalf("report does not encode: %v", err)
	}
	return r
}

// Sitemap entries reach the frontier (as new or known URLs) without being
// counted among the links offered by pages, so Known can exceed Discovered:
// the duplicate rate must stay a share (at most 1) and must not read 0 when
// URLs were offered again.
func TestDuplicateRateIsAShare(t *testing.T) {
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		m    crawl.Metrics
		want float64
	}{
		{"page links", crawl.Metrics{Fetched: 10, Discovered: 100, New: 30, Known: 60}, 0.6},
		{"sitemaps only", crawl.Metrics{Fetched: 2, Discovered: 0, New: 300, Known: 100}, 0.25},
		{"sitemap overlap", crawl.Metrics{Fetched: 5, Discovered: 10, New: 50, Known: 150}, 0.75},
	} {
		tc.m.At, tc.m.Owner, tc.m.Interval = at, "p", 10*time.Second
		f := build(t, store{metrics: []crawl.Metrics{tc.m}}).Figures
		if f.DuplicateRate != tc.want {
			t.Errorf("%s: duplicate rate = %v, want %v", tc.name, f.DuplicateRate, tc.want)
		}
	}
}

// Processes record every interval at their own offsets; the series sums
// one round of all processes into one point rather than showing each
// process's part as if it were the whole crawl's.
func TestSeriesSumsProcesses(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	row := func(owner string, at time.Duration, fetched, newURLs int64) crawl.Metrics {
		return crawl.Metrics{At: t0.Add(at), Owner: owner, Interval: 10 * time.Second, Fetched: fetched, New: newURLs,
			Frontier: 1000}
	}
	ms := []crawl.Metrics{
		row("a", 3*time.Second, 100, 100), row("b", 7*time.Second, 20, 0),
		row("a", 13*time.Second, 100, 100), row("b", 17*time.Second, 20, 0),
		row("a", 23*time.Second, 100, 100), row("b", 27*time.Second, 20, 0),
		// A later run, an hour on: its own point.
		row("a", time.Hour, 50, 10),
	}
	r := build(t, store{metrics: ms})
	if len(r.Series) != 4 {
		t.Fatalf("series has %d points, want 4 (3 rounds of 2 processes, then 1): %+v", len(r.Series), r.Series)
	}
	for i, iv := range r.Series[:3] {
		if iv.Fetched != 120 || iv.New != 100 {
			t.Errorf("point %d: %d fetched, %d new; want 120, 100 (both processes)", i, iv.Fetched, iv.New)
		}
		if want := t0.Add(time.Duration(7+10*i) * time.Second); !iv.At.Equal(want) {
			t.Errorf("point %d at %v, want %v (the end of the round)", i, iv.At, want)
		}
	}
	if iv := r.Series[3]; iv.Fetched != 50 || !iv.At.Equal(t0.Add(time.Hour)) {
		t.Errorf("last point = %+v, want the later run's row alone", iv)
	}
	if f := r.Figures; f.RecentDiscovery != 0.2 {
		t.Errorf("recent discovery = %v, want 0.2", f.RecentDiscovery)
	}
}

// A new crawl (no interval recorded, no host) gives empty lists, not null,
// as source_errors already does.
func TestEmptyCrawlListsAreEmpty(t *testing.T) {
	b, err := json.Marshal(build(t, store{}))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"series", "hosts", "trap_suspects", "source_errors"} {
		if string(got[k]) != "[]" {
			t.Errorf("%s = %s, want []", k, got[k])
		}
	}
}

func TestValueReason(t *testing.T) {
	tests := []struct {
		value                            int
		pages, research, related, copies int64
		want                             string
	}{
		{0, 0, 0, 0, 0, ""},
		{12, 40, 30, 4, 0, "mostly research: 30 of its last 40 pages research, 4 people or publication lists, 0 copies of other hosts' pages, 0 to 3 citing research on other hosts"},
		{-19, 20, 0, 1, 15, "mostly copies of other hosts' pages: 0 of its last 20 pages research, 1 people or publication lists, 15 copies of other hosts' pages, 0 to 1 citing research on other hosts"},
		{-5, 30, 0, 0, 0, "no research: 0 of its last 30 pages research, 0 people or publication lists, 0 copies of other hosts' pages, 0 citing research on other hosts"},
		{3, 40, 14, 10, 0, "research above the expected quarter: 14 of its last 40 pages research, 10 people or publication lists, 0 copies of other hosts' pages, 0 citing research on other hosts"},
		{-2, 40, 4, 6, 2, "little research: 4 of its last 40 pages research, 6 people or publication lists, 2 copies of other hosts' pages, 0 to 2 citing research on other hosts"},
		// A blog: (12·3 − 6·4) / 8 = 1 from three citing pages of four,
		// and 2 from 28 to 30 of 40 ((12·28 − 6·40) / 44 = 2.2).
		{1, 4, 0, 0, 0, "cites research on other hosts: 0 of its last 4 pages research, 0 people or publication lists, 0 copies of other hosts' pages, 3 citing research on other hosts"},
		{2, 40, 0, 0, 0, "cites research on other hosts: 0 of its last 40 pages research, 0 people or publication lists, 0 copies of other hosts' pages, 28 to 30 citing research on other hosts"},
	}
	for _, tt := range tests {
		if got := ValueReason(tt.value, tt.pages, tt.research, tt.related, tt.copies); got != tt.want {
			t.Errorf("ValueReason(%d, %d, %d, %d, %d) = %q, want %q", tt.value, tt.pages, tt.research, tt.related, tt.copies, got, tt.want)
		}
	}
}

// Each host row carries the value the store learned for the host and why;
// a host not valued yet has no reason.
func TestHostRowsCarryValues(t *testing.T) {
	r := build(t, store{hosts: []crawl.HostStats{
		{Key: "http://a.test", Fetched: 10, Value: 12, ValuePages: 10, ValueResearch: 8, ValueRelated: 1},
		{Key: "http://m.test", Fetched: 6, Value: -20, ValuePages: 6, ValueCopies: 5},
		{Key: "http://c.test", Fetched: 5, Value: crawl.MirrorValue, ValuePages: 4, ValueResearch: 3, MirrorOf: "http://a.test"},
		{Key: "http://new.test"},
	}})
	want := []struct {
		value  int
		reason string
	}{
		{12, ValueReason(12, 10, 8, 1, 0)},
		{-20, ValueReason(-20, 6, 0, 0, 5)},
		// A mirror is worth crawl.MirrorValue at most, whatever it was
		// learned to be worth, and its reason names its original.
		{crawl.MirrorValue, "mirror of http://a.test: its pages are copies of that host's, worth at most -22; 3 of its last 4 pages research, 0 people or publication lists, 0 copies of other hosts' pages"},
		{0, ""},
	}
	if len(r.Hosts) != len(want) {
		t.Fatalf("%d host rows, want %d", len(r.Hosts), len(want))
	}
	for i, w := range want {
		if h := r.Hosts[i]; h.Value != w.value || h.ValueReason != w.reason {
			t.Errorf("%s: value %d (%q), want %d (%q)", h.Host, h.Value, h.ValueReason, w.value, w.reason)
		}
	}
	if r.Hosts[0].ValueReason == "" || r.Hosts[1].ValueReason == "" {
		t.Errorf("valued hosts without a reason: %+v", r.Hosts[:2])
	}
	if h := r.Hosts[2]; h.MirrorOf != "http://a.test" || !strings.HasPrefix(h.ValueReason, "mirror of http://a.test: ") {
		t.Errorf("%s: mirror of %q (%q), want a mirror of http://a.test, said first", h.Host, h.MirrorOf, h.ValueReason)
	}
	if b, err := json.Marshal(r.Hosts[2]); err != nil || !strings.Contains(string(b), `"mirror_of":"http://a.test"`) {
		t.Errorf("JSON of a mirror's row: %s, %v; want mirror_of", b, err)
	}
	if b, _ := json.Marshal(r.Hosts[0]); strings.Contains(string(b), "mirror_of") {
		t.Errorf("JSON of a row that is no mirror: %s; want no mirror_of", b)
	}
	if r.Hosts[0].MirrorOf != "" {
		t.Errorf("%s: mirror of %q, want none", r.Hosts[0].Host, r.Hosts[0].MirrorOf)
	}
}
