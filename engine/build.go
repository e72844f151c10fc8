package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/engine/value"
)

// This file links and checks a ruleset given as its exported IR members
// (decoded by LoadIR, or assembled by a composition) without any rules
// text: every key is resolved to its slot, every node's sort inferred by
// the checker's rules, and everything evaluation, traces, explanations,
// sentences and the graph rely on is checked, so that no input can make
// them panic or decide wrongly.
//
// It checks what the engine relies on and the integrity of ids and
// references, not the authoring rules of the source language (the
// spelling of ids and slugs, non-empty titles, quotes and licences): those
// belong to the compiler, may change with it, and a stored ruleset that
// passed them when it was written stays valid.

// Build checks and prepares a ruleset assembled from its exported IR
// members, by the loader (LoadIR) or by a composition that concatenates
// sections' IR. It recomputes every Sort, Slot and derived member from the
// keys (field_ref and group_ref keys, an enum constant's value and
// field_context), ignoring any set on input: Expr.Sort and Expr.Slot except
// a constant's Sort, which is content; Expr.Const of an enum constant;
// Criterion.Slots and Criterion.Text; the digest and the program. It then
// checks the members that are content but follow from the rest
// (Criterion.Fields, ReadsDecisionDate) and refuses them when they differ.
// A numeric constant is normalised as ParseNumber would read it. An
// expression nested deeper than its JSON could be (maxExprDepth), a cyclic
// one included, is refused.
//
// Build never modifies r: it works on a deep copy, which it returns, so
// the caller may keep, reuse or change r. Errors name the member at fault
// by its JSON path, e.g. "groups[2].criteria[0].expr.args[1]: ...".
func Build(r *Ruleset) (*Ruleset, error) { return buildCopy(r, true) }

// BuildUnhashed is Build without the content digest, whose RFC 8785
// encoding is most of Build's cost: for throwaway rulesets that are only
// evaluated, never stored, cached or compared by digest (the solver's
// mutants of a ruleset, thousands per analysis). ContentDigest of the
// result is empty.
func BuildUnhashed(r *Ruleset) (*Ruleset, error) { return buildCopy(r, false) }

func buildCopy(r *Ruleset, hash bool) (*Ruleset, error) {
	if r == nil {
		return nil, errors.New("build ruleset: no ruleset")
	}
	out, err := cloneRuleset(r)
	if err == nil {
		err = build(out, hash)
	}
	if err != nil {
		return nil, fmt.Errorf("build ruleset: %w", err)
	}
	return out, nil
}

// build is Build in place, for a ruleset nobody else holds (LoadIR's
// freshly decoded one, or Build's copy); hash says whether to compute the
// content digest.
func build(r *Ruleset, hash bool) error {
	b := &builder{r: r, sources: map[string]bool{}, fields: map[string]int{}, groups: map[string]int{}}
	b.consts = newConstNumbers(r)
	if err := b.run(); err != nil {
		return err
	}
	return r.finish(hash)
}

// builder holds the indexes of one Build.
type builder struct {
	// r is the ruleset being linked, owned by the builder.
	r *Ruleset
	// sources holds the declared source ids.
	sources map[string]bool
	// fields maps a field id to its slot.
	fields map[string]int
	// groups maps a group id to its index in r.Groups.
	groups map[string]int
	// values maps a named value's id to its index in r.Values.
	values map[string]int
	// valueSlots[i] are the field slots value i reads, directly or
	// through other values; set once value i is linked.
	valueSlots [][]int
	// reads marks the slots the current criterion reads.
	reads []bool
	// readsDate is set when some criterion calls decision_date().
	readsDate bool
	// consts remembers which expressions are constant numbers.
	consts constNumbers
}

