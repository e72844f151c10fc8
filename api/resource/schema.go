package resource

import (
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/present"
)

// The read shapes a ruleset and a rulebook share: a schema's fields and a
// ruleset's explanation, built once here for both resources.

// SchemaField is a field of a schema (docs/api.md#schema-fields).
type SchemaField struct {
	FieldID     string            `json:"field_id" doc:"Dotted <group>.<name>; a list's name for a list, <list>[<i>].<name> for a field of its i-th member."`
	FieldType   string            `json:"field_type" enum:"int,decimal,bool,enum,date" enumName:"FieldType" enumDoc:"The type answers to a field must have." doc:"The type answers must have."`
	Description string            `json:"description" doc:"What the field records, in plain language."`
	Question    string            `json:"question,omitempty" doc:"Text to ask the applicant; absent when the ruleset gives none."`
	Weight      int               `json:"weight" doc:"Question-ordering hint; higher means ask later."`
	EnumValues  []string          `json:"enum_values" nullable:"true" doc:"Allowed values of an enum field, else null."`
	Notes       []engine.Note     `json:"notes" nullable:"false" doc:"Notes the ruleset attaches to the field; empty when none."`
	XUIWidget   string            `json:"x_ui_widget,omitempty" enum:"free_text" doc:"A rendering hint for forms; absent when the ruleset gives none."`
	Label       string            `json:"label,omitempty" doc:"The field's short name for people (\"Hours worked in the last 12 months\"), for summaries where the question is too long; absent when the ruleset gives none."`
	Unit        string            `json:"unit,omitempty" doc:"What an int or decimal answer counts (\"months\", \"USD\"), to show beside it; absent when the ruleset gives none."`
	ValueLabels map[string]string `json:"value_labels,omitempty" doc:"How an enum field's values read to people, by value; a value without a label is shown as written. Absent when the ruleset labels none."`
	List        *SchemaList       `json:"list,omitempty" doc:"Set on a list's field (its field_id is the list's name, the one field id without a dot): its answer in field_values is a list of objects, one per member, each holding that member's answers keyed by the names in the member fields' member.name; the list's length is the number of members, its field_type int. Absent on other fields."`
	Member      *SchemaMember     `json:"member,omitempty" doc:"Set on a field of one member of a list (field_id \"member[1].age\"), which is answered inside the list, never as a key of field_values of its own. Absent on other fields."`
}

// SchemaList describes a list's field: what the list holds and its bound.
type SchemaList struct {
	Title string `json:"title" doc:"The list's name for people (\"People in the household\")."`
	Max   int    `json:"max" doc:"The most members the ruleset handles; more is a field error."`
	Noun  string `json:"noun" doc:"What one member is called (\"person\"), as the questions about one say \"Person 2\"."`
}

// SchemaMember places a field of one member within its list.
type SchemaMember struct {
	List  string `json:"list" doc:"The list's name: the field_values key of the list this member belongs to."`
	Index int    `json:"index" doc:"The member's place in the list, from 0."`
	Name  string `json:"name" doc:"The key of this answer in the member's object (\"age\")."`
}

// SchemaFields is the schema of fields, in declaration order.
func SchemaFields(fields []engine.Field) []SchemaField {
	out := make([]SchemaField, len(fields))
	for i, f := range fields {
		notes := f.Notes
		if notes == nil {
			notes = []engine.Note{}
		}
		out[i] = SchemaField{FieldID: f.ID, FieldType: f.Type.String(), Description: f.Description, Question: f.Question,
			Weight: f.Weight, EnumValues: f.EnumValues, Notes: notes, XUIWidget: f.Widget,
			Label: f.Label, Unit: f.Unit, ValueLabels: f.ValueLabels}
		if l := f.List; l != nil {
			out[i].List = &SchemaList{Title: l.Title, Max: l.Max, Noun: l.Noun}
		}
		if m := f.Member; m != nil {
			out[i].Member = &SchemaMember{List: m.List, Index: m.Index, Name: m.Name}
		}
	}
	return out
}

// ExplainCriterion is one criterion in plain language, with its law.
type ExplainCriterion struct {
	CriterionID      string                    `json:"criterion_id" doc:"The criterion's declared id."`
	Group            string                    `json:"group" doc:"Id of the group the criterion belongs to."`
	Title            string                    `json:"title" doc:"The criterion's declared title."`
	Description      string                    `json:"description" doc:"The condition in plain language."`
	Expression       string                    `json:"expression" doc:"The condition in the rules language; empty for a discretionary criterion."`
	Discretionary    bool                      `json:"discretionary" doc:"An official decides it; a decision leaves it pending."`
	Fields           []string                  `json:"fields" nullable:"false" doc:"Field ids the condition reads."`
	SourceReferences []catalog.SourceReference `json:"source_references" nullable:"false" doc:"The law the criterion cites; artefact (v2) references are left out for anonymous callers."`
}

// ExplainGroup is one group of an explanation.
type ExplainGroup struct {
	Group       string   `json:"group" doc:"The group's declared id."`
	Title       string   `json:"title" doc:"The group's declared title."`
	Kind        string   `json:"kind" enum:"all,any" enumName:"GroupKind" enumDoc:"all: every criterion must hold; any: one alternative suffices." doc:"all: every criterion must hold; any: one alternative suffices."`
	CriterionID []string `json:"criterion_ids" nullable:"false" doc:"The group's criteria, in declaration order."`
}

// Explain describes every group and criterion of rr, with each
// criterion's source references (artefact references left out for an
// anonymous viewer).
func Explain(rr *catalog.PreparedRuleset, anonymous bool) (groups []ExplainGroup, criteria []ExplainCriterion) {
	r := rr.Rules
	groups = make([]ExplainGroup, len(r.Groups))
	criteria = make([]ExplainCriterion, 0, r.NumCriteria())
	for gi, g := range r.Groups {
		eg := ExplainGroup{Group: g.ID, Title: g.Title, Kind: string(g.Kind), CriterionID: make([]string, len(g.Criteria))}
		for ci := range g.Criteria {
			c := &g.Criteria[ci]
			eg.CriterionID[ci] = c.ID
			fields := c.Fields
			if fields == nil {
				fields = []string{}
			}
			criteria = append(criteria, ExplainCriterion{
				CriterionID: c.ID, Group: g.ID, Title: c.Title, Description: present.CriterionSentence(r, c),
				Expression: c.Text, Discretionary: c.Discretionary, Fields: fields,
				SourceReferences: rr.SourceReferences(r.References(r.CriterionIndex(gi, ci)), anonymous),
			})
		}
		groups[gi] = eg
	}
	return groups, criteria
}
