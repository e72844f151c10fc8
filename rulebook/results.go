package rulebook

import (
	"github.com/eligo/eligo/engine"

	"github.com/eligo/eligo/engine/present"
)

// SectionResult is one section's own decision within a rulebook decision:
// a section_results entry (docs/api.md#rulebooks).
type SectionResult struct {
	// Letter is the section's letter in the outcome tree.
	Letter string `json:"letter"`
	// SectionID is the member ruleset's section id.
	SectionID string `json:"section_id"`
	// RulesetID is the member's concrete ruleset id.
	RulesetID string `json:"ruleset_id"`
	// ContentDigest is the member's content digest.
	ContentDigest string `json:"content_digest"`
	// Decision is what the section decides on the same answers.
	Decision engine.Outcome `json:"decision"`
}

// SectionResults gives each section's own decision for an evaluation of
// the composed ruleset, in letter order.
//
// A section's decision is its own outcome expression (its group references
// renamed to the composed groups) evaluated under Kleene's logic over the
// group statuses res already holds: no second evaluation, and, since a
// composed group is evaluated exactly as the member evaluates it, the same
// decision as evaluating the member alone on the answers to its own fields
// (the differential test checks this). Like the composed decision, every
// section is undetermined when res has field errors: an answer that could
// not be applied blocks the whole decision, and a section result must
// never read eligible while the rulebook's answers are in error. A section
// whose own effective period does not cover res's decision date is
// undetermined, as it would be alone. A res that is nil or not from Rules
// gives every section undetermined.
func (c *Composed) SectionResults(res *engine.Result) []SectionResult {
	out := make([]SectionResult, len(c.Sections))
	ok := res != nil && len(res.Groups) == len(c.Rules.Groups) && len(res.FieldErrors) == 0
	for i := range c.Sections {
		s := &c.Sections[i]
		out[i] = SectionResult{Letter: s.Letter, SectionID: s.SectionID, RulesetID: s.RulesetID, ContentDigest: s.ContentDigest}
		if ok && (s.Rules.Effective == nil || s.Rules.Effective.Covers(res.DecisionDate)) {
			switch groupLogic(c.outcomes[i], res.Groups) {
			case engine.Satisfied:
				out[i].Decision = engine.Eligible
			case engine.NotSatisfied:
				out[i].Decision = engine.NotEligible
			}
		}
	}
	return out
}

// groupLogic evaluates an outcome expression (group references joined by
// and, or and not) over group statuses, with the evaluator's Kleene rules.
func groupLogic(e *engine.Expr, groups []engine.Status) engine.Status {
	switch {
	case e == nil:
		return engine.Pending
	case e.Kind == engine.ExprGroup:
		if e.Slot < 0 || e.Slot >= len(groups) {
			return engine.Pending
		}
		return groups[e.Slot]
	case e.Kind != engine.ExprOp:
		return engine.Pending
	}
	switch e.Op {
	case engine.OpNot:
		if len(e.Args) != 1 {
			return engine.Pending
		}
		switch groupLogic(e.Args[0], groups) {
		case engine.Satisfied:
			return engine.NotSatisfied
		case engine.NotSatisfied:
			return engine.Satisfied
		}
		return engine.Pending
	case engine.OpAnd, engine.OpOr:
		decides, rest := engine.NotSatisfied, engine.Satisfied
		if e.Op == engine.OpOr {
			decides, rest = rest, decides
		}
		for _, a := range e.Args {
			switch groupLogic(a, groups) {
			case decides:
				return decides
			case engine.Pending:
				rest = engine.Pending
			}
		}
		return rest
	}
	return engine.Pending
}

// SectionOf returns the section a composed group belongs to, by its index
// in Rules.Groups (for a criterion, use its group's index from
// engine.Ruleset.CriterionAt). ok is false for an index out of range.
func (c *Composed) SectionOf(group int) (s *Section, ok bool) {
	if group < 0 || group >= len(c.GroupSection) {
		return nil, false
	}
	return &c.Sections[c.GroupSection[group]], true
}

