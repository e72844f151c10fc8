package plan

import (
	"maps"
	"slices"

	"github.com/eligo/eligo/engine"
)

// ChoiceStatus is where an OR-group or one of its alternatives stands.
type ChoiceStatus string

// Choice statuses.
const (
	// ChoiceOpen: not satisfied yet, but further answers (or, for a
	// discretionary alternative, an official) can still satisfy it.
	ChoiceOpen ChoiceStatus = "open"
	// ChoiceClosed: no further answers the applicant may give can satisfy
	// it any more.
	ChoiceClosed ChoiceStatus = "closed"
	// ChoiceSatisfied: satisfied by the answers so far.
	ChoiceSatisfied ChoiceStatus = "satisfied"
)

// ChoiceContext is choice_context (docs/api.md#planning-next_question-optimal_path-choice_context): the complete field-to-section
// membership, and each authored OR-group (`any` group) with its
// alternatives, so that a client can show the applicant the ways still open
// to them. On the wire:
//
//	{"field_sections": {"household.size": "snap_income", ...},
//	 "or_groups": [{"section_id": "snap_income", "group_id": "gross_exempt",
//	   "label": "Exempt from the gross income test", "status": "open",
//	   "alternatives": [{"criterion_id": "elderly_or_disabled",
//	     "label": "The household contains an elderly or disabled member",
//	     "fields": ["household.elderly_or_disabled_member"], "status": "open"}]}]}
//
// A ruleset is one section; a rulebook composes the sections of several.
type ChoiceContext struct {
	// FieldSections maps every declared field id to its section id (for a
	// field shared by several sections of a rulebook, the first).
	FieldSections map[string]string `json:"field_sections"`
	// FieldMemberships maps every field id to all the sections declaring
	// it, on rulebook calls only: a field in more than one is shared and
	// asked once.
	FieldMemberships map[string][]string `json:"field_memberships,omitempty" nullable:"false"`
	// OrGroups are the `any` groups in declaration order. Never nil.
	OrGroups []ChoiceGroup `json:"or_groups" nullable:"false"`
}

// ChoiceGroup is one OR-group.
type ChoiceGroup struct {
	// SectionID is the section of the ruleset that declares the group.
	SectionID string `json:"section_id"`
	// GroupID is the `any` group's id.
	GroupID string `json:"group_id"`
	// Label is the group's title.
	Label string `json:"label"`
	// Status is satisfied when the group is, closed when every
	// alternative is closed, open otherwise.
	Status ChoiceStatus `json:"status"`
	// Alternatives are the group's criteria in declaration order.
	Alternatives []ChoiceAlternative `json:"alternatives" nullable:"false"`
}

// ChoiceAlternative is one criterion of an OR-group.
type ChoiceAlternative struct {
	// CriterionID is the criterion's id.
	CriterionID string `json:"criterion_id"`
	// Label is the criterion's title.
	Label string `json:"label"`
	// Fields are the fields the criterion reads, in declaration order.
	Fields []string `json:"fields" nullable:"false"`
	// Status is satisfied by the answers so far, closed when no further
	// answer can satisfy it, open otherwise (a discretionary alternative
	// is always open until satisfied).
	Status ChoiceStatus `json:"status"`
}

func (cc ChoiceContext) clone() ChoiceContext {
	out := ChoiceContext{FieldSections: maps.Clone(cc.FieldSections), OrGroups: slices.Clone(cc.OrGroups)}
	for i := range out.OrGroups {
		out.OrGroups[i].Alternatives = slices.Clone(out.OrGroups[i].Alternatives)
		for j := range out.OrGroups[i].Alternatives {
			a := &out.OrGroups[i].Alternatives[j]
			a.Fields = slices.Clone(a.Fields)
		}
	}
	return out
}

// choiceContext builds the choice context of a request. An alternative is
// closed when three-valued reasoning shows that no further answer the
// applicant may give can satisfy it: it is not satisfied and cannot change
// (no presence operator), or it needs a declined field. The solver is not
// asked: a contradiction inside one criterion (x > 5 and x < 3) leaves the
// alternative open. That keeps the choice context cheap on every request;
// one solver query per alternative costs tens of milliseconds on the
// date-heavy rulesets.
func choiceContext(q *planQuery, sup *supportState) ChoiceContext {
	rs := q.m.rs
	cc := ChoiceContext{FieldSections: make(map[string]string, len(rs.Fields)), OrGroups: []ChoiceGroup{}}
	for _, f := range rs.Fields {
		cc.FieldSections[f.ID] = rs.SectionID
	}
	for g, grp := range rs.Groups {
		if grp.Kind != engine.GroupAny {
			continue
		}
		cg := ChoiceGroup{SectionID: rs.SectionID, GroupID: grp.ID, Label: grp.Title,
			Alternatives: make([]ChoiceAlternative, len(grp.Criteria))}
		closed := 0
		for i, crit := range grp.Criteria {
			st := alternativeStatus(q, sup, rs.CriterionIndex(g, i))
			if st == ChoiceClosed {
				closed++
			}
			cg.Alternatives[i] = ChoiceAlternative{CriterionID: crit.ID, Label: crit.Title,
				Fields: slices.Clone(crit.Fields), Status: st}
		}
		switch {
		case q.res.Groups[g] == engine.Satisfied:
			cg.Status = ChoiceSatisfied
		case closed == len(grp.Criteria):
			cg.Status = ChoiceClosed
		default:
			cg.Status = ChoiceOpen
		}
		cc.OrGroups = append(cc.OrGroups, cg)
	}
	return cc
}

func alternativeStatus(q *planQuery, sup *supportState, c int) ChoiceStatus {
	switch {
	case q.res.Criteria[c] == engine.Satisfied:
		return ChoiceSatisfied
	case q.m.crits[c].Discretionary:
		return ChoiceOpen
	case len(sup.criterion(c, engine.Satisfied)) == 0:
		return ChoiceClosed
	}
	return ChoiceOpen
}

// InSections is cc for a composition of several sections (a rulebook),
// whose planner sees one composed ruleset: each field's section (the first,
// for a field several sections share) and every section declaring it
// (FieldMemberships), and each OR-group's own section. fieldSections maps
// field ids to the sections declaring them, in section order; groupSection
// names the section of a composed group.
func (cc ChoiceContext) InSections(fieldSections map[string][]string, groupSection func(groupID string) (string, bool)) ChoiceContext {
	cc.FieldSections = make(map[string]string, len(fieldSections))
	cc.FieldMemberships = fieldSections
	for field, sections := range fieldSections {
		cc.FieldSections[field] = sections[0]
	}
	cc.OrGroups = slices.Clone(cc.OrGroups)
	for i := range cc.OrGroups {
		if id, ok := groupSection(cc.OrGroups[i].GroupID); ok {
			cc.OrGroups[i].SectionID = id
		}
	}
	return cc
}
