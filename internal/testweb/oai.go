package testweb

import (
	"bytes"
	"encoding/xml"
	"hash/fnv"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// RepositoryHost is the host of the institutional repository.
const RepositoryHost = "repository.northfield-university.test"

// repositoryPrefix is the repository's handle prefix.
const repositoryPrefix = "20.500.12345"

// RepositoryPageSize is the number of records of a ListRecords or
// ListIdentifiers page.
const RepositoryPageSize = 20

// Repository is a DSpace-like institutional repository that speaks
// OAI-PMH 2.0 (oai_dc only, second granularity, persistent deletions). Its
// records are the publications of Northfield University's sites (the main
// site and the computer science department), deposited with metadata that
// differs from the originals as deposits do (authors as "Sato, J." or
// "Sato, Jamal", subtitles dropped, titles in sentence case), plus theses
// found only in the repository and two withdrawn (deleted) records. Each
// record has a landing page with citation_* meta tags at
// /handle/20.500.12345/N and a PDF at /bitstream/handle/20.500.12345/N/…pdf.
//
// The endpoint is /oai; variants of it exercise harvesters:
//
//	/oai/busy       answers 503 with Retry-After: 1 to the first request of each resumption token
//	/oai/truncated  cuts the body of the first request of each resumption token in half
//	/oai/cycle      sends the second page's token again on the third page
//
// Resumption tokens are "oai_dc/from/until/set/offset/epoch"; a token
// issued before the web's last Advance is answered with
// badResumptionToken, as an expired token. Records are fixed when the
// repository is built.
//
// A Repository is safe for concurrent use. It serves any Host; the test
// web routes RepositoryHost to it.
type Repository struct {
	w       *Web
	origin  string
	records []RepositoryRecord // by datestamp, then identifier
	byID    map[string]int     // handle number → index

	mu     sync.Mutex
	failed map[string]bool // variant + token already answered with a fault
}

// RepositoryRecord is the ground truth about one record.
type RepositoryRecord struct {
	Identifier string // "oai:repository.northfield-university.test:20.500.12345/1000"
	Handle     string // "20.500.12345/1000"
	Datestamp  time.Time
	Deleted    bool
	Sets       []string

	Title    string   // as deposited
	Creators []string // as deposited: "Last, First" or "Last, F."
	Date     string   // dc:date: "2021" or "2021-07"
	Year     int
	Type     string // "Article" or "Thesis"
	DOI      string // "" for repository-only theses
	Landing  string // absolute URL of the landing page
	PDF      string // absolute URL of the PDF
	// Original is the URL of the publication this record deposits, on
	// another site of the web, and Citation its ground truth; "" and nil
	// for records found only in the repository.
	Original string
	Citation *Citation

	issued time.Time // the full date the landing page states
}

// NewRepository builds the repository over the publications of w.
func NewRepository(w *Web) *Repository {
	r := &Repository{w: w, origin: "http://" + RepositoryHost, byID: map[string]int{}, failed: map[string]bool{}}
	var pubs []PageInfo
	for _, p := range w.Pages() {
		if p.Kind == "publication" && p.Citation != nil &&
			(strings.HasPrefix(p.URL, "http://www.northfield-university.test/") || strings.HasPrefix(p.URL, "http://cs.northfield-university.test/")) {
			pubs = append(pubs, p)
		}
	}
	sort.Slice(pubs, func(i, j int) bool { return pubs[i].URL < pubs[j].URL })
	seed := uint64(w.cfg.Seed)
	n := 1000
	for i, p := range pubs {
		c := p.Citation
		h := hash64(seed, p.URL)
		year, _ := strconv.Atoi(c.Date[:4])
		rec := RepositoryRecord{
			Title:    depositTitle(c.Title, i),
			Creators: depositNames(c.Authors, i),
			Date:     c.Date[:4],
			Year:     year,
			Type:     "Article",
			DOI:      c.DOI,
			Original: p.URL,
			Citation: c,
		}
		if i%2 == 1 {
			rec.Date = c.Date[:7]
		}
		if strings.Contains(p.URL, "/theses/") {
			rec.Type = "Thesis"
		}
		pub, _ := time.Parse("2006-01-02", c.Date)
		rec.issued = pub
		rec.Datestamp = pub.Add(time.Duration(30*24*3600+h%(300*24*3600)) * time.Second)
		r.add(n, rec)
		n++
	}
	// Theses deposited only here, and two withdrawn records.
	for i := range 4 {
		h := hash64(seed, "thesis"+itoa(i))
		year := 2015 + int(h%10)
		first, last := firstNames[h%uint64(len(firstNames))], lastNames[(h>>8)%uint64(len(lastNames))]
		title := thesisTopics[(h>>16)%uint64(len(thesisTopics))] + ": " + thesisKinds[i%len(thesisKinds)]
		rec := RepositoryRecord{Title: title, Creators: []string{last + ", " + first}, Date: itoa(year), Year: year, Type: "Thesis",
			issued: time.Date(year, 7, 1+int(h%28), 0, 0, 0, 0, time.UTC), Datestamp: time.Date(year, 9, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(h%(200*24*3600)) * time.Second)}
		r.add(n, rec)
		n++
	}
	for i := range 2 {
		h := hash64(seed, "withdrawn"+itoa(i))
		r.add(n, RepositoryRecord{Deleted: true, Datestamp: time.Date(2024, time.Month(2+i), 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(h%(20*24*3600)) * time.Second)})
		n++
	}
	sort.SliceStable(r.records, func(i, j int) bool {
		a, b := r.records[i], r.records[j]
		if !a.Datestamp.Equal(b.Datestamp) {
			return a.Datestamp.Before(b.Datestamp)
		}
		return a.Identifier < b.Identifier
	})
	for i, rec := range r.records {
		r.byID[rec.Handle] = i
	}
	return r
}

var (
	firstNames   = []string{"Jamal", "Mei", "Ingrid", "Tomás", "Aiko", "Nadia", "Oskar", "Priya"}
	lastNames    = []string{"Sato", "Okafor", "Lindqvist", "Moreau", "Haddad", "Kowalski", "Ferreira", "Nakamura"}
	thesisTopics = []string{"Polite crawling of institutional repositories", "Harvesting metadata at scale",
		"Near-duplicate detection in scholarly archives", "Incremental recrawl policies", "Citation extraction from PDF files"}
	thesisKinds = []string{"a master's thesis", "a doctoral thesis", "a case study", "a field report"}
)

func (r *Repository) add(n int, rec RepositoryRecord) {
	rec.Handle = repositoryPrefix + "/" + itoa(n)
	rec.Identifier = "oai:" + RepositoryHost + ":" + rec.Handle
	rec.Datestamp = rec.Datestamp.UTC().Truncate(time.Second)
	if !rec.Deleted {
		rec.Landing = r.origin + "/handle/" + rec.Handle
		rec.PDF = r.origin + "/bitstream/handle/" + rec.Handle + "/" + slugify(rec.Title, 6) + ".pdf"
		coll := "col_" + strings.ReplaceAll(repositoryPrefix, ".", "_") + "_1"
		if rec.Type == "Thesis" {
			coll = "col_" + strings.ReplaceAll(repositoryPrefix, ".", "_") + "_2"
		}
		rec.Sets = []string{"com_" + strings.ReplaceAll(repositoryPrefix, ".", "_") + "_0", coll}
	}
	r.records = append(r.records, rec)
}

func hash64(seed uint64, s string) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for i := range b {
		b[i] = byte(seed >> (8 * i))
	}
	h.Write(b[:])
	h.Write([]byte(s))
	return h.Sum64()
}

