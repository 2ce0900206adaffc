package htmlx

import (
	"errors"
	"reflect"
	"testing"

	"github.com/acrawler/acrawler/internal/urlnorm"
	whatwg "github.com/nlnwa/whatwg-url/url"
)

// whatwgResolver is a Resolver for tests: it resolves by the WHATWG URL
// Standard, drops the fragment and accepts only http and https URLs with a
// host; a lone "%" becomes "%25", so that results also parse with net/url.
// It stands in for urlnorm, which normalizes further.
type whatwgResolver struct{ p whatwg.Parser }

func newResolver() whatwgResolver {
	return whatwgResolver{p: whatwg.NewParser(whatwg.WithPercentEncodeSinglePercentSign())}
}

var errNotHTTP = errors.New("not an http or https URL")

func (r whatwgResolver) Resolve(base, ref string) (string, error) {
	u, err := r.p.ParseRef(base, ref)
	if err != nil {
		return "", err
	}
	if s := u.Scheme(); s != "http" && s != "https" || u.Hostname() == "" {
		return "", errNotHTTP
	}
	return u.Href(true), nil
}

// whatwgBaseResolver is whatwgResolver as a BaseResolver.
type whatwgBaseResolver struct{ whatwgResolver }

var _ BaseResolver = whatwgBaseResolver{}

func (r whatwgBaseResolver) ResolverFor(base string) (func(string) (string, error), error) {
	b, err := r.p.Parse(base)
	if err != nil {
		return nil, err
	}
	if s := b.Scheme(); s != "http" && s != "https" || b.Hostname() == "" {
		return nil, errNotHTTP
	}
	return func(ref string) (string, error) {
		u, err := b.Parse(ref)
		if err != nil {
			return "", err
		}
		if s := u.Scheme(); s != "http" && s != "https" || u.Hostname() == "" {
			return "", errNotHTTP
		}
		return u.Href(true), nil
	}, nil
}

// normBaseResolver adapts urlnorm to BaseResolver, as the crawler's wiring
// would.
type normBaseResolver struct{ *urlnorm.Normalizer }

func (r normBaseResolver) ResolverFor(base string) (func(string) (string, error), error) {
	b, err := r.ParseBase(base)
	if err != nil {
		return nil, err
	}
	return b.Resolve, nil
}

var (
	_ Resolver     = (*urlnorm.Normalizer)(nil)
	_ BaseResolver = normBaseResolver{}
)

func newNormalizer(tb testing.TB) *urlnorm.Normalizer {
	tb.Helper()
	n, err := urlnorm.New(urlnorm.DefaultOptions())
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// TestResolvers checks that Parse gives the same document with a Resolver
// and with the BaseResolver that does the same resolution, and that
// urlnorm's links are absolute.
func TestResolvers(t *testing.T) {
	n := newNormalizer(t)
	pairs := []struct {
		name        string
		plain, fast Resolver
	}{
		{"whatwg", newResolver(), whatwgBaseResolver{newResolver()}},
		{"urlnorm", n, normBaseResolver{n}},
	}
	inputs := append([]string{string(readTestdata(t, "publications.html"))}, fuzzSeeds...)
	for _, pair := range pairs {
		for _, in := range inputs {
			plain := mustParse(t, in, Options{Resolver: pair.plain})
			fast := mustParse(t, in, Options{Resolver: pair.fast})
			if !reflect.DeepEqual(plain, fast) {
				t.Errorf("%s: Parse(%.80q) differs with ResolverFor:\n%+v\n%+v", pair.name, in, plain, fast)
			}
			for _, l := range fast.Links {
				checkAbsolute(t, pair.name+" link", l.URL)
			}
		}
	}
}
