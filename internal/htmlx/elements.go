package htmlx

import "golang.org/x/net/html/atom"

// class is the set of properties of an HTML element that matter for
// extraction. The tokenizer knows nothing of them; these tables stand in for
// the parts of the HTML tree builder that change what is visible.
type class uint16

const (
	clBlock    class = 1 << iota // starts and ends a line of text
	clSpace                      // separates words but not lines (form controls, embedded content)
	clVoid                       // has no end tag, so is never on the stack
	clRaw                        // its content is raw text that the tokenizer reads itself
	clHide                       // its content is not visible text
	clHead                       // may appear before <body> without starting the body
	clSpecial                    // in the parser's "special" category: stops the search for an open li, dd or dt
	clScope                      // bounds the search for an element to close (the parser's scopes, simplified)
	clClosesP                    // its start tag closes an open p
	clBreakout                   // its start tag leaves SVG or MathML content
	clFormat                     // formatting element (a, b, em, ...)
)

// classOf returns the class of a known element; unknown elements (custom
// elements included) are inline and have none of the properties.
func classOf(a atom.Atom) class {
	switch a {
	case atom.A:
		return clFormat
	case atom.Span, atom.Var, atom.Sub, atom.Sup, atom.Ruby:
		return clBreakout
	case atom.B, atom.Big, atom.Code, atom.Em, atom.I, atom.Nobr, atom.S, atom.Small,
		atom.Strike, atom.Strong, atom.Tt, atom.U:
		return clFormat | clBreakout
	case atom.Font:
		return clFormat
	case atom.Address, atom.Article, atom.Aside, atom.Center, atom.Details, atom.Dialog,
		atom.Dir, atom.Fieldset, atom.Figcaption, atom.Figure, atom.Footer, atom.Form,
		atom.Header, atom.Hgroup, atom.Main, atom.Menu, atom.Nav, atom.Search, atom.Section,
		atom.Summary:
		c := clBlock | clSpecial | clClosesP
		if a == atom.Center || a == atom.Menu {
			c |= clBreakout
		}
		return c
	case atom.Blockquote, atom.Div, atom.Dl, atom.Ol, atom.Ul, atom.P, atom.Pre, atom.Listing:
		return clBlock | clSpecial | clClosesP | clBreakout
	case atom.Li, atom.Dd, atom.Dt:
		return clBlock | clSpecial | clClosesP | clBreakout
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return clBlock | clSpecial | clClosesP | clBreakout
	case atom.Table:
		return clBlock | clSpecial | clClosesP | clBreakout | clScope
	case atom.Caption, atom.Td, atom.Th:
		return clBlock | clSpecial | clScope
	case atom.Tr, atom.Tbody, atom.Thead, atom.Tfoot:
		return clBlock | clSpecial
	case atom.Colgroup:
		return clSpecial
	case atom.Legend, atom.Option, atom.Optgroup, atom.Frameset:
		return clBlock
	case atom.Hr:
		return clBlock | clVoid | clSpecial | clClosesP | clBreakout
	case atom.Br:
		return clBlock | clVoid | clSpecial | clBreakout
	case atom.Html, atom.Head, atom.Body:
		// Never on the stack: the root, head and body are implied.
		c := clBlock | clSpecial | clScope
		if a != atom.Html {
			c |= clBreakout
		}
		if a != atom.Body {
			// <body> starts the body (a <link> after it is in the
			// body, not the head).
			c |= clHead
		}
		return c
	case atom.Title:
		return clRaw | clSpecial | clHead
	case atom.Script, atom.Style, atom.Noscript:
		return clRaw | clSpecial | clHead
	case atom.Template:
		return clHide | clSpecial | clScope | clHead
	case atom.Meta, atom.Link, atom.Base, atom.Basefont, atom.Bgsound:
		c := clVoid | clSpecial | clHead
		if a == atom.Meta {
			c |= clBreakout
		}
		return c
	case atom.Iframe:
		return clRaw | clSpace | clSpecial
	case atom.Textarea:
		return clRaw | clSpace | clSpecial
	case atom.Noembed, atom.Noframes:
		return clRaw | clSpecial
	case atom.Xmp:
		return clRaw | clBlock | clSpecial | clClosesP
	case atom.Plaintext:
		return clRaw | clBlock | clSpecial | clClosesP
	case atom.Img, atom.Embed:
		return clVoid | clSpace | clSpecial | clBreakout
	case atom.Input, atom.Keygen:
		return clVoid | clSpace | clSpecial
	case atom.Area, atom.Col, atom.Frame, atom.Param, atom.Source, atom.Track:
		return clVoid | clSpecial
	case atom.Wbr:
		return clVoid | clSpecial
	case atom.Button:
		return clSpace | clSpecial | clScope
	case atom.Select:
		return clSpace | clSpecial
	case atom.Object, atom.Applet, atom.Marquee:
		return clSpace | clSpecial | clScope
	case atom.Meter, atom.Progress:
		return clSpace
	case atom.Audio, atom.Video, atom.Canvas:
		// Their content is fallback for browsers that cannot play or draw.
		return clSpace | clHide
	case atom.Datalist:
		return clHide
	case atom.Svg:
		// Inline graphics: their text (titles, labels) is not page text.
		return clSpace | clScope | clHide
	case atom.Math:
		return clSpace | clScope
	}
	return 0
}
