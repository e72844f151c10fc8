package rulebook

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eligo/eligo/engine"
)

// MaxFacts is the most section facts a rulebook lists. Each binds a
// distinct bool field and inlines a section's outcome, so a real rulebook
// has a handful; 256 is far beyond any, and keeps a request from making
// Compose inline a section's outcome thousands of times.
const MaxFacts = 256

// SectionFact binds a yes/no field of the composition to another section's
// outcome (section_facts, docs/api.md#rulebooks): WIC's "Does the applicant
// receive SNAP?" is, in a rulebook that also composes SNAP, SNAP's own
// decision. The field is then never asked; it reads true where the section
// is eligible, false where it is not and unknown while it is undetermined.
type SectionFact struct {
	// Field is the id of a bool field some section declares.
	Field string `json:"field" minLength:"1" maxLength:"200" doc:"A bool field some section of the rulebook declares."`
	// Section is the letter of the section whose outcome the field is.
	Section string `json:"section" minLength:"1" maxLength:"1" doc:"The letter of the section whose outcome the field becomes (A, B, C...)."`
}

// FactCycleError is Compose's refusal of section facts that make a
// section's outcome depend on itself: section A reads a field bound to B
// and B one bound to A (or a longer ring), so neither could be decided
// first.
type FactCycleError struct {
	// Letters are the sections of the cycle in order, the first repeated
	// at the end: ["A", "B", "A"].
	Letters []string
	// Fields[i] is the field of section Letters[i] bound to section
	// Letters[i+1]'s outcome.
	Fields []string
}

// Error reads e.g. "section_facts form a cycle, A → B → A: section A's
// field income.snap is section B's outcome, and section B's field x is
// section A's outcome".
func (e *FactCycleError) Error() string {
	steps := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		steps[i] = fmt.Sprintf("section %s's field %s is section %s's outcome", e.Letters[i], f, e.Letters[i+1])
	}
	return fmt.Sprintf("section_facts form a cycle, %s: %s; a section's outcome cannot depend on itself",
		strings.Join(e.Letters, " → "), strings.Join(steps, ", and "))
}

// facts binds the composition's section facts (Spec.Facts, see SectionFact): each bound field
// becomes a named value of the composition, whose expression is its
// section's outcome written over fields only (groups replaced by their
// criteria joined with and or or, as the evaluator joins them, so
// Kleene's logic gives the section's own three-valued decision); every
// expression reading the field reads the value instead; and the field
// leaves the field list, so nothing asks it. It runs after the sections
// and the overlay are in place and before criteria().
func (a *assembler) facts(facts []SectionFact, overlay map[string]FieldOverlay) error {
	if len(facts) == 0 {
		return nil
	}
	bound, err := a.checkFacts(facts, overlay)
	if err != nil {
		return err
	}
	if err := a.factCycle(facts, bound); err != nil {
		return err
	}
	for _, f := range facts {
		if err := a.usableAsFact(bound[f.Field]); err != nil {
			return err
		}
	}
	for _, f := range facts {
		ti := bound[f.Field]
		t := &a.sections[ti]
		a.r.Values = append(a.r.Values, engine.NamedValue{ID: f.Field, Title: fmt.Sprintf("%s (section %s)", t.Rules.Name, t.Letter),
			Type: engine.SortBool, Expr: a.inlineOutcome(ti), Citations: a.sectionCitations(ti)})
		a.c.ValueSection = append(a.c.ValueSection, ti)
	}
	if err := a.readFacts(bound); err != nil {
		return err
	}
	a.dropFields(bound)
	a.refreshFields()
	a.c.Facts = slices.Clone(facts)
	return nil
}

