package syntax

import (
	"github.com/eligo/eligo/engine/value"
)

// The syntax tree of a .rules file, as parsed and as printed. It keeps what
// the text says (including comment blocks, which the printer writes back)
// and nothing it does not: positions are for messages only and are ignored
// when two trees are compared.

// File is a parsed .rules file. Declarations are kept by kind in source
// order; the printer writes them in the canonical order.
type File struct {
	// Slug is the `ruleset "<slug>"` header ("us/fmla-employee"); nil when
	// the file has none, which the checker reports.
	Slug *Attr
	// Section is the `section <id>` header; nil when absent.
	Section *Attr
	// Name is the `name "<text>"` header, the ruleset's display name; nil
	// when absent.
	Name *Attr
	// Description is the top-level `description "<text>"` header; nil when
	// absent.
	Description *Attr
	// Effective is the `effective <from> [until <until>]` header, the
	// period the ruleset holds for; nil when absent (it holds for every
	// date).
	Effective *EffectiveDecl
	// Sources are the source declarations in source order.
	Sources []*SourceDecl
	// Fields are the field declarations in source order.
	Fields []*FieldDecl
	// Lists are the list declarations (people of a household, children)
	// in source order; their members' fields are among Fields.
	Lists []*ListDecl
	// Values are the named value declarations in source order.
	Values []*ValueDecl
	// Groups are the group declarations in source order.
	Groups []*GroupDecl
	// Outcome is the outcome declaration; nil when the file has none.
	Outcome *OutcomeDecl
	// Trailing holds comment lines after the last declaration.
	Trailing []string
	// failed records the declarations that failed to parse, so the
	// checker can stay quiet about their absence and their uses.
	Failed Failures
	// overLimit is true when Parse stopped at one of the limits in
	// limits.go: the file holds only what was read before, so it is not
	// checked.
	OverLimit bool
}

// Attr is a one-line header: ruleset, section, name or description.
type Attr struct {
	// Pos is where the header's keyword starts.
	Pos Pos
	// Doc holds the comment lines just above the header, each from its #,
	// trailing blanks trimmed; the printer writes them back.
	Doc []string
	// Value is the header's value: the unquoted string, or the section id.
	Value string
}

// EffectiveDecl is `effective <from> [until <until>]`: the dates, both
// inclusive, for which the ruleset's figures and text hold.
type EffectiveDecl struct {
	// Pos is where the `effective` keyword starts.
	Pos Pos
	// Doc holds the comment lines just above the header.
	Doc []string
	// From is the first day the ruleset holds, "YYYY-MM-DD" as written.
	From string
	// FromPos is where From starts, for date errors.
	FromPos Pos
	// Until is the last day it holds, "YYYY-MM-DD"; "" when open-ended.
	Until string
	// UntilPos is where Until starts; zero when Until is "".
	UntilPos Pos
}

// SourceDecl is `source <id> "<title>" url|artefact "<loc>" licence "<l>"`.
type SourceDecl struct {
	// Pos is where the `source` keyword starts.
	Pos Pos
	// Doc holds the comment lines just above the declaration.
	Doc []string
	// ID is the source id that cite lines and notes refer to.
	ID string
	// Title is the source's human-readable title.
	Title string
	// LocKind says how Loc locates the text: "url" or "artefact".
	LocKind string
	// Loc is the web address or the artefact locator, as written.
	Loc string
	// Licence is the licence the source text is published under
	// ("public-domain", "OGL-3.0", ...); required by the parser.
	Licence string
}

