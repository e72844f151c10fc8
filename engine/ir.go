package engine

import (
	"encoding/json"
	"strconv"

	"github.com/eligo/eligo/engine/value"
)

// This file holds the compiled intermediate representation (IR): the typed,
// resolved form of a ruleset that evaluation, the solver, the graph and the
// digest all read. The types are plain exported structs so that other
// packages can walk them without going through the evaluator. Their JSON
// form is display.expr (docs/api.md#expressions-displayexpr) and is what ContentDigest hashes, so any
// change to a JSON tag here changes every published digest.

// Sort is the static type of a field, a constant or an expression. Its
// string form is the field_type / const sort spelling of docs/api.md#schema-fields.
type Sort uint8

// The sorts of the language. SortInvalid marks an expression the checker
// rejected; it never appears in a compiled Ruleset.
const (
	SortInvalid Sort = iota
	SortInt
	SortDecimal
	SortBool
	SortEnum
	SortDate
)

var sortNames = [...]string{"invalid", "int", "decimal", "bool", "enum", "date"}

// String returns the wire spelling: int, decimal, bool, enum or date.
func (s Sort) String() string {
	if int(s) < len(sortNames) {
		return sortNames[s]
	}
	return "invalid"
}

// Numeric reports whether values of the sort take part in arithmetic
// (int and decimal mix freely).
func (s Sort) Numeric() bool { return s == SortInt || s == SortDecimal }

// ExprKind tells which of the three display.expr node shapes (plus the
// outcome's group reference) an Expr is.
type ExprKind uint8

// Expression node kinds.
const (
	// ExprOp is an operator or call applied to Args.
	ExprOp ExprKind = iota + 1
	// ExprField reads the field named Key, held in input slot Slot.
	ExprField
	// ExprConst is the literal Const of sort Sort.
	ExprConst
	// ExprGroup reads the status of group Key (index Slot); it appears only
	// in Ruleset.Outcome.
	ExprGroup
	// ExprValue reads the named value Key (index Slot in Ruleset.Values).
	ExprValue
)

// Operator names an operation of an ExprOp node. The string is what
// display.expr shows as "operator".
type Operator string

// The operators of the language. In and NotIn take the tested value first
// and the listed constants after it. Neg is unary minus. Default is `??`:
// Args[0] is the field, Args[1] the default. AddDays, AddMonths and
// AddYears take the date first and the int count after it (negative
// counts back); month ends are clamped (see AddMonths).
const (
	OpAnd           Operator = "and"
	OpOr            Operator = "or"
	OpNot           Operator = "not"
	OpEq            Operator = "=="
	OpNe            Operator = "!="
	OpLt            Operator = "<"
	OpLe            Operator = "<="
	OpGt            Operator = ">"
	OpGe            Operator = ">="
	OpIn            Operator = "in"
	OpNotIn         Operator = "not in"
	OpAdd           Operator = "+"
	OpSub           Operator = "-"
	OpMul           Operator = "*"
	OpNeg           Operator = "neg"
	OpMin           Operator = "min"
	OpMax           Operator = "max"
	OpYearsBetween  Operator = "years_between"
	OpMonthsBetween Operator = "months_between"
	OpDaysBetween   Operator = "days_between"
	OpAddDays       Operator = "add_days"
	OpAddMonths     Operator = "add_months"
	OpAddYears      Operator = "add_years"
	OpDecisionDate  Operator = "decision_date"
	OpPresent       Operator = "present"
	OpAbsent        Operator = "absent"
	OpDefault       Operator = "??"
	// OpIf is `if Args[0] then Args[1] else Args[2]`.
	OpIf Operator = "if"
	// OpDiv is Args[0] / Args[1], exact to value.QuotientPlaces decimal places.
	OpDiv Operator = "/"
	// OpFloor, OpCeil and OpRound round Args[0] to a whole multiple of
	// Args[1], a positive constant step (1 when the text gives none):
	// down, up, or to the nearest with half going up (see Rounding).
	OpFloor Operator = "floor"
	OpCeil  Operator = "ceil"
	OpRound Operator = "round"
	// OpAbs is |Args[0]|.
	OpAbs Operator = "abs"
)

