package engine

import (
	"slices"
	"strings"
)

// functionNames are the rules language's functions, in the order the
// checker lists them when a call names none of them: the one list the
// checker's message and an editor's completion (Functions) read.
var functionNames = []string{"min", "max", "years_between", "months_between", "days_between",
	"add_days", "add_months", "add_years", "decision_date", "present", "absent", "date"}

// keywords are the words the grammar gives a meaning (GRAMMAR.md): the
// header and declaration keywords (topLevel), the field types (typeNames),
// the attributes of sources, fields, groups and criteria, and the words of
// expressions.
var keywords = []string{
	"ruleset", "section", "name", "description", "effective", "until", "source", "field", "group", "outcome",
	"url", "artefact", "licence", "license",
	"int", "decimal", "bool", "enum", "date", "weight", "question", "note", "why", "legal_background", "widget",
	"all", "any", "criterion", "discretionary", "cite",
	"and", "or", "not", "in", "true", "false",
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
func functionList() string {
	last := len(functionNames) - 1
	return strings.Join(functionNames[:last], ", ") + " and " + functionNames[last]
}