// depositTitle is how a deposit titles a publication: as published, with
// its subtitle dropped (every fourth), or in sentence case (every fourth
// but one).
func depositTitle(t string, i int) string {
	switch i % 4 {
	case 1:
		if j := strings.Index(t, ": "); j > 0 {
			return t[:j]
		}
	case 2:
		if t == "" {
			return t
		}
		return t[:1] + strings.ToLower(t[1:])
	}
	return t
}

// depositNames writes "First Last" as "Last, First", or as "Last, F." for
// every third record.
func depositNames(names []string, i int) []string {
	out := make([]string, len(names))
	for k, n := range names {
		j := strings.LastIndexByte(n, ' ')
		if j < 0 {
			out[k] = n
			continue
		}
		first, last := n[:j], n[j+1:]
		if i%3 == 0 {
			first = first[:1] + "."
		}
		out[k] = last + ", " + first
	}
	return out
}

// buildRepository returns the repository as a site of w: its home, landing
// pages and PDFs are enumerable pages (the landing pages publications
// whose Citation is what their meta tags state), the OAI-PMH endpoints
// hidden pages; the Repository serves them all. Its pages serve
// themselves, so Advance neither changes nor removes them.
func (w *Web) buildRepository() *site {
	repo := NewRepository(w)
	s := newSite(w, RepositoryHost, "Northfield University Repository", "repository", true)
	s.notes = "an institutional repository with OAI-PMH at /oai (oai_dc; /oai/busy, /oai/truncated and /oai/cycle misbehave): deposits of Northfield's publications with deposit-style metadata, theses found only here, two withdrawn records"
	serve := func(_ *Web, _ *site, _ *page, rw http.ResponseWriter, r *http.Request) { repo.ServeHTTP(rw, r) }
	html := "text/html; charset=utf-8"
	s.home = s.add(&page{key: "/", kind: "home", title: "Northfield University Repository", ctype: html, serve: serve})
	for i := range repo.records {
		rec := &repo.records[i]
		if rec.Deleted {
			continue
		}
		pdf := s.add(&page{key: strings.TrimPrefix(rec.PDF, repo.origin), kind: "pdf", academic: true, title: rec.Title, ctype: "application/pdf", serve: serve})
		pb := &pubData{title: rec.Title, year: rec.issued.Year(), month: int(rec.issued.Month()), day: rec.issued.Day(),
			venue: "Northfield University", venueKind: "thesis", doi: rec.DOI, lang: "en", pdf: pdf}
		if rec.Citation != nil {
			pb.venue, pb.venueKind = rec.Citation.Venue, "journal"
		}
		if rec.Original != "" {
			// The deposit links to the original, which therefore stays.
			if pb.of = w.pubAt(rec.Original); pb.of != nil {
				pb.of.main.pinned = true
			}
		}
		for _, c := range rec.Creators {
			last, first, _ := strings.Cut(c, ", ")
			pb.authors = append(pb.authors, author{name: first + " " + last, first: first, last: last})
		}
		pb.main = s.add(&page{key: "/handle/" + rec.Handle, kind: "publication", academic: true, title: rec.Title, ctype: html, serve: serve, pub: pb})
		pdf.pub = pb
	}
	s.addRobots(newRobots("allow-all", "Northfield University Repository", []robotsGroup{
		{agents: []string{"*"}, rules: []robotsRule{{pattern: "/discover"}}},
	}, nil))
	s.dynamic = func(s *site, path string, q []param) *page {
		if path == "/oai" || path == "/oai/busy" || path == "/oai/truncated" || path == "/oai/cycle" {
			return &page{kind: "feed", title: "OAI-PMH", ctype: "text/xml; charset=utf-8", serve: serve,
				note: "OAI-PMH 2.0 endpoint"}
		}
		return nil
	}
	return s
}