func (b *builder) run() error {
	r := b.r
	if r.SectionID == "" {
		return errors.New("section_id: empty: every ruleset names its section")
	}
	for i := range r.Sources {
		s := &r.Sources[i]
		if err := unique(fmt.Sprintf("sources[%d].id", i), "source", s.ID, b.sources); err != nil {
			return err
		}
		b.sources[s.ID] = true
	}
	if p := r.Effective; p != nil {
		switch {
		case p.From < 1 || p.From > value.MaxOrdinal:
			return fmt.Errorf("effective.from: the ordinal %d is outside 0001-01-01 to 9999-12-31", p.From)
		case p.Until != 0 && (p.Until < p.From || p.Until > value.MaxOrdinal):
			return fmt.Errorf("effective.until: %d is not a date from effective.from to 9999-12-31", p.Until)
		}
	}
	if len(r.Fields) == 0 {
		return errors.New("fields: a ruleset declares at least one field")
	}
	for i := range r.Fields {
		if err := b.field(fmt.Sprintf("fields[%d]", i), i); err != nil {
			return err
		}
	}
	if err := b.linkValues(); err != nil {
		return err
	}
	if len(r.Groups) == 0 {
		return errors.New("groups: a ruleset declares at least one group")
	}
	for gi := range r.Groups {
		path := fmt.Sprintf("groups[%d]", gi)
		if err := unique(path+".id", "group", r.Groups[gi].ID, b.groups); err != nil {
			return err
		}
		b.groups[r.Groups[gi].ID] = gi
	}
	criteria := map[string]bool{}
	for gi := range r.Groups {
		g := &r.Groups[gi]
		path := fmt.Sprintf("groups[%d]", gi)
		if g.Kind != GroupAll && g.Kind != GroupAny {
			return fmt.Errorf("%s.kind: %q is neither all nor any", path, g.Kind)
		}
		if len(g.Criteria) == 0 {
			return fmt.Errorf("%s.criteria: group %s has no criteria", path, g.ID)
		}
		for ci := range g.Criteria {
			cpath := fmt.Sprintf("%s.criteria[%d]", path, ci)
			if err := unique(cpath+".id", "criterion", g.Criteria[ci].ID, criteria); err != nil {
				return err
			}
			criteria[g.Criteria[ci].ID] = true
			if err := b.criterion(cpath, &g.Criteria[ci]); err != nil {
				return err
			}
		}
	}
	if r.Outcome == nil {
		return errors.New("outcome: missing: the outcome combines the groups")
	}
	if err := b.outcome("outcome", r.Outcome); err != nil {
		return err
	}
	switch {
	case r.ReadsDecisionDate && !b.readsDate:
		return errors.New("reads_decision_date: is true, but no criterion calls decision_date()")
	case !r.ReadsDecisionDate && b.readsDate:
		return errors.New("reads_decision_date: is false, but some criterion calls decision_date()")
	}
	return nil
}

// unique checks that id is not empty and not in seen.
func unique[V any](path, what, id string, seen map[string]V) error {
	if id == "" {
		return fmt.Errorf("%s: empty %s id", path, what)
	}
	if _, dup := seen[id]; dup {
		return fmt.Errorf("%s: %s %s is declared twice", path, what, id)
	}
	return nil
}

func (b *builder) field(path string, slot int) error {
	f := &b.r.Fields[slot]
	if err := unique(path+".field_id", "field", f.ID, b.fields); err != nil {
		return err
	}
	b.fields[f.ID] = slot
	if f.Type < SortInt || f.Type > SortDate {
		return fmt.Errorf("%s.field_type: not a field type (int, decimal, bool, enum or date)", path)
	}
	if f.Type == SortEnum {
		if len(f.EnumValues) == 0 {
			return fmt.Errorf("%s.enum_values: enum field %s lists no values", path, f.ID)
		}
		for i, v := range f.EnumValues {
			if slices.Contains(f.EnumValues[:i], v) {
				return fmt.Errorf("%s.enum_values[%d]: enum field %s lists %s twice", path, i, f.ID, syntax.Quote(v))
			}
		}
	} else if f.EnumValues != nil {
		return fmt.Errorf("%s.enum_values: only an enum field lists values; %s field has null", path, an(f.Type))
	}
	for i, n := range f.Notes {
		if n.Source != "" && !b.sources[n.Source] {
			return fmt.Errorf("%s.notes[%d].source: %s is not a declared source", path, i, n.Source)
		}
	}
	if f.Widget != "" && f.Widget != "free_text" {
		return fmt.Errorf("%s.x_ui_widget: unknown widget %q: the only widget is free_text", path, f.Widget)
	}
	if err := b.listField(path, f); err != nil {
		return err
	}
	if f.Unit != "" && f.Type != SortInt && f.Type != SortDecimal {
		return fmt.Errorf("%s.unit: only an int or decimal field has a unit", path)
	}
	if err := checkRange(path+".range", f); err != nil {
		return err
	}
	for v := range f.ValueLabels {
		if !slices.Contains(f.EnumValues, v) {
			return fmt.Errorf("%s.value_labels: %s is not one of the field's values", path, syntax.Quote(v))
		}
	}
	return nil
}

