// Package score computes a URL's crawl priority when it is discovered: a
// small integer from topic words in the URL and in the link's anchor text,
// publication-like path patterns and depth. Higher is fetched first.
package score

import (
	"fmt"
	"math/bits"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Order is the crawl ordering a Policy produces.
type Order string

// Orderings: priority scoring, breadth-first and depth-first (the last two
// exist to compare against).
const (
	OrderPriority Order = "priority"
	OrderBFS      Order = "bfs"
	OrderDFS      Order = "dfs"
)

// ParseOrder validates an ordering name.
func ParseOrder(s string) (Order, error) {
	switch o := Order(strings.ToLower(s)); o {
	case OrderPriority, OrderBFS, OrderDFS:
		return o, nil
	}
	return "", fmt.Errorf("score: unknown order %q (want priority, bfs or dfs)", s)
}

// Config is the scoring policy. Words and patterns are matched
// case-insensitively, with Turkish letters folded to ASCII (ş→s, ı→i, ...),
// so "Araştırma" in an anchor and "arastirma" in a URL both match
// "araştırma".
type Config struct {
	Order        Order    `toml:"-"`
	Words        []string `toml:"words"`         // topic words
	URLWeight    int      `toml:"url_weight"`    // per topic word found in the URL (counted once per word)
	AnchorWeight int      `toml:"anchor_weight"` // per topic word found in the anchor text
	MaxWordHits  int      `toml:"max_word_hits"` // cap on word hits per source
	Patterns     []string `toml:"patterns"`      // path substrings that look like a publication ("/article/", ".pdf")
	PatternBonus int      `toml:"pattern_bonus"` // added once when any pattern matches
	DepthPenalty int      `toml:"depth_penalty"` // subtracted per level of depth
	// Avoid are path substrings of pages that are seldom research (news,
	// events, tags, shops, the about and contact pages), in several
	// languages; AvoidPenalty is subtracted once when any matches, or when
	// the path holds a date (/2024/05/, as news and blog posts do).
	Avoid        []string `toml:"avoid"`
	AvoidPenalty int      `toml:"avoid_penalty"`
	// AvoidAnchors are whole anchor texts of links to such pages ("About
	// us", "News", "Kontakt"): a site that numbers every page (/node/N)
	// names its about and news pages only in its menus. A link whose
	// anchor is one of them (case, Turkish letters, spaces and hyphens
	// aside) loses the avoid penalty too, once.
	AvoidAnchors []string `toml:"avoid_anchors"`
	// Files are path substrings of a publication's file (".pdf", a
	// repository's /bitstream/); FilePenalty is subtracted once when any
	// matches: a publication's landing page, which names it and links its
	// file, comes before the file, so that a host's publications are all
	// known before their files are fetched.
	Files       []string `toml:"files"`
	FilePenalty int      `toml:"file_penalty"`
	// InlinkBonus is added each time another fetched page links to a queued
	// URL, up to MaxInlinkBonus (applied by the store).
	InlinkBonus    int `toml:"inlink_bonus"`
	MaxInlinkBonus int `toml:"max_inlink_bonus"`
	// RecentBonus is added to sitemap entries whose <lastmod> is within
	// RecentDays; half of it within a year.
	RecentBonus int `toml:"recent_lastmod_bonus"`
	RecentDays  int `toml:"recent_lastmod_days"`
}

// DefaultConfig is the policy documented in docs/crawling.md.
func DefaultConfig() Config {
	return Config{
		Order: OrderPriority,
		Words: []string{
			"research", "paper", "publication", "academic", "university", "journal", "article",
			"thesis", "dissertation", "proceedings", "preprint", "faculty", "lab", "doi",
			"araştırma", "yayın", "makale", "akademik", "üniversite", "tez", "bildiri",
			"publikationen", "forschung", "publicaciones", "investigacion", "recherche",
			"pubblicazioni", "ricerca", "publicacoes", "pesquisa", "artikel", "tesis",
		},
		URLWeight:    3,
		AnchorWeight: 2,
		MaxWordHits:  3,
		Patterns: []string{"/publication/", "/publications/", "/paper/", "/papers/", "/article/", "/doi/", "/abs/", ".pdf",
			"/publikationen/", "/publicaciones/", "/pubblicazioni/", "/publicacoes/", "/yayinlar/",
			"/handle/", "/bitstream/", "/eprint/", "/record/"}, // repositories: DSpace, EPrints, Invenio
		PatternBonus: 6,
		DepthPenalty: 2,
		Avoid: []string{
			"/news/", "/events/", "/event/", "/calendar", "/tag/", "/tags/", "/category/", "/press/", "/blog/", "/?p=",
			"/about", "/contact", "/login", "/cart", "/shop/", "/store/", "/product/", "/products/", "/catalog", "/jobs", "/careers",
			"/haberler/", "/duyurular/", "/etkinlikler/", "/hakkimizda", "/iletisim",
			"/aktuelles/", "/veranstaltungen/", "/ueber-uns", "/kontakt",
			"/noticias/", "/eventos/", "/acerca", "/contacto", "/actualites/", "/evenements/", "/a-propos",
			"/notizie/", "/eventi/", "/chi-siamo", "/contatti", "/sobre",
		},
		AvoidPenalty: 16,
		AvoidAnchors: []string{
			"about", "about us", "contact", "contact us", "news", "events", "press", "jobs", "careers", "shop", "cart", "login",
			"aktuelles", "über uns", "ueber uns", "kontakt", "veranstaltungen", "noticias", "acerca", "acerca de", "contacto",
			"eventos", "actualités", "actualites", "à propos", "a propos", "événements", "evenements", "notizie", "chi siamo", "contatti", "eventi",
			"sobre", "sobre nós", "contato", "haberler", "hakkımızda", "iletişim", "duyurular", "etkinlikler",
		},
		Files:          []string{".pdf", "/bitstream/"},
		FilePenalty:    8,
		InlinkBonus:    1,
		MaxInlinkBonus: 5,
		RecentBonus:    4,
		RecentDays:     30,
	}
}

// Policy scores URLs. It is immutable and safe for concurrent use.
type Policy struct {
	cfg   Config
	words map[string]int // folded word → index
	// wordLens has, by a word's first byte, bit n-1 set for a word of n
	// bytes: most tokens are no word and need no map look-up.
	wordLens [256]uint64
	anchors  []string // AvoidAnchors, normalized (anchorKey)
	paths    *matcher // Patterns, Avoid and Files, folded
}

// New builds a policy from a configuration.
func New(cfg Config) (*Policy, error) {
	if cfg.Order == "" {
		cfg.Order = OrderPriority
	}
	if _, err := ParseOrder(string(cfg.Order)); err != nil {
		return nil, err
	}
	p := &Policy{cfg: cfg, words: map[string]int{}, paths: newMatcher()}
	for _, w := range cfg.Words {
		f := fold(w)
		if f == "" {
			return nil, fmt.Errorf("score: empty topic word %q", w)
		}
		if len(f) > maxWord {
			return nil, fmt.Errorf("score: topic word %q longer than %d bytes", w, maxWord)
		}
		if _, dup := p.words[f]; !dup { // "Research" and "research" are one word
			p.words[f] = len(p.words)
			p.wordLens[f[0]] |= 1 << (len(f) - 1)
		}
	}
	if len(p.words) > 64 {
		return nil, fmt.Errorf("score: %d topic words, at most 64 are supported", len(p.words))
	}
	for _, pat := range cfg.Patterns {
		if pat == "" {
			return nil, fmt.Errorf("score: empty path pattern")
		}
		p.paths.add(fold(pat), groupPattern)
	}
	for _, pat := range cfg.Avoid {
		if pat == "" {
			return nil, fmt.Errorf("score: empty avoided path pattern")
		}
		p.paths.add(fold(pat), groupAvoid)
	}
	for _, a := range cfg.AvoidAnchors {
		k := anchorKey(a)
		if k == "" {
			return nil, fmt.Errorf("score: empty avoided anchor")
		}
		p.anchors = append(p.anchors, k)
	}
	for _, pat := range cfg.Files {
		if pat == "" {
			return nil, fmt.Errorf("score: empty file path pattern")
		}
		p.paths.add(fold(pat), groupFile)
	}
	return p, nil
}

// Order returns the policy's ordering.
func (p *Policy) Order() Order { return p.cfg.Order }

// Score returns the priority of a normalized URL found at depth with the
// given anchor text.
func (p *Policy) Score(url, anchor string, depth int) int {
	switch p.cfg.Order {
	case OrderBFS:
		return -depth
	case OrderDFS:
		return depth
	}
	s := -p.cfg.DepthPenalty * depth
	s += p.cfg.URLWeight * p.hits(url)
	s += p.cfg.AnchorWeight * p.hits(anchor)
	// One pass over the path finds the groups of patterns that count:
	// not the avoided ones when a date or the anchor has decided it.
	path := pathOf(url)
	avoided := p.cfg.AvoidPenalty != 0 && (hasDate(path) || p.avoidedAnchor(anchor))
	want := groupPattern
	if p.cfg.AvoidPenalty != 0 && !avoided {
		want |= groupAvoid
	}
	if p.cfg.FilePenalty != 0 {
		want |= groupFile
	}
	found := p.paths.find(path, want)
	if found&groupPattern != 0 {
		s += p.cfg.PatternBonus
	}
	if avoided || found&groupAvoid != 0 {
		s -= p.cfg.AvoidPenalty
	}
	if found&groupFile != 0 {
		s -= p.cfg.FilePenalty
	}
	return s
}

// Context is what the links of the page at pageURL to its own host gain
// from the page's path: half the pattern bonus when the path looks like
// publications (a publication listing), less half the avoid penalty when
// it is avoided (a news listing, a dated post). A site whose URLs say
// nothing of their pages (/node/1234 for a paper, a person and a news
// story alike) tells its publications from its news by the listing that
// links them. It is zero in the bfs and dfs orders; links to other hosts
// get their priority from their own URL and anchor, not from the page.
func (p *Policy) Context(pageURL string) int {
	if p.cfg.Order != OrderPriority {
		return 0
	}
	path := pathOf(pageURL)
	dated := hasDate(path)
	want := groupPattern
	if !dated {
		want |= groupAvoid
	}
	found := p.paths.find(path, want)
	c := 0
	if found&groupPattern != 0 {
		c += p.cfg.PatternBonus / 2
	}
	if dated || found&groupAvoid != 0 {
		c -= p.cfg.AvoidPenalty / 2
	}
	return c
}

// pathOf returns the path of a URL (from its first '/' after the host),
// or the URL itself when it has no scheme.
func pathOf(url string) string {
	if i := strings.Index(url, "://"); i >= 0 {
		if j := strings.IndexByte(url[i+3:], '/'); j >= 0 {
			return url[i+3+j:]
		}
		return "/"
	}
	return url
}

// maxAvoidedAnchor is the longest anchor compared with AvoidAnchors, in
// bytes: a longer one is a title, not a menu's entry.
const maxAvoidedAnchor = 32

// avoidedAnchor reports whether an anchor text is one of AvoidAnchors,
// compared as anchorKey normalizes them. It does not allocate.
func (p *Policy) avoidedAnchor(anchor string) bool {
	if anchor == "" || len(anchor) > maxAvoidedAnchor || len(p.anchors) == 0 {
		return false
	}
	var buf [2 * maxAvoidedAnchor]byte
	k := appendAnchorKey(buf[:0], anchor)
	for _, a := range p.anchors {
		if string(k) == a {
			return true
		}
	}
	return false
}

// anchorKey normalizes an anchor text: letters folded as fold does,
// runs of anything else (spaces, hyphens, punctuation) one space, none
// at either end.
func anchorKey(s string) string { return string(appendAnchorKey(nil, s)) }

func appendAnchorKey(b []byte, s string) []byte {
	gap := false
	for _, r := range s {
		f := foldRune(r)
		var u [utf8.UTFMax]byte
		n := 0
		switch {
		case f != 0:
			u[0], n = f, 1
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			n = utf8.EncodeRune(u[:], unicode.ToLower(r))
		default:
			gap = true
			continue
		}
		if gap && len(b) > 0 {
			b = append(b, ' ')
		}
		gap = false
		b = append(b, u[:n]...)
	}
	return b
}

// hasDate reports whether a path holds a /YYYY/MM/ date (years 1990 to
// 2099, months 01 to 12).
func hasDate(path string) bool {
	for i := 0; i+9 <= len(path); i++ {
		if path[i] != '/' {
			continue
		}
		d := path[i+1 : i+9] // YYYY/MM/
		if d[4] != '/' || d[7] != '/' || !digits(d[:4]) || !digits(d[5:7]) {
			continue
		}
		y := d[:4]
		if (y[:2] == "19" && y[2] == '9' || y[:2] == "20") && (d[5] == '0' && d[6] != '0' || d[5:7] == "10" || d[5:7] == "11" || d[5:7] == "12") {
			return true
		}
	}
	return false
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// InlinkBonus returns the per-inbound-link bonus and its cap (zero for
// the bfs and dfs orders, which ignore links).
func (p *Policy) InlinkBonus() (bonus, limit int) {
	if p.cfg.Order != OrderPriority || p.cfg.InlinkBonus <= 0 {
		return 0, 0
	}
	return p.cfg.InlinkBonus, max(p.cfg.MaxInlinkBonus, p.cfg.InlinkBonus)
}

// LastModBonus is the priority added to a sitemap entry last modified at
// lastmod, as seen at now.
func (p *Policy) LastModBonus(lastmod, now time.Time) int {
	if p.cfg.Order != OrderPriority || lastmod.IsZero() || p.cfg.RecentBonus == 0 {
		return 0
	}
	age := now.Sub(lastmod)
	days := min(max(p.cfg.RecentDays, 1), 100*365) // a longer span would overflow time.Duration
	switch {
	case age < time.Duration(days)*24*time.Hour:
		return p.cfg.RecentBonus
	case age < 365*24*time.Hour:
		return p.cfg.RecentBonus / 2
	}
	return 0
}

// AcademicSignals reports whether a URL or anchor carries any topic word or
// publication pattern; it is what the priority order rewards.
func (p *Policy) AcademicSignals(url, anchor string) bool {
	if p.hits(url) > 0 || p.hits(anchor) > 0 {
		return true
	}
	return p.paths.find(url, groupPattern) != 0
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// foldUnit folds the character at s[i:] into u, returning its length there
// and the index of the next character: ASCII letters lowercased, a
// percent-encoded non-ASCII character decoded, letters folded as fold does.
// An invalid byte stands for itself.
func foldUnit(s string, i int, u *[utf8.UTFMax]byte) (n, next int) {
	c := s[i]
	if c >= utf8.RuneSelf {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			u[0] = c
			return 1, i + 1
		}
		return foldTo(r, u), i + size
	}
	if c == '%' {
		if r, size := decodePercent(s[i:]); size > 0 && r >= utf8.RuneSelf {
			return foldTo(r, u), i + size
		}
	}
	u[0] = lower(c)
	return 1, i + 1
}

// foldTo writes r folded as fold does into u and returns its length.
func foldTo(r rune, u *[utf8.UTFMax]byte) int {
	if f := foldRune(r); f != 0 {
		u[0] = f
		return 1
	}
	return utf8.EncodeRune(u[:], unicode.ToLower(r))
}

// suffixes that still count as the topic word: plurals and the common
// Turkish plural/possessive endings.
var suffixes = []string{"s", "es", "lar", "ler", "lari", "leri", "si", "i"}

// suffixEnds are the last bytes of suffixes.
var suffixEnds = func() (t [256]bool) {
	for _, suf := range suffixes {
		t[suf[len(suf)-1]] = true
	}
	return t
}()

// maxWord is the longest folded topic word, in bytes. Tokens are collected
// in a buffer with room for it and any suffix; a longer token matches no
// word.
const maxWord = 64

// hits counts distinct topic words among the alphanumeric tokens of s.
func (p *Policy) hits(s string) int {
	if s == "" {
		return 0
	}
	var seen uint64 // the words found, by index
	var buf [2 * maxWord]byte
	size := 0 // the token is buf[:size]; one that outgrew buf matches no word
	for i := 0; i < len(s); {
		c := s[i]
		if f := asciiFold[c]; f != 0 { // the common case
			if size < len(buf) {
				buf[size] = f
			}
			size++
			i++
			continue
		}
		r, rsize := rune(c), 1
		switch {
		case c == '%':
			// Percent-encoded UTF-8 in URLs: decode Turkish letters, and
			// separators such as %20, whose hex digits are no letters.
			if d, dsize := decodePercent(s[i:]); dsize > 0 {
				r, rsize = d, dsize
			}
		case c >= utf8.RuneSelf:
			r, rsize = utf8.DecodeRuneInString(s[i:])
		}
		i += rsize
		var u [utf8.UTFMax]byte
		n := 0
		if f := foldRune(r); f != 0 {
			u[0], n = f, 1
		} else if r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			// Other letters stay in the token, lowercased as fold does.
			n = utf8.EncodeRune(u[:], unicode.ToLower(r))
		} else {
			seen |= p.word(buf[:], size)
			size = 0
			continue
		}
		for _, b := range u[:n] {
			if size < len(buf) {
				buf[size] = b
			}
			size++
		}
	}
	seen |= p.word(buf[:], size)
	return min(bits.OnesCount64(seen), p.cfg.MaxWordHits)
}

// asciiFold is foldRune of ASCII bytes, 0 for the others.
var asciiFold = func() (t [256]byte) {
	for c := range utf8.RuneSelf {
		t[c] = foldRune(rune(c))
	}
	return t
}()

// word returns the bit of the topic word that the token buf[:size] is, or
// 0 when it is none or outgrew buf.
func (p *Policy) word(buf []byte, size int) uint64 {
	if size == 0 || size > len(buf) {
		return 0
	}
	if i, ok := p.match(buf[:size]); ok {
		return 1 << i
	}
	return 0
}

// match returns the index of the topic word that tok, a non-empty token,
// is with or without a suffix.
func (p *Policy) match(tok []byte) (int, bool) {
	if p.wordLens[tok[0]] == 0 {
		return 0, false // no word starts with its byte
	}
	if p.mayBeWord(tok) {
		if i, ok := p.words[string(tok)]; ok {
			return i, true
		}
	}
	if !suffixEnds[tok[len(tok)-1]] {
		return 0, false
	}
	for _, suf := range suffixes {
		if len(tok) > len(suf) && string(tok[len(tok)-len(suf):]) == suf && p.mayBeWord(tok[:len(tok)-len(suf)]) {
			if i, ok := p.words[string(tok[:len(tok)-len(suf)])]; ok {
				return i, true
			}
		}
	}
	return 0, false
}

// mayBeWord reports whether a topic word has tok's first byte and length.
func (p *Policy) mayBeWord(tok []byte) bool {
	n := len(tok)
	return 0 < n && n <= maxWord && p.wordLens[tok[0]]&(1<<(n-1)) != 0
}

// decodePercent decodes one percent-encoded UTF-8 character at the start of
// s ("%C5%9F" → 'ş').
func decodePercent(s string) (rune, int) {
	var b [4]byte
	n := 0
	i := 0
	for n < 4 && i+2 < len(s) && s[i] == '%' {
		hi, ok1 := unhex(s[i+1])
		lo, ok2 := unhex(s[i+2])
		if !ok1 || !ok2 {
			break
		}
		b[n] = hi<<4 | lo
		n++
		i += 3
		if utf8.FullRune(b[:n]) {
			r, size := utf8.DecodeRune(b[:n])
			if r == utf8.RuneError || size != n {
				return 0, 0
			}
			return r, i
		}
	}
	return 0, 0
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// foldRune maps letters to lowercase ASCII, folding Turkish letters; it
// returns 0 for anything else.
func foldRune(r rune) byte {
	switch {
	case 'a' <= r && r <= 'z' || '0' <= r && r <= '9':
		return byte(r)
	case 'A' <= r && r <= 'Z':
		return byte(r) + 'a' - 'A'
	}
	switch r {
	case 'ş', 'Ş':
		return 's'
	case 'ı', 'İ', 'î', 'Î':
		return 'i'
	case 'ğ', 'Ğ':
		return 'g'
	case 'ü', 'Ü', 'û', 'Û':
		return 'u'
	case 'ö', 'Ö':
		return 'o'
	case 'ç', 'Ç':
		return 'c'
	case 'â', 'Â':
		return 'a'
	}
	return 0
}

func fold(s string) string {
	var b strings.Builder
	for _, r := range s {
		if f := foldRune(r); f != 0 {
			b.WriteByte(f)
		} else {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}
