package syntax

import (
	"fmt"
	"strings"

	"github.com/eligo/eligo/engine/value"
)

// Parse reads a .rules file into its syntax tree. It reports the syntax
// errors it finds, at most one per line, recovering after each at the next
// cite line, criterion or declaration (recover.go), and returns the tree
// of the parts it understood alongside them. Parse never panics.
//
// A text over one of the limits in limits.go gets one error naming the
// limit; the size limit is checked before reading anything, and a
// per-ruleset count stops the parse where it is exceeded, so the work done
// is bounded by the limits whatever the input. Such a file is never
// checked (the engine's Compile refuses it).
func Parse(filename string, src []byte) (*File, ErrorList) {
	var errs ErrorList
	if len(src) > MaxRulesBytes {
		errs.Add(filename, Pos{1, 1}, overLimit(fmt.Sprintf("the ruleset text is %d bytes long", len(src)),
			MaxRulesBytes, "bytes per ruleset text", splitAdvice))
		return &File{OverLimit: true}, errs
	}
	f := newParser(filename, src, &errs).parseFile()
	errs.Sort()
	return f, errs
}

// newParser starts a parser on src, positioned on the first token.
func newParser(filename string, src []byte, errs *ErrorList) *parser {
	p := &parser{lex: newLexer(filename, string(src), errs), errs: errs, file: filename}
	p.next()
	return p
}

// bailout unwinds the part being parsed after a syntax error; try and
// guard (recover.go) recover it and resynchronise, so one mistake costs
// one error, not the file.
type bailout struct{}

// stop unwinds the whole parse when the file exceeds a per-ruleset limit;
// parseFile recovers it and marks the file overLimit.
type stop struct{}

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
	// depth is the expression nesting depth, capped at MaxExprDepth so
	// that hostile input cannot exhaust the stack.
	depth int
	// deepest is the greatest depth reached, which the tests of the
	// limits read.
	deepest int
	// nodes counts the expression nodes built, capped at MaxExprNodes.
	nodes int
	// criteria and cites count the criteria and cite lines read, capped at
	// MaxCriteria and MaxCitations.
	criteria, cites int
	// declaring is the top-level declaration being parsed; when it fails,
	// it goes to failed so that the checker does not also report its
	// absence or every use of it.
	declaring declaring
	// failed records the declarations that failed; it becomes File.failed.
	failed Failures
	// inCondition is set while a criterion's condition is read, where a
	// cite keyword first on its line ends the condition.
	inCondition bool
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

// errorf reports a syntax error, unless the line already has one (see
// ErrorList.addFirst).
func (p *parser) errorf(pos Pos, format string, args ...any) {
	p.errs.addFirst(p.file, pos, fmt.Sprintf(format, args...))
}

// errorHere reports an error at the current token. When the token starts
// a new line, the error is placed at the end of the previous token
// instead: the line that is missing something.
func (p *parser) errorHere(format string, args ...any) {
	pos := p.tok.pos
	if p.tok.lineStart && p.prevEnd.Line > 0 {
		pos = p.prevEnd
	}
	p.errorf(pos, format, args...)
}

// failAtToken reports an error at the current token, wherever it is, and
// abandons the part being parsed: for a token that is wrong rather than
// one that stands where something is missing.
func (p *parser) failAtToken(format string, args ...any) {
	p.errorf(p.tok.pos, format, args...)
	panic(bailout{})
}

// fail reports an error at the current token, as errorHere, and abandons
// the part being parsed.
func (p *parser) fail(format string, args ...any) {
	p.errorHere(format, args...)
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
	p.checkName()
	s := p.tok.text
	p.next()
	return s
}

// checkName reports what is wrong with the current word as a name (see
// token.problem), now that the parser reads it as one.
func (p *parser) checkName() {
	if p.tok.problem != "" {
		p.errorf(p.tok.pos, "%s", p.tok.problem)
	}
}

func (p *parser) str(what string) string {
	if p.tok.kind != tokString {
		p.fail("expected %s (a double-quoted string), found %s", what, p.describe())
	}
	s := p.tok.text
	p.next()
	return s
}

