package testweb

import "strings"

// The campus shop: a non-academic site whose faceted catalogue is a
// combinatorial trap, whose links all carry a new session id on every
// response, and whose robots.txt answers 500.

var (
	shopCategories = []string{"hoodies", "t-shirts", "mugs", "notebooks", "bags", "caps", "scarves", "stickers"}
	shopColors     = []string{"navy", "red", "green", "black", "white", "grey", "purple", "yellow"}
	shopSizes      = []string{"xs", "s", "m", "l", "xl", "xxl"}
	shopSorts      = []string{"price-asc", "price-desc", "newest", "popular"}
	shopItems      = []string{"Campus Hoodie", "Crest T-shirt", "Library Mug", "A5 Notebook", "Tote Bag", "Baseball Cap", "Winter Scarf", "Sticker Pack"}
)

const shopMaxPage = 50

// catalogState is a position in the faceted catalogue; -1 means unset.
type catalogState struct {
	category, color, size, sort int8
	page                        int
}

func (c catalogState) key() string {
	var q []string
	if c.category >= 0 {
		q = append(q, "category="+shopCategories[c.category])
	}
	if c.color >= 0 {
		q = append(q, "color="+shopColors[c.color])
	}
	if c.page > 1 {
		q = append(q, "page="+itoa(c.page))
	}
	if c.size >= 0 {
		q = append(q, "size="+shopSizes[c.size])
	}
	if c.sort >= 0 {
		q = append(q, "sort="+shopSorts[c.sort])
	}
	if len(q) == 0 {
		return "/catalog"
	}
	return "/catalog?" + strings.Join(q, "&")
}

func indexOf(list []string, v string) int8 {
	for i, s := range list {
		if s == v {
			return int8(i)
		}
	}
	return -1
}

// dynCatalog answers every combination of catalogue facets.
func dynCatalog(s *site, path string, q []param) *page {
	if path != "/catalog" {
		return nil
	}
	c := catalogState{-1, -1, -1, -1, 1}
	seen := map[string]bool{}
	for _, p := range q {
		if seen[p.name] {
			return nil
		}
		seen[p.name] = true
		var i int8
		switch p.name {
		case "category":
			i = indexOf(shopCategories, p.value)
			c.category = i
		case "color":
			i = indexOf(shopColors, p.value)
			c.color = i
		case "size":
			i = indexOf(shopSizes, p.value)
			c.size = i
		case "sort":
			i = indexOf(shopSorts, p.value)
			c.sort = i
		case "page":
			n, ok := atoiSmall(p.value)
			if !ok || n < 1 || n > shopMaxPage {
				return nil
			}
			c.page = n
		default:
			return nil
		}
		if i < 0 {
			return nil
		}
	}
	return &page{kind: "trap", title: "Catalogue", cat: c, render: renderCatalog,
		note: "faceted navigation: every page links to many facet combinations"}
}

