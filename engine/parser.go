package engine

import (
	"fmt"
	"strings"
)

// Parse reads a .rules file into its syntax tree. It reports every syntax
// error it can find (recovering at the next declaration) and returns the
// tree of the parts it understood alongside them. Parse never panics.
func Parse(filename string, src []byte) (*File, ErrorList) {
	var errs ErrorList
	p := &parser{lex: newLexer(filename, string(src), &errs), errs: &errs, file: filename, broken: map[string]bool{}}
	p.next()
	f := p.parseFile()
	errs.sort()
	return f, errs
}

// bailout unwinds a declaration after a syntax error; guard recovers it
// and resynchronises, so one bad declaration costs one error, not the file.
type bailout struct{}

type parser struct {
	// lex supplies the tokens.
	lex *lexer
	// errs receives the syntax errors (shared with lex).
	errs *ErrorList
	// file is the file name errors carry.
	file string
	// tok is the current token, never a comment.
	tok token
	// pending holds the comment lines read since the last takeDoc, to
	// become the next declaration's Doc.
	pending []string
	// depth is the expression nesting depth, capped at maxDepth so that
	// hostile input cannot exhaust the stack.
	depth int
	// declaring is the id of the top-level declaration being parsed; when
	// that declaration fails, its id goes to broken so that the checker
	// does not also report every use of it as unknown.
	declaring string
	// broken holds the ids of declarations that failed; it becomes
	// File.broken.
	broken map[string]bool
	// prevEnd is the position just after the previous token.
	prevEnd Pos
}

func (p *parser) next() {
	if p.tok.kind != tokEOF || p.tok.pos.Line > 0 {
		p.prevEnd = p.lex.end
	}
	for {
		p.tok = p.lex.next()
		if p.tok.kind == tokComment {
			p.pending = append(p.pending, p.tok.text)
			continue
		}
		if p.tok.kind == tokInvalid {
			continue
		}
		return
	}
}

// takeDoc returns and clears the comment lines seen since the last call.
func (p *parser) takeDoc() []string {
	d := p.pending
	p.pending = nil
	return d
}

func (p *parser) errorf(pos Pos, format string, args ...any) {
	p.errs.add(p.file, pos, fmt.Sprintf(format, args...))
}

// fail reports an error at the current token and abandons the declaration.
// When the token starts a new line, the error is placed at the end of the
// previous token instead: the line that is missing something.
func (p *parser) fail(format string, args ...any) {
	pos := p.tok.pos
	if p.tok.lineStart && p.prevEnd.Line > 0 {
		pos = p.prevEnd
	}
	p.errorf(pos, format, args...)
	panic(bailout{})
}

func (p *parser) describe() string {
	switch p.tok.kind {
	case tokEOF:
		return "the end of the file"
	case tokString:
		return fmt.Sprintf("the string %q", p.tok.text)
	}
	return fmt.Sprintf("%q", p.tok.text)
}

func (p *parser) is(text string) bool {
	return (p.tok.kind == tokPunct || p.tok.kind == tokIdent) && p.tok.text == text
}

func (p *parser) expect(text, what string) Pos {
	if !p.is(text) {
		p.fail("expected %s, found %s", what, p.describe())
	}
	pos := p.tok.pos
	p.next()
	return pos
}

func (p *parser) ident(what string) string {
	if p.tok.kind != tokIdent {
		p.fail("expected %s, found %s", what, p.describe())
	}
	s := p.tok.text
	p.next()
	return s
}

func (p *parser) str(what string) string {
	if p.tok.kind != tokString {
		p.fail("expected %s (a double-quoted string), found %s", what, p.describe())
	}
	s := p.tok.text
	p.next()
	return s
}

var topLevel = map[string]bool{
	"ruleset": true, "section": true, "name": true, "description": true,
	"effective": true, "source": true, "field": true, "group": true, "outcome": true,
}

// sync skips to the next token that starts a line and is a top-level
// keyword (or, inside a group, `criterion` or a closing brace).
func (p *parser) sync(inGroup bool) {
	for !p.atSync(inGroup) {
		p.next()
	}
}

// atSync reports whether the current token is one sync stops at.
func (p *parser) atSync(inGroup bool) bool {
	switch {
	case p.tok.kind == tokEOF:
		return true
	case !p.tok.lineStart:
		return false
	case p.tok.kind == tokIdent && topLevel[p.tok.text]:
		return true
	}
	return inGroup && (p.is("criterion") || p.is("}"))
}

// guard runs one declaration parser, recovering from a bailout by
// resynchronising.
func (p *parser) guard(inGroup bool, f func()) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
			p.depth = 0
			if p.declaring != "" {
				p.broken[p.declaring] = true
				p.declaring = ""
			}
			// Every declaration consumes its keyword before it can fail, so
			// stopping on a sync point here always makes progress.
			if !p.atSync(inGroup) {
				p.next()
			}
			p.sync(inGroup)
		}
	}()
	f()
}

