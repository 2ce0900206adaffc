package scholar

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	citations := strings.Repeat("Kaya, S., Demir, A. (2020). Kurumsal arşivlerde açık erişim. Bilgi Dünyası, 21(2), 301-320.\n", 6)
	tests := []struct {
		name  string
		md    *Metadata
		url   string
		title string
		text  string
		typ   string
		rule  string
	}{
		{"nil metadata", nil, "https://example.org/", "Home", "", TypeOther, "default"},
		{"journal", &Metadata{TypeClues: []string{"citation_journal_title"}}, "", "", "", TypeArticle, "citation_journal_title"},
		{"thesis beats journal", &Metadata{TypeClues: []string{"citation_journal_title", "dc.type:Doctoral Thesis"}}, "", "", "", TypeThesis, "dc.type:Doctoral Thesis"},
		{"proceedings beats isbn", &Metadata{TypeClues: []string{"citation_isbn", "citation_conference_title"}}, "", "", "", TypeProceedings, "citation_conference_title"},
		{"biorxiv journal title", &Metadata{Venue: "bioRxiv", TypeClues: []string{"citation_journal_title"}}, "", "", "", TypePreprint, "venue:biorxiv"},
		{"arxiv id", &Metadata{TypeClues: []string{"citation_arxiv_id", "citation_journal_title"}}, "", "", "", TypePreprint, "citation_arxiv_id"},
		{"openaire conference", &Metadata{TypeClues: []string{"dc.type:info:eu-repo/semantics/conferenceObject"}}, "", "", "", TypeProceedings, "dc.type:info:eu-repo/semantics/conferenceObject"},
		{"turkish tez", &Metadata{TypeClues: []string{"dc.type:Yüksek Lisans Tezi"}}, "", "", "", TypeThesis, "dc.type:Yüksek Lisans Tezi"},
		{"sentez is no tez", &Metadata{TypeClues: []string{"dc.type:Sentez"}}, "https://example.org/x", "", "", TypeOther, "default"},
		{"jsonld article without venue", &Metadata{TypeClues: []string{"jsonld:Article"}}, "https://example.org/blog/post", "", "", TypeOther, "default"},
		{"jsonld article with doi", &Metadata{DOI: "10.1000/x", TypeClues: []string{"jsonld:Article"}}, "", "", "", TypeArticle, "jsonld:Article"},
		{"person", &Metadata{TypeClues: []string{"microdata:Person"}}, "", "", "", TypePerson, "microdata:Person"},
		{"isbn only", &Metadata{ISBN: []string{"9780306406157"}}, "", "", "", TypeBook, "isbn"},
		{"doi and title", &Metadata{DOI: "10.1000/x", Title: "A"}, "", "", "", TypeArticle, "doi"},
		{"doi and title in a theses section", &Metadata{DOI: "10.1000/x", Title: "A"}, "https://uni.example/theses/a-study.pdf", "", "", TypeThesis, "url:/theses/"},
		{"doi and title in a proceedings section", &Metadata{DOI: "10.1000/x", Title: "A"}, "https://uni.example/proceedings/2024/a.pdf", "", "", TypeProceedings, "url:/proceedings/"},
		{"doi and title in an articles section", &Metadata{DOI: "10.1000/x", Title: "A"}, "https://uni.example/articles/a", "", "", TypeArticle, "doi"},
		{"pdf thesis clue", &Metadata{DOI: "10.1000/x", Title: "A", TypeClues: []string{"pdf:proceedings", "pdf:thesis"}}, "", "", "", TypeThesis, "pdf:thesis"},
		{"unknown pdf clue", &Metadata{TypeClues: []string{"pdf:poster"}}, "https://example.org/x", "", "", TypeOther, "default"},
		{"arxiv url", nil, "https://arxiv.org/abs/2401.01234", "", "", TypePreprint, "url:arxiv.org"},
		{"thesis url", nil, "https://uni.example/theses/a-study", "", "", TypeThesis, "url:/theses/"},
		{"tez url", nil, "https://uni.example/yayinlar/tez/bir-calisma", "", "", TypeThesis, "url:/tez/"},
		{"thesis index is not a thesis", nil, "https://uni.example/theses/", "Theses", "", TypeListing, "title:publications"},
		{"bildiri url", nil, "https://uni.example/bildiri/42", "", "", TypeProceedings, "url:/bildiri/"},
		{"makale url", nil, "https://uni.example/makale/42", "", "", TypeArticle, "url:/makale/"},
		{"person url", nil, "https://uni.example/people/jane-doe", "Jane Doe", "Jane Doe\njane@uni.example", TypePerson, "url:/people/"},
		{"akademik kadro", nil, "https://uni.example/akademik-kadro/elif-yildiz", "Elif Yıldız", "", TypePerson, "url:/akademik-kadro/"},
		{"staff directory is not a person", nil, "https://uni.example/staff/computing", "Staff", "a@uni.example b@uni.example c@uni.example d@uni.example", TypeOther, "default"},
		{"tilde home", nil, "https://uni.example/~jdoe/", "Jane Doe", "", TypePerson, "url:/~user/"},
		{"publications title", nil, "https://lab.example/pubs", "Publications | Lab", "", TypeListing, "title:publications"},
		{"yayınlar title", nil, "https://uni.example/x", "Yayınlar - Karadeniz Üniversitesi", "", TypeListing, "title:publications"},
		{"publications url", nil, "https://lab.example/publications/", "Our work", "", TypeListing, "url:/publications/"},
		{"citation text", nil, "https://lab.example/x", "Work", citations, TypeListing, "text:publications list"},
		{"few citations in a long text", nil, "https://lab.example/x", "Work", citations + strings.Repeat("A long paragraph of body text without any years in it at all.\n", 60), TypeOther, "default"},
		{"news url", nil, "https://uni.example/news/2024/award", "Award", "", TypeNews, "url:/news/"},
		{"haberler url", nil, "https://uni.example/haberler/odul", "Ödül", "", TypeNews, "url:/haberler/"},
		{"duyuru url", nil, "https://uni.example/duyurular/burs", "Burs", "", TypeNews, "url:/duyurular/"},
		{"news host", nil, "https://news.example.com/world/story-1", "Story", "", TypeNews, "url:news."},
		{"thesis title", nil, "https://example.org/item/1", "A study of links (PhD thesis)", "", TypeThesis, "title:thesis"},
		{"doktora tezi title", nil, "https://example.org/item/1", "Bağlantılar üzerine (Doktora Tezi)", "", TypeThesis, "title:thesis"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ, rule := Classify(tt.md, tt.url, tt.title, tt.text)
			if typ != tt.typ || rule != tt.rule {
				t.Errorf("Classify(%s, %q, %q) = %q, %q, want %q, %q", tt.name, tt.url, tt.title, typ, rule, tt.typ, tt.rule)
			}
		})
	}
}

