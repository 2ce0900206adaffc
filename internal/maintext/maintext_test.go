package maintext

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// pageExpectation says what the main text of a testdata page must and must
// not contain.
type pageExpectation struct {
	URL      string   `json:"url"`
	Lang     string   `json:"lang"`
	Contains []string `json:"contains"` // paragraphs of the content
	Excludes []string `json:"excludes"` // navigation, footer, banner text
}

// TestScholarPages extracts the main text of the hand-written pages of
// internal/scholar's testdata (an article, a conference paper, a preprint,
// a thesis record, a faculty page, a publication list, a news story, a
// Turkish article, a Turkish department's publication list and a dataset).
func TestScholarPages(t *testing.T) {
	checkScholarPages(t, nil)
}

// TestScholarPagesNoLandmarks is TestScholarPages on the pages with their
// main, article, nav, aside, header and footer elements turned into divs
// and their ARIA roles removed (see TestTestwebNoLandmarks).
func TestScholarPagesNoLandmarks(t *testing.T) {
	checkScholarPages(t, func(b []byte) []byte { return []byte(landmarks.Replace(string(b))) })
}

func checkScholarPages(t *testing.T, transform func([]byte) []byte) {
	raw, err := os.ReadFile("testdata/scholar-pages.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]pageExpectation
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob("../scholar/testdata/*.html")
	if len(pages) != len(want) {
		t.Errorf("%d pages in ../scholar/testdata, %d in testdata/scholar-pages.json", len(pages), len(want))
	}
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			w := want[name]
			body, err := os.ReadFile("../scholar/testdata/" + name + ".html")
			if err != nil {
				t.Fatal(err)
			}
			if transform != nil {
				body = transform(body)
			}
			res, err := Extract(body, w.URL, "")
			if err != nil {
				t.Fatalf("Extract(%s): %v", name, err)
			}
			if res.Lang != w.Lang {
				t.Errorf("Extract(%s).Lang = %q, want %q", name, res.Lang, w.Lang)
			}
			for _, s := range w.Contains {
				if !strings.Contains(res.Text, s) {
					t.Errorf("Extract(%s).Text lacks %q", name, s)
				}
			}
			for _, s := range w.Excludes {
				if strings.Contains(res.Text, s) {
					t.Errorf("Extract(%s).Text has boilerplate %q", name, s)
				}
			}
			if t.Failed() {
				t.Logf("Extract(%s).Text:\n%s", name, res.Text)
			}
		})
	}
}

func TestExtractText(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"paragraphs", `<body><main><p>One  two
three.</p><p>Four.</p></main></body>`, "One two three.\n\nFour."},
		{"br and pre", `<body><main><p>Line one<br>Line two</p><pre>a  b
c</pre></main></body>`, "Line one\nLine two\n\na b\nc"},
		{"lists and tables", `<body><main><ul><li>First</li><li>Second</li></ul><table><tr><th>Key</th><td>Value</td></tr></table></main></body>`, "First\n\nSecond\n\nKey | Value"},
		{"hidden", `<body><main><p>Seen.</p><p hidden>Unseen.</p><p style="display: none">Unseen.</p><div aria-hidden="true">Unseen.</div><script>var x;</script></main></body>`, "Seen."},
		{"inline", `<body><main><p>H<sub>2</sub>O is <em>wet</em>.</p></main></body>`, "H2O is wet."},
		{"svg ended by html", `<body><main><p>One.</p><svg><title>Icon</title><text>label</text><p>Two.</p></main></body>`, "One.\n\nTwo."},
		{"implied ends", `<body><main><p>One<div>Two</div><ul><li>a<li>b</ul><table><tr><td>x<td>y<tr><td>z</table><h2>H</h2><p>End.</main>`, "One\n\nTwo\n\na\n\nb\n\nx | y\n\nz\n\nH\n\nEnd."},
		{"heading without text", `<body><main><h2>Story</h2><p>Text.</p><h3>Part</h3><p>More.</p><h2>Read next</h2></main>`, "Story\n\nText.\n\nPart\n\nMore."},
		{"headings over a section", `<body><main><h1>Title</h1><h2>Part</h2><p>Text.</p><h2>Also</h2><h2>Next</h2><p>End.</p></main>`, "Title\n\nPart\n\nText.\n\nNext\n\nEnd."},
		{"invisible characters", "<body><main><p>Ar\u00adchive\u2060s keep \ufeffpages\u200f.</p><p>\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645</p></main></body>", "Archives keep pages.\n\n\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"},
		{"custom elements", `<body><main><my-el/>One <x-y>two</x-y><p>Three.</p></main></body>`, "One two\n\nThree."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Extract([]byte(tt.body), "https://example.org/", "")
			if err != nil || res.Text != tt.want {
				t.Errorf("Extract(%q).Text = %q, %v, want %q", tt.body, res.Text, err, tt.want)
			}
		})
	}
}

func TestExtractNoContent(t *testing.T) {
	for _, body := range []string{"", "<html lang=tr></html>", "<img src=a.png>", "<nav>Home</nav>"} {
		res, err := Extract([]byte(body), "", "")
		if !errors.Is(err, ErrNoContent) || res.Text != "" {
			t.Errorf("Extract(%q) = %q, %v, want ErrNoContent", body, res.Text, err)
		}
	}
	res, _ := Extract([]byte("<html lang=tr></html>"), "", "")
	if res.Lang != "tr" {
		t.Errorf("Extract(empty Turkish page).Lang = %q, want tr", res.Lang)
	}
}