func (p *parser) parseFile() *File {
	f := &File{}
	for p.tok.kind != tokEOF {
		p.guard(false, func() { p.parseTop(f) })
	}
	f.Trailing = p.takeDoc()
	f.broken = p.broken
	return f
}

func (p *parser) parseTop(f *File) {
	doc := p.takeDoc()
	pos := p.tok.pos
	if p.tok.kind != tokIdent || !topLevel[p.tok.text] {
		p.fail("expected a declaration (ruleset, section, name, description, effective, source, field, group or outcome), found %s", p.describe())
	}
	kw := p.tok.text
	p.next()
	p.declaring = ""
	if kw == "section" {
		p.declaring = "section"
	}
	header := func(slot **Attr, value string) {
		if *slot != nil {
			p.errorf(pos, "%s is declared twice (first at line %d)", kw, (*slot).Pos.Line)
		}
		*slot = &Attr{Pos: pos, Doc: doc, Value: value}
	}
	switch kw {
	case "ruleset":
		header(&f.Slug, p.str("the slug, e.g. \"us/fmla-employee\""))
	case "section":
		header(&f.Section, p.ident("the section id, e.g. fmla_employee"))
	case "name":
		header(&f.Name, p.str("the ruleset's name"))
	case "description":
		header(&f.Description, p.str("the description"))
	case "effective":
		if f.Effective != nil {
			p.errorf(pos, "effective is declared twice (first at line %d)", f.Effective.Pos.Line)
		}
		f.Effective = p.parseEffective(pos, doc)
	case "source":
		f.Sources = append(f.Sources, p.parseSource(pos, doc))
	case "field":
		f.Fields = append(f.Fields, p.parseField(pos, doc))
	case "group":
		f.Groups = append(f.Groups, p.parseGroup(pos, doc))
	case "outcome":
		if f.Outcome != nil {
			p.errorf(pos, "outcome is declared twice (first at line %d)", f.Outcome.Pos.Line)
		}
		f.Outcome = &OutcomeDecl{Pos: pos, Doc: doc, Expr: p.parseExpr()}
	}
}

// parseEffective reads `effective <date> [until <date>]` after its keyword.
func (p *parser) parseEffective(pos Pos, doc []string) *EffectiveDecl {
	e := &EffectiveDecl{Pos: pos, Doc: doc}
	e.FromPos = p.tok.pos
	e.From = p.dateLit("the first day the ruleset holds, e.g. effective 2025-10-01")
	if p.is("until") && !p.tok.lineStart {
		p.next()
		e.UntilPos = p.tok.pos
		e.Until = p.dateLit("the last day the ruleset holds, e.g. until 2026-09-30")
	}
	return e
}

// dateLit reads a bare date YYYY-MM-DD, which the lexer splits into number,
// -, number, -, number with nothing between them, and returns it as
// written.
func (p *parser) dateLit(what string) string {
	var b strings.Builder
	for i := 0; i < 5; i++ {
		adjacent := i == 0 || p.tok.pos == p.prevEnd
		want := p.tok.kind == tokNumber
		if i%2 == 1 {
			want = p.is("-")
		}
		if !adjacent || !want {
			p.fail("expected %s (a date written YYYY-MM-DD), found %s", what, p.describe())
		}
		b.WriteString(p.tok.text)
		p.next()
	}
	return b.String()
}

func (p *parser) parseSource(pos Pos, doc []string) *SourceDecl {
	s := &SourceDecl{Pos: pos, Doc: doc}
	s.ID = p.ident("the source id")
	p.declaring = s.ID
	s.Title = p.str("the source title")
	if !p.is("url") && !p.is("artefact") {
		p.fail("expected url \"<address>\" or artefact \"<locator>\", found %s", p.describe())
	}
	s.LocKind = p.tok.text
	p.next()
	s.Loc = p.str("the " + s.LocKind)
	if !p.is("licence") {
		if p.is("license") {
			p.fail("write licence (British spelling)")
		}
		p.fail("expected licence \"<licence>\": every source needs one, e.g. licence \"public-domain\"")
	}
	p.next()
	s.Licence = p.str("the licence")
	return s
}

