package oai

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/acrawler/acrawler/internal/testweb"
)

type repo struct {
	web  *testweb.Web
	repo *testweb.Repository
	srv  *httptest.Server
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	w := testweb.New(testweb.Config{})
	r := testweb.NewRepository(w)
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return &repo{web: w, repo: r, srv: srv}
}

func (r *repo) harvester(path string) *Harvester {
	return &Harvester{Getter: &HTTPGetter{Client: r.srv.Client(), UserAgent: "acrawler-test"}, BaseURL: r.srv.URL + path}
}

// collect harvests into a list of identifiers, with the tokens reported.
func collect(ctx context.Context, h *Harvester, opt Options) ([]Record, []string, Result, error) {
	var recs []Record
	var tokens []string
	res, err := h.ListRecords(ctx, opt, func(p *Page) error {
		recs = append(recs, p.Records...)
		tokens = append(tokens, p.Token)
		return nil
	})
	return recs, tokens, res, err
}

func TestHarvestAll(t *testing.T) {
	r := newRepo(t)
	h := r.harvester("/oai")
	want := r.repo.Records()
	recs, tokens, res, err := collect(t.Context(), h, Options{})
	if err != nil {
		t.Fatalf("ListRecords: %v", err)
	}
	pages := (len(want) + testweb.RepositoryPageSize - 1) / testweb.RepositoryPageSize
	if pages < 3 || res.Pages != pages || len(tokens) != pages || tokens[pages-1] != "" || !res.Complete || res.Token != "" {
		t.Fatalf("Result = %+v, tokens %q; want %d pages, complete", res, tokens, pages)
	}
	if res.ResponseDate == "" || res.Records != len(want) || res.Deleted != 2 {
		t.Errorf("Result = %+v; want %d records, 2 deleted, a response date", res, len(want))
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	for i, got := range recs {
		w := want[i]
		if got.Identifier != w.Identifier || got.Deleted != w.Deleted || got.Datestamp != w.Datestamp.Format(time.RFC3339) {
			t.Errorf("record %d = %s %v %s, want %s %v %s", i, got.Identifier, got.Deleted, got.Datestamp, w.Identifier, w.Deleted, w.Datestamp.Format(time.RFC3339))
			continue
		}
		if w.Deleted {
			continue
		}
		if got.Title != w.Title || got.DOI != w.DOI || got.Year != w.Year || got.Type != w.Type ||
			len(got.URLs) != 1 || got.URLs[0] != w.Landing || len(got.PDFURLs) != 1 || got.PDFURLs[0] != w.PDF ||
			len(got.Creators) != len(w.Creators) || len(got.Sets) != len(w.Sets) {
			t.Errorf("record %s =\n%+v\nwant\n%+v", w.Identifier, got, w)
		}
		if w.Original != "" && (len(got.Relations) != 1 || got.Relations[0] != w.Original) {
			t.Errorf("record %s relations %q, want the original %s", w.Identifier, got.Relations, w.Original)
		}
	}
}

func TestHarvestIdentify(t *testing.T) {
	r := newRepo(t)
	h := r.harvester("/oai")
	id, err := h.Identify(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if id.Granularity != SecondGranularity || id.DeletedRecord != "persistent" || id.ProtocolVersion != "2.0" ||
		id.EarliestDatestamp != r.repo.Records()[0].Datestamp.Format(time.RFC3339) {
		t.Errorf("Identify = %+v", id)
	}
	formats, err := h.ListMetadataFormats(t.Context())
	if err != nil || len(formats) != 1 || formats[0].Prefix != "oai_dc" || formats[0].Namespace != NamespaceOAIDC {
		t.Errorf("ListMetadataFormats = %+v, %v", formats, err)
	}
}

// TestHarvestIncremental harvests with from and until at both
// granularities and gets exactly the records in the range.
func TestHarvestIncremental(t *testing.T) {
	r := newRepo(t)
	h := r.harvester("/oai")
	all := r.repo.Records()
	from := all[len(all)/2].Datestamp
	until := all[len(all)*3/4].Datestamp
	day := func(t time.Time) time.Time { return t.Truncate(24 * time.Hour) }
	for _, tc := range []struct {
		name        string
		opt         Options
		first, last time.Time // inclusive bounds on datestamps; zero: none
	}{
		{"from", Options{From: from, Granularity: SecondGranularity}, from, time.Time{}},
		{"until", Options{Until: until, Granularity: SecondGranularity}, time.Time{}, until},
		{"from-until", Options{From: from, Until: until, Granularity: SecondGranularity}, from, until},
		{"days", Options{From: from, Until: until}, day(from), day(until).Add(24*time.Hour - time.Second)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want []string
			for _, rec := range all {
				if (tc.first.IsZero() || !rec.Datestamp.Before(tc.first)) && (tc.last.IsZero() || !rec.Datestamp.After(tc.last)) {
					want = append(want, rec.Identifier)
				}
			}
			recs, _, res, err := collect(t.Context(), h, tc.opt)
			if err != nil || !res.Complete {
				t.Fatalf("ListRecords: %+v, %v", res, err)
			}
			var got []string
			for _, rec := range recs {
				got = append(got, rec.Identifier)
			}
			if len(want) == 0 || len(want) == len(all) || !equal(got, want) {
				t.Errorf("got %d records, want %d of %d:\n%q\n%q", len(got), len(want), len(all), got, want)
			}
		})
	}
	// A range with nothing in it is an empty list (noRecordsMatch).
	recs, _, res, err := collect(t.Context(), h, Options{From: time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil || !res.Complete || len(recs) != 0 || res.Pages != 1 {
		t.Errorf("empty range: %d records, %+v, %v", len(recs), res, err)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestHarvestResume stops a harvest after its first page, keeps the token
// it reported, and resumes from it in a second call.
func TestHarvestResume(t *testing.T) {
	r := newRepo(t)
	h := r.harvester("/oai")
	stop := errors.New("stop")
	var first []Record
	var saved string
	res, err := h.ListRecords(t.Context(), Options{}, func(p *Page) error {
		first = append(first, p.Records...)
		saved = p.Token
		return stop
	})
	if !errors.Is(err, stop) || res.Complete || saved == "" {
		t.Fatalf("first call: %+v, %v, token %q", res, err, saved)
	}
	rest, _, res, err := collect(t.Context(), h, Options{Token: saved})
	if err != nil || !res.Complete {
		t.Fatalf("resumed: %+v, %v", res, err)
	}
	if got := len(first) + len(rest); got != len(r.repo.Records()) || rest[0].Identifier == first[0].Identifier {
		t.Errorf("%d + %d records, want %d in all", len(first), len(rest), len(r.repo.Records()))
	}
}

func TestHarvestBadToken(t *testing.T) {
	r := newRepo(t)
	h := r.harvester("/oai")
	_, _, res, err := collect(t.Context(), h, Options{Token: "oai_dc/////20/99"})
	if !errors.Is(err, ErrBadResumptionToken) || res.Complete || res.Token != "oai_dc/////20/99" {
		t.Errorf("stale token: %+v, %v; want badResumptionToken", res, err)
	}
	recs, _, res, err := collect(t.Context(), h, Options{Token: "oai_dc/////20/99", RestartOnBadToken: true})
	if err != nil || !res.Complete || !res.Restarted || len(recs) != len(r.repo.Records()) {
		t.Errorf("restart: %d records, %+v, %v", len(recs), res, err)
	}

	// A token that expires while the harvest is interrupted: the web
	// advances between the two calls.
	var saved string
	h.ListRecords(t.Context(), Options{}, func(p *Page) error { saved = p.Token; return errors.New("stop") })
	r.web.Advance()
	_, _, _, err = collect(t.Context(), h, Options{Token: saved})
	if !errors.Is(err, ErrBadResumptionToken) {
		t.Errorf("expired token: %v", err)
	}
}

// TestHarvestTruncated: a page cut short stops the harvest with the token
// to resume from; the next call resumes there and completes.
func TestHarvestTruncated(t *testing.T) {
	r := newRepo(t)
	h := r.harvester("/oai/truncated")
	seen := map[string]bool{}
	opt := Options{}
	runs := 0
	for ; runs < 10; runs++ {
		recs, _, res, err := collect(t.Context(), h, opt)
		for _, rec := range recs {
			seen[rec.Identifier] = true
		}
		if err == nil {
			if !res.Complete {
				t.Fatalf("no error and not complete: %+v", res)
			}
			break
		}
		if !errors.Is(err, ErrTruncated) || res.Token == "" {
			t.Fatalf("run %d: %+v, %v; want ErrTruncated and a token", runs, res, err)
		}
		opt.Token = res.Token
	}
	pages := (len(r.repo.Records()) + testweb.RepositoryPageSize - 1) / testweb.RepositoryPageSize
	if runs != pages-1 || len(seen) != len(r.repo.Records()) {
		t.Errorf("%d failed runs, %d records; want %d, %d", runs, len(seen), pages-1, len(r.repo.Records()))
	}
}

// TestHarvestBusy: a 503 is returned with its Retry-After and the token to
// resume from after it.
func TestHarvestBusy(t *testing.T) {
	r := newRepo(t)
	h := r.harvester("/oai/busy")
	opt := Options{}
	total, busy := 0, 0
	for range 10 {
		recs, _, res, err := collect(t.Context(), h, opt)
		total += len(recs)
		if err == nil {
			break
		}
		var u *UnavailableError
		if !errors.As(err, &u) || u.Status != 503 || u.RetryAfter != time.Second || !u.Temporary() || res.Token == "" {
			t.Fatalf("%+v, %v; want a 503 with Retry-After 1s", res, err)
		}
		busy++
		opt.Token = res.Token
	}
	pages := (len(r.repo.Records()) + testweb.RepositoryPageSize - 1) / testweb.RepositoryPageSize
	if busy != pages-1 || total != len(r.repo.Records()) {
		t.Errorf("%d busy answers, %d records; want %d, %d", busy, total, pages-1, len(r.repo.Records()))
	}
}

func TestHarvestCycle(t *testing.T) {
	r := newRepo(t)
	_, _, res, err := collect(t.Context(), r.harvester("/oai/cycle"), Options{})
	if !errors.Is(err, ErrTokenCycle) || res.Pages != 2 {
		t.Errorf("%+v, %v; want ErrTokenCycle after 2 pages", res, err)
	}
}

func TestHarvestMaxPages(t *testing.T) {
	r := newRepo(t)
	_, _, res, err := collect(t.Context(), r.harvester("/oai"), Options{MaxPages: 2})
	if !errors.Is(err, ErrTooManyPages) || res.Pages != 2 || res.Token == "" {
		t.Errorf("%+v, %v; want ErrTooManyPages after 2 pages", res, err)
	}
}

func TestHarvestCanceled(t *testing.T) {
	r := newRepo(t)
	ctx, cancel := context.WithCancel(t.Context())
	res, err := r.harvester("/oai").ListRecords(ctx, Options{}, func(p *Page) error { cancel(); return nil })
	if !errors.Is(err, context.Canceled) || res.Pages != 1 || res.Token == "" {
		t.Errorf("%+v, %v; want context.Canceled after 1 page", res, err)
	}
}

func TestHarvestIdentifiersAndGetRecord(t *testing.T) {
	r := newRepo(t)
	h := r.harvester("/oai")
	all := r.repo.Records()
	var ids []Record
	res, err := h.ListIdentifiers(t.Context(), Options{}, func(p *Page) error { ids = append(ids, p.Records...); return nil })
	if err != nil || !res.Complete || len(ids) != len(all) || res.Deleted != 2 {
		t.Fatalf("ListIdentifiers: %d records, %+v, %v", len(ids), res, err)
	}
	for i, rec := range ids {
		if rec.Identifier != all[i].Identifier || rec.Title != "" {
			t.Errorf("header %d = %+v, want %s without metadata", i, rec, all[i].Identifier)
		}
	}
	want := all[len(all)-1]
	for _, w := range all {
		if !w.Deleted && w.DOI != "" {
			want = w
			break
		}
	}
	got, err := h.GetRecord(t.Context(), want.Identifier, "")
	if err != nil || got.Identifier != want.Identifier || got.DOI != want.DOI || got.Title != want.Title {
		t.Errorf("GetRecord(%s) = %+v, %v", want.Identifier, got, err)
	}
	if _, err := h.GetRecord(t.Context(), "oai:elsewhere:1", ""); !errors.Is(err, ErrIDDoesNotExist) {
		t.Errorf("GetRecord of an unknown identifier: %v", err)
	}
	if _, err := h.GetRecord(t.Context(), want.Identifier, "marc21"); !errors.Is(err, ErrCannotDisseminateFormat) {
		t.Errorf("GetRecord in marc21: %v", err)
	}
}