// TestHasYear holds hasYear's search from one "19" or "20" to the next
// to a test at every offset.
func TestHasYear(t *testing.T) {
	every := func(s string) bool {
		for i := 0; i+4 <= len(s); i++ {
			if isYearAt(s, i) {
				return true
			}
		}
		return false
	}
	alphabet := "0129a ,("
	for _, s := range []string{"", "2019", "x2019", "12019", "20190", "in 1899 and 2100", "pp. 1999", "a1999b", "199", "ab2020", "abc2020", "abcd2020x", "1234567890 2001"} {
		if got, want := hasYear(s), every(s); got != want {
			t.Errorf("hasYear(%q) = %v, want %v", s, got, want)
		}
	}
	// Every string of up to seven bytes over a small alphabet.
	var b []byte
	var walk func(n int)
	walk = func(n int) {
		if s := string(b); hasYear(s) != every(s) {
			t.Fatalf("hasYear(%q) = %v", s, hasYear(s))
		}
		if n == 0 {
			return
		}
		for i := 0; i < len(alphabet); i++ {
			b = append(b, alphabet[i])
			walk(n - 1)
			b = b[:len(b)-1]
		}
	}
	walk(7)
	// Longer strings, where the two searches leapfrog each other.
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		b := make([]byte, rng.IntN(120))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		if s := string(b); hasYear(s) != every(s) {
			t.Fatalf("hasYear(%q) = %v", s, hasYear(s))
		}
	}
}