func (p *parser) parseField(pos Pos, doc []string) *FieldDecl {
	f := &FieldDecl{Pos: pos, Doc: doc, Weight: 1}
	if p.tok.kind != tokField {
		p.fail("expected a field name of the form <group>.<name>, found %s", p.describe())
	}
	f.ID = p.tok.text
	p.declaring = f.ID
	p.next()
	f.TypePos = p.tok.pos
	f.Type = p.ident("a type (int, decimal, bool, date or enum [...])")
	if f.Type == "enum" {
		p.expect("[", "[ and the list of values after enum")
		for !p.is("]") {
			f.Enum = append(f.Enum, p.str("an enum value"))
			if !p.is(",") {
				break
			}
			p.next()
		}
		p.expect("]", "] to close the enum values")
	}
	if p.is("weight") {
		p.next()
		if p.tok.kind != tokNumber {
			p.fail("expected a whole number after weight, found %s", p.describe())
		}
		v, err := ParseNumber(p.tok.text)
		if err != nil || v.Scale != 0 || v.Num > 1_000_000 {
			p.fail("weight must be a whole number from 0 to 1000000")
		}
		f.Weight = v.Num
		p.next()
	}
	for p.tok.kind == tokIdent && !p.tok.lineStart || p.tok.kind == tokIdent && fieldAttr[p.tok.text] {
		kw := p.tok.text
		apos := p.tok.pos
		switch kw {
		case "question":
			p.next()
			f.Question = p.str("the question text")
		case "description":
			// `description` is also a top-level header; a field attribute is
			// indented, the header is not.
			if apos.Col == 1 {
				return f
			}
			p.next()
			f.Description = p.str("the description text")
		case "note":
			p.next()
			n := &NoteDecl{Pos: apos}
			if !p.is("why") && !p.is("legal_background") {
				p.fail("expected why or legal_background after note, found %s", p.describe())
			}
			n.Kind = p.tok.text
			p.next()
			n.Text = p.str("the note text")
			if p.is("source") && !p.tok.lineStart {
				p.next()
				n.Source = p.ident("the source id")
			}
			f.Notes = append(f.Notes, n)
		case "widget":
			p.next()
			f.WidgetPos = p.tok.pos
			f.Widget = p.ident("the widget (free_text)")
		default:
			p.fail("unknown field attribute %q: use question, description, note or widget", kw)
		}
	}
	return f
}

var fieldAttr = map[string]bool{"question": true, "description": true, "note": true, "widget": true}

func (p *parser) parseGroup(pos Pos, doc []string) *GroupDecl {
	g := &GroupDecl{Pos: pos, Doc: doc}
	g.ID = p.ident("the group id")
	p.declaring = g.ID
	if !p.is("all") && !p.is("any") {
		p.fail("expected all or any after the group id, found %s", p.describe())
	}
	g.Kind = p.tok.text
	p.next()
	g.Title = p.str("the group title")
	p.expect("{", "{ to open the group")
	for {
		if p.is("}") {
			g.Trailing = p.takeDoc()
			p.next()
			return g
		}
		if p.tok.kind == tokEOF || p.tok.lineStart && p.tok.kind == tokIdent && topLevel[p.tok.text] {
			p.errorf(p.tok.pos, "group %s is not closed: add } after its last criterion", g.ID)
			g.Trailing = p.takeDoc()
			return g
		}
		p.guard(true, func() {
			if !p.is("criterion") {
				p.fail("expected criterion or }, found %s", p.describe())
			}
			g.Criteria = append(g.Criteria, p.parseCriterion())
		})
	}
}

func (p *parser) parseCriterion() *CriterionDecl {
	c := &CriterionDecl{Pos: p.tok.pos, Doc: p.takeDoc()}
	p.next()
	c.ID = p.ident("the criterion id")
	c.Title = p.str("the criterion title")
	if p.is("discretionary") {
		c.Discretionary = true
		p.next()
	}
	p.expect("{", "{ to open the criterion")
	if !c.Discretionary && !p.is("cite") && !p.is("}") {
		c.ExprDoc = p.takeDoc()
		c.Expr = p.parseExpr()
	}
	for p.is("cite") {
		cite := &CiteDecl{Pos: p.tok.pos, Doc: p.takeDoc()}
		p.next()
		cite.Source = p.ident("the cited source id")
		cite.Quote = p.str("the exact quote")
		c.Cites = append(c.Cites, cite)
	}
	if !p.is("}") {
		if c.Discretionary && p.tok.kind != tokEOF && !p.is("cite") {
			p.fail("a discretionary criterion has no expression, only cite lines; found %s", p.describe())
		}
		p.fail("expected cite or } in criterion %s, found %s", c.ID, p.describe())
	}
	c.Trailing = p.takeDoc()
	p.next()
	return c
}

// Expressions, loosest first: or, and, not, comparison/in, + -, *, ??, unary.

const maxDepth = 200

func (p *parser) parseExpr() *Node {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		p.fail("expression nested too deeply")
	}
	return p.parseOr()
}

func (p *parser) binaryLevel(ops []string, sub func() *Node) *Node {
	left := sub()
	for {
		op := ""
		for _, o := range ops {
			if p.is(o) {
				op = o
			}
		}
		if op == "" {
			return left
		}
		pos := p.tok.pos
		p.next()
		right := sub()
		left = &Node{Pos: pos, Kind: NodeBinary, Op: op, Args: []*Node{left, right}}
	}
}

