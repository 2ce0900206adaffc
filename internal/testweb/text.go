package testweb

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A vocab produces sentences from templates such as
// "We {verb} {a_adj} {noun} for {topic}." whose slots name word lists.
// Templates are compiled once, so expanding them is a few slice reads.
type vocab struct {
	lists     map[string][]string
	sentences []tmpl
}

type tmpl []seg

// seg is either literal text (list == nil) or a slot filled from list.
type seg struct {
	lit  string
	list []string
}

func newVocab(lists map[string][]string, sentences []string) *vocab {
	v := &vocab{lists: lists}
	for _, s := range sentences {
		v.sentences = append(v.sentences, v.compile(s))
	}
	return v
}

func (v *vocab) compile(s string) tmpl {
	var t tmpl
	for s != "" {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			t = append(t, seg{lit: s})
			break
		}
		if i > 0 {
			t = append(t, seg{lit: s[:i]})
		}
		j := strings.IndexByte(s[i:], '}')
		name := s[i+1 : i+j]
		list, ok := v.lists[name]
		if !ok {
			panic("testweb: template slot without list: " + name)
		}
		t = append(t, seg{list: list})
		s = s[i+j+1:]
	}
	return t
}

// expand writes one instance of t.
func (t tmpl) expand(b *bytes.Buffer, r *rng) {
	for _, sg := range t {
		if sg.list == nil {
			b.WriteString(sg.lit)
		} else {
			b.WriteString(r.pick(sg.list))
		}
	}
}

// string returns one instance of t (build time only: it allocates).
func (t tmpl) string(r *rng) string {
	var b bytes.Buffer
	t.expand(&b, r)
	return b.String()
}

// sentence writes one sentence, capitalizing an ASCII first letter.
func (v *vocab) sentence(b *bytes.Buffer, r *rng) {
	start := b.Len()
	v.sentences[r.intn(len(v.sentences))].expand(b, r)
	if c := b.Bytes()[start]; c >= 'a' && c <= 'z' {
		b.Bytes()[start] = c - 'a' + 'A'
	}
}

// paragraph writes n sentences separated by spaces (no markup).
func (v *vocab) paragraph(b *bytes.Buffer, r *rng, n int) {
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		v.sentence(b, r)
	}
}

// paragraphs writes n <p> elements of 3-7 sentences each.
func (v *vocab) paragraphs(b *bytes.Buffer, r *rng, n int) {
	for i := 0; i < n; i++ {
		b.WriteString("<p>")
		v.paragraph(b, r, r.between(3, 7))
		b.WriteString("</p>\n")
	}
}

func withArticles(adjs []string) []string {
	out := make([]string, len(adjs))
	for i, a := range adjs {
		if strings.ContainsRune("aeiou", rune(a[0])) {
			out[i] = "an " + a
		} else {
			out[i] = "a " + a
		}
	}
	return out
}

func numbers(lo, hi int) []string {
	var out []string
	for i := lo; i <= hi; i++ {
		out = append(out, itoa(i))
	}
	return out
}