// declKinds are the declarations whose failure the checker must know of,
// by keyword.
var declKinds = map[string]FailedKind{"section": FailedSection, "source": FailedSource, "field": FailedField, "group": FailedGroup,
	"value": FailedValue, "table": FailedValue, "list": FailedList}

var topLevel = map[string]bool{
	"ruleset": true, "section": true, "name": true, "description": true,
	"effective": true, "source": true, "field": true, "value": true, "table": true, "group": true, "outcome": true,
	"list": true,
}

func (p *parser) parseFile() (f *File) {
	f = &File{}
	defer func() {
		f.Failed = p.failed
		if r := recover(); r != nil {
			if _, ok := r.(stop); !ok {
				panic(r)
			}
			f.OverLimit = true
		}
	}()
	for p.tok.kind != tokEOF {
		if !p.guard(syncTop, func() { p.parseTop(f) }) {
			p.failed.add(p.declaring.kind, p.declaring.id)
		}
	}
	f.Trailing = p.takeDoc()
	return f
}

// stopAt reports a per-ruleset limit exceeded at pos and ends the parse.
// The error is added even on a line that has one already: it is the one
// that says why the file was not read to its end.
func (p *parser) stopAt(pos Pos, msg string) {
	p.errs.Add(p.file, pos, msg)
	panic(stop{})
}

// count checks that a file holding n declarations of one kind may hold
// one more: at most max, else the parse stops at pos.
func (p *parser) count(pos Pos, n, max int, what string) {
	if n >= max {
		p.stopAt(pos, overLimit(fmt.Sprintf("this is %s number %d", what, n+1), max, plural(what)+" per ruleset", splitAdvice))
	}
}

// plural is the plural of the kinds count names.
func plural(what string) string {
	if what == "criterion" {
		return "criteria"
	}
	return what + "s"
}

// failAt reports a limit exceeded at pos and abandons the part being
// parsed, as fail; like stopAt, it is reported whatever else the line has.
func (p *parser) failAt(pos Pos, msg string) {
	p.errs.Add(p.file, pos, msg)
	panic(bailout{})
}

// node counts n against MaxExprNodes and returns it.
func (p *parser) node(n *Node) *Node {
	p.nodes++
	if p.nodes > MaxExprNodes {
		p.stopAt(n.Pos, overLimit("the expressions hold more nodes", MaxExprNodes,
			"expression nodes (values, fields, operators and calls) per ruleset", splitAdvice))
	}
	return n
}

// nest enters one more level of expression nesting, abandoning the
// declaration past MaxExprDepth; the caller leaves it with p.depth--.
func (p *parser) nest() {
	p.depth++
	p.deepest = max(p.deepest, p.depth)
	if p.depth > MaxExprDepth {
		p.failAt(p.tok.pos, overLimit("this expression nests too deeply", MaxExprDepth,
			"levels (each parenthesis, call, not and minus is a level, and so is each operator in a chain such as 2 * 2 * a.x)",
			"work the constants out, or split the condition into several criteria"))
	}
}

