package rulebook

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/eligo/eligo/engine"
)

// SectionID is the section id of every composed ruleset. A rulebook is
// not a section, and a fixed id says so wherever a section id is shown
// (the outcome node of the graph, logs): a ruleset whose SectionID is this
// one is a composition. It is not derived from the rulebook's slug, which
// the composed ruleset carries as its Slug already. The members keep their
// own ids, as the prefix of their group, criterion and source ids and in
// Composed.Sections.
const SectionID = "rulebook"

// maxWeight is the largest field weight the rules language accepts; an
// overlay may not set more.
const maxWeight = 1_000_000

// Section is one member of a rulebook: a published section ruleset under
// its letter. Compose reads it and never changes it.
type Section struct {
	// Letter names the section in the outcome tree: "A", "B", ... in
	// ruleset_refs order; Compose refuses any other lettering.
	Letter string
	// SectionID is the member ruleset's section id (Rules.SectionID). It
	// prefixes the member's group, criterion and source ids in the
	// composition, so it must be unique within the rulebook.
	SectionID string
	// Slug is the slug the member is published under. It prefixes the
	// member's node ids in the composed graph and names it in
	// graph.sections; empty means Rules.Slug, then SectionID.
	Slug string
	// RulesetID is the member's concrete, immutable ruleset id; it is part
	// of the release's content identity and of the section results.
	RulesetID string
	// ContentDigest is the member's content digest
	// (Rules.ContentDigest()); part of the content identity.
	ContentDigest string
	// Rules is the member's loaded, compiled ruleset. It is shared and
	// read-only: Compose copies what it changes and never writes to it.
	Rules *engine.Ruleset
}

// slug is the section's name in the composed graph.
func (s *Section) slug() string {
	switch {
	case s.Slug != "":
		return s.Slug
	case s.Rules != nil && s.Rules.Slug != "":
		return s.Rules.Slug
	}
	return s.SectionID
}

// Spec is everything a rulebook composition is made of: the frozen content
// of a release (sections, outcome tree, overlay) plus the rulebook's name
// and slug, which label the composed ruleset.
type Spec struct {
	// Name becomes the composed ruleset's Name (the outcome node's label
	// in the graph).
	Name string
	// Slug becomes the composed ruleset's Slug.
	Slug string
	// Description becomes the composed ruleset's Description; may be
	// empty.
	Description string
	// Sections are the members in ruleset_refs order, lettered A, B, C...;
	// at least one and at most MaxSections.
	Sections []Section
	// Outcome is the outcome tree over the section letters; nil means
	// DefaultOutcome (every section and-ed).
	Outcome *Node
	// Overlay is the rulebook's field vocabulary overlay, keyed by field
	// id; nil or empty for none.
	Overlay map[string]FieldOverlay
	// Facts bind bool fields to sections' outcomes (see SectionFact);
	// nil for none, which composes exactly as before facts existed.
	Facts []SectionFact
}

// FieldOverlay restates a shared field's wording for a rulebook (POST
// /rulebooks/{id}/fields): the sections may each word a question for
// their own context, and the rulebook asks it once. Each member set
// replaces that member of the field; a nil one leaves it as the first
// section declaring the field wrote it.
type FieldOverlay struct {
	// Question replaces the question to ask the applicant ("" removes it).
	Question *string `json:"question,omitempty"`
	// Description replaces the field's description ("" removes it).
	Description *string `json:"description,omitempty"`
	// Weight replaces the question-ordering weight (0 to 1,000,000, as in
	// the rules language).
	Weight *int `json:"weight,omitempty"`
	// Notes, when not nil, replace the field's notes (an empty slice
	// removes them). A note's source, if any, names a source of the
	// composition, that is a prefixed id "<section_id>.<source id>".
	Notes []engine.Note `json:"notes,omitempty"`
}

