package api_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/api"
	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/query"
	"github.com/acrawler/acrawler/internal/store/sqlite"
)

// hostileTargets is what a hostile client sends: prefix storms, long and
// many-word phrases, operators and syntax debris, invalid UTF-8, the
// deepest pages and offsets past them, over-long values, and the pages
// that read the most (the dashboard, a document).
func hostileTargets(word string) []string {
	var out []string
	add := func(path string, v url.Values) { out = append(out, path+"?"+v.Encode()) }
	for _, path := range []string{"/search", "/"} {
		add(path, url.Values{"q": {strings.TrimSpace(strings.Repeat("r* ", 160))}})
		add(path, url.Values{"q": {"re* se* co* pr* da*"}}) // the broadest query accepted
		add(path, url.Values{"q": {"th* an* in* of* to* ne*"}})
		add(path, url.Values{"q": {`"` + strings.TrimSpace(strings.Repeat(word+" ", query.MaxWords)) + `"`}})
		add(path, url.Values{"q": {`"` + manyWords(query.MaxWords) + `"`}})
		add(path, url.Values{"q": {manyWords(query.MaxWords + 20)}})
		add(path, url.Values{"q": {word + " OR a OR b OR (c AND NOT d) NEAR(e f) -g -h -" + word}})
		add(path, url.Values{"q": {`"unterminated (( ** :: ^^ ~~ " \ ` + word}})
		add(path, url.Values{"q": {word}, "offset": {strconv.Itoa(api.MaxOffset)}, "limit": {strconv.Itoa(api.MaxLimit)}})
		add(path, url.Values{"q": {word}, "offset": {"999999999999999999999"}})
		add(path, url.Values{"q": {strings.Repeat("x", query.MaxLength+1)}})
	}
	out = append(out,
		"/search?q=%FF%FE%FD"+url.QueryEscape(word)+"%C3%28",
		"/?q=%ED%A0%80%F4%90%80%80",
		"/search?q="+strings.Repeat("%00", 100),
		"/search?q=100%",
		"/dashboard",
		"/stats",
		"/doc?url="+url.QueryEscape("https://host1.example.edu/doc/1"),
	)
	return out
}

// mix is what one run of the hostile mix saw.
type mix struct {
	ordinary      []time.Duration // latency of each ordinary request
	ordinaryCodes map[int]int
	hostileCodes  map[int]int
	hostile       int // hostile requests answered
	canceled      int // hostile requests the client gave up on
	busy          int // 503 answers because every slot was taken
	wrong         []string
}

// fivexx counts the 5xx answers, the 503s of a busy server among them.
func (m mix) fivexx() (all int) {
	for _, codes := range []map[int]int{m.ordinaryCodes, m.hostileCodes} {
		for c, n := range codes {
			if c >= 500 {
				all += n
			}
		}
	}
	return all
}

// quantile is the q quantile of ds (sorted in place).
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[min(len(ds)-1, int(q*float64(len(ds))))]
}

