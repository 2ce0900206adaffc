package maintext

import (
	"fmt"
	"strings"
	"testing"
)

// prose returns n paragraphs of article text, each naming its number
// ("Paragraph 3 of the story"), long and with commas, as body text is.
func prose(story string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "<p>Paragraph %d of the %s: the survey went on for a long time, and its authors, who kept notes, wrote down what they saw in the field every day of the season.</p>\n", i, story)
	}
	return b.String()
}

// siteChrome is a page's navigation around its content.
const siteChrome = `<div class="top"><a href="/">Home</a> <a href="/news">News</a> <a href="/about">About</a> <a href="/contact">Contact</a></div>`

// failureModes are small pages, one per way main text extraction goes
// wrong on real pages, with what the main text must and must not hold.
var failureModes = []struct {
	name      string
	page      string
	want, not []string
}{
	{
		// A figure's caption and credit are not the article's text.
		name: "figure caption",
		page: `<body>` + siteChrome + `<article><h1>Field notes</h1>` + prose("story", 2) +
			`<figure><img src="a.jpg"><figcaption>The camp at dawn. Photo: Example Agency</figcaption></figure>` + prose("tale", 2) + `</article></body>`,
		want: []string{"Paragraph 2 of the story", "Paragraph 2 of the tale"},
		not:  []string{"Photo: Example Agency"},
	},
	{
		// A class saying what an element lacks or has ("no-share",
		// "has-double-sidebar") does not make it a share bar or a
		// sidebar.
		name: "modifier classes",
		page: `<body>` + siteChrome + `<div class="has-double-sidebar"><div class="post no-share">` + prose("story", 4) +
			`</div><aside>Popular: <a href="/a">One</a> <a href="/b">Two</a></aside></div></body>`,
		want: []string{"Paragraph 1 of the story", "Paragraph 4 of the story"},
		not:  []string{"Popular"},
	},
	{
		// A class list naming a sidebar and an article body, or a share
		// card holding the whole post, holds the content: a block with
		// most of the page's text is not dropped for one word of its
		// class.
		name: "content under a boilerplate word",
		page: `<body>` + siteChrome + `<div class="share-update-card"><div class="l-sidebar-fixed l-article-body-segment">` + prose("story", 3) + `</div>` +
			`</div><div class="sidebar"><p>Follow us on all the networks, every day of the week, for more news like this.</p></div></body>`,
		want: []string{"Paragraph 1 of the story", "Paragraph 3 of the story"},
		not:  []string{"Follow us"},
	},
	{
		// The heading of a list of links left out (related stories) is
		// left out with it.
		name: "heading of a link list",
		page: `<body>` + siteChrome + `<article><h1>Field notes</h1><h2>The season</h2>` + prose("story", 3) +
			`<h3>You may also like</h3><ul><li><a href="/1">The winter camp and its long nights</a></li>` +
			`<li><a href="/2">How the maps were drawn in the field</a></li><li><a href="/3">Letters from the survey</a></li></ul></article></body>`,
		want: []string{"The season", "Paragraph 3 of the story"},
		not:  []string{"You may also like", "winter camp"},
	},
	{
		// A byline, an author box, a tag list and an image credit
		// inside the article are not its text.
		name: "bylines and author boxes",
		page: `<body>` + siteChrome + `<article><h1>Field notes</h1><div class="entry-byline">By A. Writer, 3 May</div>` + prose("story", 3) +
			`<p class="image-credit">Image: Example Agency</p><div class="post-tags">Filed under: fieldwork, surveys</div>` +
			`<div class="author-box"><p>A. Writer has covered surveys and fieldwork for the paper since the spring of last year, and lives by the sea.</p></div></article></body>`,
		want: []string{"Paragraph 1 of the story", "Paragraph 3 of the story"},
		not:  []string{"By A. Writer", "Example Agency", "Filed under", "lives by the sea"},
	},
	{
		// A line of links (previous and next post, "read also") inside
		// the article is not its text; a paragraph with a link in it is.
		name: "link lines",
		page: `<body>` + siteChrome + `<article><h1>Field notes</h1>` + prose("story", 3) +
			`<p><a href="/also">Read also: the winter camp and its long nights</a></p>` +
			`<p>The notes are <a href="/notes">online</a> for anyone to read.</p>` +
			`<div class="nav-links"><a href="/prev">Previous: the maps</a> <a href="/next">Next: the letters</a></div></article></body>`,
		want: []string{"Paragraph 3 of the story", "The notes are online for anyone to read."},
		not:  []string{"Read also", "Previous: the maps"},
	},
	{
		// A label and the linked title of another page ("Read also:
		// <a>…</a>") between the article's paragraphs is not its text;
		// a label before an address or a linked word, or a sentence
		// with a link after a colon, is.
		name: "labelled link lines",
		page: `<body>` + siteChrome + `<article><h1>Field notes</h1>` + prose("story", 2) +
			`<p><em>See too: <a href="/also">The winter camp and its long nights</a></em></p>` + prose("tale", 2) +
			`<p>Zobacz też: <a href="/maps">How the maps were drawn</a></p>` +
			`<p>E-mail: <a href="mailto:office@example.org">office@example.org</a></p>` +
			`<p>Our notes, in full: <a href="/notes">the field notes of the season</a> and more.</p></article></body>`,
		want: []string{"Paragraph 2 of the tale", "E-mail: office@example.org", "the field notes of the season and more"},
		not:  []string{"See too", "winter camp", "Zobacz", "How the maps"},
	},
	{
		// A how-to in step blocks keeps every step, not only the one
		// that scores best: the steps are blocks of one kind.
		name: "how-to steps",
		page: `<body>` + siteChrome + `<div class="guide"><div class="intro"><p>How to pack for a field season.</p></div>` +
			`<div class="step"><div class="step-body"><h3>Step 1</h3>` + prose("first step", 4) + `</div></div>` +
			`<div class="step"><h3>Step 2</h3><p>Fold the tent along its seams, never across them.</p></div>` +
			`<div class="step"><h3>Step 3</h3><p>Keep the maps dry in a bag of their own.</p></div>` +
			`<div class="promo"><p>Buy our field kit today, with free delivery for every order this month only.</p></div></div></body>`,
		want: []string{"Paragraph 4 of the first step", "Fold the tent along its seams", "Keep the maps dry"},
		not:  []string{"Buy our field kit"},
	},
	{
		// Reader comments outscoring an article whose role=main holds
		// less than a quarter of the page's text do not take its place.
		name: "comments outscore role=main",
		page: `<body>` + siteChrome + `<div role="main"><h1>Field notes</h1>` + prose("story", 3) + `</div>` +
			`<div class="responses">` + strings.Repeat(`<div class="response"><p>I was there too, in the same season, and the nights were long, cold, and quiet; thank you for writing this, it brought back memories, good and bad, of the camp.</p></div>`, 12) +
			`</div></body>`,
		want: []string{"Paragraph 1 of the story", "Paragraph 3 of the story"},
		not:  []string{"I was there too"},
	},
	{
		// A sidebar word in a class list that also names the article
		// body does not drop the article, however much else the page
		// holds.
		name: "sidebar word beside an article class",
		page: `<body>` + siteChrome + `<div class="l-sidebar-fixed l-article-body-segment">` + prose("story", 3) + `</div>` +
			`<div class="more-stories">` + prose("other story", 5) + `</div></body>`,
		want: []string{"Paragraph 1 of the story", "Paragraph 3 of the story"},
	},
	{
		// A <main> holding the article and, beside it, more stories:
		// the article is the content.
		name: "main with one article and teasers",
		page: `<body>` + siteChrome + `<main><article><h1>Field notes</h1>` + prose("story", 4) + `</article>` +
			`<section class="more-posts"><h2>More from us</h2><div class="card"><h3>The winter camp</h3><p>Long nights, short days and a stove that never went out: a season in the north.</p></div></section></main></body>`,
		want: []string{"Paragraph 1 of the story", "Paragraph 4 of the story"},
		not:  []string{"More from us", "Long nights, short days"},
	},
	{
		// A small box with a boilerplate class inside the article (a
		// promotion, a contact line) is left out.
		name: "small boxes with negative classes",
		page: `<body>` + siteChrome + `<div class="story">` + prose("story", 6) + `<div class="promo-box"><p>Get the field kit for half the price, this week only.</p></div>` +
			prose("tale", 6) + `</div></body>`,
		want: []string{"Paragraph 6 of the story", "Paragraph 6 of the tale"},
		not:  []string{"Get the field kit"},
	},
	{
		// A panel of teasers (a linked title and a line each) inside
		// the article is left out.
		name: "teaser panel",
		page: `<body>` + siteChrome + `<div class="story">` + prose("story", 6) + `<div class="panel"><h4>Read next</h4>` +
			`<div><a href="/1">The winter camp</a><p>Long nights and short days</p></div><div><a href="/2">Maps</a><p>How they were drawn</p></div></div>` +
			prose("tale", 2) + `</div></body>`,
		want: []string{"Paragraph 6 of the story", "Paragraph 2 of the tale"},
		not:  []string{"Long nights and short days", "Read next"},
	},
	{
		// A list at the end of the text keeps its short items.
		name: "short list items at the end",
		page: `<body>` + siteChrome + `<div class="recipe">` + prose("recipe", 3) + `<ul><li>200 g sugar</li><li>2 eggs</li><li>A pinch of salt</li></ul></div></body>`,
		want: []string{"Paragraph 3 of the recipe", "200 g sugar", "A pinch of salt"},
	},
	{
		// Short lines after the article's last paragraph (a source, a
		// date, a "more on this" label) are not its text; a short
		// closing sentence is.
		name: "short lines after the text",
		page: `<body>` + siteChrome + `<div class="story">` + prose("story", 3) + `<p>And so the season ended.</p>` +
			`<div class="src">Source: Example Agency</div><div class="stamp">Published 3 May 2021, 09:35</div><div class="lbl">More on this</div></div></body>`,
		want: []string{"Paragraph 3 of the story", "And so the season ended."},
		not:  []string{"Source: Example Agency", "Published 3 May", "More on this"},
	},
	{
		// A date line and a comment form are not the text; a date in a
		// sentence is.
		name: "date lines and forms",
		page: `<body>` + siteChrome + `<div class="story"><div class="when">Updated <time datetime="2021-05-03">3 May 2021</time></div>` + prose("story", 3) +
			`<p>The camp closed on <time datetime="2021-09-30">30 September</time>, as planned.</p>` +
			`<form action="/c"><p>Leave a reply: your email address will not be published anywhere, ever.</p><textarea></textarea></form></div></body>`,
		want: []string{"Paragraph 3 of the story", "The camp closed on 30 September, as planned."},
		not:  []string{"3 May 2021", "Leave a reply"},
	},
	{
		// A list of other posts, each an <article>, beside the post's
		// own <article> in the <main>: the post is the content.
		name: "teaser articles beside the article",
		page: `<body>` + siteChrome + `<main><article class="post">` + prose("story", 6) + `</article>` +
			`<div class="blog-module"><article class="item"><p>Another post, about the winter camp and its long nights, with a photo or two.</p></article>` +
			`<article class="item"><p>Yet another post, about how the maps were drawn in the field, and by whom.</p></article></div></main></body>`,
		want: []string{"Paragraph 1 of the story", "Paragraph 6 of the story"},
		not:  []string{"Another post", "Yet another post"},
	},
	{
		// Sections of one kind whose classes differ by an id of their
		// own (as page builders write them) are the parts of one text:
		// all are kept with the best.
		name: "page builder sections",
		page: `<body>` + siteChrome + `<div class="builder-wrap">` +
			`<section class="b-el b-el-4a7c91 b-section">` + prose("story", 4) + `</section>` +
			`<section class="b-el b-el-9f02e3 b-section"><p>Golden hour on the ridge, with the last light on the tents.</p><p>Lantern: Brand One</p></section>` +
			`<section class="b-el b-el-31d0aa b-section"><p>Kettle: Brand Two</p><p>Stove and kettle, the two things no camp is without for long.</p></section>` +
			`</div><div class="foot-links"><a href="/1">Imprint</a> <a href="/2">Privacy</a></div></body>`,
		want: []string{"Paragraph 4 of the story", "Golden hour on the ridge", "Kettle: Brand Two"},
		not:  []string{"Imprint"},
	},
	{
		// A short text is not cut as if it were the short lines after a
		// longer one; a sentence closed inside quotes is prose.
		name: "short text with a dateline",
		page: `<body>` + siteChrome + `<div class="post"><h2>Doing nothing</h2><p class="meta">Posted by A. Writer on 14 June 2013 (Notes)</p>` +
			`<p>“I know I am tired and should not say this, but here it goes…”</p><p>– “Then don't.”</p><p>– “Fine.”</p>` +
			`<p>– Nothing else was said that night, on the long way home by the river</p></div></body>`,
		want: []string{"I know I am tired", "Then don't.", "Fine.", "on the long way home by the river"},
	},
	{
		// A text written as one long paragraph is the content, though
		// a grid of teasers beside it scores more by their number.
		name: "one long paragraph and a teaser grid",
		page: `<body>` + siteChrome + `<div class="x-wrap"><h2>Storage</h2><div class="w"><p>` +
			strings.Repeat("The battery keeps what the panels make by day for the night and its chemistry and age decide how much of it is left. ", 14) +
			`The end of the entry.</p></div>` +
			`<div class="grid"><div class="card"><p>Panels, roofs and inverters: what a small house needs, and what it costs, in one short guide.</p></div>` +
			`<div class="card"><p>Tariffs, meters and the grid: how selling power works, step by step, for the first year.</p></div>` +
			`<div class="card"><p>Cables, fuses and plugs: the parts of a balcony set, and which of them, if any, need a fitter.</p></div>` +
			`<div class="card"><p>Shade, tilt and dust: why a panel makes less than its label says, and what, if anything, helps.</p></div></div></div></body>`,
		want: []string{"The battery keeps what the panels make", "The end of the entry."},
		not:  []string{"Tariffs, meters and the grid"},
	},
	{
		// A heading of rank one in a sidebar does not keep the sidebar.
		name: "h1 in an aside",
		page: `<body>` + siteChrome + `<div class="post"><h2>Charging stations</h2>` + prose("story", 2) + `</div>` +
			`<div class="widgets"><aside class="widget"><h1 class="widget-title">About this blog</h1><div>` +
			strings.Repeat("Notes on business, art and science, written since the spring of last year by one writer, in one city. ", 4) + `</div></aside></div></body>`,
		want: []string{"Charging stations", "Paragraph 2 of the story"},
		not:  []string{"About this blog", "Notes on business"},
	},
	{
		// Teasers after the text, each a linked title with a line or
		// two, are not the text; a post under a linked title is.
		name: "teasers with linked titles",
		page: `<body>` + siteChrome + `<div class="main-col"><div class="post"><h2><a href="/p/1">Notes from the ridge</a></h2>` + prose("story", 5) + `</div>` +
			`<div class="more-posts"><div class="item"><h2><a href="/p/2">The winter camp</a></h2><p>Long nights, short days, and a stove that would not light, in the week before the thaw.</p></div>` +
			`<div class="item"><h2><a href="/p/3">Maps in the rain</a></h2><p>How the maps were drawn in the field, and by whom, when the paper would not stay dry.</p></div></div></div></body>`,
		want: []string{"Paragraph 1 of the story", "Paragraph 5 of the story"},
		not:  []string{"The winter camp", "Long nights", "Maps in the rain"},
	},
	{
		// An article's lead, set apart in its header, is kept with the
		// body beside it.
		name: "lead in the article header",
		page: `<body>` + siteChrome + `<div class="a-wrap"><div class="a-head"><h1>Field notes</h1>` +
			`<p class="a-head__lead">The survey of the ridge is over: what the team found in a season of field work.</p></div>` +
			`<div class="a-body">` + prose("story", 4) + `</div></div>` +
			`<div class="promo"><p>Other stories: the winter camp, maps in the rain, and letters from the survey.</p></div></body>`,
		want: []string{"The survey of the ridge is over", "Paragraph 4 of the story"},
		not:  []string{"Other stories"},
	},
	{
		// A layout class naming a sidebar beside the article ("with a
		// fixed sidebar on the left") on a block that holds the article
		// and a third of the page's text or more does not drop it.
		name: "sidebar layout around the article",
		page: `<body>` + siteChrome + `<div class="o-row c-fixed-sidebar-layout--left"><div class="c-art">` + prose("story", 4) + `</div></div>` +
			`<div class="c-comments"><p>` + strings.Repeat("A reader wrote in to say the maps were wrong, and the team, to its credit, wrote back. ", 10) + `</p></div></body>`,
		want: []string{"Paragraph 1 of the story", "Paragraph 4 of the story"},
	},
	{
		// The short text of an image's box (a credit, a source, a
		// caption outside figcaption) is not the text; a paragraph
		// beside an image is.
		name: "image credits by class",
		page: `<body>` + siteChrome + `<div class="story">` + prose("story", 3) +
			`<div class="img-box"><img src="a.jpg"><span class="img-meta__credit">Ridge at dusk, photo: A. Snapper</span></div>` +
			`<div class="head__image-source">Source: Example Images</div>` +
			`<div class="text-with-image"><p>The camp was packed by noon, and the team, tired and cold, walked down to the valley in one long line.</p></div>` +
			prose("tale", 2) + `</div></body>`,
		want: []string{"Paragraph 3 of the story", "The camp was packed by noon", "Paragraph 2 of the tale"},
		not:  []string{"A. Snapper", "Example Images"},
	},
	{
		// A line about the text by its class (its date, when it was
		// updated) is not the text.
		name: "meta lines by class",
		page: `<body>` + siteChrome + `<div class="story"><div class="entry__meta"><span class="entry__date">Last change: Tuesday, 4 June</span></div>` +
			prose("story", 3) + `<p class="postmetadata">Written on Wednesday in Notes</p>` + prose("tale", 2) + `</div></body>`,
		want: []string{"Paragraph 3 of the story", "Paragraph 2 of the tale"},
		not:  []string{"Last change", "Written on Wednesday"},
	},
	{
		// A recipe's ingredients, set apart from its steps, are kept
		// with them.
		name: "recipe ingredients beside the steps",
		page: `<body>` + siteChrome + `<div class="r-wrap"><div class="r-side"><div class="r-ingredients"><h3>You need</h3>` +
			`<table><tr><td>200 g</td><td>oat flakes</td></tr><tr><td>1</td><td>apple</td></tr><tr><td>1 pinch</td><td>cinnamon</td></tr><tr><td>300 ml</td><td>oat milk</td></tr><tr><td>2 tbsp</td><td>linseed</td></tr><tr><td>1 handful</td><td>walnuts</td></tr><tr><td>1 tsp</td><td>honey</td></tr><tr><td>1 pinch</td><td>salt</td></tr></table></div></div>` +
			`<div class="r-steps">` + prose("method", 4) + `</div></div></body>`,
		want: []string{"oat flakes", "cinnamon", "Paragraph 4 of the method"},
	},
	{
		// A block of prose written as bare text in a div, beside the
		// best block, is kept as a paragraph beside it would be.
		name: "bare text beside the content",
		page: `<body>` + siteChrome + `<div class="x-page"><div class="x-a post-body">` + prose("story", 4) + `</div>` +
			`<div class="x-b">A different season with the field school is coming up soon and this year we plan to walk the whole ridge.</div>` +
			`<div class="x-c"><a href="/1">Imprint</a> <a href="/2">Privacy</a></div></div></body>`,
		want: []string{"Paragraph 4 of the story", "A different season with the field school"},
		not:  []string{"Imprint"},
	},
	{
		// A heading or a short label ("Did you see this?", "More on
		// this:") whose list of links is left out goes with it, in the
		// middle of the text too; a label that text follows stays; a
		// label ending in a question mark or a colon that nothing
		// follows goes.
		name: "labels of link lists",
		page: `<body>` + siteChrome + `<article><h1>Field notes</h1>` + prose("story", 3) +
			`<p><strong>Did you see this?</strong></p><ul><li><a href="/1">The winter camp and its long nights</a></li>` +
			`<li><a href="/2">How the maps were drawn in the field</a></li></ul>` + prose("tale", 2) +
			`<h3>More on this</h3><div><a href="/3">Letters from the survey</a> <a href="/4">The survey in pictures</a></div>` +
			`<p>What we packed:</p><p>Two tents, a stove, the maps of the ridge, dried fruit and water for three days of walking.</p>` +
			prose("epilogue", 2) + `<div><strong>Would you share this story?</strong></div></article></body>`,
		want: []string{"Paragraph 3 of the story", "Paragraph 2 of the tale", "What we packed:", "Two tents", "Paragraph 2 of the epilogue"},
		not:  []string{"Did you see this", "More on this", "winter camp", "Letters from", "Would you share"},
	},
	{
		// A post whose box is named for sharing ("share-card", an
		// element "share-card__text" of it), with most of the text of
		// the page's <main>, is the content, however long the cookie
		// notice and footer around it are.
		name: "share card in main",
		page: `<body><div class="consent-notice">` + strings.Repeat(`<p>We and our partners store and read cookies on your device to measure visits, show ads and remember your choices across the site.</p>`, 6) +
			`</div><main><section class="share-section"><div class="share-card"><div class="share-card__actor">Northfield Survey Team</div>` +
			`<p class="share-card__text">The survey of the ridge is done: four seasons, three camps and a map of every spring, which we publish today with the notes of all who walked it.</p>` +
			`<div class="share-card__actions"><a href="/like">Like</a> <a href="/share">Share</a></div></div></section></main>` +
			`<footer>` + strings.Repeat(`<p>Northfield Survey, 12 Ridge Road, Northfield. Imprint, privacy and terms of use of this site.</p>`, 4) + `</footer></body>`,
		want: []string{"The survey of the ridge is done"},
		not:  []string{"cookies", "Imprint"},
	},
	{
		// The line of an image's credit or a text's source inside the
		// text ("Photo: …", "Quelle: …", "© …") is not the text; a
		// sentence that names a photo is.
		name: "credit and source lines",
		page: `<body>` + siteChrome + `<article><h1>Field notes</h1>` + prose("story", 2) + `<p>Photo: Example Agency / A. Lens</p>` +
			prose("tale", 2) + `<p>Quelle: Landesamt für Vermessung</p><p>© Northfield Survey 2021</p>` +
			`<p>Photo: the one we took at the spring, at dawn, is the best of the whole season.</p>` + prose("epilogue", 1) + `</article></body>`,
		want: []string{"Paragraph 2 of the story", "Paragraph 2 of the tale", "the one we took at the spring", "Paragraph 1 of the epilogue"},
		not:  []string{"Example Agency", "Landesamt", "© Northfield"},
	},
	{
		// The page's title at the head of its text is recorded apart
		// (as the page's title), not in the text; a page that is only
		// its title keeps it.
		name: "title at the head of the text",
		page: `<html><head><title>Field notes from the ridge | Northfield Survey</title></head><body>` + siteChrome +
			`<article><h1>Field notes from the ridge</h1>` + prose("story", 3) + `</article></body></html>`,
		want: []string{"Paragraph 1 of the story", "Paragraph 3 of the story"},
		not:  []string{"Field notes from the ridge"},
	},
}

// TestFailureModes extracts each of failureModes, in Extract's own pass
// and in htmlx.Parse's.
func TestFailureModes(t *testing.T) {
	for _, tc := range failureModes {
		t.Run(tc.name, func(t *testing.T) {
			for _, shared := range []bool{false, true} {
				var res Result
				var err error
				if shared {
					res, err = extractShared(t, []byte(tc.page), "")
				} else {
					res, err = Extract([]byte(tc.page), "https://example.org/", "")
				}
				if err != nil {
					t.Fatalf("Extract(%s): %v", tc.name, err)
				}
				for _, s := range tc.want {
					if !strings.Contains(res.Text, s) {
						t.Errorf("Extract(%s).Text lacks %q", tc.name, s)
					}
				}
				for _, s := range tc.not {
					if strings.Contains(res.Text, s) {
						t.Errorf("Extract(%s).Text has boilerplate %q", tc.name, s)
					}
				}
				if t.Failed() {
					t.Fatalf("Extract(%s).Text:\n%s", tc.name, res.Text)
				}
			}
		})
	}
}
