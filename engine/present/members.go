package present

import (
	"strings"

	"github.com/eligo/eligo/engine"
)

// This file words the aggregates over a list of members
// (docs/language.md#households) as the rest of the sentences word
// conditions: "for at least one of the people in the household, age is
// less than 5", "the total of earnings over the people in the household".
// The list is named by its title, a member's field by its own name, not
// the first member's (the compiled form reads member 0's part for every
// member's); "the highest earnings among the people in the household for
// whom age is at least 16, or 0 when there is none".

// listWords names a list for a sentence: its title in lower case ("the
// people in the household"), else its name.
func (r rules) listWords(list string) string {
	s := r.FieldIndex(list)
	if s < 0 || r.Fields[s].List == nil || r.Fields[s].List.Title == "" {
		return "the " + strings.ReplaceAll(list, "_", " ") + " list"
	}
	return "the " + lowerFirst(r.Fields[s].List.Title)
}

// aggregateClause words any(...) and all(...).
func (r rules) aggregateClause(b *strings.Builder, a engine.Aggregate) {
	if a.Kind == "any" {
		b.WriteString("for at least one of " + r.listWords(a.List) + ", ")
	} else {
		b.WriteString("for each of " + r.listWords(a.List) + ", ")
	}
	r.clause(b, a.Where, false)
}

// aggregateTerm words count(...), sum(...), min(...) and max(...).
func (r rules) aggregateTerm(a engine.Aggregate) string {
	var b strings.Builder
	switch a.Kind {
	case "count":
		b.WriteString("the number of " + strings.TrimPrefix(r.listWords(a.List), "the "))
	case "min":
		b.WriteString("the lowest " + r.term(a.Term) + " among " + r.listWords(a.List))
	case "max":
		b.WriteString("the highest " + r.term(a.Term) + " among " + r.listWords(a.List))
	default:
		b.WriteString("the total of " + r.term(a.Term) + " over " + r.listWords(a.List))
	}
	if a.Where != nil {
		b.WriteString(" for whom ")
		r.clause(&b, a.Where, false)
	}
	if a.Else != nil {
		b.WriteString(", or " + r.term(a.Else) + " when there is none")
	}
	return b.String()
}

// memberNoun is the plain name of a member's field, the same for every
// member: its label as declared (without the "Person 2: " the member's
// copy adds), else its name in words.
func (r rules) memberNoun(f *engine.Field) string {
	if f.Label != "" {
		if _, label, ok := strings.Cut(f.Label, ": "); ok {
			return lowerFirst(label)
		}
		return lowerFirst(f.Label)
	}
	return properNoun(strings.ReplaceAll(f.Member.Name, "_", " "), f.Question, f.Description)
}
