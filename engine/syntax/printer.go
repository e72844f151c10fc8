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
	for _, l := range f.Lists {
		w.doc(l.Doc, 0)
		w.line(0, "list "+l.Name+" "+Quote(l.Title)+" up to "+l.Max+" weight "+strconv.FormatInt(l.Weight, 10))
		for _, a := range [][2]string{{"question", l.Question}, {"description", l.Description}, {"label", l.Label}, {"noun", l.Noun}} {
			if a[1] != "" {
				w.line(1, a[0]+" "+Quote(a[1]))
			}
		}
	}
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
	for _, v := range f.Values {
		w.blank()
		if v.Table {
			w.table(v)
			continue
		}
		w.body(v.Body, strings.TrimSuffix(valueHead(v), " {"), 0)
	}
	for _, g := range f.Groups {
		w.blank()
		w.doc(g.Doc, 0)
		w.line(0, "group "+g.ID+" "+g.Kind+" "+Quote(g.Title)+" {")
		for _, c := range g.Criteria {
			head := "criterion " + c.ID + " " + Quote(c.Title)
			if c.Discretionary {
				head += " discretionary"
			}
			w.body(c, head, 1)
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

// valueHead is the header of a value or table declaration, up to its {.
func valueHead(v *ValueDecl) string {
	kw := "value "
	if v.Table {
		kw = "table "
	}
	head := kw + v.Body.ID + " " + v.Type + " " + Quote(v.Body.Title)
	if v.Unit != "" {
		head += " unit " + Quote(v.Unit)
	}
	if v.Output {
		head += " output"
	}
	return head + " {"
}

// table writes a table declaration, its rows laid out as a table: the
// matches of each key in a column as wide as its widest, so the => line
// up within a block of rows.
func (w *printer) table(v *ValueDecl) {
	c := v.Body
	w.doc(c.Doc, 0)
	w.line(0, valueHead(v))
	if len(v.Keys) > 0 {
		keys := make([]string, len(v.Keys))
		for i, k := range v.Keys {
			keys[i] = PrintExpr(k)
		}
		w.line(1, "keys "+strings.Join(keys, ", "))
	}
	w.rows(v.Rows, 1)
	for _, pd := range v.Periods {
		w.doc(pd.Doc, 1)
		head := "period " + pd.From
		if pd.Until != "" {
			head += " until " + pd.Until
		}
		w.line(1, head+" {")
		w.rows(pd.Rows, 2)
		w.line(1, "}")
	}
	for _, ci := range c.Cites {
		w.doc(ci.Doc, 1)
		w.line(1, "cite "+ci.Source+" "+Quote(ci.Quote))
	}
	w.doc(c.Trailing, 1)
	w.line(0, "}")
}

// rows writes table rows at indent, their match columns aligned.
func (w *printer) rows(rows []*RowDecl, indent int) {
	var widths []int
	cells := make([][]string, len(rows))
	for i, r := range rows {
		for k, m := range r.Match {
			s := MatchText(m)
			if k < len(r.Match)-1 {
				s += ","
			}
			cells[i] = append(cells[i], s)
			if k == len(widths) {
				widths = append(widths, 0)
			}
			widths[k] = max(widths[k], len(s))
		}
	}
	for i, r := range rows {
		w.doc(r.Doc, indent)
		var b strings.Builder
		for k, s := range cells[i] {
			b.WriteString(s)
			if k < len(cells[i])-1 {
				b.WriteString(strings.Repeat(" ", widths[k]-len(s)+1))
			} else {
				b.WriteString(strings.Repeat(" ", widths[k]-len(s)) + " => ")
			}
		}
		w.line(indent, b.String()+PrintExpr(r.Value))
	}
}

// MatchText writes what one key of a table row matches, as the rules
// write it (`"alaska"`, `9..`, `any`): the formatter lays rows out with
// it, and an explanation names the row a figure came from.
func MatchText(m *MatchDecl) string {
	switch {
	case m.Any:
		return "any"
	case m.Str != "" || m.Min == "" && m.Max == "" && m.Bool == "":
		return Quote(m.Str)
	case m.Bool != "":
		return m.Bool
	case m.Range:
		return m.Min + ".." + m.Max
	}
	return m.Min
}

// body writes a criterion or value: its comment block, its header line
// head with the { that opens the body, the expression, the cite lines and
// the closing }, at indent.
func (w *printer) body(c *CriterionDecl, head string, indent int) {
	w.doc(c.Doc, indent)
	w.line(indent, head+" {")
	w.doc(c.ExprDoc, indent+1)
	if c.Expr != nil {
		w.line(indent+1, PrintExpr(c.Expr))
	}
	for _, ci := range c.Cites {
		w.doc(ci.Doc, indent+1)
		w.line(indent+1, "cite "+ci.Source+" "+Quote(ci.Quote))
	}
	w.doc(c.Trailing, indent+1)
	w.line(indent, "}")
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

// precedence of a node as printed: 0 if, 1 or, 2 and, 3 not, 4
// comparison, 5 + -, 6 * /, 7 ??, 8 everything tighter.
func precedence(n *Node) int {
	switch n.Kind {
	case NodeIf:
		return 0
	case NodeBinary:
		switch n.Op {
		case "or":
			return 1
		case "and":
			return 2
		case "+", "-":
			return 5
		case "*", "/":
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
	case NodeAggregate:
		b.WriteString(n.Name + "(")
		printNode(b, n.Args[0])
		where, otherwise := AggregateParts(n)
		if where != nil {
			b.WriteString(" where ")
			printNode(b, where)
		}
		if otherwise != nil {
			b.WriteString(" else ")
			printNode(b, otherwise)
		}
		b.WriteByte(')')
	case NodeIf:
		// Each part is a whole expression: the keywords delimit them.
		b.WriteString("if ")
		printNode(b, n.Args[0])
		b.WriteString(" then ")
		printNode(b, n.Args[1])
		b.WriteString(" else ")
		printNode(b, n.Args[2])
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