// FieldDecl is a field line with its indented attributes. Weight is 1 when
// the text leaves it out, so printing it explicitly does not change the tree.
type FieldDecl struct {
	// Pos is where the `field` keyword starts.
	Pos Pos
	// Doc holds the comment lines just above the declaration.
	Doc []string
	// ID is the field's <group>.<name>, e.g. "employment.months_employed".
	ID string
	// Type is the type keyword as written: int, decimal, bool, date or
	// enum; anything else is left for the checker to reject.
	Type string
	// TypePos is where the type keyword starts, for type errors.
	TypePos Pos
	// Enum lists an enum field's values in the order written; nil for
	// other types.
	Enum []string
	// Weight orders the questions: higher means "ask later". 0 to
	// 1000000; 1 when the text leaves it out.
	Weight int64
	// Question is the text to ask the applicant; "" when not given.
	Question string
	// Description says what the field means; "" when not given.
	Description string
	// Notes are the field's note lines in source order.
	Notes []*NoteDecl
	// Widget is the input widget named by `widget` ("free_text" is the
	// only valid one); "" when not given.
	Widget string
	// WidgetPos is where the widget name starts; zero when Widget is "".
	WidgetPos Pos
	// Label is the field's name for people ("Hours worked in the last 12
	// months"), shown where a question would be too long; "" when not
	// given.
	Label string
	// Unit is what an int or decimal answer counts ("months", "USD");
	// "" when not given. UnitPos is where the keyword starts.
	Unit    string
	UnitPos Pos
	// Options label an enum field's values for people, in source order.
	Options []*OptionDecl
	// Range is the `range <min>..<max>` line of a number field; nil when
	// not given.
	Range *RangeDecl
}

// ListDecl is `list <name> "<title>" up to <max>` and its attributes: a
// list of people (or other repeated things) each answering the fields
// declared under the name (`field member.age int`). The name is the
// list's key on the wire and the field holding how many there are; the
// aggregates (count, sum, any, all) read the members by it.
type ListDecl struct {
	// Pos is where the `list` keyword starts.
	Pos Pos
	// Doc holds the comment lines just above the declaration.
	Doc []string
	// Name names one member ("member"), in member fields, aggregates and
	// on the wire.
	Name string
	// Title names the list for people ("People in the household").
	Title string
	// Max is the most members the ruleset handles, as written; MaxPos is
	// where it starts.
	Max    string
	MaxPos Pos
	// Weight orders the question of how many there are, as a field's.
	Weight int64
	// Question asks how many there are; Description, Label as a field's.
	Question, Description, Label string
	// Noun names one member for people ("person", "child"): the questions
	// about one say "Person 2"; "" means "person".
	Noun string
}

// RangeDecl is a field's `range <min>..<max>` line: the values the law
// allows the answer to take, both ends included. An end may be left out
// (`range 0..`, open above; `range ..100`, open below), not both.
type RangeDecl struct {
	// Pos is where the `range` keyword starts.
	Pos Pos
	// Min and Max are the ends as written ("1", "-5", "0.5"); "" when open.
	Min, Max string
}

// OptionDecl is an `option "<value>" "<label>"` line of an enum field.
type OptionDecl struct {
	// Pos is where the `option` keyword starts.
	Pos Pos
	// Value is one of the field's enum values.
	Value string
	// Label is how the value reads to people.
	Label string
}

// NoteDecl is `note why|legal_background "<text>" [source <id>]`.
type NoteDecl struct {
	// Pos is where the `note` keyword starts.
	Pos Pos
	// Kind is "why" or "legal_background".
	Kind string
	// Text is the note's text, unquoted.
	Text string
	// Source is the id of the source the note cites; "" when it cites none.
	Source string
}

// GroupDecl is `group <id> all|any "<title>" { criteria }`.
type GroupDecl struct {
	// Pos is where the `group` keyword starts.
	Pos Pos
	// Doc holds the comment lines just above the declaration.
	Doc []string
	// ID is the group id that the outcome expression refers to.
	ID string
	// Kind is "all" (every criterion must hold) or "any" (at least one).
	Kind string
	// Title is the group's human-readable title.
	Title string
	// Criteria are the group's criteria in source order.
	Criteria []*CriterionDecl
	// Trailing holds comment lines after the last criterion, before the
	// closing }.
	Trailing []string
	// failed is set when part of the group (its header, a criterion)
	// failed to parse: then an empty group is not reported as one.
	Failed bool
}