// Composed is a rulebook composed into one ruleset, with what callers need
// to speak about its sections: which section each group and field comes
// from, and each section's own decision.
type Composed struct {
	// Rules is the composed ruleset. Evaluate, plan, explain and graph it
	// as any ruleset; its groups, criteria and sources carry
	// "<section_id>." prefixed ids.
	Rules *engine.Ruleset
	// Sections are the members, as given, in letter order.
	Sections []Section
	// Outcome is the outcome tree that was composed (DefaultOutcome when
	// none was given; docs/api.md#rulebooks).
	Outcome *Node
	// GroupSection[g] is the index in Sections of the section that
	// Rules.Groups[g] comes from. A criterion's section is its group's
	// (see engine.Ruleset.CriterionAt).
	GroupSection []int
	// ValueSection[v] is the index in Sections of the section that
	// Rules.Values[v] (a named value or table) comes from: the composed
	// graph's value nodes are told by section with it.
	ValueSection []int
	// FieldSections maps every field id to the section ids declaring it,
	// in section order: choice_context's field-to-section membership. A
	// field with more than one is shared.
	FieldSections map[string][]string
	// Facts are the section facts composed (Spec.Facts): each bound
	// field is no field of Rules but its named value of the same id,
	// whose ValueSection is the section it stands for.
	Facts []SectionFact

	// outcomes[i] is section i's own outcome expression over the
	// composed group slots, for SectionResults.
	outcomes []*engine.Expr
}

// FieldConflictError is Compose's refusal of a field id that two sections
// declare differently: a shared field is one question asked once, so it
// must have one type and, for an enum, one list of values in one order.
// Publication reports it to the rulebook's author (a 422).
type FieldConflictError struct {
	// Field is the field id.
	Field string
	// First and Second are the letters of the first section declaring
	// the field and of the one that disagrees with it.
	First, Second string
	// FirstSectionID and SecondSectionID are those sections' ids.
	FirstSectionID, SecondSectionID string
	// FirstType and SecondType describe the two declarations: the type,
	// with the values of an enum (`enum ["a", "b"]`).
	FirstType, SecondType string
}

// Error reads e.g. "field applicant.age is int in section age_rules (A)
// but decimal in section pension (B)".
func (e *FieldConflictError) Error() string {
	return fmt.Sprintf("field %s is %s in section %s (%s) but %s in section %s (%s): a field shared by two sections needs the same type and the same enum values in the same order",
		e.Field, e.FirstType, e.FirstSectionID, e.First, e.SecondType, e.SecondSectionID, e.Second)
}

// Compose compiles a rulebook into one ruleset ("composition is
// compilation"), so that everything that serves a ruleset (evaluation,
// the planner, explanations, explain-failure, the polarity gate, the
// graph) serves a rulebook without a second implementation.
//
// The composed ruleset holds, in section order: every member's sources,
// fields, groups and criteria. Group, criterion and source ids are
// prefixed "<section_id>." (group "service" of section fmla_employee is
// "fmla_employee.service"), and citations, notes and the sections' outcome
// expressions are rewritten to match, so two members never clash. Fields
// are not prefixed: a field id declared by several sections is one shared
// field, asked once, which must have the same type and enum values in
// every section (else a *FieldConflictError); its question, description,
// weight and notes come from the first section declaring it, then from
// the overlay. The composed outcome is the outcome tree with each leaf
// replaced by that section's own outcome expression; ReadsDecisionDate
// holds when any member's does. Its effective period is the days every
// member's period covers (see commonPeriod): outside it some section's law
// does not hold, so the composition gives no decision there either.
//
// The result went through engine.Build, which checks it and computes its
// digest and program; spec and its members are never modified.
func Compose(spec Spec) (*Composed, error) {
	c, err := compose(spec)
	if err != nil {
		return nil, fmt.Errorf("compose rulebook %s: %w", describeSpec(spec), err)
	}
	return c, nil
}

// describeSpec names a rulebook in error messages.
func describeSpec(spec Spec) string {
	if spec.Slug != "" {
		return spec.Slug
	}
	return fmt.Sprintf("%q", spec.Name)
}

