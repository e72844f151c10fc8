package source

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// extractHTML returns the visible text of an HTML document: block elements
// on their own lines (paragraph-like ones separated by a blank line), runs
// of white space in text collapsed to one space as a browser shows them
// (except inside pre), entities decoded, and the contents of elements a
// reader never sees (script, style, head, ...) dropped.
func extractHTML(data []byte) (string, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if !utf8.Valid(data) {
		return "", fmt.Errorf("not valid UTF-8 at byte %d (save the page as UTF-8): %w", invalidAt(data), ErrUnreadable)
	}
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		// With an in-memory reader the only failure is a document nested
		// deeper than the parser allows: the upload's fault.
		return "", fmt.Errorf("parse html: %w: %w", err, ErrUnreadable)
	}
	var w htmlText
	walk(doc, w.enter, w.leave)
	return w.b.String(), nil
}

// walk visits the tree under root depth first without recursion, so a
// hostile document nested millions deep cannot exhaust the stack. enter is
// called on the way down and says whether to visit the node's children;
// leave is called on the way up for every node entered.
func walk(root *html.Node, enter func(*html.Node) bool, leave func(*html.Node)) {
	n := root
	for {
		if enter(n) && n.FirstChild != nil {
			n = n.FirstChild
			continue
		}
		for {
			leave(n)
			if n == root {
				return
			}
			if n.NextSibling != nil {
				n = n.NextSibling
				break
			}
			n = n.Parent
		}
	}
}

// htmlText accumulates the text of a document. Breaks and spaces are held
// back until the next visible character so the output has no leading or
// trailing white space, no spaces at line ends and at most one blank line
// in a row.
type htmlText struct {
	b        strings.Builder
	breaks   int  // newlines owed before the next character
	gap      byte // 0, or the space or tab owed before the next character
	preDepth int  // number of open pre (and similar) elements
}

// breakKind says how an element separates its text from its neighbours.
type breakKind int

const (
	inline    breakKind = iota // joins its neighbours as written
	line                       // starts and ends a line
	paragraph                  // stands apart by a blank line
	cell                       // a table cell: a tab from the next
	hidden                     // never shown; its contents are dropped
)

// kindOf classifies an element by its tag.
func kindOf(a atom.Atom) breakKind {
	switch a {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Head,
		atom.Title, atom.Iframe, atom.Object, atom.Embed, atom.Svg, atom.Math:
		return hidden
	case atom.P, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Blockquote, atom.Pre, atom.Table, atom.Ul, atom.Ol, atom.Dl,
		atom.Section, atom.Article, atom.Aside, atom.Header, atom.Footer,
		atom.Nav, atom.Main, atom.Figure, atom.Hr, atom.Address,
		atom.Fieldset, atom.Form, atom.Details, atom.Listing, atom.Xmp,
		atom.Plaintext, atom.Center, atom.Menu, atom.Hgroup:
		return paragraph
	case atom.Div, atom.Li, atom.Tr, atom.Dt, atom.Dd,
		atom.Caption, atom.Figcaption, atom.Legend, atom.Summary,
		atom.Option, atom.Tbody, atom.Thead, atom.Tfoot, atom.Textarea:
		return line
	case atom.Td, atom.Th:
		return cell
	}
	return inline
}

// preformatted reports whether an element keeps its white space as written.
func preformatted(a atom.Atom) bool {
	return a == atom.Pre || a == atom.Textarea || a == atom.Listing ||
		a == atom.Xmp || a == atom.Plaintext
}

// enter adds a node's text or the break before an element, and says
// whether its children are visible.
func (w *htmlText) enter(n *html.Node) bool {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return false
	case html.ElementNode:
		if n.DataAtom == atom.Br {
			w.breaks++ // <br><br> is a blank line, as a browser shows it
			return false
		}
		kind := kindOf(n.DataAtom)
		if kind == hidden {
			return false
		}
		w.owe(kind)
		if preformatted(n.DataAtom) {
			w.preDepth++
		}
		return true
	case html.DocumentNode:
		return true
	}
	return false // comments, doctypes
}

// leave adds the break after an element.
func (w *htmlText) leave(n *html.Node) {
	if n.Type != html.ElementNode {
		return
	}
	kind := kindOf(n.DataAtom)
	if kind == hidden || n.DataAtom == atom.Br {
		return
	}
	if preformatted(n.DataAtom) {
		w.preDepth--
	}
	if kind == cell {
		w.gap = '\t' // cells in a row stay on one line, a tab apart
		return
	}
	w.owe(kind)
}

// owe records the break an element of the given kind needs before or after it.
func (w *htmlText) owe(kind breakKind) {
	want := 0
	switch kind {
	case line:
		want = 1
	case paragraph:
		want = 2
	}
	w.breaks = max(w.breaks, want)
}

// text adds the contents of a text node.
func (w *htmlText) text(s string) {
	for _, r := range s {
		switch {
		case r == 0:
			continue // the parser keeps some NULs; nobody sees them
		case w.preDepth > 0 && r == '\n':
			w.breaks++
			w.gap = 0
			continue
		case w.preDepth == 0 && htmlSpace(r):
			if w.gap == 0 {
				w.gap = ' '
			}
			continue
		}
		w.flush()
		w.b.WriteRune(r)
	}
}

// flush writes the breaks or space owed before a visible character.
func (w *htmlText) flush() {
	switch {
	case w.b.Len() == 0:
	case w.breaks > 0 && w.preDepth > 0:
		w.b.WriteString(strings.Repeat("\n", w.breaks))
	case w.breaks > 0:
		w.b.WriteString("\n\n"[:min(w.breaks, 2)])
	case w.gap != 0:
		w.b.WriteByte(w.gap)
	}
	w.breaks, w.gap = 0, 0
}

// htmlSpace reports the characters HTML treats as inter-word white space.
// A no-break space is not one of them: it is kept as written.
func htmlSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r'
}