// citations checks the citations of a criterion or value (kind, id): at
// least one, each of a declared source.
func (b *builder) citations(path, kind, id string, cs []Citation) error {
	if len(cs) == 0 {
		return fmt.Errorf("%s.citations: %s %s cites nothing", path, kind, id)
	}
	for i, ci := range cs {
		if !b.sources[ci.Source] {
			return fmt.Errorf("%s.citations[%d].source: %s is not a declared source", path, i, ci.Source)
		}
	}
	return nil
}

// readSlots turns the reads of the expression just linked into slots and
// checks them against the stored fields list (in declaration order, as
// the checker derives it).
func (b *builder) readSlots(path string, fields []string) ([]int, error) {
	slots := make([]int, 0, len(fields))
	read := make([]string, 0, len(fields))
	for s, ok := range b.reads {
		if ok {
			slots = append(slots, s)
			read = append(read, b.r.Fields[s].ID)
		}
	}
	if !slices.Equal(fields, read) {
		return nil, fmt.Errorf("%s.fields: lists %q, but the expression reads %q (in declaration order)", path, fields, read)
	}
	return slots, nil
}

func (b *builder) criterion(path string, c *Criterion) error {
	if err := b.citations(path, "criterion", c.ID, c.Citations); err != nil {
		return err
	}
	c.Slots, c.Text = nil, ""
	if c.Discretionary {
		if c.Expr != nil {
			return fmt.Errorf("%s.expr: a discretionary criterion has no expression (an official decides it)", path)
		}
		if len(c.Fields) > 0 {
			return fmt.Errorf("%s.fields: a discretionary criterion reads no fields", path)
		}
		return nil
	}
	if c.Expr == nil {
		return fmt.Errorf("%s.expr: missing: criterion %s is not discretionary, so it needs a condition", path, c.ID)
	}
	b.reads = make([]bool, len(b.r.Fields))
	if err := b.expr(path+".expr", c.Expr); err != nil {
		return err
	}
	if c.Expr.Sort != SortBool {
		return fmt.Errorf("%s.expr: the condition of criterion %s is %s, not true/false", path, c.ID, an(c.Expr.Sort))
	}
	slots, err := b.readSlots(path, c.Fields)
	c.Slots = slots
	return err
}

// outcome links the outcome expression: group_refs joined by and, or and
// not, as the checker's outcomeExpr allows.
func (b *builder) outcome(path string, e *Expr) error {
	switch {
	case e == nil:
		return fmt.Errorf("%s: missing", path)
	case e.Kind == ExprGroup:
		i, ok := b.groups[e.Key]
		if !ok {
			return fmt.Errorf("%s: group_ref names %q, which is not a group", path, e.Key)
		}
		*e = Expr{Kind: ExprGroup, Sort: SortBool, Key: e.Key, Slot: i}
		return nil
	case e.Kind == ExprOp && (e.Op == OpAnd || e.Op == OpOr || e.Op == OpNot):
		if err := checkArity(path, e); err != nil {
			return err
		}
		for i, a := range e.Args {
			if err := b.outcome(fmt.Sprintf("%s.args[%d]", path, i), a); err != nil {
				return err
			}
		}
		*e = Expr{Kind: ExprOp, Sort: SortBool, Op: e.Op, Args: e.Args}
		return nil
	}
	return fmt.Errorf("%s: the outcome combines group_refs with and, or and not only", path)
}