// GroupSectionID is the section id of the composed group groupID (a
// prefixed "<section_id>.<group>" id); false when there is no such group.
func (c *Composed) GroupSectionID(groupID string) (string, bool) {
	for gi, g := range c.Rules.Groups {
		if g.ID == groupID {
			s, ok := c.SectionOf(gi)
			if ok {
				return s.SectionID, true
			}
		}
	}
	return "", false
}

// SharedFields counts the fields declared by more than one section: the
// graph.stats.shared_fields (docs/api.md#the-graph).
func (c *Composed) SharedFields() int {
	n := 0
	for _, ids := range c.FieldSections {
		if len(ids) > 1 {
			n++
		}
	}
	return n
}

// Graph is the rulebook graph (docs/api.md#the-graph): the composed ruleset's graph (see
// present.NewGraph; pass in and res for the overlay, nil for none)
// told by section. Every node's section_id is its own section's (a shared
// field's is the first section declaring it; the outcome's is SectionID),
// every node id but the outcome's is prefixed "<section slug>:" as the
// spec asks of a composed graph (edges and route ids alike), graph.sections
// lists the sections' slugs in letter order, and the stats count the
// sections and the shared fields.
func (c *Composed) Graph(in *engine.Inputs, res *engine.Result) *present.Graph {
	g := present.NewGraph(c.Rules, c.Rules.Slug, in, res)
	bySectionID := make(map[string]*Section, len(c.Sections))
	g.Sections = make([]string, len(c.Sections))
	for i := range c.Sections {
		bySectionID[c.Sections[i].SectionID] = &c.Sections[i]
		g.Sections[i] = c.Sections[i].slug()
	}
	// Graph documents its node order: fields in slot order, named values
	// in declaration order, criteria in CriterionAt order, groups, then
	// the outcome.
	nf, nv, nc := len(c.Rules.Fields), len(c.Rules.Values), c.Rules.NumCriteria()
	renamed := make(map[string]string, len(g.Nodes))
	for i := range g.Nodes {
		n := &g.Nodes[i]
		var s *Section
		switch {
		case n.Type == present.NodeTypeField && i < nf:
			s = bySectionID[c.FieldSections[n.Key][0]]
		case n.Type == present.NodeTypeValue && i >= nf && i < nf+nv && i-nf < len(c.ValueSection):
			s = &c.Sections[c.ValueSection[i-nf]]
		case n.Type == present.NodeTypeCriterion && i >= nf+nv && i < nf+nv+nc:
			_, gi := c.Rules.CriterionAt(i - nf - nv)
			s, _ = c.SectionOf(gi)
		case n.Type == present.NodeTypeGroup:
			s, _ = c.SectionOf(i - nf - nv - nc)
		}
		if s == nil {
			continue
		}
		prefix := s.slug() + ":"
		n.SectionID = s.SectionID
		renamed[n.ID] = prefix + n.ID
		n.ID = prefix + n.ID
		if n.Display != nil {
			d := *n.Display
			d.Routes = prefixRoute(d.Routes, prefix)
			n.Display = &d
		}
	}
	for i := range g.Edges {
		e := &g.Edges[i]
		if id, ok := renamed[e.Source]; ok {
			e.Source = id
		}
		if id, ok := renamed[e.Target]; ok {
			e.Target = id
		}
	}
	g.Stats.Sections = len(c.Sections)
	g.Stats.SharedFields = c.SharedFields()
	return g
}

// prefixRoute copies a route tree with every id prefixed.
func prefixRoute(rt *present.Route, prefix string) *present.Route {
	if rt == nil {
		return nil
	}
	c := *rt
	c.ID = prefix + rt.ID
	if rt.Children != nil {
		c.Children = make([]*present.Route, len(rt.Children))
		for i, k := range rt.Children {
			c.Children[i] = prefixRoute(k, prefix)
		}
	}
	return &c
}