// checkFacts checks each fact on its own and returns the bound fields with
// the index of their section.
func (a *assembler) checkFacts(facts []SectionFact, overlay map[string]FieldOverlay) (map[string]int, error) {
	bound := make(map[string]int, len(facts))
	for i, f := range facts {
		path := fmt.Sprintf("section_facts[%d]", i)
		if msg := letterProblem(f.Section, len(a.sections)); msg != "" {
			return nil, fmt.Errorf("%s.section: %s", path, msg)
		}
		ti := int(f.Section[0] - 'A')
		t := &a.sections[ti]
		slot, ok := a.fieldAt[f.Field]
		if !ok {
			hint := ""
			if near := engine.Nearest(f.Field, a.fieldIDs()); near != "" {
				hint = " (did you mean " + near + "?)"
			}
			return nil, fmt.Errorf("%s.field: no section declares field %s%s", path, f.Field, hint)
		}
		if fd := &a.r.Fields[slot]; fd.Type != engine.SortBool || fd.Member != nil {
			what := describeType(fd)
			if fd.Member != nil {
				what = "a field of a list's members"
			}
			return nil, fmt.Errorf("%s.field: field %s is %s: only a plain bool field can stand for a section's outcome (eligible true, not eligible false)", path, f.Field, what)
		}
		if prev, dup := bound[f.Field]; dup {
			return nil, fmt.Errorf("%s.field: field %s is bound twice, to section %s and to section %s: a field is one section's outcome", path, f.Field, Letter(prev), f.Section)
		}
		if slices.Contains(a.c.FieldSections[f.Field], t.SectionID) {
			return nil, fmt.Errorf("%s: field %s is declared by section %s (%s) itself: a section is bound to itself, and its outcome cannot be an answer to its own question", path, f.Field, f.Section, t.SectionID)
		}
		if _, worded := overlay[f.Field]; worded {
			return nil, fmt.Errorf("%s.field: the field vocabulary overlay words field %s, which is section %s's outcome and never asked: remove its overlay entry", path, f.Field, f.Section)
		}
		bound[f.Field] = ti
	}
	return bound, nil
}

// factCycle refuses facts under which a section's outcome depends on
// itself, with a *FactCycleError naming the first cycle found (sections
// visited in letter order, so the same facts always name the same one).
// Section S depends on T when S declares a field bound to T.
func (a *assembler) factCycle(facts []SectionFact, bound map[string]int) error {
	type edge struct {
		to    int
		field string
	}
	edges := make([][]edge, len(a.sections))
	for _, f := range facts {
		for _, sid := range a.c.FieldSections[f.Field] {
			si := slices.IndexFunc(a.sections, func(s Section) bool { return s.SectionID == sid })
			edges[si] = append(edges[si], edge{to: bound[f.Field], field: f.Field})
		}
	}
	state := make([]uint8, len(a.sections)) // 0 unseen, 1 on the path, 2 done
	var letters, fields []string
	var visit func(si int) error
	visit = func(si int) error {
		state[si] = 1
		letters = append(letters, Letter(si))
		for _, e := range edges[si] {
			fields = append(fields, e.field)
			switch state[e.to] {
			case 1:
				start := slices.Index(letters, Letter(e.to))
				return &FactCycleError{Letters: append(slices.Clone(letters[start:]), Letter(e.to)), Fields: slices.Clone(fields[start:])}
			case 0:
				if err := visit(e.to); err != nil {
					return err
				}
			}
			fields = fields[:len(fields)-1]
		}
		letters = letters[:len(letters)-1]
		state[si] = 2
		return nil
	}
	for si := range a.sections {
		if state[si] == 0 {
			if err := visit(si); err != nil {
				return err
			}
		}
	}
	return nil
}

// usableAsFact refuses section ti as a fact when answers alone cannot
// decide it: a discretionary criterion (an official decides it, so it is
// always pending) has no expression to write its outcome with.
func (a *assembler) usableAsFact(ti int) error {
	t := &a.sections[ti]
	for _, g := range t.Rules.Groups {
		for _, c := range g.Criteria {
			if c.Discretionary || c.Expr == nil {
				return fmt.Errorf("section %s (%s) cannot be a section fact: its criterion %s is discretionary (an official decides it), so answers alone never decide the section", t.Letter, t.SectionID, c.ID)
			}
		}
	}
	return nil
}