// expr links a criterion's expression node and its operands in place and
// sets its Sort, by the checker's rules.
func (b *builder) expr(path string, e *Expr) error {
	if e == nil {
		return fmt.Errorf("%s: missing expression", path)
	}
	switch e.Kind {
	case ExprField:
		i, ok := b.fields[e.Key]
		if !ok {
			return fmt.Errorf("%s: field_ref names %q, which is not a declared field", path, e.Key)
		}
		b.reads[i] = true
		*e = Expr{Kind: ExprField, Sort: b.r.Fields[i].Type, Key: e.Key, Slot: i}
		return nil
	case ExprGroup:
		return fmt.Errorf("%s: a group_ref (%s) may appear only in the outcome", path, e.Key)
	case ExprValue:
		i, ok := b.values[e.Key]
		if !ok || b.valueSlots[i] == nil {
			return fmt.Errorf("%s: value_ref names %q, which is not a declared value", path, e.Key)
		}
		for _, s := range b.valueSlots[i] {
			b.reads[s] = true
		}
		*e = Expr{Kind: ExprValue, Sort: b.r.Values[i].Type, Key: e.Key, Slot: i}
		return nil
	case ExprConst:
		return b.constant(path, e)
	case ExprOp:
		return b.op(path, e)
	}
	return fmt.Errorf("%s: unknown expression kind %d", path, e.Kind)
}

// constant checks a constant's value against its sort and resolves an enum
// constant to its index in its field_context's values.
func (b *builder) constant(path string, e *Expr) error {
	if e.FieldContext != "" {
		if _, ok := b.fields[e.FieldContext]; !ok {
			return fmt.Errorf("%s: field_context names %q, which is not a declared field", path, e.FieldContext)
		}
	}
	out := Expr{Kind: ExprConst, Sort: e.Sort, FieldContext: e.FieldContext}
	v := e.Const
	switch e.Sort {
	case SortInt, SortDecimal:
		v = value.Value{Num: v.Num, Scale: v.Scale, Known: true}.Normal()
		if e.Sort == SortInt && v.Scale != 0 {
			return fmt.Errorf("%s: the int constant %s has a fraction", path, v.NumberString())
		}
		out.Const = v
	case SortBool:
		out.Const = value.BoolValue(v.Num != 0)
	case SortDate:
		if v.Num < 1 || v.Num > value.MaxOrdinal {
			return fmt.Errorf("%s: the date constant's ordinal %d is outside 0001-01-01 to 9999-12-31", path, v.Num)
		}
		out.Const = value.Value{Num: v.Num, Known: true}
	case SortEnum:
		if e.FieldContext == "" {
			return fmt.Errorf("%s: the enum constant %s has no field_context: it must name the enum field it belongs to", path, syntax.Quote(e.Enum))
		}
		f := &b.r.Fields[b.fields[e.FieldContext]]
		if f.Type != SortEnum {
			return fmt.Errorf("%s: the enum constant %s has field_context %s, which is %s field, not an enum", path, syntax.Quote(e.Enum), f.ID, an(f.Type))
		}
		i := slices.Index(f.EnumValues, e.Enum)
		if i < 0 {
			return fmt.Errorf("%s: %s is not a value of %s; its values are %s", path, syntax.Quote(e.Enum), f.ID, quoteList(f.EnumValues))
		}
		out.Enum, out.Const = e.Enum, value.Value{Num: int64(i), Known: true}
	default:
		return fmt.Errorf("%s: a constant's sort is int, decimal, bool, enum or date", path)
	}
	*e = out
	return nil
}