// Records returns the repository's records, in the order it lists them.
func (r *Repository) Records() []RepositoryRecord {
	return append([]RepositoryRecord(nil), r.records...)
}

// BaseURL is the OAI-PMH base URL on the repository's own host.
func (r *Repository) BaseURL() string { return r.origin + "/oai" }

// ServeHTTP serves the repository. Its home page, landing pages and PDFs
// carry validators, as a repository's do: a recrawl's conditional request
// is answered 304.
func (r *Repository) ServeHTTP(rw http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		rw.Header().Set("Allow", "GET, HEAD")
		http.Error(rw, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p := req.URL.Path
	switch {
	case p == "/oai" || p == "/oai/busy" || p == "/oai/truncated" || p == "/oai/cycle":
		r.serveOAI(rw, req, strings.TrimPrefix(strings.TrimPrefix(p, "/oai"), "/"))
	case p == "/robots.txt":
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		rw.Write([]byte("User-agent: *\nDisallow: /discover\n"))
	case p == "/":
		r.serveHome(rw, req)
	case strings.HasPrefix(p, "/handle/"+repositoryPrefix+"/"):
		i, ok := r.byID[strings.TrimPrefix(p, "/handle/")]
		if !ok || r.records[i].Deleted {
			http.NotFound(rw, req)
			return
		}
		r.serveLanding(rw, req, &r.records[i])
	case strings.HasPrefix(p, "/bitstream/handle/"+repositoryPrefix+"/"):
		rest := strings.TrimPrefix(p, "/bitstream/handle/")
		j := strings.LastIndexByte(rest, '/')
		i, ok := r.byID[rest[:max(j, 0)]]
		if j < 0 || !ok || r.records[i].Deleted || r.records[i].PDF != r.origin+p {
			http.NotFound(rw, req)
			return
		}
		r.servePDF(rw, req, &r.records[i])
	default:
		http.NotFound(rw, req)
	}
}

func (r *Repository) serveHome(rw http.ResponseWriter, req *http.Request) {
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Northfield University Repository</title></head><body>\n<h1>Northfield University Repository</h1>\n<p>OAI-PMH: <a href=\"/oai?verb=Identify\">/oai</a></p>\n<ul>\n")
	for i := range r.records {
		rec := &r.records[i]
		if rec.Deleted {
			continue
		}
		b.WriteString("<li><a href=\"/handle/" + rec.Handle + "\">")
		writeEsc(&b, rec.Title)
		b.WriteString("</a></li>\n")
	}
	b.WriteString("</ul></body></html>\n")
	var mod time.Time
	for i := range r.records {
		if r.records[i].Datestamp.After(mod) {
			mod = r.records[i].Datestamp
		}
	}
	serveContent(rw, req, "text/html; charset=utf-8", etag(b.Bytes()), mod, b.Bytes())
}