// inlineOutcome is section ti's outcome expression with every group
// reference replaced by the group's own expression: its criteria's
// conditions (as composed, values prefixed) joined by and for an all group
// and by or for an any group, one criterion standing alone. The evaluator
// gives a group the status Kleene's and/or of its criteria's statuses
// gives, so this expression has the section's own three-valued outcome.
func (a *assembler) inlineOutcome(ti int) *engine.Expr {
	return a.withGroups(ti, func(e *engine.Expr, slot int) *engine.Expr {
		if slot < 0 {
			return e // no such group: Build refuses the reference
		}
		g := &a.r.Groups[slot]
		if len(g.Criteria) == 1 {
			return g.Criteria[0].Expr
		}
		op := engine.OpAnd
		if g.Kind == engine.GroupAny {
			op = engine.OpOr
		}
		out := &engine.Expr{Kind: engine.ExprOp, Sort: engine.SortBool, Op: op, Args: make([]*engine.Expr, len(g.Criteria))}
		for ci := range g.Criteria {
			out.Args[ci] = g.Criteria[ci].Expr
		}
		return out
	})
}

// sectionCitations are the citations a fact of section ti rests on: each
// criterion's first citation, under its composed source id, each once.
func (a *assembler) sectionCitations(ti int) []engine.Citation {
	var out []engine.Citation
	end := len(a.r.Groups)
	if ti+1 < len(a.groupOffset) {
		end = a.groupOffset[ti+1]
	}
	for _, g := range a.r.Groups[a.groupOffset[ti]:end] {
		for _, c := range g.Criteria {
			if len(c.Citations) > 0 && !slices.Contains(out, c.Citations[0]) {
				out = append(out, c.Citations[0])
			}
		}
	}
	return out
}

// readFacts makes every criterion and named value that reads a bound field
// read its fact value instead.
func (a *assembler) readFacts(bound map[string]int) error {
	for gi := range a.r.Groups {
		for ci := range a.r.Groups[gi].Criteria {
			c := &a.r.Groups[gi].Criteria[ci]
			e, err := readFact(c.Expr, bound)
			if err != nil {
				return fmt.Errorf("criterion %s: %w", c.ID, err)
			}
			c.Expr = e
		}
	}
	for vi := range a.r.Values {
		v := &a.r.Values[vi]
		var err error
		if v.Expr, err = readFact(v.Expr, bound); err != nil {
			return fmt.Errorf("value %s: %w", v.ID, err)
		}
		for k := range v.Keys {
			if v.Keys[k], err = readFact(v.Keys[k], bound); err != nil {
				return fmt.Errorf("value %s: %w", v.ID, err)
			}
		}
		for _, rows := range tableRows(v) {
			for i := range rows {
				if rows[i].Value, err = readFact(rows[i].Value, bound); err != nil {
					return fmt.Errorf("value %s: %w", v.ID, err)
				}
			}
		}
	}
	return nil
}

// tableRows are a table's row lists: its rows, or each period's.
func tableRows(v *engine.NamedValue) [][]engine.TableRow {
	out := [][]engine.TableRow{v.Rows}
	for _, p := range v.Periods {
		out = append(out, p.Rows)
	}
	return out
}

// readFact copies e with every read of a bound field turned into a read
// of its fact value (named like the field), and a constant compared with
// it no longer tied to the field. present(), absent() and ?? ask whether
// the field was answered, which a section's outcome never is, so they are
// refused. Parts that read no bound field are shared.
func readFact(e *engine.Expr, bound map[string]int) (*engine.Expr, error) {
	var err error
	out := rewrite(e, func(x *engine.Expr) *engine.Expr {
		switch {
		case x.Kind == engine.ExprField && hasKey(bound, x.Key):
			return &engine.Expr{Kind: engine.ExprValue, Sort: engine.SortBool, Key: x.Key, Slot: -1}
		case x.Kind == engine.ExprConst && x.FieldContext != "" && hasKey(bound, x.FieldContext):
			c := *x
			c.FieldContext = ""
			return &c
		case x.Kind == engine.ExprOp && (x.Op == engine.OpPresent || x.Op == engine.OpAbsent || x.Op == engine.OpDefault) &&
			len(x.Args) > 0 && x.Args[0].Kind == engine.ExprField && hasKey(bound, x.Args[0].Key) && err == nil:
			err = fmt.Errorf("it applies %s to field %s, which asks whether the field was answered; a field bound to a section's outcome is never answered, so it cannot be a section fact", x.Op, x.Args[0].Key)
		}
		return nil
	})
	return out, err
}