func compose(spec Spec) (*Composed, error) {
	if err := checkSections(spec.Sections); err != nil {
		return nil, err
	}
	tree := spec.Outcome
	if tree == nil {
		tree = DefaultOutcome(len(spec.Sections))
	}
	if err := tree.Validate(len(spec.Sections)); err != nil {
		return nil, err
	}
	a := &assembler{sections: spec.Sections, fieldAt: map[string]int{},
		c: &Composed{Sections: slices.Clone(spec.Sections), Outcome: tree, FieldSections: map[string][]string{}}}
	r := &engine.Ruleset{Slug: spec.Slug, SectionID: SectionID, Name: spec.Name, Description: spec.Description}
	a.r = r
	period, err := commonPeriod(spec.Sections)
	if err != nil {
		return nil, err
	}
	r.Effective = period
	for si := range spec.Sections {
		if err := a.section(si); err != nil {
			return nil, err
		}
	}
	if err := a.overlay(spec.Overlay); err != nil {
		return nil, err
	}
	if err := a.facts(spec.Facts, spec.Overlay); err != nil {
		return nil, err
	}
	a.criteria()
	r.Outcome = a.outcome(tree)
	built, err := engine.Build(r)
	if err != nil {
		return nil, err
	}
	a.c.Rules = built
	for si := range spec.Sections {
		a.c.outcomes = append(a.c.outcomes, a.sectionOutcome(si))
	}
	return a.c, nil
}

// checkSections refuses a member list Compose cannot letter or prefix.
func checkSections(sections []Section) error {
	switch {
	case len(sections) == 0:
		return errors.New("no sections: a rulebook composes at least one ruleset")
	case len(sections) > MaxSections:
		return fmt.Errorf("%d sections: a rulebook composes at most %d (lettered A to Z)", len(sections), MaxSections)
	}
	seen := map[string]string{}
	for i := range sections {
		s := &sections[i]
		want := Letter(i)
		switch {
		case s.Letter != want:
			return fmt.Errorf("section %d is lettered %q: sections are lettered A, B, C... in ruleset_refs order, so it is %s", i+1, s.Letter, want)
		case s.Rules == nil:
			return fmt.Errorf("section %s (%s): no compiled ruleset", want, s.SectionID)
		case s.SectionID == "":
			return fmt.Errorf("section %s: empty section id", want)
		case s.SectionID != s.Rules.SectionID:
			return fmt.Errorf("section %s: section id %s does not match its ruleset's, %s", want, s.SectionID, s.Rules.SectionID)
		}
		if prev, dup := seen[s.SectionID]; dup {
			return fmt.Errorf("sections %s and %s are both section %s: a rulebook composes each section once, since its id prefixes the section's groups and criteria", prev, want, s.SectionID)
		}
		seen[s.SectionID] = want
	}
	return nil
}

// commonPeriod is the effective period of a composition: the days on
// which every section's own period holds, from the latest start to the
// earliest end; nil when no section declares one. A release is one cut of
// the law, and a decision from it on a day one section does not cover
// would apply that section's law to another period (the section alone
// would be undetermined there), so the whole composition is undetermined
// there instead, with the same warning. Sections whose periods share no
// day could never decide anything together, so that is an error, naming
// the two sections that part.
func commonPeriod(sections []Section) (*engine.Period, error) {
	var common *engine.Period
	var starts, ends *Section // the sections setting common's two ends
	for i := range sections {
		s := &sections[i]
		p := s.Rules.Effective
		if p == nil {
			continue
		}
		if common == nil {
			common, starts, ends = &engine.Period{From: p.From, Until: p.Until}, s, s
			continue
		}
		if p.From > common.From {
			common.From, starts = p.From, s
		}
		if p.Until != 0 && (common.Until == 0 || p.Until < common.Until) {
			common.Until, ends = p.Until, s
		}
	}
	if common != nil && common.Until != 0 && common.Until < common.From {
		return nil, fmt.Errorf("sections %s (%s, %s) and %s (%s, %s) share no day: a rulebook decides only where every section's effective period holds",
			ends.Letter, ends.SectionID, ends.Rules.Effective, starts.Letter, starts.SectionID, starts.Rules.Effective)
	}
	return common, nil
}