// Expr is one node of a compiled expression. Which members are meaningful
// depends on Kind:
//
//   - ExprOp: Op and Args.
//   - ExprField: Key (the field id) and Slot (its index in Ruleset.Fields and
//     in the evaluator's input slots).
//   - ExprConst: Const, and FieldContext when the constant is compared with
//     or defaults a field (empty otherwise; JSON null). For an enum
//     constant Enum is the listed value (Const.Num is its index).
//   - ExprGroup: Key (the group id) and Slot (its index in Ruleset.Groups).
//   - ExprValue: Key (the value's name) and Slot (its index in
//     Ruleset.Values).
//
// Sort is the node's static type in every case. MarshalJSON writes the
// display.expr shape (see json.go).
type Expr struct {
	// Kind is the node's shape; it says which members below are set.
	Kind ExprKind
	// Sort is the node's static type, in every shape.
	Sort Sort
	// Op is the operation of an ExprOp node.
	Op Operator
	// Args are the operands of an ExprOp node, in operator order (see the
	// Operator constants for In, NotIn and Default).
	Args []*Expr
	// Key is the field id of ExprField or the group id of ExprGroup.
	Key string
	// Slot is the index of Key in Ruleset.Fields (ExprField),
	// Ruleset.Groups (ExprGroup) or Ruleset.Values (ExprValue).
	Slot int
	// Const is the value of an ExprConst node.
	Const value.Value
	// Enum is the listed string of an enum ExprConst; Const.Num is its
	// index in the field's EnumValues.
	Enum string
	// FieldContext is the field id an ExprConst is compared with or
	// defaults; empty otherwise.
	FieldContext string
}

// Ruleset is a compiled ruleset: everything evaluation needs, resolved and
// type-checked, plus the descriptive text the API publishes. Make one with
// Compile from source, with LoadIR from stored IR, or with Build from IR
// members; it is immutable afterwards and safe for concurrent use.
type Ruleset struct {
	// Slug is the `ruleset "<slug>"` header, or empty when the file has none.
	Slug string `json:"slug"`
	// SectionID is the required `section <id>` header.
	SectionID string `json:"section_id"`
	// Name is the `name` header; when absent, the section id title-cased
	// ("fmla_employee" becomes "Fmla Employee").
	Name string `json:"name"`
	// Description is the `description` header, or empty.
	Description string `json:"description"`
	// Sources are the declared sources in declaration order.
	Sources []Source `json:"sources"`
	// Fields are the declared fields in declaration order; Fields[i] is
	// input slot i.
	Fields []Field `json:"fields"`
	// Values are the declared named values in declaration order. Left
	// out of the JSON when there are none, so rulesets written before
	// values existed keep their digest.
	Values []NamedValue `json:"values,omitempty"`
	// Groups are the declared groups in declaration order.
	Groups []Group `json:"groups"`
	// Outcome combines groups (ExprGroup leaves) with and, or and not. When
	// the file has no outcome line it is every group joined with "and".
	Outcome *Expr `json:"outcome"`
	// ReadsDecisionDate is true when some criterion calls decision_date();
	// decisions of such a ruleset depend on the date and are cached per date.
	ReadsDecisionDate bool `json:"reads_decision_date"`
	// Effective is the period the ruleset holds for (the `effective`
	// header); nil when it holds for every date. A decision dated outside
	// it is undetermined (Result.OutsidePeriod), so decisions of a ruleset
	// with a period depend on the date too. Left out of the JSON when nil,
	// so rulesets without a period keep the digest they always had.
	Effective *Period `json:"effective,omitempty"`

	// digest is ContentDigest's "sha256:<hex>", set by finish.
	digest string
	// prog is the evaluation program built from the groups and outcome.
	prog program
	// criteria locates the i-th criterion (group then declaration order).
	criteria []criterionRef
	// groupStart[g] is the CriterionAt index of group g's first criterion:
	// the inverse of criteria, so the flat index is counted in one place.
	groupStart []int
	// refs[i] are the source references of the i-th criterion, shared
	// read-only by every explanation.
	refs [][]SourceReference
	// criterionValues[i] are the named values the i-th criterion reads,
	// directly or through others, in declaration order.
	criterionValues [][]int
	// valueRefs[v] are the source references of named value v.
	valueRefs [][]SourceReference
	// index maps a field id to its slot, for FieldIndex.
	index map[string]int
	// memberSlots maps a member's answer (list, index, name) to its
	// slot, so that reading a household names no field id per answer.
	memberSlots map[memberKey]int
	// readSlots[s] is whether some criterion reads field slot s, so that
	// reading answers finds the unused ones without walking the criteria.
	readSlots []bool
	// valueReadsList[v] is whether named value v reads a list's length,
	// directly or through other values (bounds.go).
	valueReadsList []bool
}