func (r *Repository) serveLanding(rw http.ResponseWriter, req *http.Request, rec *RepositoryRecord) {
	var b bytes.Buffer
	meta := func(name, content string) {
		b.WriteString("<meta name=\"" + name + "\" content=\"")
		writeEsc(&b, content)
		b.WriteString("\">\n")
	}
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>")
	writeEsc(&b, rec.Title)
	b.WriteString("</title>\n")
	meta("citation_title", rec.Title)
	for _, c := range rec.Creators {
		meta("citation_author", c)
	}
	meta("citation_publication_date", rec.issued.Format("2006/01/02"))
	if rec.DOI != "" {
		meta("citation_doi", rec.DOI)
	}
	if rec.Type == "Thesis" {
		meta("citation_dissertation_institution", "Northfield University")
	} else if rec.Citation != nil {
		meta("citation_journal_title", rec.Citation.Venue)
	}
	meta("citation_pdf_url", rec.PDF)
	meta("DC.identifier", "http://hdl.handle.net/"+rec.Handle)
	b.WriteString("</head><body>\n<h1>")
	writeEsc(&b, rec.Title)
	b.WriteString("</h1>\n<p>")
	writeEsc(&b, strings.Join(rec.Creators, "; "))
	b.WriteString(" (" + rec.Date + ")</p>\n<p><a href=\"" + rec.PDF + "\">Download PDF</a></p>\n")
	if rec.Original != "" {
		b.WriteString("<p>Published version: <a href=\"" + rec.Original + "\">")
		writeEsc(&b, rec.Original)
		b.WriteString("</a></p>\n")
	}
	b.WriteString("<p><a href=\"/\">Repository home</a></p>\n</body></html>\n")
	serveContent(rw, req, "text/html; charset=utf-8", etag(b.Bytes()), rec.Datestamp, b.Bytes())
}

