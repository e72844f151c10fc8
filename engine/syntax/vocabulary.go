package syntax

import (
	"slices"
	"strings"
)

// functionNames are the rules language's functions, in the order the
// checker lists them when a call names none of them: the one list the
// checker's message and an editor's completion (Functions) read.
var functionNames = []string{"min", "max", "floor", "ceil", "round", "abs", "years_between", "months_between", "days_between",
	"add_days", "add_months", "add_years", "decision_date", "present", "absent", "date", "count", "sum", "any", "all"}

// keywords are the words the grammar gives a meaning (GRAMMAR.md): the
// header and declaration keywords (topLevel), the field types (typeNames),
// the attributes of sources, fields, groups and criteria, and the words of
// expressions.
var keywords = []string{
	"ruleset", "section", "name", "description", "effective", "until", "source", "field", "value", "table", "group", "outcome",
	"url", "artefact", "licence", "license",
	"int", "decimal", "bool", "enum", "date", "weight", "question", "note", "why", "legal_background", "widget",
	"label", "unit", "range", "option",
	"output", "keys", "period",
	"list", "up", "to", "noun", "where", "count", "sum",
	"all", "any", "criterion", "discretionary", "cite",
	"and", "or", "not", "in", "true", "false", "if", "then", "else",
}

// Functions are the names of the rules language's functions, for an
// editor's completion: a copy, in the order the checker lists them.
func Functions() []string { return slices.Clone(functionNames) }

// Keywords are the words the rules language gives a meaning, for an
// editor's completion and highlighting: a copy, in the order GRAMMAR.md
// introduces them. A name may be both a keyword and a function (date).
func Keywords() []string { return slices.Clone(keywords) }

// functionList is the functions as the checker's message lists them:
// "min, max, ... absent and date".
func FunctionList() string {
	last := len(functionNames) - 1
	return strings.Join(functionNames[:last], ", ") + " and " + functionNames[last]
}

// FunctionDoc is what an editor's hover says about a function: its call
// as GRAMMAR.md's table of calls writes it, the type it returns and what
// it means, word for word from that table (a test keeps the two equal).
type FunctionDoc struct {
	// Signature is the call with its parameters, "years_between(a, b)".
	Signature string
	// Result is the type of its value: number, int, date or bool.
	Result string
	// Meaning says what the value is.
	Meaning string
}

// DescribeFunction is the FunctionDoc of the function name; false when
// the language has no function of that name.
func DescribeFunction(name string) (FunctionDoc, bool) {
	switch name {
	case "min":
		return FunctionDoc{"min(a, b, ...)", "number", "smallest / largest; over a list's members with `where` or `else`, as below"}, true
	case "max":
		return FunctionDoc{"max(a, b, ...)", "number", "smallest / largest; over a list's members with `where` or `else`, as below"}, true
	case "floor":
		return FunctionDoc{"floor(x, step)", "number", "`x` rounded down to a whole multiple of `step`; `floor(x)` rounds to a whole number"}, true
	case "ceil":
		return FunctionDoc{"ceil(x, step)", "number", "`x` rounded up to a whole multiple of `step`; `ceil(x)` rounds to a whole number"}, true
	case "round":
		return FunctionDoc{"round(x, step)", "number", "`x` rounded to the nearest whole multiple of `step`, half a step going up (away from zero); `round(x)` rounds to a whole number"}, true
	case "abs":
		return FunctionDoc{"abs(x)", "number", "`x` without its sign"}, true
	case "years_between":
		return FunctionDoc{"years_between(a, b)", "int", "completed whole years from date `a` to date `b`; a 29 February birthday completes a year on 1 March in a non-leap year"}, true
	case "months_between":
		return FunctionDoc{"months_between(a, b)", "int", "completed whole months from date `a` to date `b` (31 January to 28 February is 0 months; to 1 March is 1)"}, true
	case "days_between":
		return FunctionDoc{"days_between(a, b)", "int", "`b` minus `a` in days"}, true
	case "add_days":
		return FunctionDoc{"add_days(d, n)", "date", "the date `n` days after `d` (before it when `n` is negative)"}, true
	case "add_months":
		return FunctionDoc{"add_months(d, n)", "date", "the date `n` calendar months after `d`, the day clamped to the month's length"}, true
	case "add_years":
		return FunctionDoc{"add_years(d, n)", "date", "the date `n` years after `d`, the day clamped likewise"}, true
	case "decision_date":
		return FunctionDoc{"decision_date()", "date", "the date the decision is made (UTC)"}, true
	case "present":
		return FunctionDoc{"present(f)", "bool", "true when field `f` was answered; never unknown"}, true
	case "absent":
		return FunctionDoc{"absent(f)", "bool", "true when field `f` was not answered; never unknown"}, true
	case "date":
		return FunctionDoc{`date("YYYY-MM-DD")`, "date", "a date constant"}, true
	case "count":
		return FunctionDoc{"count(m where c)", "int", "how many members of list `m` meet `c`; `count(m)` counts them all"}, true
	case "sum":
		return FunctionDoc{"sum(m.x where c)", "number", "the total of `m.x` over the members of list `m` that meet `c`; `where c` is optional"}, true
	case "any":
		return FunctionDoc{"any(m where c)", "bool", "whether at least one member of list `m` meets `c`"}, true
	case "all":
		return FunctionDoc{"all(m where c)", "bool", "whether every member of list `m` meets `c`"}, true
	}
	return FunctionDoc{}, false
}