// runMix sends ordinaryN ordinary searches from ordinaryClients clients
// to base, each checked with check, while stormClients send hostile
// requests until the ordinary ones are done; one hostile request in
// four is given up by its client after a few milliseconds.
func runMix(base string, stormClients, ordinaryClients, ordinaryN int, ordinary []url.Values, check func(url.Values, []byte) error, hostile []string) mix {
	tr := &http.Transport{MaxIdleConnsPerHost: stormClients + ordinaryClients}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: time.Minute}
	m := mix{ordinaryCodes: map[int]int{}, hostileCodes: map[int]int{}}
	var mu sync.Mutex

	stop := make(chan struct{})
	var storm sync.WaitGroup
	for c := range stormClients {
		storm.Go(func() {
			r := rand.New(rand.NewPCG(uint64(c), 7))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				target := hostile[(c+i)%len(hostile)]
				ctx, cancel := context.WithCancel(context.Background())
				if r.IntN(4) == 0 {
					ctx, cancel = context.WithTimeout(context.Background(), time.Duration(1+r.IntN(10))*time.Millisecond)
				}
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+target, nil)
				resp, err := client.Do(req)
				var body []byte
				if err == nil {
					body, err = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				cancel()
				mu.Lock()
				switch {
				case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
					m.canceled++
				case err != nil:
					m.wrong = append(m.wrong, fmt.Sprintf("GET %.80s: %v", target, err))
				default:
					m.hostile++
					m.hostileCodes[resp.StatusCode]++
					if resp.StatusCode == http.StatusServiceUnavailable && strings.Contains(string(body), "busy") {
						m.busy++
					}
				}
				mu.Unlock()
			}
		})
	}

	var next atomic.Int64
	var clients sync.WaitGroup
	for range ordinaryClients {
		clients.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= ordinaryN {
					return
				}
				q := ordinary[i%len(ordinary)]
				start := time.Now()
				resp, err := client.Get(base + "/search?" + q.Encode())
				var body []byte
				if err == nil {
					body, err = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				took := time.Since(start)
				mu.Lock()
				switch {
				case err != nil:
					m.wrong = append(m.wrong, fmt.Sprintf("search %v: %v", q, err))
				default:
					m.ordinaryCodes[resp.StatusCode]++
					m.ordinary = append(m.ordinary, took)
					if resp.StatusCode == http.StatusServiceUnavailable && strings.Contains(string(body), "busy") {
						m.busy++
					}
					if resp.StatusCode == http.StatusOK {
						if err := check(q, body); err != nil {
							m.wrong = append(m.wrong, err.Error())
						}
					}
				}
				mu.Unlock()
			}
		})
	}
	clients.Wait()
	close(stop)
	storm.Wait()
	return m
}

// rss is the process's resident set now and at its peak, in MiB (0 where
// /proc is not there).
func rss() (now, peak float64) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			now = kb / 1024
		case "VmHWM:":
			peak = kb / 1024
		}
	}
	return now, peak
}

// expectHits checks a search answer against the documents each query must
// find first.
func expectHits(want map[string]string) func(url.Values, []byte) error {
	return func(q url.Values, body []byte) error {
		w, ok := want[q.Get("q")]
		if !ok {
			return nil
		}
		if !strings.Contains(string(body), `"url":"`+w+`"`) {
			return fmt.Errorf("search %q lacks %s: %.300s", q.Get("q"), w, body)
		}
		return nil
	}
}