func (r *Repository) servePDF(rw http.ResponseWriter, req *http.Request, rec *RepositoryRecord) {
	var lines []pdfLine
	for _, l := range wrap(foldASCII(rec.Title), 60) {
		lines = append(lines, pdfLine{font: "F1", size: 16, text: l})
	}
	lines = append(lines, pdfLine{font: "F2", size: 11, text: foldASCII(strings.Join(rec.Creators, "; "))})
	if rec.Type == "Thesis" {
		lines = append(lines, pdfLine{font: "F2", size: 10, text: "A thesis submitted to Northfield University."})
	}
	note := "Deposited in the Northfield University Repository. Published " + itoa(rec.issued.Year()) + "."
	if rec.DOI != "" {
		note += " doi:" + rec.DOI
	}
	lines = append(lines, pdfLine{font: "F2", size: 10, text: note})
	// A page of text, as a deposited file has: the abstract.
	for _, l := range wrap(depositAbstract(rec), 80) {
		lines = append(lines, pdfLine{font: "F2", size: 10, text: l})
	}
	var b bytes.Buffer
	writePDF(&b, foldASCII(rec.Title), foldASCII(strings.Join(rec.Creators, "; ")), lines)
	serveContent(rw, req, "application/pdf", etag(b.Bytes()), rec.Datestamp, b.Bytes())
}

// Subject is the record's dc:subject: the collection it is deposited in
// ("Articles", "Theses").
func (rec RepositoryRecord) Subject() string { return rec.Type + "s" }

// Abstract is the record's dc:description, the abstract its PDF states.
func (rec RepositoryRecord) Abstract() string { return depositAbstract(&rec) }

// depositAbstract is the abstract a record's PDF states, made from its
// title so that every deposit reads differently.
func depositAbstract(rec *RepositoryRecord) string {
	t := strings.ToLower(foldASCII(rec.Title))
	kind := "article"
	if rec.Type == "Thesis" {
		kind = "thesis"
	}
	return "Abstract. This " + kind + " studies " + t + ". We describe the data we collected, the methods " +
		"we used to analyse it and the results we obtained, and we discuss how they compare with earlier work " +
		"on " + t + ". The deposited version is the author's accepted manuscript; the data and code are " +
		"archived with it in the repository."
}

// oaiQuery is a ListRecords or ListIdentifiers request, from its
// arguments or its token.
type oaiQuery struct {
	from, until       time.Time
	fromRaw, untilRaw string
	set               string
	offset            int
	untilDay          bool
}

