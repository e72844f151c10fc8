package rulebook

import (
	"fmt"
	"strings"
)

// Problem is one located refusal of a rulebook request member, in the shape
// of the 422 validation list of docs/api.md#errors ({type, loc, msg, input}, as pydantic
// writes it), so the API can return ParseOutcomeTree's and CheckHints' findings
// as they are, every one of them at once, instead of stopping at the first.
type Problem struct {
	// Type is the machine-readable kind: "missing", "extra_forbidden",
	// "value_error", "string_type", "list_type", "model_type", "too_short",
	// "too_long", "enum" or "json_invalid".
	Type string `json:"type"`
	// Loc is the path to the offending member from the request body's
	// top: member names (strings) and list indexes (ints), e.g.
	// ["outcome_logic", "args", 1, "section"].
	Loc []any `json:"loc"`
	// Msg says in one sentence what is wrong and what is expected.
	Msg string `json:"msg"`
	// Input is the offending value as decoded from JSON (numbers as
	// json.Number), or nil where no single value is at fault.
	Input any `json:"input"`
}

// String renders the problem as "loc.path: msg (type)", for logs, CLI
// output and test failures.
func (p Problem) String() string {
	var b strings.Builder
	for i, l := range p.Loc {
		switch l := l.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", l)
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, l)
		}
	}
	fmt.Fprintf(&b, ": %s (%s)", p.Msg, p.Type)
	return b.String()
}

// at returns loc extended by one step, never sharing loc's backing array,
// so sibling problems never overwrite each other's paths.
func at(loc []any, step any) []any {
	out := make([]any, len(loc), len(loc)+1)
	copy(out, loc)
	return append(out, step)
}