// assembler builds the input of engine.Build from the members. Everything
// it changes it allocates afresh; criterion expressions, which it does not
// change, it shares with the members, since Build copies its input and
// never writes to it.
type assembler struct {
	// sections are the members in letter order.
	sections []Section
	// r is the ruleset being assembled.
	r *engine.Ruleset
	// c is the composition being described.
	c *Composed
	// fieldAt maps a field id to its slot in r.Fields.
	fieldAt map[string]int
	// owner[slot] is the index of the section that first declared the
	// field at slot.
	owner []int
	// groupOffset[si] is the index in r.Groups of section si's first
	// group.
	groupOffset []int
}

// prefixed is the composed id of a member's group, criterion or source.
func prefixed(sectionID, id string) string { return sectionID + "." + id }

// section appends section si's sources, fields and groups.
func (a *assembler) section(si int) error {
	s := &a.sections[si]
	m := s.Rules
	for _, src := range m.Sources {
		src.ID = prefixed(s.SectionID, src.ID)
		a.r.Sources = append(a.r.Sources, src)
	}
	for fi := range m.Fields {
		if err := a.field(si, &m.Fields[fi]); err != nil {
			return err
		}
	}
	for _, v := range m.Values {
		a.r.Values = append(a.r.Values, sectionValue(s.SectionID, v))
		a.c.ValueSection = append(a.c.ValueSection, si)
	}
	a.groupOffset = append(a.groupOffset, len(a.r.Groups))
	for _, g := range m.Groups {
		criteria := g.Criteria
		g.ID = prefixed(s.SectionID, g.ID)
		g.Criteria = make([]engine.Criterion, len(criteria))
		for ci, cr := range criteria {
			cr.ID = prefixed(s.SectionID, cr.ID)
			if cr.Citations != nil {
				cr.Citations = make([]engine.Citation, len(criteria[ci].Citations))
				for k, cit := range criteria[ci].Citations {
					cr.Citations[k] = engine.Citation{Source: prefixed(s.SectionID, cit.Source), Quote: cit.Quote}
				}
			}
			cr.Fields = slices.Clone(cr.Fields) // reordered by criteria()
			cr.Slots, cr.Text = nil, ""
			cr.Expr = valuesPrefixed(s.SectionID, cr.Expr)
			g.Criteria[ci] = cr
		}
		a.r.Groups = append(a.r.Groups, g)
		a.c.GroupSection = append(a.c.GroupSection, si)
	}
	a.r.ReadsDecisionDate = a.r.ReadsDecisionDate || m.ReadsDecisionDate
	return nil
}

// sectionValue is section sectionID's named value v as the composed
// ruleset holds it: named with the section's prefix, as its criteria and
// sources are (two sections may each have a net_income), its citations
// and the values it reads renamed alike.
func sectionValue(sectionID string, v engine.NamedValue) engine.NamedValue {
	v.ID = prefixed(sectionID, v.ID)
	v.Expr = valuesPrefixed(sectionID, v.Expr)
	keys := v.Keys
	v.Keys = make([]*engine.Expr, len(keys))
	for i, k := range keys {
		v.Keys[i] = valuesPrefixed(sectionID, k)
	}
	rows := func(rows []engine.TableRow) []engine.TableRow {
		out := make([]engine.TableRow, len(rows))
		for i, r := range rows {
			out[i] = engine.TableRow{Match: r.Match, Value: valuesPrefixed(sectionID, r.Value)}
		}
		return out
	}
	if v.Rows != nil {
		v.Rows = rows(v.Rows)
	}
	if v.Periods != nil {
		periods := v.Periods
		v.Periods = make([]engine.TablePeriod, len(periods))
		for i, p := range periods {
			v.Periods[i] = engine.TablePeriod{Period: p.Period, Rows: rows(p.Rows)}
		}
	}
	citations := v.Citations
	v.Citations = make([]engine.Citation, len(citations))
	for k, cit := range citations {
		v.Citations[k] = engine.Citation{Source: prefixed(sectionID, cit.Source), Quote: cit.Quote}
	}
	v.Fields = slices.Clone(v.Fields)
	v.Slots, v.Text = nil, ""
	return v
}