// arity returns how many operands op takes (max < 0: no upper bound), or
// ok false for an operator the engine does not know.
func arity(op Operator) (min, max int, ok bool) {
	switch op {
	case OpAnd, OpOr, OpIn, OpNotIn, OpMin, OpMax:
		return 2, -1, true
	case OpNot, OpNeg, OpPresent, OpAbsent, OpAbs:
		return 1, 1, true
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe, OpAdd, OpSub, OpMul, OpDiv,
		OpYearsBetween, OpMonthsBetween, OpDaysBetween, OpDefault,
		OpAddDays, OpAddMonths, OpAddYears, OpFloor, OpCeil, OpRound:
		return 2, 2, true
	case OpIf:
		return 3, 3, true
	case OpDecisionDate:
		return 0, 0, true
	}
	return 0, 0, false
}

// checkArity refuses an unknown operator or a wrong number of operands.
func checkArity(path string, e *Expr) error {
	min, max, ok := arity(e.Op)
	switch {
	case !ok:
		return fmt.Errorf("%s: unknown operator %q", path, e.Op)
	case max < 0 && len(e.Args) < min:
		return fmt.Errorf("%s: %s takes at least %d operands, not %d", path, e.Op, min, len(e.Args))
	case max >= 0 && len(e.Args) != min:
		return fmt.Errorf("%s: %s takes %d operand(s), not %d", path, e.Op, min, len(e.Args))
	}
	return nil
}

// op links an operator node: operands first, then its sort from theirs.
func (b *builder) op(path string, e *Expr) error {
	if err := checkArity(path, e); err != nil {
		return err
	}
	for i, a := range e.Args {
		if err := b.expr(fmt.Sprintf("%s.args[%d]", path, i), a); err != nil {
			return err
		}
	}
	args := e.Args
	if args == nil {
		args = []*Expr{} // decision_date(), as the checker builds it
	}
	s, err := b.opSort(path, e.Op, args)
	if err != nil {
		return err
	}
	*e = Expr{Kind: ExprOp, Sort: s, Op: e.Op, Args: args}
	return nil
}

// argPath is the path of operand i of the node at path.
func argPath(path string, i int) string { return fmt.Sprintf("%s.args[%d]", path, i) }