// The hostile mix, short: no request is answered with a 5xx (the cap is
// above the number of clients, so that none waits for a slot, and the
// time budget far above any request's work), the ordinary searches find
// what they must meanwhile, and afterwards, once the canceled requests
// are over, the store still answers them right.
func TestHostileMix(t *testing.T) {
	if testing.Short() {
		t.Skip("a load test")
	}
	s, err := api.New(api.Config{Backend: api.StoreBackend(collection(t), 0), Normalize: normalizer(t), MaxSearches: 64, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	ordinary := []url.Values{{"q": {uniquePhrase}}, {"q": {"focused crawling"}}, {"q": {"web archiving"}, "type": {"thesis"}}, {"q": {"budget"}}}
	want := map[string]string{uniquePhrase: urlSurvey, "focused crawling": urlSurvey, "web archiving": urlThesis, "budget": urlPrint}
	check := expectHits(want)
	m := runMix(srv.URL, 8, 2, 200, ordinary, check, hostileTargets("crawling"))
	t.Logf("hostile: %d answered %v, %d canceled; ordinary: %v, p50 %v p99 %v", m.hostile, m.hostileCodes, m.canceled,
		m.ordinaryCodes, quantile(m.ordinary, .5), quantile(m.ordinary, .99))
	if n := m.fivexx(); n != 0 {
		t.Errorf("%d answers were 5xx: ordinary %v, hostile %v", n, m.ordinaryCodes, m.hostileCodes)
	}
	if m.ordinaryCodes[http.StatusOK] != 200 {
		t.Errorf("ordinary searches: %v, want 200 answered 200", m.ordinaryCodes)
	}
	if m.hostileCodes[http.StatusBadRequest] == 0 || m.hostileCodes[http.StatusOK] == 0 || m.hostile == 0 {
		t.Errorf("hostile requests: %v: want some refused and some answered", m.hostileCodes)
	}
	for _, w := range m.wrong[:min(len(m.wrong), 10)] {
		t.Error(w)
	}
	// Afterwards: the same searches, right, with nothing else running.
	for _, q := range ordinary {
		if res := search(t, s, q); !slices.Contains(urls(res), want[q.Get("q")]) {
			t.Errorf("after the storm, search %v = %v, want %s among them", q, urls(res), want[q.Get("q")])
		}
	}
}

// BenchmarkHostileMix measures ordinary searches over loopback, alone and
// while 16 clients send the hostile mix (a quarter of it canceled by its
// clients after 1-10 ms), over a SQLite store of 10,000 generated
// documents, or the SQLite file ACRAWLER_LOADTEST_DB names (such as the
// README's test-web crawl; it is opened read-only). b.N is the number of
// ordinary searches, from 4 clients. It reports their p50 and p99 in ms,
// the 5xx answers of all requests but the 503s of a busy server (must be
// 0), those 503s, those among the ordinary searches, the hostile requests
// per second answered, and the process's resident memory at the end and
// at its peak.
//
//	go test ./internal/api -run '^$' -bench HostileMix -benchtime 2000x
func BenchmarkHostileMix(b *testing.B) {
	var st crawl.Store
	// Ordinary searches name what they look for: a rare word or two, a
	// phrase, a filter, a long prefix (every word of the generated corpus
	// but its term<n> is in most documents).
	word, ordinary := "crawling", []url.Values{{"q": {"term42"}}, {"q": {"term1234 term77"}}, {"q": {`"neural network" term9`}},
		{"q": {"term4242"}, "type": {"thesis"}}, {"q": {"term31*"}}, {"q": {"protein term300"}, "year_from": {"2000"}}, {"q": {"term2500"}, "offset": {"10"}}}
	if path := os.Getenv("ACRAWLER_LOADTEST_DB"); path != "" {
		db, err := sqlite.Open(context.Background(), path, sqlite.Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		st, word = db, "research"
		ordinary = []url.Values{{"q": {"research"}}, {"q": {"thesis"}}, {"q": {`"machine learning"`}}, {"q": {"archiv*"}}, {"q": {"library"}, "type": {"article"}}}
	} else {
		st = fill(b, bigCorpus(10_000), nil)
	}
	s, err := api.New(api.Config{Backend: api.StoreBackend(st, 0)})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	none := func(url.Values, []byte) error { return nil }
	for _, bc := range []struct {
		name  string
		storm int
	}{{"quiet", 0}, {"storm", 16}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ResetTimer()
			m := runMix(srv.URL, bc.storm, 4, b.N, ordinary, none, hostileTargets(word))
			b.StopTimer()
			for _, w := range m.wrong[:min(len(m.wrong), 5)] {
				b.Error(w)
			}
			now, peak := rss()
			b.ReportMetric(float64(quantile(m.ordinary, .5).Microseconds())/1000, "p50_ms")
			b.ReportMetric(float64(quantile(m.ordinary, .99).Microseconds())/1000, "p99_ms")
			b.ReportMetric(float64(m.fivexx()-m.busy), "5xx_not_busy")
			b.ReportMetric(float64(m.busy), "503_busy")
			b.ReportMetric(float64(m.ordinaryCodes[http.StatusServiceUnavailable]), "ordinary_503")
			b.ReportMetric(float64(m.hostile)/b.Elapsed().Seconds(), "hostile_req/s")
			b.ReportMetric(float64(m.canceled), "canceled")
			b.ReportMetric(now, "rss_MiB")
			b.ReportMetric(peak, "peak_rss_MiB")
			b.ReportMetric(0, "ns/op")
			b.Logf("ordinary %v; hostile %v (%d canceled)", m.ordinaryCodes, m.hostileCodes, m.canceled)
		})
	}
}
