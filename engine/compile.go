package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/gowebpki/jcs"
)

// Compile parses, checks and compiles a .rules file. On success it returns
// the ruleset and any warnings (for example a field no criterion reads). On
// failure err is an ErrorList with every error found, sorted by position,
// each "file:line:col: message". Compile never panics, whatever the input.
func Compile(filename string, src []byte) (r *Ruleset, warnings ErrorList, err error) {
	f, errs := Parse(filename, src)
	if len(errs) > 0 {
		// Check what parsed too, so one run reports type errors alongside
		// syntax errors.
		_, _, cerr := CompileFile(filename, f)
		if list, ok := cerr.(ErrorList); ok {
			errs = append(errs, list...)
		}
		errs.sort()
		return nil, nil, errs
	}
	return CompileFile(filename, f)
}

// CompileFile checks and compiles a parsed file; see Compile.
func CompileFile(filename string, f *File) (r *Ruleset, warnings ErrorList, err error) {
	c := &checker{file: filename, f: f, r: &Ruleset{}, fieldIndex: map[string]int{},
		sourceIndex: map[string]bool{}, groupIndex: map[string]int{}}
	c.run()
	c.warnings.sort()
	if len(c.errs) > 0 {
		c.errs.sort()
		return nil, c.warnings, c.errs
	}
	if err := c.r.finish(); err != nil {
		return nil, c.warnings, ErrorList{{File: filename, Pos: Pos{1, 1}, Msg: err.Error()}}
	}
	return c.r, c.warnings, nil
}

var slugPattern = regexp.MustCompile(`^[a-z][a-z0-9-]*(/[a-z][a-z0-9-]*)*$`)

type checker struct {
	// file is the file name errors carry.
	file string
	// f is the syntax tree being checked.
	f *File
	// r is the ruleset being built from f.
	r *Ruleset
	// errs are the errors found; any one means no ruleset.
	errs ErrorList
	// warnings are the problems that do not stop compilation.
	warnings ErrorList
	// fieldIndex maps a declared field id to its slot.
	fieldIndex map[string]int
	// fieldPos is each slot's declaration position, for messages.
	fieldPos []Pos
	// fieldUsed marks the slots some criterion reads; the rest warn.
	fieldUsed []bool
	// sourceIndex holds the declared source ids.
	sourceIndex map[string]bool
	// groupIndex maps a declared group id to its index in r.Groups.
	groupIndex map[string]int
	// reads collects the field slots the current criterion reads.
	reads map[int]bool
}

func (c *checker) errorf(pos Pos, format string, args ...any) {
	c.errs.add(c.file, pos, fmt.Sprintf(format, args...))
}

func (c *checker) warnf(pos Pos, format string, args ...any) {
	c.warnings.add(c.file, pos, fmt.Sprintf(format, args...))
}