// opSort is the sort of op applied to args (already linked), or the error
// the checker would report.
func (b *builder) opSort(path string, op Operator, args []*Expr) (Sort, error) {
	numbers := func() (Sort, error) {
		s := SortInt
		for i, a := range args {
			if !a.Sort.Numeric() {
				return 0, fmt.Errorf("%s: %s needs a number, but this is %s", argPath(path, i), op, an(a.Sort))
			}
			s = numericSort(s, a.Sort)
		}
		return s, nil
	}
	switch op {
	case OpAnd, OpOr, OpNot:
		for i, a := range args {
			if a.Sort != SortBool {
				return 0, fmt.Errorf("%s: %s needs a true/false condition, but this is %s", argPath(path, i), op, an(a.Sort))
			}
		}
		return SortBool, nil
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
		return SortBool, b.comparable(path, op, args[0], args[1])
	case OpIn, OpNotIn:
		for i, y := range args[1:] {
			if y.Kind != ExprConst && !(y.Kind == ExprOp && y.Op == OpNeg && b.consts.is(y)) {
				return 0, fmt.Errorf("%s: the list after %s may hold only constant values", argPath(path, i+1), op)
			}
			if err := b.comparable(argPath(path, i+1), op, args[0], y); err != nil {
				return 0, err
			}
		}
		return SortBool, nil
	case OpAdd, OpSub, OpMul, OpNeg, OpMin, OpMax, OpAbs:
		s, err := numbers()
		if err == nil && op == OpMul && !b.consts.is(args[0]) && !b.consts.is(args[1]) {
			err = fmt.Errorf("%s: * needs a constant number on one side (the language stays linear)", path)
		}
		return s, err
	case OpDiv:
		_, err := numbers()
		if y := args[1]; err == nil && y.Kind == ExprConst && y.Const.Num == 0 {
			err = fmt.Errorf("%s: division by zero", argPath(path, 1))
		}
		return SortDecimal, err
	case OpFloor, OpCeil, OpRound:
		if _, err := numbers(); err != nil {
			return 0, err
		}
		if step := args[1]; step.Kind != ExprConst || step.Const.Num <= 0 {
			return 0, fmt.Errorf("%s: the step of %s is a positive constant", argPath(path, 1), op)
		}
		if args[1].Sort == SortDecimal {
			return SortDecimal, nil
		}
		return SortInt, nil
	case OpIf:
		if args[0].Sort != SortBool {
			return 0, fmt.Errorf("%s: if needs a true/false condition, but this is %s", argPath(path, 0), an(args[0].Sort))
		}
		yes, no := args[1].Sort, args[2].Sort
		switch {
		case yes.Numeric() && no.Numeric():
			return numericSort(yes, no), nil
		case yes == SortEnum || no == SortEnum:
			return 0, fmt.Errorf("%s: the branches of if cannot be enum values", path)
		case yes != no:
			return 0, fmt.Errorf("%s: the branches of if give %s and %s", path, an(yes), an(no))
		}
		return yes, nil
	case OpYearsBetween, OpMonthsBetween, OpDaysBetween:
		for i, a := range args {
			if a.Sort != SortDate {
				return 0, fmt.Errorf("%s: %s needs two dates, but this is %s", argPath(path, i), op, an(a.Sort))
			}
		}
		return SortInt, nil
	case OpAddDays, OpAddMonths, OpAddYears:
		if args[0].Sort != SortDate {
			return 0, fmt.Errorf("%s: %s adds to a date, but this is %s", argPath(path, 0), op, an(args[0].Sort))
		}
		if args[1].Sort != SortInt {
			return 0, fmt.Errorf("%s: %s adds a whole number, but this is %s", argPath(path, 1), op, an(args[1].Sort))
		}
		return SortDate, nil
	case OpDecisionDate:
		b.readsDate = true
		return SortDate, nil
	case OpPresent, OpAbsent:
		if args[0].Kind != ExprField {
			return 0, fmt.Errorf("%s: %s takes a field_ref", argPath(path, 0), op)
		}
		return SortBool, nil
	}
	return b.defaultSort(path, args[0], args[1])
}

// defaultSort is the sort of `f ?? d`, as the checker's defaultExpr allows.
func (b *builder) defaultSort(path string, f, d *Expr) (Sort, error) {
	switch {
	case f.Kind != ExprField:
		return 0, fmt.Errorf("%s: the left side of ?? must be a field_ref", argPath(path, 0))
	case f.Sort == SortEnum:
		if d.Kind != ExprConst || d.Sort != SortEnum || d.FieldContext != f.Key {
			return 0, fmt.Errorf("%s: the default of the enum field %s must be one of its values, with field_context %q", argPath(path, 1), f.Key, f.Key)
		}
		return SortEnum, nil
	case isEnumConst(d):
		return 0, fmt.Errorf("%s: the default of %s must be %s, not an enum value", argPath(path, 1), f.Key, an(f.Sort))
	case f.Sort.Numeric() && d.Sort.Numeric():
		return numericSort(f.Sort, d.Sort), nil
	case f.Sort == d.Sort:
		return f.Sort, nil
	}
	return 0, fmt.Errorf("%s: the default of %s must be %s, but it is %s", argPath(path, 1), f.Key, an(f.Sort), an(d.Sort))
}

func isEnumConst(x *Expr) bool { return x.Kind == ExprConst && x.Sort == SortEnum }

