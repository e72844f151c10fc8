package syntax

import (
	"strconv"
	"strings"
)

// Print writes the canonical text of a file: the layout GRAMMAR.md shows,
// declarations in the canonical order, comment blocks above the declaration
// they belong to. It is what `eligo fmt` writes; Parse(Print(f)) gives f
// back (positions aside), and Print is idempotent.
func Print(f *File) []byte {
	var w printer
	header := func(a *Attr, kw, value string) {
		if a == nil {
			return
		}
		w.doc(a.Doc, 0)
		w.line(0, kw+" "+value)
	}
	if f.Slug != nil {
		header(f.Slug, "ruleset", Quote(f.Slug.Value))
	}
	if f.Section != nil {
		header(f.Section, "section", f.Section.Value)
	}
	if f.Name != nil {
		header(f.Name, "name", Quote(f.Name.Value))
	}
	if f.Description != nil {
		header(f.Description, "description", Quote(f.Description.Value))
	}
	if e := f.Effective; e != nil {
		w.doc(e.Doc, 0)
		s := "effective " + e.From
		if e.Until != "" {
			s += " until " + e.Until
		}
		w.line(0, s)
	}
	w.blank()
	for _, s := range f.Sources {
		w.doc(s.Doc, 0)
		w.line(0, "source "+s.ID+" "+Quote(s.Title)+" "+s.LocKind+" "+Quote(s.Loc)+" licence "+Quote(s.Licence))
	}
	w.blank()
	for _, fd := range f.Fields {
		w.doc(fd.Doc, 0)
		typ := fd.Type
		if typ == "enum" {
			items := make([]string, len(fd.Enum))
			for i, e := range fd.Enum {
				items[i] = Quote(e)
			}
			typ += " [" + strings.Join(items, ", ") + "]"
		}
		w.line(0, "field "+fd.ID+" "+typ+" weight "+strconv.FormatInt(fd.Weight, 10))
		if fd.Question != "" {
			w.line(1, "question "+Quote(fd.Question))
		}
		if fd.Description != "" {
			w.line(1, "description "+Quote(fd.Description))
		}
		if fd.Label != "" {
			w.line(1, "label "+Quote(fd.Label))
		}
		if fd.Unit != "" {
			w.line(1, "unit "+Quote(fd.Unit))
		}
		if fd.Range != nil {
			w.line(1, "range "+fd.Range.Min+".."+fd.Range.Max)
		}
		for _, o := range fd.Options {
			w.line(1, "option "+Quote(o.Value)+" "+Quote(o.Label))
		}
		for _, n := range fd.Notes {
			s := "note " + n.Kind + " " + Quote(n.Text)
			if n.Source != "" {
				s += " source " + n.Source
			}
			w.line(1, s)
		}
		if fd.Widget != "" {
			w.line(1, "widget "+fd.Widget)
		}
	}
	for _, g := range f.Groups {
		w.blank()
		w.doc(g.Doc, 0)
		w.line(0, "group "+g.ID+" "+g.Kind+" "+Quote(g.Title)+" {")
		for _, c := range g.Criteria {
			w.doc(c.Doc, 1)
			head := "criterion " + c.ID + " " + Quote(c.Title)
			if c.Discretionary {
				head += " discretionary"
			}
			w.line(1, head+" {")
			w.doc(c.ExprDoc, 2)
			if c.Expr != nil {
				w.line(2, PrintExpr(c.Expr))
			}
			for _, ci := range c.Cites {
				w.doc(ci.Doc, 2)
				w.line(2, "cite "+ci.Source+" "+Quote(ci.Quote))
			}
			w.doc(c.Trailing, 2)
			w.line(1, "}")
		}
		w.doc(g.Trailing, 1)
		w.line(0, "}")
	}
	if f.Outcome != nil {
		w.blank()
		w.doc(f.Outcome.Doc, 0)
		w.line(0, "outcome "+PrintExpr(f.Outcome.Expr))
	}
	if len(f.Trailing) > 0 {
		w.blank()
		w.doc(f.Trailing, 0)
	}
	return []byte(w.b.String())
}

type printer struct {
	// b accumulates the printed text.
	b strings.Builder
	// pendingBlank asks for one empty line before the next printed line.
	pendingBlank bool
}

func (w *printer) blank() { w.pendingBlank = w.b.Len() > 0 }

func (w *printer) line(indent int, s string) {
	if w.pendingBlank {
		w.b.WriteByte('\n')
		w.pendingBlank = false
	}
	w.b.WriteString(strings.Repeat("  ", indent))
	w.b.WriteString(s)
	w.b.WriteByte('\n')
}

func (w *printer) doc(lines []string, indent int) {
	for _, l := range lines {
		w.line(indent, l)
	}
}

// quote writes s as a rules-language string: only " and \ are escaped.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
	return b.String()
}

// precedence of a node as printed: 1 or, 2 and, 3 not, 4 comparison,
// 5 + -, 6 *, 7 ??, 8 everything tighter.
func precedence(n *Node) int {
	switch n.Kind {
	case NodeBinary:
		switch n.Op {
		case "or":
			return 1
		case "and":
			return 2
		case "+", "-":
			return 5
		case "*":
			return 6
		case "??":
			return 7
		}
		return 4
	case NodeNot:
		return 3
	case NodeIn:
		return 4
	}
	return 8
}

// PrintExpr writes an expression canonically, with only the parentheses
// its meaning needs.
func PrintExpr(n *Node) string {
	var b strings.Builder
	printNode(&b, n)
	return b.String()
}

func printNode(b *strings.Builder, n *Node) {
	sub := func(c *Node, min int) {
		if precedence(c) < min {
			b.WriteByte('(')
			printNode(b, c)
			b.WriteByte(')')
			return
		}
		printNode(b, c)
	}
	switch n.Kind {
	case NodeBinary:
		p := precedence(n)
		left, right := p, p+1
		switch {
		case p == 4: // comparisons do not chain
			left = 5
		case n.Op == "or":
			// `a or (b and c)` keeps its parentheses: the grouping reads
			// at a glance and nobody has to remember that and binds tighter.
			left, right = 3, 3
			if isOr(n.Args[0]) {
				left = 1
			}
		}
		sub(n.Args[0], left)
		b.WriteString(" " + n.Op + " ")
		sub(n.Args[1], right)
	case NodeNot:
		b.WriteString("not ")
		sub(n.Args[0], 3)
	case NodeNeg:
		b.WriteByte('-')
		if n.Args[0].Kind == NodeNeg {
			b.WriteByte(' ')
		}
		sub(n.Args[0], 8)
	case NodeIn:
		sub(n.Args[0], 5)
		b.WriteString(" " + n.Op + " [")
		for i, a := range n.Args[1:] {
			if i > 0 {
				b.WriteString(", ")
			}
			sub(a, 5)
		}
		b.WriteByte(']')
	case NodeCall:
		b.WriteString(n.Name + "(")
		for i, a := range n.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			printNode(b, a)
		}
		b.WriteByte(')')
	case NodeField, NodeIdent:
		b.WriteString(n.Name)
	case NodeNumber:
		if n.Lit != "" {
			b.WriteString(n.Lit)
		} else {
			b.WriteString(n.Num.NumberString())
		}
	case NodeString:
		b.WriteString(Quote(n.Str))
	case NodeBool:
		if n.Num.Num != 0 {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	}
}

func isOr(n *Node) bool { return n.Kind == NodeBinary && n.Op == "or" }