func (p *parser) parseTop(f *File) {
	doc := p.takeDoc()
	pos := p.tok.pos
	p.declaring = declaring{}
	if p.tok.kind != tokIdent || !topLevel[p.tok.text] {
		p.notDeclaration()
	}
	kw := p.tok.text
	p.next()
	p.declaring.kind = declKinds[kw]
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
		p.count(pos, len(f.Sources), MaxSources, "source")
		f.Sources = append(f.Sources, p.parseSource(pos, doc))
	case "field":
		p.count(pos, len(f.Fields), MaxFields, "field")
		f.Fields = append(f.Fields, p.parseField(pos, doc))
	case "list":
		p.count(pos, len(f.Lists), MaxLists, "list")
		f.Lists = append(f.Lists, p.parseListDecl(pos, doc))
	case "value", "table":
		p.count(pos, len(f.Values), MaxValues, "value")
		if v := p.parseValue(pos, doc, kw == "table"); v != nil {
			f.Values = append(f.Values, v)
		}
	case "group":
		p.count(pos, len(f.Groups), MaxGroups, "group")
		if g := p.parseGroup(pos, doc); g != nil {
			f.Groups = append(f.Groups, g)
		}
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
	p.declaring.id = s.ID
	s.Title = p.str("the source title")
	if !p.is("url") && !p.is("artefact") {
		p.fail("expected url \"<address>\" or artefact \"<locator>\", found %s", p.describe())
	}
	s.LocKind = p.tok.text
	p.next()
	s.Loc = p.str("the " + s.LocKind)
	switch {
	case p.is("license"):
		// Read on as if it were spelt right: the source is otherwise fine.
		p.errorHere("write licence (British spelling)")
	case !p.is("licence"):
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
	p.checkName()
	f.ID = p.tok.text
	p.declaring.id = f.ID
	p.next()
	f.TypePos = p.tok.pos
	f.Type = p.ident("a type (int, decimal, bool, date or enum [...])")
	if f.Type == "enum" {
		p.expect("[", "[ and the list of values after enum")
		for !p.is("]") {
			if len(f.Enum) == MaxEnumValues {
				p.failAt(f.TypePos, overLimit(fmt.Sprintf("enum field %s lists more values", f.ID), MaxEnumValues,
					"values per enum field", "group the values the rules tell apart, or use a field per distinction"))
			}
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
		f.Weight = p.weight()
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
		case "label":
			p.next()
			f.Label = p.str("the field's label")
		case "unit":
			p.next()
			f.UnitPos = apos
			f.Unit = p.str("the unit, e.g. \"months\"")
		case "option":
			p.next()
			o := &OptionDecl{Pos: apos}
			o.Value = p.str("the enum value the option labels")
			o.Label = p.str("the value's label")
			f.Options = append(f.Options, o)
		case "range":
			p.next()
			f.Range = p.fieldRange(apos)
		default:
			p.fail("unknown field attribute %q: use question, description, label, unit, range, option, note or widget", kw)
		}
	}
	return f
}

var fieldAttr = map[string]bool{"question": true, "description": true, "note": true, "widget": true,
	"label": true, "unit": true, "option": true, "range": true}

// parseListDecl reads `list <name> "<title>" up to <max>` after
// its keyword, then its indented attributes.
func (p *parser) parseListDecl(pos Pos, doc []string) *ListDecl {
	l := &ListDecl{Pos: pos, Doc: doc, Weight: 1}
	l.Name = p.ident("the name of one member, e.g. member")
	p.declaring.id = l.Name
	l.Title = p.str("the list's title, e.g. \"People in the household\"")
	p.expect("up", "up to and the most members the rules handle, e.g. up to 16")
	p.expect("to", "to and the most members the rules handle, e.g. up to 16")
	l.MaxPos = p.tok.pos
	if p.tok.kind != tokNumber {
		p.fail("expected the most members the rules handle (a whole number) after up to, found %s", p.describe())
	}
	l.Max = p.tok.text
	p.next()
	for p.tok.kind == tokIdent && (!p.tok.lineStart || listAttr[p.tok.text]) {
		kw, apos := p.tok.text, p.tok.pos
		if kw == "description" && apos.Col == 1 {
			return l
		}
		p.next()
		switch kw {
		case "question":
			l.Question = p.str("the question text")
		case "description":
			l.Description = p.str("the description text")
		case "label":
			l.Label = p.str("the list's label")
		case "noun":
			l.Noun = p.str("the word for one member, e.g. \"person\"")
		case "weight":
			l.Weight = p.weight()
		default:
			p.errorf(apos, "unknown list attribute %q: use question, description, label, noun or weight", kw)
			panic(bailout{})
		}
	}
	return l
}

// weight reads the number after `weight`: how late a question is asked.
func (p *parser) weight() int64 {
	if p.tok.kind != tokNumber {
		p.fail("expected a whole number after weight, found %s", p.describe())
	}
	v, err := value.ParseNumber(p.tok.text)
	if err != nil || v.Scale != 0 || v.Num > 1_000_000 {
		p.fail("weight must be a whole number from 0 to 1000000")
	}
	p.next()
	return v.Num
}

var listAttr = map[string]bool{"question": true, "description": true, "label": true, "noun": true, "weight": true}

// fieldRange reads `<min>..<max>` after `range`, either end left out but
// not both; the checker reads the numbers.
func (p *parser) fieldRange(pos Pos) *RangeDecl {
	r := &RangeDecl{Pos: pos}
	r.Min = p.rangeEnd()
	if !p.is("..") || p.tok.lineStart {
		p.fail("expected <min>..<max> after range (e.g. range 1..20, or range 0.. with no upper end), found %s", p.describe())
	}
	p.next()
	if !p.tok.lineStart {
		r.Max = p.rangeEnd()
	}
	if r.Min == "" && r.Max == "" {
		p.failAt(pos, "range needs at least one end: e.g. range 0.. (at least 0) or range ..20 (at most 20)")
	}
	return r
}

// rangeEnd reads one end of a range, a number with an optional leading
// minus, on the range's line; "" when none is written there.
func (p *parser) rangeEnd() string {
	if p.tok.lineStart {
		return ""
	}
	sign := ""
	if p.is("-") {
		sign = "-"
		p.next()
		if p.tok.kind != tokNumber || p.tok.lineStart {
			p.fail("expected a number after - in the range, found %s", p.describe())
		}
	}
	if p.tok.kind != tokNumber {
		return ""
	}
	text := sign + p.tok.text
	p.next()
	return text
}

// parseGroup reads a group after its keyword. A header that fails is
// skipped up to the body, whose criteria are still read; it returns nil
// only when no body follows.
func (p *parser) parseGroup(pos Pos, doc []string) *GroupDecl {
	g := &GroupDecl{Pos: pos, Doc: doc}
	if !p.try(func() { p.groupHeader(g) }) {
		p.failed.add(FailedGroup, g.ID)
		g.Failed = true
		if !p.skipHeader(syncTop) {
			return nil
		}
	}
	p.groupBody(g)
	return g
}

// groupHeader reads `<id> all|any "<title>" {`.
func (p *parser) groupHeader(g *GroupDecl) {
	g.ID = p.ident("the group id")
	p.declaring.id = g.ID
	if !p.is("all") && !p.is("any") {
		p.fail("expected all or any after the group id, found %s", p.describe())
	}
	g.Kind = p.tok.text
	p.next()
	g.Title = p.str("the group title")
	p.open("group", syncGroup)
}

// groupBody reads the criteria of a group and its closing brace. A
// criterion that fails costs that criterion; anything else that is not
// a criterion is reported and skipped.
func (p *parser) groupBody(g *GroupDecl) {
	for {
		switch {
		case p.is("}"):
			g.Trailing = p.takeDoc()
			p.next()
			return
		case p.tok.kind == tokEOF || p.atDeclaration():
			p.errorAtEnd("group %s is not closed: add } after its last criterion", g.ID)
			g.Trailing = p.takeDoc()
			return
		case p.is("criterion"):
			p.count(p.tok.pos, p.criteria, MaxCriteria, "criterion")
			p.criteria++
			c := p.parseCriterion()
			if c == nil || c.Failed {
				g.Failed = true
			}
			if c != nil {
				g.Criteria = append(g.Criteria, c)
			}
		default:
			p.errorf(p.tok.pos, "expected criterion or }, found %s", p.describe())
			g.Failed = true
			p.skip(syncGroup, 0)
		}
	}
}

// parseCriterion reads a criterion from its keyword. A header that fails
// is skipped up to the body, which is still read; it returns nil only when
// no body follows. A criterion that is returned with part of it failed is
// marked failed.
func (p *parser) parseCriterion() *CriterionDecl {
	c := &CriterionDecl{Pos: p.tok.pos, Doc: p.takeDoc()}
	p.next()
	if !p.try(func() { p.criterionHeader(c) }) {
		c.Failed = true
		if !p.skipHeader(syncGroup) {
			return nil
		}
	}
	p.criterionBody(c)
	return c
}

// criterionHeader reads `<id> "<title>" [discretionary] {`.
func (p *parser) criterionHeader(c *CriterionDecl) {
	c.ID = p.ident("the criterion id")
	c.Title = p.str("the criterion title")
	if p.is("discretionary") {
		c.Discretionary = true
		p.next()
	}
	p.open("criterion", syncCriterion)
}

// criterionBody reads a criterion's condition, cite lines and closing
// brace. A condition or cite line that fails costs that line: the parser
// resumes at the next cite line or the closing brace.
func (p *parser) criterionBody(c *CriterionDecl) {
	// condition is true while the condition may still come: first in the
	// body of a criterion that is not discretionary.
	condition := !c.Discretionary
	for {
		switch {
		case p.is("}"):
			c.Trailing = p.takeDoc()
			p.next()
			return
		case p.tok.kind == tokEOF || p.atDeclaration() || p.atCriterion():
			p.errorAtEnd("%s %s is not closed: add } after its last cite line", c.What(), c.ID)
			c.Trailing = p.takeDoc()
			return
		case p.is("cite"):
			condition = false
			p.citeLine(c)
		case condition:
			condition = false
			c.ExprDoc = p.takeDoc()
			if !p.guard(syncCriterion, func() { c.Expr = p.parseCondition(c) }) {
				c.Expr, c.Failed = nil, true
			}
		default:
			switch {
			case c.Discretionary:
				p.errorf(p.tok.pos, "a discretionary criterion has no expression, only cite lines; found %s", p.describe())
			case c.Expr == nil && len(c.Cites) > 0 && !c.Failed:
				p.errorf(p.tok.pos, "expected cite or } in %s %s, found %s (the %s comes first, before the cite lines)", c.What(), c.ID, p.describe(), c.part())
			default:
				p.errorf(p.tok.pos, "expected cite or } in %s %s, found %s", c.What(), c.ID, p.describe())
			}
			c.Failed = true
			p.skip(syncCriterion, 0)
		}
	}
}

// part names what comes first in the body, for messages: a criterion's
// condition, a value's expression.
func (c *CriterionDecl) part() string {
	if c.kind == "value" {
		return "expression"
	}
	return "condition"
}

// parseCondition reads a criterion's condition (or a value's expression),
// which must end where its cite lines or its closing brace begin.
func (p *parser) parseCondition(c *CriterionDecl) *Node {
	p.inCondition = true
	defer func() { p.inCondition = false }()
	x := p.parseExpr()
	if p.is("cite") || p.is("}") || p.tok.kind == tokEOF || p.atDeclaration() || p.atCriterion() {
		return x
	}
	if p.tok.lineStart {
		if c.kind == "value" {
			p.failAtToken("expected cite or } in value %s, found %s (a value has one expression)", c.ID, p.describe())
		}
		p.failAtToken("expected cite or } in criterion %s, found %s (a criterion has one condition: join conditions with and, or)", c.ID, p.describe())
	}
	p.fail("expected cite or } in %s %s, found %s", c.What(), c.ID, p.describe())
	return nil
}

// citeLine reads a cite line of criterion or value c, counted against
// MaxCitations; a line that fails costs that line and marks c failed.
func (p *parser) citeLine(c *CriterionDecl) {
	p.count(p.tok.pos, p.cites, MaxCitations, "cite line")
	p.cites++
	if !p.guard(syncCriterion, func() { c.Cites = append(c.Cites, p.parseCite()) }) {
		c.Failed = true
	}
}

// parseCite reads a cite line from its keyword.
func (p *parser) parseCite() *CiteDecl {
	cite := &CiteDecl{Pos: p.tok.pos, Doc: p.takeDoc()}
	p.next()
	cite.Source = p.ident("the cited source id")
	cite.Quote = p.str("the exact quote")
	return cite
}

// Expressions, loosest first: or, and, not, comparison/in, + -, *, ??, unary.