func atoiSmall(s string) (int, bool) {
	if s == "" || len(s) > 6 {
		return 0, false
	}
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func (w *Web) buildShop() *site {
	P := w.cfg.PagesPerSite
	s := newSite(w, "shop.campus-store.test", "Campus Store", "shop", false)
	s.notes = "non-academic shop: faceted catalogue trap, a new ;jsessionid= / PHPSESSID= on every link of every response, robots.txt answers 500"
	s.text = enShop
	s.session = true
	r := s.buildRNG("main")
	home := s.add(&page{key: "/", kind: "home", title: s.name, render: renderShopHome})
	s.home = home
	for i := 0; i < max(8, P); i++ {
		ci := r.intn(len(shopItems))
		color := shopColors[r.intn(len(shopColors))]
		title := upperFirst(color, false) + " " + shopItems[ci]
		p := s.add(&page{key: "/product/" + itoa(100+i) + "-" + slugify(title, 5), kind: "product", title: title, render: renderProduct,
			cat: catalogState{category: int8(ci), color: indexOf(shopColors, color), size: -1, sort: -1, page: 1}})
		s.extra = append(s.extra, p)
	}
	s.add(&page{key: "/catalog", kind: "trap", title: "Catalogue", cat: catalogState{-1, -1, -1, -1, 1}, render: renderCatalog,
		note: "faceted navigation: every page links to many facet combinations"})
	s.dynamic = dynCatalog
	cart := s.add(&page{key: "/cart", kind: "page", title: "Your basket", render: renderStatic})
	login := s.add(&page{key: "/account/login", kind: "login", title: "Sign in", render: renderLogin})
	about := s.add(&page{key: "/about", kind: "page", title: "About the Campus Store", render: renderStatic})
	s.nav = []navLink{{label: "Catalogue", href: "/catalog"}, {label: "Basket", href: cart.key}, {label: "Sign in", href: login.key}, {label: "About", href: about.key}}
	s.footer = []navLink{{label: "About", href: about.key}, {label: "Delivery", href: about.key}, {label: "Northfield University", href: "http://www.northfield-university.test/"}}
	s.addAssets()
	s.addRobots(statusRobots("500", 500))
	return s
}

func renderShopHome(d *doc) {
	s := d.s
	d.head(s.name)
	d.body()
	d.str("<h1>")
	d.esc(s.name)
	d.str("</h1>\n<p>")
	s.text.paragraph(d.b, &d.r, 3)
	d.str("</p>\n<ul class=\"categories\">\n")
	for i, c := range shopCategories {
		st := catalogState{int8(i), -1, -1, -1, 1}
		d.li(st.key(), upperFirst(c, false))
	}
	d.str("</ul>\n<ul class=\"featured\">\n")
	for i := 0; i < 12; i++ {
		p := s.extra[d.r.intn(len(s.extra))]
		d.li(p.key, p.title)
	}
	d.str("</ul>\n")
	d.end()
}

func (d *doc) facet(label string, list []string, cur int8, set func(*catalogState, int8)) {
	d.str("<h3>")
	d.str(label)
	d.str("</h3>\n<ul>\n")
	for i, v := range list {
		st := d.p.cat
		st.page = 1
		set(&st, int8(i))
		if int8(i) == cur {
			d.str("<li class=\"active\">")
		} else {
			d.str("<li>")
		}
		d.a(st.key(), v)
		d.str("</li>\n")
	}
	d.str("</ul>\n")
}

func renderCatalog(d *doc) {
	c := d.p.cat
	title := "Catalogue"
	if c.category >= 0 {
		title += " – " + shopCategories[c.category]
	}
	if c.page > 1 {
		title += " – page " + itoa(c.page)
	}
	d.head(title)
	d.body()
	d.str("<h1>")
	d.esc(title)
	d.str("</h1>\n<div class=\"facets\">\n")
	d.facet("Category", shopCategories, c.category, func(s *catalogState, i int8) { s.category = i })
	d.facet("Colour", shopColors, c.color, func(s *catalogState, i int8) { s.color = i })
	d.facet("Size", shopSizes, c.size, func(s *catalogState, i int8) { s.size = i })
	d.facet("Sort by", shopSorts, c.sort, func(s *catalogState, i int8) { s.sort = i })
	d.str("</div>\n<ul class=\"products\">\n")
	products := d.s.extra
	for i := 0; i < 24; i++ {
		p := products[d.r.intn(len(products))]
		d.str("<li>")
		d.a(p.key, p.title)
		d.str(" <span class=\"price\">$")
		d.int(d.r.between(4, 89))
		d.str(".99</span></li>\n")
	}
	d.str("</ul>\n<nav class=\"pagination\"><ul>\n")
	for n := max(1, c.page-2); n <= min(shopMaxPage, c.page+3); n++ {
		st := c
		st.page = n
		d.li(st.key(), itoa(n))
	}
	d.str("</ul></nav>\n")
	d.end()
}

func renderProduct(d *doc) {
	p := d.p
	d.head(p.title)
	d.str("<meta property=\"og:type\" content=\"product\">\n")
	d.body()
	d.str("<h1>")
	d.esc(p.title)
	d.str("</h1>\n<p class=\"price\">$")
	d.int(d.r.between(4, 89))
	d.str(".99</p>\n<p>")
	d.s.text.paragraph(d.b, &d.r, 5)
	d.str("</p>\n<form action=\"/cart\" method=\"post\"><select name=\"size\">")
	for _, sz := range shopSizes {
		d.str("<option>")
		d.str(sz)
		d.str("</option>")
	}
	d.str("</select><button>Add to basket</button></form>\n<p>More ")
	st := catalogState{p.cat.category, -1, -1, -1, 1}
	d.a(st.key(), shopCategories[p.cat.category])
	d.str(" · more in ")
	st = catalogState{-1, p.cat.color, -1, -1, 1}
	d.a(st.key(), shopColors[p.cat.color])
	d.str("</p>\n<section class=\"reviews\"><h2>Reviews</h2>\n")
	for i := d.r.between(3, 6); i > 0; i-- {
		d.str("<blockquote><p>")
		d.s.text.paragraph(d.b, &d.r, 4)
		d.str("</p><footer>")
		d.esc(d.r.pick(enFirst))
		d.str(", ")
		d.int(d.r.between(1, 5))
		d.str(" stars</footer></blockquote>\n")
	}
	d.str("</section>\n")
	d.related("You may also like", d.s.extra, 8)
	d.end()
}