// comparable checks x op y as the checker's comparable does: an enum
// constant only against the enum field it belongs to, and only with ==, !=,
// in and not in; numbers with numbers, dates with dates, bools with bools
// by equality only.
func (b *builder) comparable(path string, op Operator, x, y *Expr) error {
	equality := op == OpEq || op == OpNe || op == OpIn || op == OpNotIn
	if isEnumConst(x) && isEnumConst(y) {
		return fmt.Errorf("%s: comparing two enum values: one side must be an enum field", path)
	}
	if isEnumConst(x) {
		x, y = y, x
	}
	switch {
	case isEnumConst(y):
		fi := fieldOf(x)
		switch {
		case x.Sort != SortEnum:
			return fmt.Errorf("%s: the enum value %s is compared with %s", path, syntax.Quote(y.Enum), an(x.Sort))
		case !equality:
			return fmt.Errorf("%s: enum values compare only with ==, != and in, not %s", path, op)
		case fi < 0:
			return fmt.Errorf("%s: an enum value must be compared with an enum field", path)
		case b.r.Fields[fi].ID != y.FieldContext:
			return fmt.Errorf("%s: the enum value %s belongs to %s (its field_context) but is compared with %s", path, syntax.Quote(y.Enum), y.FieldContext, b.r.Fields[fi].ID)
		}
	case x.Sort.Numeric() && y.Sort.Numeric():
	case x.Sort == SortDate && y.Sort == SortDate:
	case x.Sort == SortBool && y.Sort == SortBool:
		if !equality {
			return fmt.Errorf("%s: true/false values compare only with == and !=, not %s", path, op)
		}
	case x.Sort == SortEnum && y.Sort == SortEnum:
		return fmt.Errorf("%s: two enum values cannot be compared with each other; compare a field with a listed value", path)
	default:
		return fmt.Errorf("%s: cannot compare %s with %s", path, an(x.Sort), an(y.Sort))
	}
	return nil
}

// maxExprDepth bounds how deeply an expression nests. The IR's JSON cannot
// nest deeper (encoding/json and RFC 8785 stop at 10000 levels, two per
// expression level), and the bound keeps a cyclic in-memory expression
// from recursing forever.
const maxExprDepth = 5000

// cloneRuleset copies the exported members of r deeply, keeping nil and
// empty slices apart (they encode as null and [], which the digest tells
// apart). It refuses an expression nested deeper than maxExprDepth.
func cloneRuleset(r *Ruleset) (*Ruleset, error) {
	out := &Ruleset{Slug: r.Slug, SectionID: r.SectionID, Name: r.Name, Description: r.Description,
		Sources: slices.Clone(r.Sources), Fields: slices.Clone(r.Fields), Groups: slices.Clone(r.Groups),
		Values: slices.Clone(r.Values), ReadsDecisionDate: r.ReadsDecisionDate}
	if r.Effective != nil {
		p := *r.Effective
		out.Effective = &p
	}
	var err error
	if out.Outcome, err = cloneExpr(r.Outcome, 0); err != nil {
		return nil, fmt.Errorf("outcome: %w", err)
	}
	for i := range out.Fields {
		f := &out.Fields[i]
		f.EnumValues, f.Notes = slices.Clone(f.EnumValues), slices.Clone(f.Notes)
	}
	for i := range out.Values {
		v := &out.Values[i]
		if v.Expr, err = cloneExpr(v.Expr, 0); err != nil {
			return nil, fmt.Errorf("values[%d].expr: %w", i, err)
		}
		if err := cloneTable(v); err != nil {
			return nil, fmt.Errorf("values[%d]: %w", i, err)
		}
		v.Citations, v.Fields = slices.Clone(v.Citations), slices.Clone(v.Fields)
		v.Slots, v.Text = nil, ""
	}
	for gi := range out.Groups {
		g := &out.Groups[gi]
		g.Criteria = slices.Clone(g.Criteria)
		for ci := range g.Criteria {
			c := &g.Criteria[ci]
			if c.Expr, err = cloneExpr(c.Expr, 0); err != nil {
				return nil, fmt.Errorf("groups[%d].criteria[%d].expr: %w", gi, ci, err)
			}
			c.Citations, c.Fields = slices.Clone(c.Citations), slices.Clone(c.Fields)
			c.Slots, c.Text = nil, ""
		}
	}
	return out, nil
}