// Period is the span of dates a ruleset holds for, both ends inclusive, as
// proleptic Gregorian ordinals (see DateOrdinal). Its JSON form is
// {"from":"YYYY-MM-DD","until":"YYYY-MM-DD"}, until left out when the
// period is open-ended.
type Period struct {
	// From is the first day the ruleset holds.
	From int64
	// Until is the last day it holds; 0 when the period is open-ended.
	Until int64
}

// Covers reports whether the ordinal date d falls in the period.
func (p Period) Covers(d int64) bool { return d >= p.From && (p.Until == 0 || d <= p.Until) }

// String writes the period as the header does: "2025-10-01 until
// 2026-09-30", or "2025-10-01 onwards" when it is open-ended.
func (p Period) String() string {
	if p.Until == 0 {
		return value.FormatDate(p.From) + " onwards"
	}
	return value.FormatDate(p.From) + " until " + value.FormatDate(p.Until)
}

// MarshalJSON writes {"from":"YYYY-MM-DD","until":"YYYY-MM-DD"}, without
// until when the period is open-ended.
func (p Period) MarshalJSON() ([]byte, error) {
	b := append([]byte(`{"from":"`), value.FormatDate(p.From)...)
	if p.Until != 0 {
		b = append(b, `","until":"`...)
		b = append(b, value.FormatDate(p.Until)...)
	}
	return append(b, `"}`...), nil
}

// Source is a declared source a criterion or note can cite.
type Source struct {
	// ID is the source id that citations and notes refer to.
	ID string `json:"id"`
	// Title is the source's human-readable title.
	Title string `json:"title"`
	// URL is the address of the cited text; empty when Artefact is set.
	URL string `json:"url,omitempty"`
	// Artefact is a project file locator (a v2 reference); empty when URL
	// is set.
	Artefact string `json:"artefact,omitempty"`
	// Licence is the licence the text is published under; never empty.
	Licence string `json:"licence"`
}