func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

// dropFields takes the bound fields out of the composition's field list
// and its field-to-section map: nothing asks them any more.
func (a *assembler) dropFields(bound map[string]int) {
	fields, owner := a.r.Fields[:0:0], a.owner[:0:0]
	for slot, f := range a.r.Fields {
		if hasKey(bound, f.ID) {
			delete(a.c.FieldSections, f.ID)
			continue
		}
		fields, owner = append(fields, f), append(owner, a.owner[slot])
	}
	a.r.Fields, a.owner = fields, owner
	a.fieldAt = make(map[string]int, len(fields))
	for slot, f := range fields {
		a.fieldAt[f.ID] = slot
	}
}

// refreshFields recomputes what every criterion and named value reads,
// directly or through values, in field order: reading a fact value reads
// the fields of its section's outcome.
func (a *assembler) refreshFields() {
	at := make(map[string]int, len(a.r.Values))
	for vi := range a.r.Values {
		at[a.r.Values[vi].ID] = vi
	}
	done := make([][]string, len(a.r.Values))
	var valueFields func(vi int) []string
	var reads func(es ...*engine.Expr) []string
	valueFields = func(vi int) []string {
		if done[vi] == nil {
			done[vi] = []string{} // values are acyclic (Build checks); this only stops a loop
			done[vi] = reads(a.r.Values[vi].Exprs()...)
		}
		return done[vi]
	}
	reads = func(es ...*engine.Expr) []string {
		seen := map[string]bool{}
		var walk func(e *engine.Expr)
		walk = func(e *engine.Expr) {
			if e == nil {
				return
			}
			switch e.Kind {
			case engine.ExprField:
				seen[e.Key] = true
			case engine.ExprValue:
				if vi, ok := at[e.Key]; ok {
					for _, f := range valueFields(vi) {
						seen[f] = true
					}
				}
			}
			for _, arg := range e.Args {
				walk(arg)
			}
		}
		for _, e := range es {
			walk(e)
		}
		out := make([]string, 0, len(seen))
		for f := range seen {
			out = append(out, f)
		}
		slices.SortFunc(out, func(x, y string) int { return a.fieldAt[x] - a.fieldAt[y] })
		return out
	}
	for vi := range a.r.Values {
		a.r.Values[vi].Fields = valueFields(vi)
	}
	for gi := range a.r.Groups {
		for ci := range a.r.Groups[gi].Criteria {
			c := &a.r.Groups[gi].Criteria[ci]
			if !c.Discretionary {
				c.Fields = reads(c.Expr)
			}
		}
	}
}

// CheckFacts checks section facts as a request or a rulebook file states
// them, for a rulebook of letters sections, and reports every problem in
// the 422 validation list's shape, located from "section_facts": a field
// not given, a section that is not one of the rulebook's letters, a field
// bound twice, more than MaxFacts. Whether the field exists and is a bool, and whether the
// facts form a cycle, depends on the members, so Compose checks those.
func CheckFacts(facts []SectionFact, letters int) []Problem {
	if len(facts) > MaxFacts {
		return []Problem{{Type: "too_long", Loc: []any{"section_facts"},
			Msg: fmt.Sprintf("%d section facts: a rulebook lists at most %d", len(facts), MaxFacts)}}
	}
	var out []Problem
	first := map[string]int{}
	for i, f := range facts {
		loc := []any{"section_facts", i}
		if f.Field == "" {
			out = append(out, Problem{Type: "missing", Loc: at(loc, "field"), Msg: "Field required: the id of a bool field some section declares"})
		} else if prev, dup := first[f.Field]; dup {
			out = append(out, Problem{Type: "value_error", Loc: at(loc, "field"),
				Msg: fmt.Sprintf("field %s is bound twice (section_facts[%d] binds it too): a field is one section's outcome", f.Field, prev), Input: f.Field})
		} else {
			first[f.Field] = i
		}
		if msg := letterProblem(f.Section, letters); msg != "" {
			out = append(out, Problem{Type: "value_error", Loc: at(loc, "section"), Msg: msg, Input: f.Section})
		}
	}
	return out
}