func (r *Repository) serveOAI(rw http.ResponseWriter, req *http.Request, variant string) {
	q := req.URL.Query()
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/ http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd">` + "\n")
	b.WriteString("<responseDate>" + r.now().Format(time.RFC3339) + "</responseDate>\n")
	verb := q.Get("verb")
	b.WriteString("<request")
	if verb != "" && len(q["verb"]) == 1 {
		b.WriteString(` verb="`)
		writeEsc(&b, verb)
		b.WriteString(`"`)
	}
	b.WriteString(">" + r.origin + "/oai</request>\n")
	fail := func(code, msg string) {
		b.WriteString(`<error code="` + code + `">`)
		writeEsc(&b, msg)
		b.WriteString("</error>\n")
	}
	allowed := map[string][]string{
		"Identify":            nil,
		"ListMetadataFormats": {"identifier"},
		"ListSets":            {"resumptionToken"},
		"GetRecord":           {"identifier", "metadataPrefix"},
		"ListRecords":         {"metadataPrefix", "from", "until", "set", "resumptionToken"},
		"ListIdentifiers":     {"metadataPrefix", "from", "until", "set", "resumptionToken"},
	}
	args, known := allowed[verb]
	switch {
	case len(q["verb"]) != 1 || !known:
		fail("badVerb", "Illegal OAI verb")
	case !argsOK(q, args):
		fail("badArgument", "Illegal or repeated argument")
	default:
		r.answer(&b, rw, q, verb, variant, fail)
	}
	if rw.Header().Get("Retry-After") != "" {
		return // answer wrote a 503
	}
	b.WriteString("</OAI-PMH>\n")
	body := b.Bytes()
	if variant == "truncated" && q.Get("resumptionToken") != "" && r.firstTime("truncated", q.Get("resumptionToken")) {
		body = body[:len(body)/2]
	}
	rw.Header().Set("Content-Type", "text/xml; charset=utf-8")
	rw.Write(body)
}

// now is the responseDate: the web's base date moved on by its epoch.
func (r *Repository) now() time.Time {
	return r.w.base.Add(time.Duration(r.w.Epoch()) * epochLength).UTC().Truncate(time.Second)
}

// firstTime reports whether variant has not yet faulted on token, and
// records that it has now.
func (r *Repository) firstTime(variant, token string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := variant + "\x00" + token
	if r.failed[k] {
		return false
	}
	r.failed[k] = true
	return true
}