func (p *parser) parseOr() *Node { return p.binaryLevel([]string{"or"}, p.parseAnd) }

func (p *parser) parseAnd() *Node { return p.binaryLevel([]string{"and"}, p.parseNot) }

func (p *parser) parseNot() *Node {
	if p.is("not") {
		pos := p.tok.pos
		p.next()
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > maxDepth {
			p.fail("expression nested too deeply")
		}
		return &Node{Pos: pos, Kind: NodeNot, Args: []*Node{p.parseNot()}}
	}
	return p.parseCompare()
}

var compareOps = []string{"==", "!=", "<", "<=", ">", ">="}

func (p *parser) parseCompare() *Node {
	left := p.parseAdd()
	pos := p.tok.pos
	var n *Node
	switch {
	case p.is("in"):
		p.next()
		n = &Node{Pos: pos, Kind: NodeIn, Op: "in", Args: append([]*Node{left}, p.parseList()...)}
	case p.is("not"):
		p.next()
		if !p.is("in") {
			p.fail("expected in after not (write `x not in [...]`), found %s", p.describe())
		}
		p.next()
		n = &Node{Pos: pos, Kind: NodeIn, Op: "not in", Args: append([]*Node{left}, p.parseList()...)}
	default:
		for _, o := range compareOps {
			if p.is(o) {
				p.next()
				n = &Node{Pos: pos, Kind: NodeBinary, Op: o, Args: []*Node{left, p.parseAdd()}}
				break
			}
		}
		if n == nil {
			return left
		}
	}
	for _, o := range append(compareOps, "in") {
		if p.is(o) {
			p.fail("comparisons do not chain: write `a < b and b < c` instead of `a < b < c`")
		}
	}
	return n
}

func (p *parser) parseList() []*Node {
	p.expect("[", "[ and a list of values")
	var items []*Node
	for !p.is("]") {
		items = append(items, p.parseAdd())
		if !p.is(",") {
			break
		}
		p.next()
	}
	p.expect("]", "] or , in the list")
	if len(items) == 0 {
		p.errorf(p.tok.pos, "the list after in is empty")
	}
	return items
}

func (p *parser) parseAdd() *Node { return p.binaryLevel([]string{"+", "-"}, p.parseMul) }

func (p *parser) parseMul() *Node { return p.binaryLevel([]string{"*"}, p.parseDefault) }

func (p *parser) parseDefault() *Node { return p.binaryLevel([]string{"??"}, p.parseUnary) }

func (p *parser) parseUnary() *Node {
	if p.is("-") {
		pos := p.tok.pos
		p.next()
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > maxDepth {
			p.fail("expression nested too deeply")
		}
		x := p.parseUnary()
		if x.Kind == NodeNumber {
			if v, ok := negNum(x.Num); ok {
				x.Num, x.Pos = v, pos
				if strings.HasPrefix(x.Lit, "-") {
					x.Lit = v.NumberString()
				} else {
					x.Lit = "-" + x.Lit
				}
				return x
			}
		}
		return &Node{Pos: pos, Kind: NodeNeg, Args: []*Node{x}}
	}
	return p.parsePrimary()
}

func (p *parser) parsePrimary() *Node {
	t := p.tok
	switch t.kind {
	case tokNumber:
		p.next()
		v, err := ParseNumber(t.text)
		if err != nil {
			p.errorf(t.pos, "number %s: %v", t.text, err)
		}
		return &Node{Pos: t.pos, Kind: NodeNumber, Num: v, Lit: t.text}
	case tokString:
		p.next()
		return &Node{Pos: t.pos, Kind: NodeString, Str: t.text}
	case tokField:
		p.next()
		return &Node{Pos: t.pos, Kind: NodeField, Name: t.text}
	case tokIdent:
		switch t.text {
		case "true", "false":
			p.next()
			return &Node{Pos: t.pos, Kind: NodeBool, Num: BoolValue(t.text == "true")}
		case "and", "or", "not", "in":
			p.fail("expected a value, found the keyword %s", t.text)
		}
		p.next()
		if p.is("(") {
			p.next()
			n := &Node{Pos: t.pos, Kind: NodeCall, Name: t.text}
			for !p.is(")") {
				n.Args = append(n.Args, p.parseExpr())
				if !p.is(",") {
					break
				}
				p.next()
			}
			p.expect(")", ") to close the call to "+t.text)
			return n
		}
		return &Node{Pos: t.pos, Kind: NodeIdent, Name: t.text}
	case tokPunct:
		if t.text == "(" {
			p.next()
			x := p.parseExpr()
			p.expect(")", "a closing )")
			return x
		}
	}
	p.fail("expected a value (a field, number, string, call or parenthesis), found %s", p.describe())
	return nil
}
