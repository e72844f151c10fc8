package engine

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/engine/value"
)

// Compile parses, checks and compiles a .rules file. On success it returns
// the ruleset and any warnings (for example a field no criterion reads). On
// failure err is an ErrorList with every error found, sorted by position,
// each "file:line:col: message". Compile never panics, whatever the input.
func Compile(filename string, src []byte) (r *Ruleset, warnings syntax.ErrorList, err error) {
	f, errs := syntax.Parse(filename, src)
	if f.OverLimit {
		// Checking a text over a limit is the work the limits exist to
		// spare; the parse error names the limit.
		return nil, nil, errs
	}
	if len(errs) > 0 {
		// Check what parsed too, so one run reports type errors alongside
		// syntax errors.
		_, _, cerr := compileFile(filename, f)
		if list, ok := cerr.(syntax.ErrorList); ok {
			errs = append(errs, list.NotOnLinesOf(errs)...)
		}
		errs.Sort()
		return nil, nil, errs
	}
	return compileFile(filename, f)
}

// compileFile checks and compiles a parsed file; see Compile.
func compileFile(filename string, f *syntax.File) (r *Ruleset, warnings syntax.ErrorList, err error) {
	if f.OverLimit {
		return nil, nil, syntax.ErrorList{{File: filename, Pos: syntax.Pos{Line: 1, Col: 1}, Msg: "the file is over a limit on what a ruleset may hold and was not read to its end: parse it again to see which limit"}}
	}
	c := &checker{file: filename, f: f, r: &Ruleset{}, fieldIndex: map[string]int{},
		sourceIndex: map[string]bool{}, groupIndex: map[string]int{}}
	c.consts = newConstNumbers(c.r)
	c.run()
	c.warnings.Sort()
	if len(c.errs) > 0 {
		c.errs.Sort()
		return nil, c.warnings, c.errs
	}
	if err := c.r.finish(true); err != nil {
		// Encoding the compiled form fails only when an expression nests
		// deeper than JSON may (syntax.Parse refuses such text first, so only a
		// File built by hand gets here). The encoder's own words ("json:
		// error calling MarshalJSON ...") mean nothing to an analyst.
		return nil, c.warnings, syntax.ErrorList{{File: filename, Pos: syntax.Pos{Line: 1, Col: 1}, Msg: fmt.Sprintf(
			"the compiled rules cannot be stored: an expression nests too deeply (the limit is %d levels); split it into several criteria", syntax.MaxExprDepth)}}
	}
	return c.r, c.warnings, nil
}

var slugPattern = regexp.MustCompile(`^[a-z][a-z0-9-]*(/[a-z][a-z0-9-]*)*$`)

type checker struct {
	// file is the file name errors carry.
	file string
	// f is the syntax tree being checked.
	f *syntax.File
	// r is the ruleset being built from f.
	r *Ruleset
	// errs are the errors found; any one means no ruleset.
	errs syntax.ErrorList
	// warnings are the problems that do not stop compilation.
	warnings syntax.ErrorList
	// fieldIndex maps a declared field id to its slot.
	fieldIndex map[string]int
	// fieldPos is each slot's declaration position, for messages.
	fieldPos []syntax.Pos
	// fieldUsed marks the slots some criterion reads; the rest warn.
	fieldUsed []bool
	// fieldName is what a warning calls each slot: its id, or a member
	// field's declared id ("member.age") for every member's slot.
	fieldName []string
	// listByElement maps a list's name (the name of one member) to the list.
	listByElement map[string]*listDecl
	// memberFields maps a member field's declared id to it.
	memberFields map[string]*memberField
	// within is the member being checked inside an aggregate; nil outside.
	within *within
	// sourceIndex holds the declared source ids.
	sourceIndex map[string]bool
	// groupIndex maps a declared group id to its index in r.Groups.
	groupIndex map[string]int
	// valueIndex maps a declared value's name to its index in r.Values.
	valueIndex map[string]int
	// valueSlots[i] are the field slots value i reads, directly or
	// through other values; set once value i is checked.
	valueSlots [][]int
	// valueUsed marks the values some criterion or value reads.
	valueUsed []bool
	// valueDecls are the declarations of the values, by index in
	// r.Values: a member's value has one copy per member, all of one
	// declaration.
	valueDecls []*syntax.ValueDecl
	// memberValues are the values declared under a list's element, by
	// their declared name ("member.countable_income").
	memberValues map[string]*memberValue
	// reads collects the field slots the current criterion reads.
	reads map[int]bool
	// consts remembers which expressions are constant numbers.
	consts constNumbers
	// suggested counts the unknown names suggest has been asked about.
	suggested int
}