func TestExtractTooDeep(t *testing.T) {
	body := strings.Repeat("<div>", 600) + "<p>Deep text.</p>"
	if _, err := Extract([]byte(body), "", ""); !errors.Is(err, ErrUnparsable) {
		t.Errorf("Extract(600 nested divs) error = %v, want ErrUnparsable", err)
	}
	body = strings.Repeat("<div>", 400) + "<p>Deep text.</p>"
	if res, err := Extract([]byte(body), "", ""); err != nil || res.Text != "Deep text." {
		t.Errorf("Extract(400 nested divs) = %q, %v, want \"Deep text.\"", res.Text, err)
	}
}

func TestExtractLang(t *testing.T) {
	const en = `<body><main><p>The archive keeps a copy of every page that the crawler fetched, together with the headers of the response and the time of the visit.</p></main></body>`
	const tr = `<body><main><p>Arşiv, tarayıcının indirdiği her sayfanın bir kopyasını, yanıtın başlıkları ve ziyaret zamanı ile birlikte saklamaktadır.</p></main></body>`
	tests := []struct {
		name, body, header, want string
	}{
		{"html lang", `<html lang="en-GB">` + tr, "", "en"},
		{"xml:lang", `<html xml:lang="DE">` + en, "", "de"},
		{"header", en, "tr", "tr"},
		{"header list of one language", en, "en-GB, en-US", "en"},
		{"header of two languages", tr, "en, de", "tr"},
		{"detected english", en, "", "en"},
		{"detected turkish", tr, "", "tr"},
		{"bad lang attribute", `<html lang="x-klingon">` + tr, "", "tr"},
		{"too short to tell", `<p>Hello there</p>`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := Extract([]byte(tt.body), "", tt.header)
			if res.Lang != tt.want {
				t.Errorf("Extract(%s, Content-Language %q).Lang = %q, want %q", tt.name, tt.header, res.Lang, tt.want)
			}
		})
	}
}

func TestExtractLegacyEncoding(t *testing.T) {
	// "Çalışma sonuçları" in windows-1254, declared by <meta charset>.
	body := []byte("<html><head><meta charset=\"windows-1254\"></head><body><main><p>\xc7al\xfd\xfeman\xfdn sonu\xe7lar\xfd burada.</p></main></body></html>")
	res, err := Extract(body, "", "")
	if err != nil || res.Text != "Çalışmanın sonuçları burada." {
		t.Errorf("Extract(windows-1254 page).Text = %q, %v, want \"Çalışmanın sonuçları burada.\"", res.Text, err)
	}
}

func TestDetectLanguage(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"en", "Universities publish a remarkable amount of research only on their websites, and if nobody keeps those pages, part of the scholarly record simply disappears.", "en"},
		{"tr", "Üniversitelerin web sitelerinde yayımlanan duyurular, ders notları ve araştırma sayfaları zamanla taşınmakta, değişmekte ya da tamamen kaybolmaktadır.", "tr"},
		{"de", "Die Ergebnisse zeigen, dass die vorgeschlagene Methode die Zahl der Anfragen deutlich verringert, ohne dass wichtige Änderungen verloren gehen.", "de"},
		{"fr", "Les résultats montrent que la méthode proposée réduit nettement le nombre de requêtes sans perdre les modifications importantes des pages.", "fr"},
		{"es", "Los resultados muestran que el método propuesto reduce claramente el número de solicitudes sin perder los cambios importantes de las páginas.", "es"},
		{"it", "I risultati mostrano che il metodo proposto riduce nettamente il numero di richieste senza perdere le modifiche importanti delle pagine.", "it"},
		{"pt", "Os resultados mostram que o método proposto reduz claramente o número de pedidos sem perder as alterações importantes das páginas.", "pt"},
		{"nl", "De resultaten laten zien dat de voorgestelde methode het aantal verzoeken duidelijk vermindert zonder dat belangrijke wijzigingen verloren gaan.", "nl"},
		// Scripts written without spaces between words: a paragraph is
		// one or a few runs of letters, not six words.
		{"zh", "本文研究了大学网站随时间变化的规律，测量了消失页面的比例，并提出了一种基于自适应重访的新归档方法。", "zh"},
		{"ja", "本研究では、大学のウェブサイトを対象としたクローラーの再訪問方針について検討し、変更の頻度に応じた適応的な方法を提案する。", "ja"},
		{"zh menu", "首页 学校概况 新闻中心 联系我们", ""},
		{"empty", "", ""},
		{"one word", "Publications", ""},
		{"short title", "Web Crawling 2024", ""},
		{"numbers", "2024 · 12(2) · 45–67 · 10.5555/jwas.2023.1287 · ISSN 2049-3630", ""},
		{"menu", "Home About Contact", ""},
		{"names", "Maren Lindqvist, Chidi Okonkwo, Pieter van Aalst", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := DetectLanguage(tt.text)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("DetectLanguage(%q) = %q, %v, want %q, %v", tt.text, got, ok, tt.want, tt.want != "")
			}
		})
	}
}