// Field is a declared input, in the shape of a schema field (docs/api.md#schema-fields).
type Field struct {
	// ID is the dotted `<group>.<name>` field id.
	ID string `json:"field_id"`
	// Type is the field's sort; its String is the wire's field_type.
	Type Sort `json:"field_type"`
	// Question is the text to ask the applicant, or empty.
	Question string `json:"question,omitempty"`
	// Description says what the field means, or empty.
	Description string `json:"description,omitempty"`
	// Weight is the question-ordering hint (default 1; higher asks later).
	Weight int `json:"weight"`
	// EnumValues lists the allowed values of an enum field in display
	// order; nil for other types.
	EnumValues []string `json:"enum_values"`
	// Notes are the `why` and `legal_background` notes, texts already
	// prefixed "WHY: " or "LEGAL BACKGROUND: ".
	Notes []Note `json:"notes"`
	// Widget is the x_ui_widget override ("free_text") or empty.
	Widget string `json:"x_ui_widget,omitempty"`
	// Label is the field's name for people, or empty. Like Unit and
	// ValueLabels it is left out of the IR when empty, so content
	// written before these existed keeps its digest.
	Label string `json:"label,omitempty"`
	// Unit is what an int or decimal answer counts ("months"), or empty.
	Unit string `json:"unit,omitempty"`
	// ValueLabels label an enum field's values for people, by value; nil
	// when none is labelled.
	ValueLabels map[string]string `json:"value_labels,omitempty"`
	// Range is the span of values the law allows an int or decimal
	// answer (`range 1..20`); nil when the ruleset declares none. An
	// answer outside it is a field error, and the solver looks for
	// applicants only inside it. Left out of the IR when nil, so content
	// written before ranges existed keeps its digest.
	Range *Range `json:"range,omitempty"`
	// List is set on the field that holds how many members a list has
	// (its ID is the list's name, "member"); nil on other fields. Like
	// Member it is left out of the IR when nil, so content written
	// before lists existed keeps its digest.
	List *ListInfo `json:"list,omitempty"`
	// Member is set on a field of one member of a list ("member[1].age");
	// nil on other fields.
	Member *MemberOf `json:"member,omitempty"`
}

// ListInfo describes a list of members (docs/language.md#households): its
// title and the most members the ruleset handles, to which every
// aggregate over the list is unrolled. The list's name is its field's ID:
// the only field id without a dot.
type ListInfo struct {
	// Title names the list for people ("People in the household").
	Title string `json:"title"`
	// Max is the most members; more is a field error.
	Max int `json:"max"`
	// Noun names one member for people ("person"), as in "Person 2".
	Noun string `json:"noun"`
}

// MemberOf places a field of one member: the list's name, the member's
// index from 0, and the field's name within a member ("age" of `field
// member.age`), the key of its answer in the member's object on the
// wire.
type MemberOf struct {
	// List is the list's name, the id of the field holding its length.
	List string `json:"list"`
	// Index is the member's position in the list, from 0.
	Index int `json:"index"`
	// Name is the field's key within one member's answers.
	Name string `json:"name"`
}

// MemberFieldID is the id of the field name of the index-th member of
// list: "member[1].age", as field errors and next questions name it.
func MemberFieldID(list string, index int, name string) string {
	return list + "[" + strconv.Itoa(index) + "]." + name
}

// Range is a span of numbers, both ends included. An end whose Known is
// false is open: Range{Min: value.IntValue(0)} is "at least 0". Its JSON form is
// {"min":1,"max":20}, an open end left out.
type Range struct {
	// Min is the smallest allowed value; unknown when open below.
	Min value.Value
	// Max is the largest allowed value; unknown when open above.
	Max value.Value
}

// Contains reports whether the number v lies in the range.
func (g Range) Contains(v value.Value) bool {
	return (!g.Min.Known || value.Compare(v, g.Min) >= 0) && (!g.Max.Known || value.Compare(v, g.Max) <= 0)
}

// String says the range in plain words: "from 1 to 20", "at least 0",
// "at most 100".
func (g Range) String() string {
	switch {
	case g.Min.Known && g.Max.Known:
		return "from " + g.Min.NumberString() + " to " + g.Max.NumberString()
	case g.Min.Known:
		return "at least " + g.Min.NumberString()
	case g.Max.Known:
		return "at most " + g.Max.NumberString()
	}
	return "any number"
}

// MarshalJSON writes {"min":1,"max":20}, leaving out an open end.
func (g Range) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	if g.Min.Known {
		b = append(b, `"min":`...)
		b = append(b, g.Min.NumberString()...)
	}
	if g.Max.Known {
		if g.Min.Known {
			b = append(b, ',')
		}
		b = append(b, `"max":`...)
		b = append(b, g.Max.NumberString()...)
	}
	return append(b, '}'), nil
}