// CriterionDecl is one criterion; Expr is nil when Discretionary.
type CriterionDecl struct {
	// Pos is where the `criterion` keyword starts.
	Pos Pos
	// Doc holds the comment lines just above the criterion.
	Doc []string
	// ID is the criterion id, unique in the whole ruleset.
	ID string
	// Title is the criterion's human-readable title.
	Title string
	// Discretionary marks a criterion a person decides: it has no
	// expression and always evaluates to pending.
	Discretionary bool
	// ExprDoc holds the comment lines between the opening { and the
	// expression.
	ExprDoc []string
	// Expr is the bool expression the criterion tests; nil when
	// Discretionary or when the criterion has only cite lines.
	Expr *Node
	// Cites are the criterion's cite lines in source order.
	Cites []*CiteDecl
	// Trailing holds comment lines after the last cite, before the
	// closing }.
	Trailing []string
	// failed is set when part of the criterion (its header, condition or
	// a cite line) failed to parse: then what is missing is not reported.
	Failed bool
	// kind is the declaration the body belongs to, for messages:
	// "criterion" (when empty), "value" or "table".
	kind string
}

// What names the declaration for messages: "criterion", "value" or
// "table".
func (c *CriterionDecl) What() string {
	if c.kind == "" {
		return "criterion"
	}
	return c.kind
}

// ValueDecl is `value <id> <type> "<title>" [unit "<unit>"] [output] {
// <expression> cite ... }`: a figure the law defines from the answers (net
// income, a deduction), named once and read by criteria and other values.
// Its body is read as a criterion's is, so Body holds the expression and
// the cite lines (Body.ID and Body.Title repeat the value's).
type ValueDecl struct {
	// Body is the value's id, title, expression and cite lines, with the
	// position of the `value` keyword and the comment block above it.
	Body *CriterionDecl
	// Type is the type keyword as written: int, decimal, bool or date.
	Type string
	// TypePos is where the type keyword starts, for type errors.
	TypePos Pos
	// Unit is what the figure counts ("USD"); "" when not given.
	Unit string
	// Output marks a value the decision returns beside the outcome.
	Output bool
	// Table is set for a `table` declaration: the value is looked up by
	// Keys in Rows (or in the rows of the period the decision date falls
	// in), and Body.Expr is nil.
	Table bool
	// Keys are the expressions a table is looked up by (`keys
	// household.region, household.size`); none for a table of figures by
	// period only.
	Keys []*Node
	// KeysPos is where the keys line starts; zero without one.
	KeysPos Pos
	// Rows are the rows of a table without periods.
	Rows []*RowDecl
	// Periods are a table's `period <from> until <until> { rows }` blocks.
	Periods []*PeriodDecl
}

// PeriodDecl is `period <from> [until <until>] { rows }` in a table: the
// figures that hold for those days, both included.
type PeriodDecl struct {
	// Pos is where the `period` keyword starts.
	Pos Pos
	// Doc holds the comment lines just above the period.
	Doc []string
	// From and Until are the dates as written; Until is "" when open.
	From, Until string
	// FromPos and UntilPos are where the dates start.
	FromPos, UntilPos Pos
	// Rows are the period's rows.
	Rows []*RowDecl
}

// RowDecl is a table row: `<match>, <match> => <expression>`, one match
// per key; a table without keys has rows of an expression alone.
type RowDecl struct {
	// Pos is where the row starts.
	Pos Pos
	// Doc holds the comment lines just above the row.
	Doc []string
	// Match is one match per key, in the order of the keys.
	Match []*MatchDecl
	// Value is the row's figure.
	Value *Node
}