// valuesPrefixed copies e with every named value it reads renamed with
// section sectionID's prefix (sectionValue); fields keep their ids, since
// sections share them. The parts that read no value are shared, not
// copied: Build copies the whole ruleset before it links it.
func valuesPrefixed(sectionID string, e *engine.Expr) *engine.Expr {
	return rewrite(e, func(x *engine.Expr) *engine.Expr {
		if x.Kind != engine.ExprValue {
			return nil
		}
		c := *x
		c.Key, c.Slot = prefixed(sectionID, x.Key), -1
		return &c
	})
}

// rewrite copies e with each node for which replace returns a node
// replaced by it (and not walked further); replace returns nil to keep a
// node and walk its operands. Only the nodes on a path to a replacement
// are copied: the rest is shared with e, which is never changed.
func rewrite(e *engine.Expr, replace func(*engine.Expr) *engine.Expr) *engine.Expr {
	if e == nil {
		return nil
	}
	if r := replace(e); r != nil {
		return r
	}
	var args []*engine.Expr
	for i, arg := range e.Args {
		if renamed := rewrite(arg, replace); renamed != arg {
			if args == nil {
				args = slices.Clone(e.Args)
			}
			args[i] = renamed
		}
	}
	if args == nil {
		return e
	}
	c := *e
	c.Args = args
	return &c
}

// field adds section si's field f, or checks it against the shared field
// of the same id that an earlier section declared.
func (a *assembler) field(si int, f *engine.Field) error {
	s := &a.sections[si]
	a.c.FieldSections[f.ID] = append(a.c.FieldSections[f.ID], s.SectionID)
	if slot, shared := a.fieldAt[f.ID]; shared {
		prev := &a.r.Fields[slot]
		if prev.Type != f.Type || !slices.Equal(prev.EnumValues, f.EnumValues) || !sameList(prev.List, f.List) {
			first := &a.sections[a.owner[slot]]
			return &FieldConflictError{Field: f.ID, First: first.Letter, Second: s.Letter,
				FirstSectionID: first.SectionID, SecondSectionID: s.SectionID,
				FirstType: describeType(prev), SecondType: describeType(f)}
		}
		return nil
	}
	nf := *f
	nf.EnumValues = slices.Clone(f.EnumValues)
	if f.Notes != nil {
		nf.Notes = make([]engine.Note, len(f.Notes))
		for i, n := range f.Notes {
			if n.Source != "" {
				n.Source = prefixed(s.SectionID, n.Source)
			}
			nf.Notes[i] = n
		}
	}
	a.fieldAt[f.ID] = len(a.r.Fields)
	a.owner = append(a.owner, si)
	a.r.Fields = append(a.r.Fields, nf)
	return nil
}

// sameList reports whether two sections declare a shared list alike: a
// list is one household, asked once, so its bound must agree (each
// member's fields are shared by id like any other field).
func sameList(a, b *engine.ListInfo) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Max == b.Max
}

// describeType names a field's type for a conflict message, with an
// enum's values or a list's bound.
func describeType(f *engine.Field) string {
	if f.List != nil {
		return fmt.Sprintf("a list of up to %d", f.List.Max)
	}
	if f.Type != engine.SortEnum {
		return f.Type.String()
	}
	q := make([]string, len(f.EnumValues))
	for i, v := range f.EnumValues {
		q[i] = fmt.Sprintf("%q", v)
	}
	return "enum [" + strings.Join(q, ", ") + "]"
}