// cloneTable deep-copies a table's keys, rows and periods in place.
func cloneTable(v *NamedValue) error {
	var err error
	v.Keys = slices.Clone(v.Keys)
	for k := range v.Keys {
		if v.Keys[k], err = cloneExpr(v.Keys[k], 0); err != nil {
			return fmt.Errorf("keys[%d]: %w", k, err)
		}
	}
	rows := func(rs []TableRow) ([]TableRow, error) {
		rs = slices.Clone(rs)
		for i := range rs {
			rs[i].Match = slices.Clone(rs[i].Match)
			if rs[i].Value, err = cloneExpr(rs[i].Value, 0); err != nil {
				return nil, fmt.Errorf("rows[%d].value: %w", i, err)
			}
		}
		return rs, nil
	}
	if v.Rows, err = rows(v.Rows); err != nil {
		return err
	}
	v.Periods = slices.Clone(v.Periods)
	for i := range v.Periods {
		if v.Periods[i].Rows, err = rows(v.Periods[i].Rows); err != nil {
			return fmt.Errorf("periods[%d].%w", i, err)
		}
	}
	return nil
}

func cloneExpr(e *Expr, depth int) (*Expr, error) {
	if e == nil {
		return nil, nil
	}
	if depth >= maxExprDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxExprDepth)
	}
	c := *e
	if e.Args != nil {
		c.Args = make([]*Expr, len(e.Args))
		for i, a := range e.Args {
			var err error
			if c.Args[i], err = cloneExpr(a, depth+1); err != nil {
				return nil, err
			}
		}
	}
	return &c, nil
}

// checkRange refuses a range the checker would not have compiled: on a
// field that is not a number, with no end, a fraction on an int field, or
// the lower end above the upper.
func checkRange(path string, f *Field) error {
	g := f.Range
	switch {
	case g == nil:
		return nil
	case f.Type != SortInt && f.Type != SortDecimal:
		return fmt.Errorf("%s: only an int or decimal field has a range", path)
	case !g.Min.Known && !g.Max.Known:
		return fmt.Errorf("%s: a range needs at least one end", path)
	case f.Type == SortInt && (g.Min.Known && g.Min.Scale != 0 || g.Max.Known && g.Max.Scale != 0):
		return fmt.Errorf("%s: an int field's range has whole-number ends", path)
	case g.Min.Known && g.Max.Known && value.Compare(g.Min, g.Max) > 0:
		return fmt.Errorf("%s: min %s is above max %s", path, g.Min.NumberString(), g.Max.NumberString())
	}
	return nil
}

// listField checks a list's field and a member's: a list counts members
// as an int up to its bound, and a member's field follows its list, sits
// within the bound, and is named as MemberFieldID names it.
func (b *builder) listField(path string, f *Field) error {
	if l := f.List; l != nil {
		switch {
		case f.Member != nil:
			return fmt.Errorf("%s: a field is a list or a member's field, not both", path)
		case f.Type != SortInt:
			return fmt.Errorf("%s.list: a list's field counts its members and must be int, not %s", path, f.Type)
		case l.Max < 2 || l.Max > syntax.MaxListMembers:
			return fmt.Errorf("%s.list.max: a list holds from 2 to %d members, not %d", path, syntax.MaxListMembers, l.Max)
		case !syntax.ValidIdent(f.ID) || strings.Contains(f.ID, "."):
			return fmt.Errorf("%s.field_id: a list's field is named as the list, %q is not such a name", path, f.ID)
		}
	}
	m := f.Member
	if m == nil {
		return nil
	}
	slot, ok := b.fields[m.List]
	if !ok || b.r.Fields[slot].List == nil {
		return fmt.Errorf("%s.member.list: %s is not a list declared before its members", path, m.List)
	}
	if max := b.r.Fields[slot].List.Max; m.Index < 0 || m.Index >= max {
		return fmt.Errorf("%s.member.index: list %s holds %d members, so %d is not one of them", path, m.List, max, m.Index)
	}
	if want := MemberFieldID(m.List, m.Index, m.Name); f.ID != want {
		return fmt.Errorf("%s.field_id: a member's field is named %s", path, want)
	}
	return nil
}
