// Package htmlx extracts from an HTML page what a crawler and a search index
// need: visible text, title, language, links with their anchor text,
// canonical URL, robots directives and meta refresh.
//
// It is a pure leaf: Decode and Parse take bytes and return values, with no
// I/O and no state between calls. Parse runs a tokenizer of its own, which
// splits a page into the tokens x/net/html's Tokenizer gives (a
// differential test and fuzz target hold it to that) while reading the
// page in place, without copying it or its attributes; it runs no tree
// builder, and imitates only the parts of tree building that change
// what is visible (implied end tags, hidden subtrees, foreign content): it
// takes half the time of html.Parse alone and a quarter of its memory.
// Parse also hands every token to Options.Visitors, so that the main-text
// and metadata extractors read the page in the same pass of the tokenizer
// instead of tokenizing it again (Tokens runs visitors alone).
package htmlx