func (c *checker) errorf(pos syntax.Pos, format string, args ...any) {
	c.errs.Add(c.file, pos, fmt.Sprintf(format, args...))
}

// fileErrorf reports an error about the whole file (something it lacks),
// placed at 1:1 but about no line in particular.
func (c *checker) fileErrorf(format string, args ...any) {
	c.errs.AddWholeFile(c.file, fmt.Sprintf(format, args...))
}

func (c *checker) warnf(pos syntax.Pos, format string, args ...any) {
	c.warnings.Add(c.file, pos, fmt.Sprintf(format, args...))
}

func (c *checker) run() {
	f, r := c.f, c.r
	if f.Section == nil {
		if !f.Failed.Any(syntax.FailedSection) {
			c.fileErrorf("the file has no section line: add `section <id>`, e.g. section fmla_employee")
		}
	} else {
		r.SectionID = f.Section.Value
		if !syntax.ValidIdent(r.SectionID) {
			c.errorf(f.Section.Pos, "section id %q must be lower-case letters, digits and _", r.SectionID)
		}
	}
	if f.Slug != nil {
		r.Slug = f.Slug.Value
		if !slugPattern.MatchString(r.Slug) {
			c.errorf(f.Slug.Pos, "slug %q must look like namespace/name: lower-case letters, digits and -, parts joined by /", r.Slug)
		}
	}
	r.Name = titleCase(r.SectionID)
	if f.Name != nil {
		r.Name = f.Name.Value
	}
	if f.Description != nil {
		r.Description = f.Description.Value
	}
	c.effective()
	c.sources()
	c.declareLists()
	c.fields()
	c.listFields()
	c.values()
	c.groups()
	c.outcome()
	for i, used := range c.fieldUsed {
		if m := r.Fields[i].Member; !used && (m == nil || m.Index == 0) {
			c.warnf(c.fieldPos[i], "field %s is declared but no criterion reads it", c.fieldName[i])
		}
	}
	for i, used := range c.valueUsed {
		vd := c.valueDecls[i]
		if i > 0 && c.valueDecls[i-1] == vd {
			continue // a member's value: its first copy speaks for all
		}
		for j := i + 1; j < len(c.valueDecls) && c.valueDecls[j] == vd; j++ {
			used = used || c.valueUsed[j]
		}
		if !used && !r.Values[i].Output {
			c.warnf(vd.Body.Pos, "value %s is declared but nothing reads it: use it in a criterion, or mark it output", vd.Body.ID)
		}
	}
}