// Note is a field's note (docs/api.md#schema-fields).
type Note struct {
	// Text is the note prefixed "WHY: " or "LEGAL BACKGROUND: ".
	Text string `json:"note_text"`
	// Source is the id of the source the note cites; empty when none.
	Source string `json:"source"`
	// Metadata is the note's kind and section.
	Metadata NoteMetadata `json:"metadata"`
}

// NoteMetadata says what kind of note it is ("why" or "legal_background")
// and which section (the ruleset's section id) it belongs to.
type NoteMetadata struct {
	// Type is the note kind as written: "why" or "legal_background".
	Type string `json:"type"`
	// Section is the ruleset's section id.
	Section string `json:"section"`
}

// GroupKind is how a group combines its criteria.
type GroupKind string

// Group kinds: all criteria must hold, or at least one alternative.
const (
	GroupAll GroupKind = "all"
	GroupAny GroupKind = "any"
)

// Group is a named set of criteria combined by Kind.
type Group struct {
	// ID is the group id the outcome expression refers to.
	ID string `json:"id"`
	// Kind is all (every criterion must hold) or any (one suffices).
	Kind GroupKind `json:"kind"`
	// Title is the group's human-readable title.
	Title string `json:"title"`
	// Criteria are the group's criteria in declaration order.
	Criteria []Criterion `json:"criteria"`
}

// Criterion is one condition of the law.
type Criterion struct {
	// ID is the criterion id, unique in the ruleset.
	ID string `json:"id"`
	// Title is the criterion's human-readable title.
	Title string `json:"title"`
	// Discretionary marks a condition an official decides; such a criterion
	// has no Expr and is always pending.
	Discretionary bool `json:"discretionary"`
	// Expr is the compiled bool expression; nil when Discretionary.
	Expr *Expr `json:"expr"`
	// Citations are the quotes the criterion rests on (at least one).
	Citations []Citation `json:"citations"`
	// Fields are the ids of the fields Expr reads, directly or through
	// named values, in declaration order.
	Fields []string `json:"fields"`
	// Slots are the input slots of Fields, in the same order.
	Slots []int `json:"-"`
	// Text is Expr printed canonically in the rules language, for traces
	// and messages, numbers spelled from their value. It is derived from
	// Expr (the same way by Compile and LoadIR) and so not hashed.
	Text string `json:"-"`
}

// NamedValue is a figure the law defines from the answers (net income, a
// deduction, whether a cap applies), computed once per decision and read
// by criteria and other values by its name. It is unknown exactly when
// what it needs is unknown (with the short-circuits of and, or, ?? and
// if), and cited like a criterion.
type NamedValue struct {
	// ID is the value's name, a bare identifier ("net_income").
	ID string `json:"id"`
	// Title is the value's human-readable name ("Net monthly income").
	Title string `json:"title"`
	// Type is the value's sort: int, decimal, bool or date.
	Type Sort `json:"type"`
	// Unit is what the figure counts ("USD"), or empty.
	Unit string `json:"unit,omitempty"`
	// Output marks a value the decision returns beside the outcome and
	// the audit envelope keeps.
	Output bool `json:"output,omitempty"`
	// Expr computes the value; its sort is Type, or numeric when Type is.
	// Nil for a table.
	Expr *Expr `json:"expr,omitempty"`
	// Table marks a value looked up in a table (the `table` declaration):
	// by Keys in Rows, or in the Rows of the one of Periods that holds on
	// the decision date.
	Table bool `json:"table,omitempty"`
	// Keys are a table's lookup keys: each an enum, int or bool
	// expression. A table of figures by period alone has none.
	Keys []*Expr `json:"keys,omitempty"`
	// Rows are a table's rows when it has no periods. The compiler proves
	// that exactly one row matches any keys the fields allow.
	Rows []TableRow `json:"rows,omitempty"`
	// Periods are a table's figures period by period, consecutive and
	// covering the ruleset's effective period.
	Periods []TablePeriod `json:"periods,omitempty"`
	// Citations are the quotes the definition rests on (at least one).
	Citations []Citation `json:"citations"`
	// Fields are the ids of the fields the value reads, directly or
	// through other values, in declaration order.
	Fields []string `json:"fields"`
	// Slots are the input slots of Fields, in the same order.
	Slots []int `json:"-"`
	// Text is Expr printed canonically in the rules language, as
	// Criterion.Text.
	Text string `json:"-"`
}

