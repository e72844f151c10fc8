package resource

import (
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine"
)

// ValueFact is a named value as a decision's explanation and an
// explain-failure reason show it: the engine's ValueFact with the wire's
// source references (what the publish path verified, an artefact citation
// hidden from an anonymous caller), converted as a criterion's are.
type ValueFact struct {
	engine.ValueFact
	// SourceReferences hides the embedded engine references.
	SourceReferences []catalog.SourceReference `json:"source_references"`
}

// ValueFacts converts the values an explanation of rr's ruleset lists for
// a keyed or an anonymous caller; nil stays nil, so a criterion that reads
// no value keeps the member out.
func ValueFacts(rr *catalog.PreparedRuleset, values []engine.ValueFact, anonymous bool) []ValueFact {
	if values == nil {
		return nil
	}
	out := make([]ValueFact, len(values))
	for i, v := range values {
		refs := rr.Rules.ValueReferences(rr.Rules.ValueIndex(v.Value))
		out[i] = ValueFact{ValueFact: v, SourceReferences: rr.SourceReferences(refs, anonymous)}
	}
	return out
}

// Schema describes a ValueFact as the one ExplanationValue component the
// decision's explanation and explain-failure's reasons share.
func (ValueFact) Schema(registry huma.Registry) *huma.Schema {
	return Components(registry, "ExplanationValue", func() map[string]*huma.Schema {
		return map[string]*huma.Schema{"ExplanationValue": {Type: huma.TypeObject,
			Description: "A named value as an explanation shows it: its name and title, the figure the answers gave it, its definition in the rules language and the law it rests on.",
			Properties: map[string]*huma.Schema{
				"value":  {Type: huma.TypeString, Description: "The value's name in the rules."},
				"title":  {Type: huma.TypeString, Description: "The value's name for people."},
				"figure": {Description: "The computed figure: a number, true or false, or a YYYY-MM-DD date."},
				"unit":   {Type: huma.TypeString, Description: "What the figure counts; absent when none."},
				"definition": {Type: huma.TypeString, Description: "The value's expression in the rules language; for a table, the row the figure was looked up in, " +
					`as the rules write it ("\"48_states\", 1..8 => 1696 + 596 * (household.size - 1)").`},
				"period":            {Type: huma.TypeString, Description: "For a table with figures by period, the period whose row gave the figure (\"2025-10-01 until 2026-09-30\"); absent otherwise."},
				"source_references": {Type: huma.TypeArray, Items: registry.Schema(reflect.TypeFor[catalog.SourceReference](), true, "SourceReference")},
			}, Required: []string{"value", "title", "figure", "definition", "source_references"}}}
	})
}