func (c *checker) run() {
	f, r := c.f, c.r
	if f.Section == nil {
		if !f.broken["section"] {
			c.errorf(Pos{1, 1}, "the file has no section line: add `section <id>`, e.g. section fmla_employee")
		}
	} else {
		r.SectionID = f.Section.Value
		if !validIdent(r.SectionID) {
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
	c.sources()
	c.fields()
	c.groups()
	c.outcome()
	for i, used := range c.fieldUsed {
		if !used {
			c.warnf(c.fieldPos[i], "field %s is declared but no criterion reads it", r.Fields[i].ID)
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

func (c *checker) sources() {
	first := map[string]Pos{}
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
	if len(c.f.Fields) == 0 && len(c.f.broken) == 0 {
		c.errorf(Pos{1, 1}, "the ruleset declares no fields: add at least one `field <group>.<name> <type>` line")
	}
	for _, fd := range c.f.Fields {
		if i, dup := c.fieldIndex[fd.ID]; dup {
			c.errorf(fd.Pos, "field %s is declared twice (first at line %d)", fd.ID, c.fieldPos[i].Line)
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
			if n.Source != "" && !c.sourceIndex[n.Source] && !c.f.broken[n.Source] {
				c.errorf(n.Pos, "note cites unknown source %s: declare it with a source line", n.Source)
			}
			field.Notes = append(field.Notes, Note{Text: notePrefix[n.Kind] + n.Text, Source: n.Source,
				Metadata: NoteMetadata{Type: n.Kind, Section: c.r.SectionID}})
		}
		if fd.Widget != "" && fd.Widget != "free_text" {
			c.errorf(fd.WidgetPos, "unknown widget %s: the only widget is free_text", fd.Widget)
		}
		field.Widget = fd.Widget
		c.fieldIndex[fd.ID] = len(c.r.Fields)
		c.fieldPos = append(c.fieldPos, fd.Pos)
		c.fieldUsed = append(c.fieldUsed, false)
		c.r.Fields = append(c.r.Fields, field)
	}
}

func (c *checker) groups() {
	if len(c.f.Groups) == 0 && len(c.f.broken) == 0 {
		c.errorf(Pos{1, 1}, "the ruleset declares no groups: add `group <id> all \"<title>\" { ... }`")
	}
	criterionPos := map[string]Pos{}
	for _, gd := range c.f.Groups {
		if i, dup := c.groupIndex[gd.ID]; dup {
			c.errorf(gd.Pos, "group %s is declared twice (first at line %d)", gd.ID, c.f.Groups[i].Pos.Line)
			continue
		}
		g := Group{ID: gd.ID, Kind: GroupKind(gd.Kind), Title: gd.Title, Criteria: []Criterion{}}
		if len(gd.Criteria) == 0 {
			c.errorf(gd.Pos, "group %s has no criteria", gd.ID)
		}
		for _, cd := range gd.Criteria {
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

func (c *checker) criterion(cd *CriterionDecl) Criterion {
	cr := Criterion{ID: cd.ID, Title: cd.Title, Discretionary: cd.Discretionary, Fields: []string{}, Citations: []Citation{}}
	if len(cd.Cites) == 0 {
		c.errorf(cd.Pos, "criterion %s cites nothing: add `cite <source id> \"<exact quote>\"`", cd.ID)
	}
	for _, ci := range cd.Cites {
		if !c.sourceIndex[ci.Source] && !c.f.broken[ci.Source] {
			c.errorf(ci.Pos, "criterion %s cites unknown source %s: declare it with a source line", cd.ID, ci.Source)
		}
		if strings.TrimSpace(ci.Quote) == "" {
			c.errorf(ci.Pos, "criterion %s has an empty quote", cd.ID)
		}
		cr.Citations = append(cr.Citations, Citation{Source: ci.Source, Quote: ci.Quote})
	}
	if cd.Discretionary {
		return cr
	}
	if cd.Expr == nil {
		c.errorf(cd.Pos, "criterion %s has no condition: write an expression, or mark it discretionary", cd.ID)
		return cr
	}
	c.reads = map[int]bool{}
	e := c.expr(cd.Expr)
	if e.Sort != SortInvalid && e.Sort != SortBool {
		c.errorf(cd.Expr.Pos, "the condition of criterion %s is %s, not true/false: compare it with something", cd.ID, an(e.Sort))
	}
	cr.Expr = e
	slots := make([]int, 0, len(c.reads))
	for s := range c.reads {
		slots = append(slots, s)
	}
	sort.Ints(slots)
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

func (c *checker) outcomeExpr(n *Node, used map[string]bool) *Expr {
	switch n.Kind {
	case NodeIdent:
		i, ok := c.groupIndex[n.Name]
		if !ok {
			if c.f.broken[n.Name] {
				return invalid()
			}
			c.errorf(n.Pos, "the outcome names %s, which is not a group", n.Name)
			return invalid()
		}
		used[n.Name] = true
		return &Expr{Kind: ExprGroup, Sort: SortBool, Key: n.Name, Slot: i}
	case NodeNot:
		return &Expr{Kind: ExprOp, Sort: SortBool, Op: OpNot, Args: []*Expr{c.outcomeExpr(n.Args[0], used)}}
	case NodeBinary:
		if n.Op == "and" || n.Op == "or" {
			op := Operator(n.Op)
			var args []*Expr
			for _, a := range n.Args {
				x := c.outcomeExpr(a, used)
				if x.Kind == ExprOp && x.Op == op {
					args = append(args, x.Args...)
				} else {
					args = append(args, x)
				}
			}
			return &Expr{Kind: ExprOp, Sort: SortBool, Op: op, Args: args}
		}
	}
	c.errorf(n.Pos, "the outcome combines group ids with and, or, not and parentheses only")
	return invalid()
}

func invalid() *Expr { return &Expr{Kind: ExprConst, Sort: SortInvalid} }

// unresolvedEnum marks a string literal not yet matched to an enum field.
const unresolvedEnum = -1

func (c *checker) expr(n *Node) *Expr {
	switch n.Kind {
	case NodeField:
		i, ok := c.fieldIndex[n.Name]
		if !ok {
			if c.f.broken[n.Name] {
				return invalid()
			}
			c.errorf(n.Pos, "unknown field %s: declare it with a field line%s", n.Name, c.suggest(n.Name))
			return invalid()
		}
		c.reads[i] = true
		return &Expr{Kind: ExprField, Sort: c.r.Fields[i].Type, Key: n.Name, Slot: i}
	case NodeIdent:
		if _, isGroup := c.groupIndex[n.Name]; isGroup {
			c.errorf(n.Pos, "%s is a group; groups are combined in the outcome line, not in criteria", n.Name)
		} else {
			c.errorf(n.Pos, "%s is not a field: fields are written <group>.<name>", n.Name)
		}
		return invalid()
	case NodeNumber:
		s := SortInt
		if n.Num.Scale > 0 {
			s = SortDecimal
		}
		return &Expr{Kind: ExprConst, Sort: s, Const: n.Num}
	case NodeBool:
		return &Expr{Kind: ExprConst, Sort: SortBool, Const: n.Num}
	case NodeString:
		return &Expr{Kind: ExprConst, Sort: SortEnum, Enum: n.Str, Const: Value{Num: unresolvedEnum, Known: true}}
	case NodeNot:
		x := c.expr(n.Args[0])
		c.wantBool(n.Args[0], x, "not")
		return &Expr{Kind: ExprOp, Sort: boolUnless(x), Op: OpNot, Args: []*Expr{x}}
	case NodeNeg:
		x := c.expr(n.Args[0])
		if !c.wantNumber(n.Args[0], x, "unary -") {
			return invalid()
		}
		return &Expr{Kind: ExprOp, Sort: x.Sort, Op: OpNeg, Args: []*Expr{x}}
	case NodeBinary:
		return c.binary(n)
	case NodeIn:
		return c.in(n)
	case NodeCall:
		return c.call(n)
	}
	return invalid()
}

func boolUnless(xs ...*Expr) Sort {
	for _, x := range xs {
		if x.Sort == SortInvalid {
			return SortInvalid
		}
	}
	return SortBool
}

func (c *checker) stray(n *Node, x *Expr) bool {
	if x.Kind == ExprConst && x.Sort == SortEnum && x.Const.Num == unresolvedEnum {
		c.errorf(n.Pos, "the string %s can only be compared with an enum field (==, != or in)", quote(x.Enum))
		x.Sort = SortInvalid
		return true
	}
	return false
}

func (c *checker) wantBool(n *Node, x *Expr, what string) bool {
	if c.stray(n, x) || x.Sort == SortInvalid {
		return false
	}
	if x.Sort != SortBool {
		c.errorf(n.Pos, "%s needs a true/false condition, but this is %s", what, an(x.Sort))
		x.Sort = SortInvalid
		return false
	}
	return true
}

func (c *checker) wantNumber(n *Node, x *Expr, what string) bool {
	if c.stray(n, x) || x.Sort == SortInvalid {
		return false
	}
	if !x.Sort.Numeric() {
		hint := ""
		if x.Sort == SortDate {
			hint = "; use years_between, months_between or days_between for date arithmetic"
		}
		c.errorf(n.Pos, "%s needs a number, but this is %s%s", what, an(x.Sort), hint)
		return false
	}
	return true
}

func numericSort(a, b Sort) Sort {
	if a == SortDecimal || b == SortDecimal {
		return SortDecimal
	}
	return SortInt
}

func (c *checker) binary(n *Node) *Expr {
	op := Operator(n.Op)
	switch op {
	case OpAnd, OpOr:
		var args []*Expr
		ok := true
		for _, a := range n.Args {
			x := c.expr(a)
			ok = c.wantBool(a, x, string(op)) && ok
			if x.Kind == ExprOp && x.Op == op {
				args = append(args, x.Args...)
			} else {
				args = append(args, x)
			}
		}
		s := SortBool
		if !ok {
			s = SortInvalid
		}
		return &Expr{Kind: ExprOp, Sort: s, Op: op, Args: args}
	case OpDefault:
		return c.defaultExpr(n)
	}
	x, y := c.expr(n.Args[0]), c.expr(n.Args[1])
	switch op {
	case OpAdd, OpSub, OpMul:
		okx := c.wantNumber(n.Args[0], x, string(op))
		oky := c.wantNumber(n.Args[1], y, string(op))
		if !okx || !oky {
			return invalid()
		}
		if op == OpMul && !isConstNumber(x) && !isConstNumber(y) {
			c.errorf(n.Pos, "* needs a constant number on one side (the language stays linear)")
			return invalid()
		}
		return &Expr{Kind: ExprOp, Sort: numericSort(x.Sort, y.Sort), Op: op, Args: []*Expr{x, y}}
	}
	// Comparisons.
	if x.Sort == SortInvalid || y.Sort == SortInvalid {
		return invalid()
	}
	if !c.comparable(n, op, x, y) {
		return invalid()
	}
	return &Expr{Kind: ExprOp, Sort: SortBool, Op: op, Args: []*Expr{x, y}}
}

// fieldOf returns the field a value reads directly (a field_ref, or the
// field of `f ?? d`), or -1.
func fieldOf(x *Expr) int {
	switch {
	case x.Kind == ExprField:
		return x.Slot
	case x.Kind == ExprOp && x.Op == OpDefault:
		return x.Args[0].Slot
	}
	return -1
}

// comparable checks that x op y is allowed and resolves enum strings and
// the field_context of constants.
func (c *checker) comparable(n *Node, op Operator, x, y *Expr) bool {
	equality := op == OpEq || op == OpNe || op == OpIn || op == OpNotIn
	if c.isString(x) && c.isString(y) {
		c.errorf(n.Pos, "comparing two strings: one side must be an enum field")
		return false
	}
	if c.isString(x) {
		x, y = y, x
	}
	switch {
	case c.isString(y):
		if x.Sort != SortEnum {
			c.errorf(n.Pos, "the string %s is compared with %s; strings compare only with enum fields", quote(y.Enum), an(x.Sort))
			return false
		}
		if !equality {
			c.errorf(n.Pos, "enum values compare only with ==, != and in, not %s", op)
			return false
		}
		fi := fieldOf(x)
		if fi < 0 {
			c.errorf(n.Pos, "an enum value must be compared with an enum field")
			return false
		}
		return c.resolveEnum(n, fi, y)
	case x.Sort.Numeric() && y.Sort.Numeric():
	case x.Sort == y.Sort && x.Sort == SortDate:
	case x.Sort == y.Sort && x.Sort == SortBool:
		if !equality {
			c.errorf(n.Pos, "true/false values compare only with == and !=")
			return false
		}
	case x.Sort == SortEnum && y.Sort == SortEnum:
		c.errorf(n.Pos, "two enum values cannot be compared with each other; compare a field with a listed value")
		return false
	default:
		hint := ""
		if x.Sort == SortDate || y.Sort == SortDate {
			hint = "; write a date as date(\"YYYY-MM-DD\") and compare it with another date"
		}
		c.errorf(n.Pos, "cannot compare %s with %s%s", an(x.Sort), an(y.Sort), hint)
		return false
	}
	c.setContext(x, y)
	c.setContext(y, x)
	return true
}

func (c *checker) isString(x *Expr) bool {
	return x.Kind == ExprConst && x.Sort == SortEnum && x.Const.Num == unresolvedEnum
}

func (c *checker) resolveEnum(n *Node, fi int, s *Expr) bool {
	f := &c.r.Fields[fi]
	for i, v := range f.EnumValues {
		if v == s.Enum {
			s.Const = Value{Num: int64(i), Known: true}
			s.FieldContext = f.ID
			return true
		}
	}
	c.errorf(n.Pos, "%s is not a value of %s; its values are %s", quote(s.Enum), f.ID, quoteList(f.EnumValues))
	return false
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = quote(v)
	}
	return strings.Join(q, ", ")
}

// setContext records on constant k the field it is compared with, and
// widens an integral constant compared with a decimal field to decimal.
func (c *checker) setContext(k, other *Expr) {
	if k.Kind != ExprConst {
		return
	}
	fi := fieldOf(other)
	if fi < 0 {
		return
	}
	k.FieldContext = c.r.Fields[fi].ID
	if k.Sort == SortInt && c.r.Fields[fi].Type == SortDecimal {
		k.Sort = SortDecimal
	}
}

func (c *checker) defaultExpr(n *Node) *Expr {
	if n.Args[0].Kind != NodeField {
		c.errorf(n.Pos, "the left side of ?? must be a field: `f ?? default`")
		c.expr(n.Args[1])
		return invalid()
	}
	f := c.expr(n.Args[0])
	d := c.expr(n.Args[1])
	if f.Sort == SortInvalid || d.Sort == SortInvalid {
		return invalid()
	}
	switch {
	case c.isString(d):
		if f.Sort != SortEnum || !c.resolveEnum(n, f.Slot, d) {
			if f.Sort != SortEnum {
				c.errorf(n.Pos, "the default of %s must be %s, not a string", f.Key, an(f.Sort))
			}
			return invalid()
		}
		return &Expr{Kind: ExprOp, Sort: SortEnum, Op: OpDefault, Args: []*Expr{f, d}}
	case f.Sort.Numeric() && d.Sort.Numeric():
		c.setContext(d, f)
		return &Expr{Kind: ExprOp, Sort: numericSort(f.Sort, d.Sort), Op: OpDefault, Args: []*Expr{f, d}}
	case f.Sort == d.Sort && f.Sort != SortEnum:
		c.setContext(d, f)
		return &Expr{Kind: ExprOp, Sort: f.Sort, Op: OpDefault, Args: []*Expr{f, d}}
	}
	c.errorf(n.Pos, "the default of %s must be %s, but it is %s", f.Key, an(f.Sort), an(d.Sort))
	return invalid()
}

func (c *checker) in(n *Node) *Expr {
	x := c.expr(n.Args[0])
	out := &Expr{Kind: ExprOp, Sort: SortBool, Op: Operator(n.Op), Args: []*Expr{x}}
	ok := x.Sort != SortInvalid && !c.stray(n.Args[0], x)
	for _, item := range n.Args[1:] {
		y := c.expr(item)
		if y.Kind != ExprConst && !(y.Kind == ExprOp && y.Op == OpNeg && isConstNumber(y)) {
			c.errorf(item.Pos, "the list after in may hold only constant values")
			ok = false
			continue
		}
		if ok && y.Sort != SortInvalid && !c.comparable(item, out.Op, x, y) {
			ok = false
		}
		out.Args = append(out.Args, y)
	}
	if !ok {
		out.Sort = SortInvalid
	}
	return out
}

var callArity = map[string]int{
	"years_between": 2, "months_between": 2, "days_between": 2,
	"decision_date": 0, "present": 1, "absent": 1, "date": 1,
}

func (c *checker) call(n *Node) *Expr {
	name := n.Name
	if want, ok := callArity[name]; ok && len(n.Args) != want {
		c.errorf(n.Pos, "%s takes %d argument(s), not %d", name, want, len(n.Args))
		return invalid()
	}
	switch name {
	case "date":
		a := n.Args[0]
		if a.Kind != NodeString {
			c.errorf(n.Pos, "date takes a string: date(\"YYYY-MM-DD\")")
			return invalid()
		}
		ord, ok := ParseDate(a.Str)
		if !ok {
			c.errorf(a.Pos, "%s is not a valid date: write date(\"YYYY-MM-DD\") with a real calendar date", quote(a.Str))
			return invalid()
		}
		return &Expr{Kind: ExprConst, Sort: SortDate, Const: Value{Num: ord, Known: true}}
	case "decision_date":
		c.r.ReadsDecisionDate = true
		return &Expr{Kind: ExprOp, Sort: SortDate, Op: OpDecisionDate, Args: []*Expr{}}
	case "present", "absent":
		if n.Args[0].Kind != NodeField {
			c.errorf(n.Pos, "%s takes a field: %s(<group>.<name>)", name, name)
			return invalid()
		}
		f := c.expr(n.Args[0])
		return &Expr{Kind: ExprOp, Sort: boolUnless(f), Op: Operator(name), Args: []*Expr{f}}
	case "years_between", "months_between", "days_between":
		args := make([]*Expr, 2)
		ok := true
		for i, a := range n.Args {
			args[i] = c.expr(a)
			if c.stray(a, args[i]) || args[i].Sort == SortInvalid {
				ok = false
			} else if args[i].Sort != SortDate {
				c.errorf(a.Pos, "%s needs two dates, but this is %s", name, an(args[i].Sort))
				ok = false
			}
		}
		if !ok {
			return invalid()
		}
		return &Expr{Kind: ExprOp, Sort: SortInt, Op: Operator(name), Args: args}
	case "min", "max":
		if len(n.Args) < 2 {
			c.errorf(n.Pos, "%s takes two or more numbers", name)
			return invalid()
		}
		out := &Expr{Kind: ExprOp, Sort: SortInt, Op: Operator(name)}
		ok := true
		for _, a := range n.Args {
			x := c.expr(a)
			if !c.wantNumber(a, x, name) {
				ok = false
				continue
			}
			out.Sort = numericSort(out.Sort, x.Sort)
			out.Args = append(out.Args, x)
		}
		if !ok {
			return invalid()
		}
		return out
	}
	for _, a := range n.Args {
		c.expr(a)
	}
	c.errorf(n.Pos, "unknown function %s: the functions are min, max, years_between, months_between, days_between, decision_date, present, absent and date", name)
	return invalid()
}

// suggest proposes a declared field close to an unknown name.
func (c *checker) suggest(name string) string {
	best, bestD := "", 4
	for _, f := range c.r.Fields {
		if d := editDistance(name, f.ID); d < bestD {
			best, bestD = f.ID, d
		}
	}
	if best == "" {
		return ""
	}
	return " (did you mean " + best + "?)"
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// finish derives each criterion's Text, computes the content digest and
// prepares the evaluation program: the last step of Compile and of Build,
// so both paths derive these the same way.
func (r *Ruleset) finish() error {
	for gi := range r.Groups {
		for ci := range r.Groups[gi].Criteria {
			if c := &r.Groups[gi].Criteria[ci]; c.Expr != nil {
				c.Text = exprText(c.Expr)
			}
		}
	}
	canon, err := r.canonicalJSON()
	if err != nil {
		return err
	}
	r.digest = digestOf(canon)
	for gi := range r.Groups {
		for ci := range r.Groups[gi].Criteria {
			r.criteria = append(r.criteria, criterionRef{group: gi, index: ci})
			r.refs = append(r.refs, r.references(&r.Groups[gi].Criteria[ci]))
		}
	}
	r.index = make(map[string]int, len(r.Fields))
	for i, f := range r.Fields {
		r.index[f.ID] = i
	}
	r.prog = buildProgram(r)
	return nil
}

// canonicalJSON returns the RFC 8785 form of the ruleset's JSON, the bytes
// ContentDigest hashes.
func (r *Ruleset) canonicalJSON() ([]byte, error) {
	js, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode compiled ruleset: %w", err)
	}
	canon, err := jcs.Transform(js)
	if err != nil {
		return nil, fmt.Errorf("canonicalise compiled ruleset: %w", err)
	}
	return canon, nil
}

// digestOf is the content digest of canonical JSON: "sha256:" + hex.
func digestOf(canon []byte) string {
	sum := sha256.Sum256(canon)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// an names a sort with its article, for messages: "an int", "a date".
func an(s Sort) string {
	if s == SortInt || s == SortEnum {
		return "an " + s.String()
	}
	return "a " + s.String()
}

// isConstNumber reports whether x is a number computed from constants only.
func isConstNumber(x *Expr) bool {
	switch x.Kind {
	case ExprConst:
		return x.Sort.Numeric()
	case ExprOp:
		switch x.Op {
		case OpNeg, OpAdd, OpSub, OpMul, OpMin, OpMax:
			for _, a := range x.Args {
				if !isConstNumber(a) {
					return false
				}
			}
			return true
		}
	}
	return false
}