// Exprs are the value's expressions: its definition, or a table's keys and
// the figures of its rows in every period. A walk over what a value reads
// walks these.
func (v *NamedValue) Exprs() []*Expr {
	var out []*Expr
	if v.Expr != nil {
		out = append(out, v.Expr)
	}
	out = append(out, v.Keys...)
	for _, r := range v.Rows {
		out = append(out, r.Value)
	}
	for _, p := range v.Periods {
		for _, r := range p.Rows {
			out = append(out, r.Value)
		}
	}
	return out
}

// TableRow is one row of a table: what each key must match, and the
// figure (an expression, which may read the keys: `5868 + 596 *
// (household.size - 8)` for each member above eight).
type TableRow struct {
	// Match holds one KeyMatch per key, in the order of the keys.
	Match []KeyMatch `json:"match"`
	// Value is the row's figure.
	Value *Expr `json:"value"`
}

// TablePeriod is the rows of a table for one period.
type TablePeriod struct {
	// Period is the days the rows hold for, both included.
	Period Period `json:"period"`
	// Rows are the period's rows.
	Rows []TableRow `json:"rows"`
}

// MatchKind is what a KeyMatch tests.
type MatchKind uint8

// The kinds of key match.
const (
	// MatchAny matches every value of the key.
	MatchAny MatchKind = iota
	// MatchEnum matches one value of an enum key (Enum, index Const.Num).
	MatchEnum
	// MatchBool matches true or false (Const).
	MatchBool
	// MatchRange matches the whole numbers from Min to Max, an end whose
	// Known is false being open.
	MatchRange
)

// KeyMatch is what one key of a table row matches. Its JSON form is
// {"any":true}, {"enum":"alaska"}, {"bool":true} or {"min":2,"max":4}
// (an open end left out).
type KeyMatch struct {
	// Kind says which of the members below are set.
	Kind MatchKind
	// Enum is the listed value of a MatchEnum.
	Enum string
	// Const is the enum index of a MatchEnum, or the bool of a MatchBool.
	Const value.Value
	// Min and Max are the ends of a MatchRange.
	Min, Max value.Value
}

// Citation is an exact quote from a declared source.
type Citation struct {
	// Source is the id of a declared source.
	Source string `json:"source"`
	// Quote is the cited words as the cite line quotes them.
	Quote string `json:"quote"`
}

// criterionRef locates a criterion by group and position for the flat
// per-criterion arrays of a Result.
type criterionRef struct {
	// group is the index in Ruleset.Groups; index is the criterion's
	// position in that group's Criteria.
	group, index int
}

// NumCriteria returns the number of criteria over all groups; a Result's
// Criteria slice has this length, in group then declaration order.
func (r *Ruleset) NumCriteria() int { return len(r.criteria) }

// CriterionAt returns the i-th criterion in group then declaration order
// and the index of its group.
func (r *Ruleset) CriterionAt(i int) (*Criterion, int) {
	ref := r.criteria[i]
	return &r.Groups[ref.group].Criteria[ref.index], ref.group
}

// CriterionIndex returns the CriterionAt index of the ci-th criterion of
// group g: where its status sits in a Result's Criteria and its
// references in References. A walk over Groups and their Criteria asks
// here rather than keeping its own count, so every walk numbers the
// criteria the same way.
func (r *Ruleset) CriterionIndex(g, ci int) int { return r.groupStart[g] + ci }