func argsOK(q url.Values, allowed []string) bool {
	for k, v := range q {
		if k == "verb" {
			continue
		}
		if len(v) != 1 || !contains(allowed, k) {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (r *Repository) answer(b *bytes.Buffer, rw http.ResponseWriter, q url.Values, verb, variant string, fail func(code, msg string)) {
	switch verb {
	case "Identify":
		earliest := r.now()
		if len(r.records) > 0 {
			earliest = r.records[0].Datestamp
		}
		b.WriteString("<Identify>\n<repositoryName>Northfield University Repository</repositoryName>\n<baseURL>" + r.origin + "/oai</baseURL>\n" +
			"<protocolVersion>2.0</protocolVersion>\n<adminEmail>repository@northfield-university.test</adminEmail>\n" +
			"<earliestDatestamp>" + earliest.Format(time.RFC3339) + "</earliestDatestamp>\n<deletedRecord>persistent</deletedRecord>\n" +
			"<granularity>YYYY-MM-DDThh:mm:ssZ</granularity>\n</Identify>\n")
	case "ListMetadataFormats":
		if id := q.Get("identifier"); id != "" && r.lookup(id) == nil {
			fail("idDoesNotExist", "No such identifier")
			return
		}
		b.WriteString("<ListMetadataFormats>\n<metadataFormat><metadataPrefix>oai_dc</metadataPrefix><schema>http://www.openarchives.org/OAI/2.0/oai_dc.xsd</schema>" +
			"<metadataNamespace>http://www.openarchives.org/OAI/2.0/oai_dc/</metadataNamespace></metadataFormat>\n</ListMetadataFormats>\n")
	case "ListSets":
		b.WriteString("<ListSets>\n")
		p := strings.ReplaceAll(repositoryPrefix, ".", "_")
		for _, s := range [][2]string{{"com_" + p + "_0", "Northfield University"}, {"col_" + p + "_1", "Articles"}, {"col_" + p + "_2", "Theses"}} {
			b.WriteString("<set><setSpec>" + s[0] + "</setSpec><setName>" + s[1] + "</setName></set>\n")
		}
		b.WriteString("</ListSets>\n")
	case "GetRecord":
		if q.Get("identifier") == "" || q.Get("metadataPrefix") == "" {
			fail("badArgument", "identifier and metadataPrefix are required")
			return
		}
		if q.Get("metadataPrefix") != "oai_dc" {
			fail("cannotDisseminateFormat", "Only oai_dc is disseminated")
			return
		}
		rec := r.lookup(q.Get("identifier"))
		if rec == nil {
			fail("idDoesNotExist", "No such identifier")
			return
		}
		b.WriteString("<GetRecord>\n")
		r.writeRecord(b, rec)
		b.WriteString("</GetRecord>\n")
	case "ListRecords", "ListIdentifiers":
		r.list(b, rw, q, verb, variant, fail)
	}
}

func (r *Repository) lookup(id string) *RepositoryRecord {
	h, ok := strings.CutPrefix(id, "oai:"+RepositoryHost+":")
	if !ok {
		return nil
	}
	i, ok := r.byID[h]
	if !ok {
		return nil
	}
	return &r.records[i]
}

func (r *Repository) list(b *bytes.Buffer, rw http.ResponseWriter, q url.Values, verb, variant string, fail func(code, msg string)) {
	var lq oaiQuery
	if tok := q.Get("resumptionToken"); tok != "" {
		if len(q) != 2 {
			fail("badArgument", "resumptionToken is an exclusive argument")
			return
		}
		var ok bool
		lq, ok = r.parseToken(tok)
		if !ok {
			fail("badResumptionToken", "The resumption token is invalid or has expired")
			return
		}
		if variant == "busy" && r.firstTime("busy", tok) {
			rw.Header().Set("Retry-After", "1")
			http.Error(rw, "Service temporarily unavailable: the repository is busy", http.StatusServiceUnavailable)
			return
		}
	} else {
		switch prefix := q.Get("metadataPrefix"); {
		case prefix == "":
			fail("badArgument", "metadataPrefix is required")
			return
		case prefix != "oai_dc":
			fail("cannotDisseminateFormat", "Only oai_dc is disseminated")
			return
		}
		var ok bool
		lq, ok = parseRange(q.Get("from"), q.Get("until"))
		if !ok {
			fail("badArgument", "from and until must be dates of one granularity, from not after until")
			return
		}
		lq.set = q.Get("set")
	}
	var match []*RepositoryRecord
	for i := range r.records {
		if rec := &r.records[i]; lq.matches(rec) {
			match = append(match, rec)
		}
	}
	if len(match) == 0 {
		fail("noRecordsMatch", "No records match the request")
		return
	}
	if lq.offset >= len(match) {
		fail("badResumptionToken", "The resumption token is past the end of the list")
		return
	}
	end := min(lq.offset+RepositoryPageSize, len(match))
	b.WriteString("<" + verb + ">\n")
	for _, rec := range match[lq.offset:end] {
		if verb == "ListIdentifiers" {
			r.writeHeader(b, rec)
		} else {
			r.writeRecord(b, rec)
		}
	}
	next := ""
	if end < len(match) {
		nq := lq
		nq.offset = end
		next = r.token(nq)
	}
	if variant == "cycle" && lq.offset >= 2*RepositoryPageSize {
		nq := lq
		nq.offset = 2 * RepositoryPageSize
		next = r.token(nq)
	}
	if lq.offset > 0 || next != "" {
		b.WriteString(`<resumptionToken completeListSize="` + itoa(len(match)) + `" cursor="` + itoa(lq.offset) + `"`)
		if next != "" {
			b.WriteString(` expirationDate="` + r.now().Add(time.Hour).Format(time.RFC3339) + `"`)
		}
		b.WriteString(">")
		writeEsc(b, next)
		b.WriteString("</resumptionToken>\n")
	}
	b.WriteString("</" + verb + ">\n")
}

func (q *oaiQuery) matches(rec *RepositoryRecord) bool {
	if q.set != "" && !contains(rec.Sets, q.set) {
		return false
	}
	if !q.from.IsZero() && rec.Datestamp.Before(q.from) {
		return false
	}
	if !q.until.IsZero() {
		if q.untilDay {
			return !rec.Datestamp.Truncate(24 * time.Hour).After(q.until)
		}
		return !rec.Datestamp.After(q.until)
	}
	return true
}

// parseRange reads from and until: both at one granularity, from not
// after until.
func parseRange(from, until string) (oaiQuery, bool) {
	var q oaiQuery
	parse := func(s string) (time.Time, bool, bool) {
		if t, err := time.Parse("2006-01-02", s); err == nil {
			return t, true, true
		}
		if t, err := time.Parse("2006-01-02T15:04:05Z", s); err == nil {
			return t, false, true
		}
		return time.Time{}, false, false
	}
	var fromDay, ok bool
	if from != "" {
		if q.from, fromDay, ok = parse(from); !ok {
			return q, false
		}
		q.fromRaw = from
	}
	if until != "" {
		if q.until, q.untilDay, ok = parse(until); !ok {
			return q, false
		}
		q.untilRaw = until
	}
	if from != "" && until != "" && (fromDay != q.untilDay || q.from.After(q.until)) {
		return q, false
	}
	return q, true
}

// token writes q as a resumption token of the current epoch.
func (r *Repository) token(q oaiQuery) string {
	return "oai_dc/" + q.fromRaw + "/" + q.untilRaw + "/" + q.set + "/" + itoa(q.offset) + "/" + itoa(r.w.Epoch())
}

func (r *Repository) parseToken(tok string) (oaiQuery, bool) {
	f := strings.Split(tok, "/")
	if len(f) != 6 || f[0] != "oai_dc" {
		return oaiQuery{}, false
	}
	q, ok := parseRange(f[1], f[2])
	if !ok {
		return oaiQuery{}, false
	}
	q.set = f[3]
	off, err := strconv.Atoi(f[4])
	epoch, err2 := strconv.Atoi(f[5])
	if err != nil || err2 != nil || off < 0 || epoch != r.w.Epoch() {
		return oaiQuery{}, false
	}
	q.offset = off
	return q, true
}

func (r *Repository) writeHeader(b *bytes.Buffer, rec *RepositoryRecord) {
	if rec.Deleted {
		b.WriteString(`<header status="deleted">`)
	} else {
		b.WriteString("<header>")
	}
	b.WriteString("<identifier>" + rec.Identifier + "</identifier><datestamp>" + rec.Datestamp.Format(time.RFC3339) + "</datestamp>")
	for _, s := range rec.Sets {
		b.WriteString("<setSpec>" + s + "</setSpec>")
	}
	b.WriteString("</header>\n")
}

func (r *Repository) writeRecord(b *bytes.Buffer, rec *RepositoryRecord) {
	b.WriteString("<record>")
	r.writeHeader(b, rec)
	if rec.Deleted {
		b.WriteString("</record>\n")
		return
	}
	b.WriteString(`<metadata><oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/" xsi:schemaLocation="http://www.openarchives.org/OAI/2.0/oai_dc/ http://www.openarchives.org/OAI/2.0/oai_dc.xsd">` + "\n")
	el := func(name, v string) {
		if v == "" {
			return
		}
		b.WriteString("<dc:" + name + ">")
		writeEsc(b, v)
		b.WriteString("</dc:" + name + ">\n")
	}
	el("title", rec.Title)
	for _, c := range rec.Creators {
		el("creator", c)
	}
	// DSpace sends the accession date before the issue date.
	el("date", rec.Datestamp.Format(time.RFC3339))
	el("date", rec.Date)
	el("type", rec.Type)
	el("description", depositAbstract(rec))
	el("subject", rec.Subject())
	el("identifier", rec.Landing)
	if rec.DOI != "" {
		el("identifier", "https://doi.org/"+rec.DOI)
	}
	el("identifier", rec.PDF)
	el("language", "en")
	el("publisher", "Northfield University")
	el("relation", rec.Original)
	el("format", "application/pdf")
	b.WriteString("</oai_dc:dc></metadata></record>\n")
}