// MatchDecl is what one key of a row matches: an enum value ("alaska"),
// true or false, `any`, a whole number (3) or a range of them (2..4, 9..,
// ..0).
type MatchDecl struct {
	// Pos is where the match starts.
	Pos Pos
	// Any is set for `any`, which matches every value of the key.
	Any bool
	// Str is an enum value; "" otherwise.
	Str string
	// Bool is "true" or "false"; "" otherwise.
	Bool string
	// Min and Max are the ends of a number or range as written ("9", "");
	// Min == Max for a single number; both "" for the other kinds.
	Min, Max string
	// Range is set when the match was written as a range (with ..).
	Range bool
}

// CiteDecl is `cite <source id> "<quote>"`.
type CiteDecl struct {
	// Pos is where the `cite` keyword starts.
	Pos Pos
	// Doc holds the comment lines just above the cite line.
	Doc []string
	// Source is the id of the cited source.
	Source string
	// Quote is the quoted passage, which must appear word for word in the
	// source text.
	Quote string
}

// OutcomeDecl is `outcome <expression over group ids>`.
type OutcomeDecl struct {
	// Pos is where the `outcome` keyword starts.
	Pos Pos
	// Doc holds the comment lines just above the declaration.
	Doc []string
	// Expr combines group ids (NodeIdent) with and, or and not.
	Expr *Node
}

// NodeKind is the syntactic form of an expression node.
type NodeKind uint8

// Expression node kinds.
const (
	NodeBinary NodeKind = iota + 1 // Op in or, and, comparisons, + - * ??
	NodeNot                        // not Args[0]
	NodeNeg                        // -Args[0] (never a number literal: those fold)
	NodeIn                         // Args[0] in|not in [Args[1:]...]; Op "in" or "not in"
	NodeCall                       // Name(Args...)
	NodeIf                         // if Args[0] then Args[1] else Args[2]
	NodeField                      // Name is group.name
	NodeIdent                      // Name is a bare identifier (a named value, or a group in outcome)
	NodeNumber                     // Num
	NodeString                     // Str
	NodeBool                       // Num is 0 or 1
	// NodeAggregate is Name(Args[0] [where Args[1]]) over a list's
	// members: Name is count, sum, any, all, min or max; Args[0] is the
	// element's name (a NodeIdent) for count, any and all, the summed or
	// compared expression for sum, min and max; Args[1], when present, the
	// condition a member must meet. min and max end with one more
	// argument, the value when no member is counted (`else 0`).
	NodeAggregate
)

// Node is an expression as written.
type Node struct {
	// Pos is where the node's token starts; for NodeBinary and NodeIn it
	// is the operator, not the left operand.
	Pos Pos
	// Kind is the node's form; it says which of the fields below are set.
	Kind NodeKind
	// Op is the operator of NodeBinary ("or", "and", "<=", "+", "??", ...)
	// and NodeIn ("in" or "not in"); "" otherwise.
	Op string
	// Name is the function of NodeCall, the group.name of NodeField or
	// the identifier of NodeIdent.
	Name string
	// Str is the unquoted text of NodeString.
	Str string
	// Num is the value of NodeNumber, or 0/1 for NodeBool.
	Num value.Value
	// Lit is a number as written ("43759.80", "1e3"), so that fmt keeps
	// the analyst's spelling; the value is Num either way.
	Lit string
	// Args are the operands: two for NodeBinary, one for NodeNot and
	// NodeNeg, the tested value then the list for NodeIn, the arguments
	// of NodeCall, the condition and the two branches of NodeIf.
	Args []*Node
}

// AggregateParts are the condition and the value when no member is
// counted of aggregate n, each nil when n has none: only min and max have
// the second, which they end with.
func AggregateParts(n *Node) (where, otherwise *Node) {
	args := n.Args[1:]
	if n.Name == "min" || n.Name == "max" {
		otherwise, args = args[len(args)-1], args[:len(args)-1]
	}
	if len(args) > 0 {
		where = args[0]
	}
	return where, otherwise
}