var (
	enTopics = []string{
		"web crawling", "focused crawling", "information retrieval", "graph neural networks",
		"distributed systems", "quantum optics", "photonic circuits", "natural language processing",
		"machine translation", "computer vision", "protein folding", "climate modelling",
		"coastal erosion", "urban mobility", "network security", "compiler optimisation",
		"database systems", "stream processing", "federated learning", "reinforcement learning",
		"bibliometrics", "citation analysis", "digital libraries", "scholarly communication",
		"open access publishing", "metadata extraction", "entity resolution", "knowledge graphs",
		"sparse matrix computation", "numerical linear algebra", "cryptographic protocols",
		"human-computer interaction", "web accessibility", "robotic manipulation", "sensor networks",
		"energy harvesting", "battery chemistry", "soil microbiology", "marine ecology",
		"medieval history", "labour economics", "monetary policy", "cognitive psychology",
		"sociolinguistics", "materials science", "superconductivity", "gravitational waves",
		"single-photon sources", "cold atoms", "laser spectroscopy", "topological insulators",
		"the semantic web", "query optimisation", "near-duplicate detection", "link analysis",
		"web archiving", "search engine evaluation", "recommender systems",
	}
	enMethods = []string{
		"transformer models", "Bayesian inference", "spectral clustering", "random forests",
		"convex optimisation", "Monte Carlo simulation", "finite element analysis",
		"locality-sensitive hashing", "MinHash sketches", "SimHash fingerprints", "graph partitioning",
		"active learning", "contrastive learning", "causal inference", "survival analysis",
		"mixed-effects models", "agent-based simulation", "dynamic programming",
		"integer linear programming", "variational autoencoders", "diffusion models", "kernel methods",
		"Bloom filters", "priority queues", "Markov chains", "time-series forecasting",
		"wavelet transforms", "ethnographic fieldwork", "archival research", "panel data regression",
	}
	enAdjs = []string{
		"scalable", "robust", "efficient", "adaptive", "incremental", "distributed", "interpretable",
		"privacy-preserving", "energy-efficient", "large-scale", "low-latency", "fault-tolerant",
		"probabilistic", "lightweight", "multilingual", "hierarchical", "self-supervised",
		"data-driven", "cost-aware", "polite", "open", "unified",
	}
	enNouns = []string{
		"framework", "benchmark", "dataset", "architecture", "algorithm", "pipeline", "model",
		"evaluation", "survey", "case study", "prototype", "analysis", "method", "system", "corpus",
		"protocol", "heuristic", "baseline", "metric", "simulation",
	}
	enDatasets = []string{
		"a corpus of 40 million web pages", "a public web sample", "three university websites",
		"a national web archive", "synthetic benchmarks", "field measurements collected since 2019",
		"a longitudinal panel of 12,000 households", "digitised court records",
		"two open bibliographic databases", "a crawl of 1,200 academic hosts",
		"laboratory measurements", "simulated workloads", "a decade of satellite imagery",
	}
	enVerbs   = []string{"propose", "evaluate", "introduce", "analyse", "present", "compare", "extend", "revisit", "formalise", "characterise"}
	enVerbs3  = []string{"improves", "reduces", "outperforms", "matches", "stabilises", "accelerates", "simplifies", "generalises"}
	enFirst   = []string{"Alice", "Bogdan", "Chiara", "Dmitri", "Elena", "Farid", "Grace", "Hiroshi", "Ingrid", "Jamal", "Katarzyna", "Liam", "Mei", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Samuel", "Tomás", "Ulrike", "Viktor", "Wen", "Ximena", "Yusuf", "Zoë", "Amara", "Björn", "Camille", "Diego", "Esther", "Fatima", "Gustavo", "Hannah", "Ivan", "Julia", "Kwame", "Lucía", "Marco", "Noor", "Olivia", "Pablo", "Rania", "Stefan", "Tariq", "Valentina", "William", "Yara", "Aiko", "Benedikt"}
	enLast    = []string{"Anderson", "Baptiste", "Chen", "Dubois", "Eriksson", "Fernández", "García", "Hoffmann", "Ivanova", "Jensen", "Kowalski", "Larsen", "Martins", "Nakamura", "O'Brien", "Petrov", "Quinn", "Rossi", "Schmidt", "Takahashi", "Ullah", "Van der Berg", "Wójcik", "Xu", "Yamamoto", "Zhang", "Abebe", "Bianchi", "Costa", "Da Silva", "Edwards", "Fischer", "Gupta", "Haddad", "Iyer", "Johansson", "Kim", "Lindqvist", "Müller", "Nguyen", "Okafor", "Patel", "Reyes", "Sato", "Tanaka", "Wagner", "Yilmaz", "Zhou", "MacLeod", "Novak"}
	enRoles   = []string{"Professor", "Associate Professor", "Assistant Professor", "Senior Lecturer", "Lecturer", "Research Fellow", "Postdoctoral Researcher", "PhD Candidate", "Emeritus Professor"}
	enVenuesJ = []string{"Journal of Applied Crawling", "Journal of Web Science", "Information Retrieval Journal", "Transactions on the Web", "Journal of Documentation", "Physical Review Letters", "Optics Express", "Journal of Economic Perspectives", "Digital Humanities Quarterly", "Data and Knowledge Engineering"}
	enVenuesC = []string{"Proceedings of the Web Conference", "International Conference on Research and Development in Information Retrieval", "Joint Conference on Digital Libraries", "International Conference on Very Large Data Bases", "Conference on Lasers and Electro-Optics", "European Conference on Information Retrieval", "Annual Meeting of the Association for Computational Linguistics", "Symposium on Operating Systems Principles"}
	enPubs    = []string{"Northfield University Press", "Academic Web Publishing", "Society for Applied Crawling", "Open Science Publishers", "Institute of Physics Publishing"}
)

// enTopicTitles are enTopics in title case (reference lists).
var enTopicTitles = func() []string {
	out := make([]string, len(enTopics))
	for i, t := range enTopics {
		out[i] = titleCase(t)
	}
	return out
}()

var enAcademic = newVocab(map[string][]string{
	"topic": enTopics, "method": enMethods, "adj": enAdjs, "a_adj": withArticles(enAdjs),
	"noun": enNouns, "dataset": enDatasets, "verb": enVerbs, "verb3": enVerbs3,
	"pct": numbers(2, 61), "n": numbers(2, 7), "num": numbers(3, 40),
}, []string{
	"We {verb} {a_adj} {noun} for {topic}.",
	"In contrast to prior work on {topic}, our {noun} relies on {method}.",
	"Experiments on {dataset} show that the approach {verb3} the {adj} baseline by {pct} percent.",
	"We further {verb} how {method} interacts with {topic} under realistic workloads.",
	"The {noun} is {adj} and can be deployed alongside existing {topic} infrastructure.",
	"Our analysis reveals that {topic} is sensitive to the choice of {method}.",
	"These findings have implications for {topic} and for {topic}.",
	"{a_adj} implementation of the {noun} is publicly available.",
	"We discuss limitations, including the reliance on {dataset}.",
	"Section {n} describes the {noun}, and Section {n} reports the results of the {noun}.",
	"Previous studies of {topic} have largely ignored {method}.",
	"The proposed {noun} {verb3} both precision and recall on {dataset}.",
	"We report results over {num} runs with different random seeds.",
	"{method} has become a standard tool in {topic}, yet its cost is rarely measured.",
	"To address this gap, we {verb} {a_adj} {noun} that combines {method} with {method}.",
	"A {noun} of {num} participants confirms the trend observed in {dataset}.",
	"The remainder of this paper is organised as follows.",
	"All code and data are archived in the institutional repository.",
})

var enNews = newVocab(map[string][]string{
	"nverb":    {"approved", "rejected", "postponed", "debated", "amended"},
	"civic":    {"widen the cycle lanes", "rebuild the harbour wall", "extend the tram line", "close the old library", "plant 2,000 trees", "raise parking fees", "open a night market"},
	"district": {"Riverside", "Old Town", "Harbourview", "Northgate", "Millbrook", "Eastfield", "Cathedral Quarter"},
	"impact":   {"help local shops", "make the commute longer", "bring more tourists", "reduce traffic noise", "cost too much"},
	"project":  {"harbour renovation", "new stadium", "tram extension", "flood barrier", "school expansion", "bridge repair"},
	"money":    numbers(2, 90),
	"police":   {"closed a road", "made two arrests", "asked for witnesses", "investigated a fire", "recovered stolen bicycles"},
	"place":    {"the central station", "Market Square", "the ferry terminal", "City Park", "the university campus", "the old brewery"},
	"weekday":  {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"},
	"team":     {"City Rovers", "Harbour United", "Northgate Athletic", "the Millbrook Lions", "the university rowing club"},
	"score":    {"2-1", "3-0", "1-0", "4-2", "2-2 after extra time"},
	"event":    {"jazz festival", "food fair", "book week", "marathon", "film festival", "science night"},
	"weather":  {"Sunny spells", "Light rain", "Strong winds", "Morning fog", "Scattered showers"},
	"temp":     numbers(3, 31),
	"org":      {"city council", "transport authority", "harbour board", "chamber of commerce", "hospital trust"},
	"trend":    {"higher", "lower", "record", "flat", "disappointing"},
}, []string{
	"The city council {nverb} a proposal to {civic} in the {district} district.",
	"Residents of {district} told the Daily that the changes would {impact}.",
	"Officials said the {project} is expected to cost {money} million.",
	"Police {police} near {place} on {weekday} evening.",
	"{team} won {score} against {team} on {weekday}.",
	"Tickets for the {event} at {place} go on sale next {weekday}.",
	"{weather} are expected, with highs around {temp} degrees.",
	"A spokesperson for the {org} declined to comment.",
	"Local businesses in {district} reported {trend} sales this quarter.",
	"The mayor will present the {project} at a public meeting on {weekday}.",
	"Critics argue that the plan to {civic} will {impact}.",
})

var enShop = newVocab(map[string][]string{
	"fabric": {"organic cotton", "recycled polyester", "merino wool", "brushed fleece", "stoneware", "bamboo fibre"},
	"use":    {"lectures", "late nights in the library", "graduation day", "the morning commute", "field trips", "exam season"},
	"care":   {"Machine washable at 30 degrees.", "Dishwasher safe.", "Wipe clean with a damp cloth.", "Do not tumble dry."},
	"days":   numbers(2, 9),
}, []string{
	"Made from {fabric}, it is perfect for {use}.",
	"{care}",
	"Ships within {days} working days.",
	"A campus favourite since the first intake, now in new colours.",
	"Every purchase supports student scholarships.",
	"Pair it with our other essentials for {use}.",
})

// Turkish academic text, in UTF-8; pages of the Turkish site are encoded to
// windows-1254 or ISO-8859-9 when served.
var (
	trTopics  = []string{"yapay zekâ", "makine öğrenmesi", "doğal dil işleme", "bilgisayar ağları", "siber güvenlik", "veri madenciliği", "görüntü işleme", "deniz biyolojisi", "kıyı mühendisliği", "çay tarımı", "fındık üretimi", "Karadeniz iklimi", "yenilenebilir enerji", "deprem mühendisliği", "Osmanlı tarihi", "Türk edebiyatı", "halk sağlığı", "ekonometri", "dağıtık sistemler", "bilgi erişimi", "web tarayıcıları", "akademik yayıncılık", "malzeme bilimi", "balıkçılık yönetimi"}
	trMethods = []string{"derin öğrenme", "istatistiksel analiz", "saha çalışması", "benzetim", "karşılaştırmalı analiz", "anket çalışması", "sonlu elemanlar yöntemi", "zaman serisi analizi", "graf tabanlı yöntemler", "Bayes çıkarımı"}
	trAdjs    = []string{"ölçeklenebilir", "güvenilir", "verimli", "yenilikçi", "dağıtık", "çok dilli", "düşük maliyetli", "sürdürülebilir", "gürbüz", "uyarlanabilir"}
	trNouns   = []string{"yöntem", "çerçeve", "model", "sistem", "yaklaşım", "değerlendirme", "algoritma", "veri kümesi", "ölçüm düzeneği", "çalışma"}
	trFirst   = []string{"Ayşe", "Mehmet", "Özge", "Çağrı", "Gülşen", "İbrahim", "Şükrü", "Ümit", "Fatma", "Mustafa", "Zeynep", "Emre", "Elif", "Hakan", "Şeyma", "Burak", "Gökhan", "Nazlı", "İlker", "Dilek", "Oğuz", "Sevgi", "Tuğba", "Yiğit"}
	trLast    = []string{"Yılmaz", "Öztürk", "Kılıç", "Şahin", "Çelik", "Doğan", "Aydın", "Yıldız", "Güneş", "Koç", "Kaya", "Demir", "Arslan", "Polat", "Özdemir", "Karadağ", "Uçar", "Akgül", "Erdem", "Bayraktar", "Çakır", "Şimşek"}
	trRoles   = []string{"Prof. Dr.", "Doç. Dr.", "Dr. Öğr. Üyesi", "Arş. Gör. Dr.", "Arş. Gör.", "Öğr. Gör."}
)

var trAcademic = newVocab(map[string][]string{
	"topic": trTopics, "method": trMethods, "adj": trAdjs, "noun": trNouns,
	"num": numbers(3, 40), "pct": numbers(2, 61),
}, []string{
	"Bu çalışmada {topic} için {adj} bir {noun} öneriyoruz.",
	"Önerilen {noun}, {method} kullanılarak geliştirilmiştir.",
	"Deneysel sonuçlar, yaklaşımın {topic} alanında başarılı olduğunu göstermektedir.",
	"Çalışmanın bulguları {topic} ve {topic} açısından önemlidir.",
	"Araştırma kapsamında {num} farklı veri kümesi incelenmiştir.",
	"Elde edilen sonuçlar yüzde {pct} oranında iyileşme sağlamıştır.",
	"Ayrıca {method} ile {noun} arasındaki ilişki değerlendirilmiştir.",
	"Öğrencilerimiz ve öğretim üyelerimiz {topic} üzerine çalışmalarını sürdürmektedir.",
	"Üniversitemiz, Karadeniz Bölgesi'nin önde gelen araştırma kurumlarından biridir.",
	"Çalışma, {adj} bir {noun} ile {topic} sorununa çözüm getirmektedir.",
	"Sonuçlar uluslararası hakemli dergilerde yayımlanmıştır.",
	"İlk bölümde {topic} literatürü özetlenmekte, ikinci bölümde {method} açıklanmaktadır.",
	"Öğrenci işleri, burs başvuruları ve akademik takvim duyurularımızı takip ediniz.",
})

// titleCase capitalizes English title words, leaving short function words
// in lower case unless they come first.
func titleCase(s string) string {
	small := map[string]bool{"a": true, "an": true, "and": true, "for": true, "of": true, "on": true, "in": true, "the": true, "to": true, "with": true, "via": true, "at": true, "by": true, "from": true}
	words := strings.Split(s, " ")
	for i, w := range words {
		if w == "" || (i > 0 && small[w]) {
			continue
		}
		r, n := utf8.DecodeRuneInString(w)
		words[i] = string(unicode.ToUpper(r)) + w[n:]
	}
	return strings.Join(words, " ")
}

// upperFirst capitalizes the first letter with Turkish rules when tr is set
// (i → İ, ı → I).
func upperFirst(s string, tr bool) string {
	r, n := utf8.DecodeRuneInString(s)
	if tr {
		return string(unicode.TurkishCase.ToUpper(r)) + s[n:]
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// slugify turns a title into a lower-case ASCII path segment of at most
// maxWords words; Turkish and other Latin letters are folded to ASCII.
func slugify(s string, maxWords int) string {
	var b strings.Builder
	words := 0
	dash := false
	for _, r := range s {
		r = foldRune(r)
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				words++
				if words >= maxWords {
					return b.String()
				}
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			if dash && b.Len() > 0 {
				words++
				if words >= maxWords {
					return b.String()
				}
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r - 'A' + 'a')
		default:
			dash = true
		}
	}
	return b.String()
}

// foldRune maps accented Latin letters to ASCII, keeping their case (for
// slugs and PDF text).
func foldRune(r rune) rune {
	switch r {
	case 'ç', 'ć':
		return 'c'
	case 'Ç', 'Ć':
		return 'C'
	case 'ğ':
		return 'g'
	case 'Ğ':
		return 'G'
	case 'ı', 'í', 'ì', 'î', 'ï':
		return 'i'
	case 'İ', 'Í':
		return 'I'
	case 'ö', 'ó', 'ò', 'ô', 'õ':
		return 'o'
	case 'Ö', 'Ó':
		return 'O'
	case 'ş', 'ś':
		return 's'
	case 'Ş', 'Ś':
		return 'S'
	case 'ü', 'ú', 'ù', 'û':
		return 'u'
	case 'Ü', 'Ú':
		return 'U'
	case 'á', 'à', 'â', 'ä', 'ã', 'å':
		return 'a'
	case 'é', 'è', 'ê', 'ë':
		return 'e'
	case 'ñ', 'ń':
		return 'n'
	case 'ł':
		return 'l'
	case 'ż', 'ź':
		return 'z'
	case 'Ż', 'Ź':
		return 'Z'
	case 'Ł':
		return 'L'
	}
	return r
}

// foldASCII folds s to printable ASCII, replacing what cannot be folded.
func foldASCII(s string) string {
	var b strings.Builder
	for _, r := range s {
		r = foldRune(r)
		if r < 0x80 {
			b.WriteRune(r)
		} else {
			b.WriteByte('?')
		}
	}
	return b.String()
}