// overlay applies the field vocabulary overlay, in field id order so that
// the first unknown id reported is always the same.
func (a *assembler) overlay(overlay map[string]FieldOverlay) error {
	for _, id := range sortedKeys(overlay) {
		slot, ok := a.fieldAt[id]
		if !ok {
			hint := ""
			if near := engine.Nearest(id, a.fieldIDs()); near != "" {
				hint = " (did you mean " + near + "?)"
			}
			return fmt.Errorf("the field vocabulary overlay names field %s, which no section declares%s", id, hint)
		}
		o, f := overlay[id], &a.r.Fields[slot]
		if o.Question != nil {
			f.Question = *o.Question
		}
		if o.Description != nil {
			f.Description = *o.Description
		}
		if o.Weight != nil {
			if *o.Weight < 0 || *o.Weight > maxWeight {
				return fmt.Errorf("the field vocabulary overlay gives field %s weight %d: a weight is a whole number from 0 to %d", id, *o.Weight, maxWeight)
			}
			f.Weight = *o.Weight
		}
		if o.Notes != nil {
			f.Notes = slices.Clone(o.Notes)
		}
	}
	return nil
}

// criteria puts every criterion's Fields in the composed declaration
// order, which Build requires and which differs from the member's when a
// shared field was declared by an earlier section.
func (a *assembler) criteria() {
	for gi := range a.r.Groups {
		for ci := range a.r.Groups[gi].Criteria {
			slices.SortStableFunc(a.r.Groups[gi].Criteria[ci].Fields, func(x, y string) int {
				return a.fieldAt[x] - a.fieldAt[y]
			})
		}
	}
}

// outcome turns the outcome tree into the composed outcome expression.
func (a *assembler) outcome(n *Node) *engine.Expr {
	if n.Section != "" {
		return a.sectionOutcome(int(n.Section[0] - 'A'))
	}
	e := &engine.Expr{Kind: engine.ExprOp, Sort: engine.SortBool, Op: engine.Operator(n.Op), Args: make([]*engine.Expr, len(n.Args))}
	for i, arg := range n.Args {
		e.Args[i] = a.outcome(arg)
	}
	return e
}

// sectionOutcome is a fresh copy of section si's outcome expression with
// its group references renamed to the composed groups (key and slot).
func (a *assembler) sectionOutcome(si int) *engine.Expr {
	sectionID := a.sections[si].SectionID
	return a.withGroups(si, func(e *engine.Expr, slot int) *engine.Expr {
		c := *e
		c.Key, c.Slot = prefixed(sectionID, e.Key), slot
		return &c
	})
}

// withGroups copies section si's outcome expression with each group
// reference e replaced by replace(e, slot), slot being the index of the
// composed group it names (-1 for a group the section does not declare,
// which Build then refuses). Every leaf of an outcome is a group
// reference, so the copy shares nothing with the member.
func (a *assembler) withGroups(si int, replace func(e *engine.Expr, slot int) *engine.Expr) *engine.Expr {
	s := &a.sections[si]
	local := make(map[string]int, len(s.Rules.Groups))
	for gi := range s.Rules.Groups {
		local[s.Rules.Groups[gi].ID] = gi
	}
	return rewrite(s.Rules.Outcome, func(x *engine.Expr) *engine.Expr {
		if x.Kind != engine.ExprGroup {
			return nil
		}
		slot := -1
		if gi, ok := local[x.Key]; ok {
			slot = a.groupOffset[si] + gi
		}
		return replace(x, slot)
	})
}

// fieldIDs lists the composed ruleset's field ids, in order: the names an
// overlay's unknown field may be meant as.
func (a *assembler) fieldIDs() []string {
	ids := make([]string, len(a.r.Fields))
	for i := range a.r.Fields {
		ids[i] = a.r.Fields[i].ID
	}
	return ids
}