// titleCase turns a section id into a default name: fmla_employee becomes
// "Fmla Employee".
func titleCase(id string) string {
	words := strings.FieldsFunc(id, func(r rune) bool { return r == '_' })
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

// effective checks the effective header: real calendar dates, the last
// day not before the first.
func (c *checker) effective() {
	e := c.f.Effective
	if e == nil {
		return
	}
	from, ok := value.ParseDate(e.From)
	if !ok {
		c.errorf(e.FromPos, "effective %s is not a calendar date: write YYYY-MM-DD, e.g. effective 2025-10-01", e.From)
		return
	}
	p := &Period{From: from}
	if e.Until != "" {
		until, ok := value.ParseDate(e.Until)
		switch {
		case !ok:
			c.errorf(e.UntilPos, "until %s is not a calendar date: write YYYY-MM-DD, e.g. until 2026-09-30", e.Until)
			return
		case until < from:
			c.errorf(e.UntilPos, "the period ends (%s) before it begins (%s)", e.Until, e.From)
			return
		}
		p.Until = until
	}
	c.r.Effective = p
}

func (c *checker) sources() {
	first := map[string]syntax.Pos{}
	for _, s := range c.f.Sources {
		if p, dup := first[s.ID]; dup {
			c.errorf(s.Pos, "source %s is declared twice (first at line %d)", s.ID, p.Line)
			continue
		}
		first[s.ID] = s.Pos
		if strings.TrimSpace(s.Licence) == "" {
			c.errorf(s.Pos, "source %s has an empty licence: name the licence, e.g. \"public-domain\"", s.ID)
		}
		if strings.TrimSpace(s.Loc) == "" {
			c.errorf(s.Pos, "source %s has an empty %s", s.ID, s.LocKind)
		}
		src := Source{ID: s.ID, Title: s.Title, Licence: s.Licence}
		if s.LocKind == "url" {
			src.URL = s.Loc
		} else {
			src.Artefact = s.Loc
		}
		c.sourceIndex[s.ID] = true
		c.r.Sources = append(c.r.Sources, src)
	}
}

var typeNames = map[string]Sort{"int": SortInt, "decimal": SortDecimal, "bool": SortBool, "enum": SortEnum, "date": SortDate}

var notePrefix = map[string]string{"why": "WHY: ", "legal_background": "LEGAL BACKGROUND: "}

func (c *checker) fields() {
	if len(c.f.Fields) == 0 && !c.f.Failed.Any(syntax.FailedField) {
		c.fileErrorf("the ruleset declares no fields: add at least one `field <group>.<name> <type>` line")
	}
	c.memberFields = map[string]*memberField{}
	for _, fd := range c.f.Fields {
		if i, dup := c.fieldIndex[fd.ID]; dup {
			c.errorf(fd.Pos, "field %s is declared twice (first at line %d)", fd.ID, c.fieldPos[i].Line)
			continue
		}
		if m, dup := c.memberFields[fd.ID]; dup {
			c.errorf(fd.Pos, "field %s is declared twice (first at line %d)", fd.ID, m.decl.Pos.Line)
			continue
		}
		sort, ok := typeNames[fd.Type]
		if !ok {
			c.errorf(fd.TypePos, "unknown type %q: use int, decimal, bool, date or enum [...]", fd.Type)
		}
		field := Field{ID: fd.ID, Type: sort, Question: fd.Question, Description: fd.Description,
			Weight: int(fd.Weight), Notes: []Note{}}
		if sort == SortEnum {
			if len(fd.Enum) == 0 {
				c.errorf(fd.TypePos, "enum field %s lists no values", fd.ID)
			}
			seen := map[string]bool{}
			for _, v := range fd.Enum {
				if seen[v] {
					c.errorf(fd.TypePos, "enum field %s lists %q twice", fd.ID, v)
				}
				seen[v] = true
			}
			field.EnumValues = append([]string{}, fd.Enum...)
		}
		for _, n := range fd.Notes {
			if n.Source != "" && !c.sourceIndex[n.Source] && !c.f.Failed.Covers(syntax.FailedSource, n.Source) {
				c.errorf(n.Pos, "note cites unknown source %s: declare it with a source line%s", n.Source, c.suggest(n.Source, c.r.sourceIDs()))
			}
			field.Notes = append(field.Notes, Note{Text: notePrefix[n.Kind] + n.Text, Source: n.Source,
				Metadata: NoteMetadata{Type: n.Kind, Section: c.r.SectionID}})
		}
		if fd.Widget != "" && fd.Widget != "free_text" {
			c.errorf(fd.WidgetPos, "unknown widget %s: the only widget is free_text", fd.Widget)
		}
		field.Widget = fd.Widget
		c.presentation(fd, sort, &field)
		if l, name := c.memberOf(fd.ID); l != nil {
			m := &memberField{list: l, decl: fd, name: name, template: field}
			l.members = append(l.members, m)
			c.memberFields[fd.ID] = m
			continue
		}
		c.addField(fd.ID, fd.Pos, field)
	}
}

// presentation checks and copies how field fd reads to people: its label,
// the unit of a number, and labels of enum values, each value declared and
// labelled once.
func (c *checker) presentation(fd *syntax.FieldDecl, sort Sort, field *Field) {
	field.Label = fd.Label
	if fd.Unit != "" && sort != SortInt && sort != SortDecimal {
		c.errorf(fd.UnitPos, "unit on %s field %s: only an int or decimal answer has a unit", fd.Type, fd.ID)
	}
	field.Unit = fd.Unit
	field.Range = c.fieldRange(fd, sort)
	for _, o := range fd.Options {
		switch {
		case sort != SortEnum:
			c.errorf(o.Pos, "option on %s field %s: only an enum field's values have labels", fd.Type, fd.ID)
			continue
		case !slices.Contains(fd.Enum, o.Value):
			c.errorf(o.Pos, "option %s: field %s has no such value%s", syntax.Quote(o.Value), fd.ID, c.suggest(o.Value, fd.Enum))
			continue
		case field.ValueLabels[o.Value] != "":
			c.errorf(o.Pos, "option %s is labelled twice", syntax.Quote(o.Value))
			continue
		case strings.TrimSpace(o.Label) == "":
			c.errorf(o.Pos, "option %s has an empty label", syntax.Quote(o.Value))
			continue
		}
		if field.ValueLabels == nil {
			field.ValueLabels = map[string]string{}
		}
		field.ValueLabels[o.Value] = o.Label
	}
}

func (c *checker) groups() {
	if len(c.f.Groups) == 0 && !c.f.Failed.Any(syntax.FailedGroup) {
		c.fileErrorf("the ruleset declares no groups: add `group <id> all \"<title>\" { ... }`")
	}
	criterionPos := map[string]syntax.Pos{}
	for _, gd := range c.f.Groups {
		if gd.ID == "" {
			// A group whose header failed before its id: its criteria
			// are checked, but nothing can refer to it.
			for _, cd := range gd.Criteria {
				c.criterion(cd)
			}
			continue
		}
		if i, dup := c.groupIndex[gd.ID]; dup {
			c.errorf(gd.Pos, "group %s is declared twice (first at line %d)", gd.ID, c.f.Groups[i].Pos.Line)
			continue
		}
		g := Group{ID: gd.ID, Kind: GroupKind(gd.Kind), Title: gd.Title, Criteria: []Criterion{}}
		if len(gd.Criteria) == 0 && !gd.Failed {
			c.errorf(gd.Pos, "group %s has no criteria", gd.ID)
		}
		for _, cd := range gd.Criteria {
			if cd.ID == "" {
				// A criterion whose header failed before its id.
				c.criterion(cd)
				continue
			}
			if p, dup := criterionPos[cd.ID]; dup {
				c.errorf(cd.Pos, "criterion %s is declared twice (first at line %d); criterion ids are unique in the whole ruleset", cd.ID, p.Line)
				continue
			}
			criterionPos[cd.ID] = cd.Pos
			g.Criteria = append(g.Criteria, c.criterion(cd))
		}
		c.groupIndex[gd.ID] = len(c.r.Groups)
		c.r.Groups = append(c.r.Groups, g)
	}
}

// cites checks the cite lines of a criterion or value: at least one, each
// of a declared source with a quote.
func (c *checker) cites(cd *syntax.CriterionDecl) []Citation {
	out := []Citation{}
	if len(cd.Cites) == 0 && !cd.Failed {
		c.errorf(cd.Pos, "%s %s cites nothing: add `cite <source id> \"<exact quote>\"`", cd.What(), cd.ID)
	}
	for _, ci := range cd.Cites {
		if !c.sourceIndex[ci.Source] && !c.f.Failed.Covers(syntax.FailedSource, ci.Source) {
			c.errorf(ci.Pos, "%s %s cites unknown source %s: declare it with a source line%s", cd.What(), cd.ID, ci.Source, c.suggest(ci.Source, c.r.sourceIDs()))
		}
		if strings.TrimSpace(ci.Quote) == "" {
			c.errorf(ci.Pos, "%s %s has an empty quote", cd.What(), cd.ID)
		}
		out = append(out, Citation{Source: ci.Source, Quote: ci.Quote})
	}
	return out
}

func (c *checker) criterion(cd *syntax.CriterionDecl) Criterion {
	cr := Criterion{ID: cd.ID, Title: cd.Title, Discretionary: cd.Discretionary, Fields: []string{}, Citations: c.cites(cd)}
	if cd.Discretionary {
		return cr
	}
	if cd.Expr == nil {
		if cd.Failed {
			return cr
		}
		c.errorf(cd.Pos, "criterion %s has no condition: write an expression, or mark it discretionary", cd.ID)
		return cr
	}
	c.reads = map[int]bool{}
	e := c.expr(cd.Expr)
	if e.Sort != SortInvalid && e.Sort != SortBool {
		c.errorf(cd.Expr.Pos, "the condition of criterion %s is %s, not true/false: compare it with something", cd.ID, an(e.Sort))
	}
	cr.Expr = e
	slots := c.slotsRead()
	cr.Slots = slots
	for _, s := range slots {
		cr.Fields = append(cr.Fields, c.r.Fields[s].ID)
		c.fieldUsed[s] = true
	}
	return cr
}

func (c *checker) outcome() {
	r := c.r
	if c.f.Outcome == nil {
		var args []*Expr
		for i, g := range r.Groups {
			args = append(args, &Expr{Kind: ExprGroup, Sort: SortBool, Key: g.ID, Slot: i})
		}
		switch len(args) {
		case 0:
		case 1:
			r.Outcome = args[0]
		default:
			r.Outcome = &Expr{Kind: ExprOp, Sort: SortBool, Op: OpAnd, Args: args}
		}
		return
	}
	used := map[string]bool{}
	e := c.outcomeExpr(c.f.Outcome.Expr, used)
	r.Outcome = e
	for _, g := range c.f.Groups {
		if !used[g.ID] {
			c.warnf(g.Pos, "group %s is not part of the outcome", g.ID)
		}
	}
}

func (c *checker) outcomeExpr(n *syntax.Node, used map[string]bool) *Expr {
	switch n.Kind {
	case syntax.NodeIdent:
		i, ok := c.groupIndex[n.Name]
		if !ok {
			if c.f.Failed.Covers(syntax.FailedGroup, n.Name) {
				return invalid()
			}
			c.errorf(n.Pos, "the outcome names %s, which is not a group%s", n.Name, c.suggest(n.Name, c.r.groupIDs()))
			return invalid()
		}
		used[n.Name] = true
		return &Expr{Kind: ExprGroup, Sort: SortBool, Key: n.Name, Slot: i}
	case syntax.NodeNot:
		return &Expr{Kind: ExprOp, Sort: SortBool, Op: OpNot, Args: []*Expr{c.outcomeExpr(n.Args[0], used)}}
	case syntax.NodeBinary:
		if n.Op == "and" || n.Op == "or" {
			op := Operator(n.Op)
			var args []*Expr
			for _, a := range n.Args {
				x := c.outcomeExpr(a, used)
				switch {
				case x.Kind == ExprOp && x.Op == op && args == nil:
					args = x.Args // as in checker.binary
				case x.Kind == ExprOp && x.Op == op:
					args = append(args, x.Args...)
				default:
					args = append(args, x)
				}
			}
			return &Expr{Kind: ExprOp, Sort: SortBool, Op: op, Args: args}
		}
	}
	c.errorf(n.Pos, "the outcome combines group ids with and, or, not and parentheses only")
	return invalid()
}

// an names a sort with its article, for messages: "an int", "a date".
func an(s Sort) string {
	if s == SortInt || s == SortEnum {
		return "an " + s.String()
	}
	return "a " + s.String()
}

// constNumbers says whether an expression is a number computed from
// constants only, remembering its answer for each operator node. The
// checker asks it of both sides of every product, so without the memo a
// chain such as 2 * 2 * ... * a.x would walk the whole chain again at each
// product: quadratic in the chain's length. A named value defined from
// constants only (a rate, a figure of the law) is a constant too.
type constNumbers struct {
	// memo holds the answer for each operator node and value asked about.
	memo map[*Expr]bool
	// r is the ruleset whose Values a value reference reads.
	r *Ruleset
}

// newConstNumbers answers for the expressions of r.
func newConstNumbers(r *Ruleset) constNumbers {
	return constNumbers{memo: map[*Expr]bool{}, r: r}
}

// is reports whether x is a number computed from constants only.
func (m constNumbers) is(x *Expr) bool {
	switch x.Kind {
	case ExprConst:
		return x.Sort.Numeric()
	case ExprValue:
		if x.Slot < len(m.r.Values) && m.r.Values[x.Slot].Expr != nil {
			return m.is(m.r.Values[x.Slot].Expr)
		}
		return false
	case ExprOp:
		v, ok := m.memo[x]
		if ok {
			return v
		}
		switch x.Op {
		case OpNeg, OpAdd, OpSub, OpMul, OpMin, OpMax, OpDiv, OpFloor, OpCeil, OpRound, OpAbs:
			v = true
			for _, a := range x.Args {
				if !m.is(a) {
					v = false
					break
				}
			}
		}
		m.memo[x] = v
		return v
	}
	return false
}

// fieldRange checks and reads the `range` line of field fd: only on a
// number field, each end a number of the field's type, min not above max.
func (c *checker) fieldRange(fd *syntax.FieldDecl, sort Sort) *Range {
	rd := fd.Range
	if rd == nil {
		return nil
	}
	if sort != SortInt && sort != SortDecimal {
		c.errorf(rd.Pos, "range on %s field %s: only an int or decimal answer has a range", fd.Type, fd.ID)
		return nil
	}
	var g Range
	ok := true
	end := func(text string, v *value.Value) {
		if text == "" {
			return
		}
		n, err := value.ParseNumber(text)
		switch {
		case err != nil:
			c.errorf(rd.Pos, "range of %s: cannot read %s as a number: %v", fd.ID, text, err)
			ok = false
		case sort == SortInt && n.Scale != 0:
			c.errorf(rd.Pos, "range of int field %s: %s is not a whole number", fd.ID, text)
			ok = false
		default:
			*v = n
		}
	}
	end(rd.Min, &g.Min)
	end(rd.Max, &g.Max)
	if !ok {
		return nil
	}
	if g.Min.Known && g.Max.Known && value.Compare(g.Min, g.Max) > 0 {
		c.errorf(rd.Pos, "range of %s: the lower end %s is above the upper end %s", fd.ID, rd.Min, rd.Max)
		return nil
	}
	return &g
}