// References returns the source references of the i-th criterion (in
// CriterionAt order). They depend on the ruleset alone, so they are built
// once at compile time and shared: every explanation carries these same
// slices, and a reader that needs only the citations (GET /explain) need
// not evaluate anything. The slice is read-only.
func (r *Ruleset) References(i int) []SourceReference { return r.refs[i] }

// ValueReferences returns the source references of named value v, shared
// read-only as References' are.
func (r *Ruleset) ValueReferences(v int) []SourceReference { return r.valueRefs[v] }

// ValueIndex returns the index in Values of the named value id, or -1.
func (r *Ruleset) ValueIndex(id string) int {
	for i := range r.Values {
		if r.Values[i].ID == id {
			return i
		}
	}
	return -1
}

// Outputs are the output values of a decision's result, in declaration
// order, each with its figure (JSON null when unknown): what a decision
// returns beside its outcome and its record keeps.
func (r *Ruleset) Outputs(res *Result) []OutputValue {
	var out []OutputValue
	for i := range r.Values {
		v := &r.Values[i]
		if !v.Output {
			continue
		}
		var fig value.Value
		if i < len(res.Values) {
			fig = res.Values[i]
		}
		out = append(out, r.outputValue(i, fig))
	}
	return out
}

// outputValue is named value v with figure fig (JSON null when unknown).
func (r *Ruleset) outputValue(v int, fig value.Value) OutputValue {
	nv := &r.Values[v]
	text := json.RawMessage("null")
	if fig.Known {
		text = constJSON(nv.Type, fig, "")
	}
	return OutputValue{Value: nv.ID, Title: nv.Title, Figure: text, Unit: nv.Unit}
}

// OutputValue is an output value of a decision: its name, title, figure
// and unit.
type OutputValue struct {
	// Value is the value's name in the rules ("net_income").
	Value string `json:"value" doc:"The value's name in the rules."`
	// Title is its name for people ("Net monthly income").
	Title string `json:"title" doc:"The value's name for people."`
	// Figure is the computed figure: a number, true/false, a
	// "YYYY-MM-DD" date, or null when the answers do not settle it.
	Figure json.RawMessage `json:"figure" doc:"The computed figure: a number, true or false, a YYYY-MM-DD date, or null when the answers do not settle it."`
	// Unit is what the figure counts; left out when none.
	Unit string `json:"unit,omitempty" doc:"What the figure counts (USD, months); absent when none."`
}

// ContentDigest returns "sha256:" followed by the hex SHA-256 of the RFC
// 8785 canonical JSON of the compiled ruleset. Comments and layout never
// change it; any change in meaning or published text does.
func (r *Ruleset) ContentDigest() string { return r.digest }

// FieldIndex returns the slot of the field id, or -1 when it is not declared.
func (r *Ruleset) FieldIndex(id string) int {
	if i, ok := r.index[id]; ok {
		return i
	}
	return -1
}

// CitedQuote is one citation of a ruleset with the declaration that makes
// it: a criterion's, or a named value's or table's.
type CitedQuote struct {
	// Kind is "criterion" or "value" (a table is a value).
	Kind string
	// ID is the criterion's or the value's id.
	ID string
	// Citation is the source and the quoted words.
	Citation
}

// CitedQuotes lists every citation of r: the criteria's in CriterionAt
// order, then the named values' and tables' in declaration order. Every
// tool that verifies quotes (a folder's test, publishing, a project's
// provenance) reads them here, so the law a figure rests on is checked as
// a criterion's is.
func (r *Ruleset) CitedQuotes() []CitedQuote {
	var out []CitedQuote
	for gi := range r.Groups {
		for _, c := range r.Groups[gi].Criteria {
			for _, ci := range c.Citations {
				out = append(out, CitedQuote{Kind: "criterion", ID: c.ID, Citation: ci})
			}
		}
	}
	for _, v := range r.Values {
		for _, ci := range v.Citations {
			out = append(out, CitedQuote{Kind: "value", ID: v.ID, Citation: ci})
		}
	}
	return out
}
