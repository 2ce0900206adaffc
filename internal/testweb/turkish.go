package testweb

// The Turkish university: pages in windows-1254 declared in four ways,
// Turkish text, and Turkish academic words (ASCII-folded) in its URLs.

// nonASCIIKey is a page whose path holds Turkish letters; pages link it
// with the raw letters, which a client must encode as UTF-8 whatever the
// page's charset.
const nonASCIIKey = "/duyurular/öğrenci-işleri"

func (w *Web) buildKaradeniz() *site {
	P := w.cfg.PagesPerSite
	s := newSite(w, "www.karadeniz-universitesi.test", "Karadeniz Üniversitesi", "university", true)
	s.notes = "Turkish university: windows-1254 pages declared by header, <meta charset>, http-equiv (ISO-8859-9) or UTF-8 with BOM; Turkish words in URLs and anchors; robots.txt with Crawl-delay: 1"
	s.lang = "tr"
	s.text = trAcademic
	r := s.buildRNG("main")
	home := s.add(&page{key: "/", kind: "home", title: s.name, render: renderHome})
	s.home = home

	people := s.makePeople(&r, max(4, P/5), "/akademik-kadro/", nil)
	po := pubOpts{prefix: "/yayinlar/", kinds: []string{"makale", "tez", "bildiri"},
		pdfPrefix: "/dosyalar/", pdfShare: 70, doi: "10.7777/ku.", publisher: "Karadeniz Üniversitesi Yayınları", authors: people}
	pubs := s.makePubs(&r, max(6, P*2/5), po)
	kadro := s.makeListing("/akademik-kadro/", "sayfa", "Akademik Kadro", people, 25, false, home)
	yayin := s.makeListing("/yayinlar/", "sayfa", "Yayınlar", pubs, 20, true, home)
	for _, p := range people {
		p.parent = kadro[0]
	}
	for _, p := range pubs {
		p.parent = yayin[0]
	}
	news := s.makeStories(&r, max(3, P/6), "/haberler/")
	haber := s.makeListing("/haberler/", "sayfa", "Haberler", news, 15, false, home)
	for _, n := range news {
		n.parent = haber[0]
	}
	s.pubFeed(po, len(pubs), yayin[0], nil)
	s.storyFeed("/haberler/", haber[0])
	arastirma := s.add(&page{key: "/arastirma/", kind: "listing", academic: true, title: "Araştırma", parent: home, render: renderListing, num: 1, total: 1})
	arastirma.series = []*page{arastirma}
	arastirma.items = s.makeResearch(&r, 5, "/arastirma/", people, arastirma)

	duyuru := s.add(&page{key: "/duyurular/", kind: "listing", title: "Duyurular", parent: home, render: renderListing, num: 1, total: 1})
	duyuru.series = []*page{duyuru}
	ogrenci := s.addStatic(nonASCIIKey, "Öğrenci İşleri Duyuruları", duyuru)
	burs := s.addStatic("/duyurular/burs-basvurulari", "Burs Başvuruları", duyuru)
	takvim := s.addStatic("/duyurular/akademik-takvim", "Akademik Takvim", duyuru)
	duyuru.items = []*page{ogrenci, burs, takvim}
	about := s.addStatic("/hakkimizda", "Hakkımızda", home)
	contact := s.addStatic("/iletisim", "İletişim", home)
	admin := s.addStatic("/yonetim/giris", "Yönetim Paneli Girişi", home)

	s.nav = []navLink{
		{label: "Hakkımızda", href: about.key}, {label: "Araştırma", href: arastirma.key},
		{label: "Yayınlar", href: "/yayinlar/"}, {label: "Akademik Kadro", href: "/akademik-kadro/"},
		{label: "Haberler", href: "/haberler/"}, {label: "Duyurular", href: duyuru.key},
		{label: "Öğrenci İşleri", href: nonASCIIKey}, {label: "İletişim", href: contact.key},
	}
	s.footer = []navLink{
		{label: "Burs Başvuruları", href: burs.key}, {label: "Akademik Takvim", href: takvim.key},
		{label: "Yönetim", href: admin.key}, {label: "English", href: "http://www.northfield-university.test/"},
	}
	s.extra = []*page{arastirma, duyuru, about}
	s.addAssets()
	s.addRobots(newRobots("crawl-delay", "Karadeniz Üniversitesi Bilgi İşlem Daire Başkanlığı", []robotsGroup{
		{agents: []string{"*"}, delay: "1", rules: []robotsRule{{pattern: "/yonetim/"}}},
	}, []string{s.url("/sitemap.xml")}))
	var all []*page
	for _, p := range s.order {
		if p.kind == "publication" || p.kind == "person" || p.kind == "home" {
			all = append(all, p)
		}
	}
	s.addSitemap("/sitemap.xml", &all)

	// Charsets: the home page and most pages are windows-1254 declared by
	// the header (and a meta tag); the rest declare it in a meta tag only,
	// in an http-equiv tag as ISO-8859-9, or are UTF-8 with a BOM.
	for _, p := range s.order {
		turkishCharset(p)
	}
	home.charset, home.declare = "windows-1254", declHeader
	s.decorate = turkishCharset
	// Make sure every declaration appears whatever the page count.
	forced := []*page{yayin[0], arastirma, kadro[0], duyuru}
	modes := []declMode{declHeader, declMeta, declHTTPEquiv, declBOM}
	for i, p := range forced {
		p.declare = modes[i]
		switch modes[i] {
		case declHTTPEquiv:
			p.charset = "iso-8859-9"
		case declBOM:
			p.charset = ""
		default:
			p.charset = "windows-1254"
		}
	}
	return s
}

// turkishCharset picks how an HTML page of the Turkish site declares its
// charset, by a hash of its key: most are windows-1254 declared by the
// header (and a meta tag); the rest declare it in a meta tag only, in an
// http-equiv tag as ISO-8859-9, or are UTF-8 with a BOM.
func turkishCharset(p *page) {
	if p.render == nil || p.ctype != "" {
		return
	}
	switch h := mix(fnvString(fnvOffset, p.key)) % 10; {
	case h < 5:
		p.charset, p.declare = "windows-1254", declHeader
	case h < 7:
		p.charset, p.declare = "windows-1254", declMeta
	case h < 9:
		p.charset, p.declare = "iso-8859-9", declHTTPEquiv
	default:
		p.declare = declBOM
	}
}
