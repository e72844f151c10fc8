package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver"
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/solver/z3"
)

// Semantic diff: whether any applicant gets a different outcome from two
// compiled rulesets, and who. Both are encoded in one context, where a
// field both declare alike (same id, type and, for an enum, the same
// values) is one set of variables, so one model is one applicant answering
// both. A field only one version declares is asked by that version only;
// an enum whose values changed is linked value by value, over the values
// both lists hold; a field whose type changed is two fields. Field changes
// are reported beside the outcome changes.

// Change kinds: the outcome an applicant gets from the old rules, then
// from the new.
const (
	ChangeEligibleToNotEligible     = "eligible_to_not_eligible"
	ChangeNotEligibleToEligible     = "not_eligible_to_eligible"
	ChangeEligibleToUndetermined    = "eligible_to_undetermined"
	ChangeNotEligibleToUndetermined = "not_eligible_to_undetermined"
	ChangeUndeterminedToEligible    = "undetermined_to_eligible"
	ChangeUndeterminedToNotEligible = "undetermined_to_not_eligible"
)

// changeKinds are the kinds in report order, with their outcomes.
var changeKinds = []struct {
	kind     string
	from, to engine.Outcome
}{
	{ChangeEligibleToNotEligible, engine.Eligible, engine.NotEligible},
	{ChangeNotEligibleToEligible, engine.NotEligible, engine.Eligible},
	{ChangeEligibleToUndetermined, engine.Eligible, engine.Undetermined},
	{ChangeNotEligibleToUndetermined, engine.NotEligible, engine.Undetermined},
	{ChangeUndeterminedToEligible, engine.Undetermined, engine.Eligible},
	{ChangeUndeterminedToNotEligible, engine.Undetermined, engine.NotEligible},
}

// DiffOptions tune Diff.
type DiffOptions struct {
	// DecisionDate is the ordinal date both versions are decided as of:
	// what decision_date() reads and what their effective periods are
	// checked against. Required when either version depends on the date
	// (engine.Ruleset.DependsOnDate); the solver never reads the clock, so
	// a caller diffing "as of today" passes value.DateOf of its clock.
	DecisionDate int64
	// Timeout bounds the whole diff, building the encodings included
	// (default 10 s).
	Timeout time.Duration
	// Gate, when not nil, is the process's bound on heavy solver runs: the
	// diff waits for one slot within its Timeout.
	Gate *bound.Gate
}

// SemanticDiff says whom a new version of a ruleset affects.
type SemanticDiff struct {
	// Equivalent is true when no applicant gets a different outcome.
	Equivalent bool `json:"equivalent"`
	// Changes are the kinds of outcome change some applicant meets, each
	// with a witness.
	Changes []Change `json:"changes" nullable:"false"`
	// Fields are the fields added, removed or changed in type or values.
	Fields []FieldChange `json:"field_changes" nullable:"false"`
	// Thresholds are the comparisons whose constant moved, criteria
	// paired by id: the figures a yearly update changes.
	Thresholds []ThresholdChange `json:"threshold_changes" nullable:"false" doc:"Comparisons whose constant the new version changed, criteria paired by id (e.g. an income limit moved from 1,255 to 1,305); empty when none moved."`
	// Figures are the named values and table rows whose figures the new
	// version changed, paired by name (a table's rows by what they match,
	// in the same period).
	Figures []FigureChange `json:"figure_changes,omitempty" doc:"Named values and table rows whose definition the new version changed, paired by name (a table's rows by what they match, in the same period): a yearly figure update shows here row by row. Absent when neither version has values."`
	// PeriodsSetAside is true when both versions declare effective
	// periods and they differ: each is then judged as its own law on the
	// decision date, so that consecutive cuts (this year's figures and
	// next year's) compare by what they decide rather than by the fact
	// that only one of them holds on any one day. A period added or
	// removed is compared as it is: it changes who gets a decision.
	PeriodsSetAside bool `json:"periods_set_aside" doc:"True when both versions declare effective periods and they differ (e.g. consecutive years): each is judged as its own law on decision_date, so the diff shows whom the new figures affect, not that only one version holds on that day."`
}

// Change is one kind of outcome change with an applicant it happens to.
type Change struct {
	// Kind is one of the Change* constants.
	Kind string `json:"kind"`
	// From and To are the outcomes under the old and the new rules.
	From engine.Outcome `json:"from"`
	To   engine.Outcome `json:"to"`
	// Witness is the applicant: the answers given (field id to wire
	// value); a field left out is unanswered. Kept small: fields that need
	// no answer for the change are left unanswered.
	Witness map[string]any `json:"witness"`
	// Criteria are the criteria whose status differs for the witness,
	// with their quotes on both sides.
	Criteria []CriterionChange `json:"criteria" nullable:"false"`
}

// CriterionChange is a criterion whose status differs between versions.
type CriterionChange struct {
	// CriterionID identifies it; a criterion only one version has shows
	// no status on the other side.
	CriterionID string `json:"criterion_id"`
	// Old and New are its statuses; empty when that version lacks it.
	Old string `json:"old_status,omitempty"`
	New string `json:"new_status,omitempty"`
	// OldQuotes and NewQuotes are its citations' quotes in each version.
	OldQuotes []string `json:"old_quotes" nullable:"false"`
	NewQuotes []string `json:"new_quotes" nullable:"false"`
}

// FieldChange is a field the versions declare differently.
type FieldChange struct {
	// Field is the field id.
	Field string `json:"field"`
	// Kind is added, removed, type_changed or values_changed.
	Kind string `json:"kind" enum:"added,removed,type_changed,values_changed"`
	// Old and New describe the field in each version ("int", `enum [a, b]`).
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
}

// diffScale is the decimal places witnesses are drawn with.
const diffScale = 2

// Diff compares two compiled rulesets: for each kind of outcome change,
// whether an applicant exists who meets it, with one such applicant and
// the criteria that changed for them; or that none does (Equivalent).
func Diff(ctx context.Context, old, new *engine.Ruleset, opts DiffOptions) (SemanticDiff, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	if opts.DecisionDate == 0 && (old.DependsOnDate() || new.DependsOnDate()) {
		return SemanticDiff{}, errors.New("solver: diff: these rules depend on the decision date and none was given")
	}
	out := SemanticDiff{Changes: []Change{}, Fields: fieldChanges(old, new), Thresholds: thresholdChanges(old, new), Figures: figureChanges(old, new),
		PeriodsSetAside: consecutive(old.Effective, new.Effective)}
	release, err := opts.Gate.Enter(ctx)
	if err != nil {
		return out, fmt.Errorf("solver: diff: %w", err)
	}
	defer release()
	c, err := z3.NewContext()
	if err != nil {
		return out, fmt.Errorf("solver: diff: %w", err)
	}
	defer c.Close()
	a, err := solver.EncodeContext(ctx, c, old)
	if err != nil {
		return out, err
	}
	b, links, err := encodeAgainst(ctx, c, a, new)
	if err != nil {
		return out, err
	}
	if out.PeriodsSetAside {
		if a, err = a.WithoutPeriod(); err != nil {
			return out, err
		}
		if b, err = b.WithoutPeriod(); err != nil {
			return out, err
		}
	}
	s, err := a.NewSolver(solver.QueryTimeout)
	if err != nil {
		return out, err
	}
	defer s.Close()
	base := slices.Concat(b.Axioms(), links, a.DecimalGrid(diffScale), b.DecimalGrid(diffScale))
	if old.DependsOnDate() {
		base = append(base, a.DecisionDateIs(opts.DecisionDate))
	}
	if new.DependsOnDate() {
		base = append(base, b.DecisionDateIs(opts.DecisionDate))
	}
	if err := solver.AssertAll(s, base); err != nil {
		return out, err
	}
	for _, k := range changeKinds {
		ch, found, err := findChange(ctx, s, a, b, k.from, k.to, out.Thresholds)
		if err != nil {
			return out, err
		}
		if found {
			ch.Kind = k.kind
			out.Changes = append(out.Changes, ch)
		}
	}
	out.Equivalent = len(out.Changes) == 0
	return out, nil
}

// encodeAgainst encodes new in a's context so that the fields both
// declare alike share a's variables; an enum whose values changed gets
// fresh variables linked to a's value by value (links).
func encodeAgainst(ctx context.Context, c *z3.Context, a *solver.Encoding, new *engine.Ruleset) (*solver.Encoding, []*z3.Expr, error) {
	b, err := solver.EncodeContext(ctx, c, new)
	if err != nil {
		return nil, nil, err
	}
	old := a.Ruleset()
	var relinked []int
	for slot, f := range new.Fields {
		i := old.FieldIndex(f.ID)
		if i >= 0 && (old.Fields[i].Type != f.Type || f.Type == engine.SortEnum && !slices.Equal(old.Fields[i].EnumValues, f.EnumValues)) {
			relinked = append(relinked, slot)
		}
	}
	if len(relinked) == 0 {
		return b, nil, nil
	}
	if b, err = b.Variant("new", relinked...); err != nil {
		return nil, nil, err
	}
	var links []*z3.Expr
	for _, slot := range relinked {
		f := &new.Fields[slot]
		i := old.FieldIndex(f.ID)
		if numeric(old.Fields[i].Type) && numeric(f.Type) {
			// An int that became a decimal (or back) is the same number.
			links = append(links, c.Eq(b.Present(slot), a.Present(i)), c.Eq(asReal(c, b, slot), asReal(c, a, i)))
			continue
		}
		if f.Type != engine.SortEnum || old.Fields[i].Type != engine.SortEnum {
			continue // another type: two unrelated fields
		}
		links = append(links, c.Eq(b.Present(slot), a.Present(i)))
		var both []*z3.Expr
		for j, v := range f.EnumValues {
			if k := slices.Index(old.Fields[i].EnumValues, v); k >= 0 {
				oldIs, newIs := c.Eq(a.Value(i), c.Int(int64(k))), c.Eq(b.Value(slot), c.Int(int64(j)))
				links = append(links, c.Eq(oldIs, newIs))
				both = append(both, newIs)
			}
		}
		// An answer only one version takes is a field error in the other,
		// not a difference in the rules: leave such answers out.
		links = append(links, c.Implies(b.Present(slot), c.Or(append(both, c.Bool(false))...)))
	}
	return b, links, nil
}

func numeric(s engine.Sort) bool { return s == engine.SortInt || s == engine.SortDecimal }

// asReal is field slot's value of e as a Real.
func asReal(c *z3.Context, e *solver.Encoding, slot int) *z3.Expr {
	if e.Ruleset().Fields[slot].Type == engine.SortInt {
		return c.ToReal(e.Value(slot))
	}
	return e.Value(slot)
}

// findChange looks for an applicant with outcome from under a and to under
// b, then leaves unanswered every field the change does not need and
// draws each number near the figures the law names (nearAnchors).
func findChange(ctx context.Context, s *z3.Solver, a, b *solver.Encoding, from, to engine.Outcome, moved []ThresholdChange) (Change, bool, error) {
	ch := Change{From: from, To: to}
	if err := s.Push(); err != nil {
		return ch, false, fmt.Errorf("solver: diff: %w", err)
	}
	// scopes counts the pushes to undo: this one and each kept
	// "unanswered" below.
	scopes := uint(1)
	defer func() { _ = s.Pop(scopes) }()
	if err := solver.AssertAll(s, []*z3.Expr{a.OutcomeIs(from), b.OutcomeIs(to)}); err != nil {
		return ch, false, err
	}
	res, err := s.Check(ctx)
	if err != nil {
		return ch, false, err
	}
	if res == z3.Unknown {
		return ch, false, fmt.Errorf("solver: diff: the solver could not decide whether any applicant goes from %s to %s", from, to)
	}
	if res != z3.Sat {
		return ch, false, nil
	}
	// Leave each field unanswered when the change survives it, in
	// declaration order: a small witness is a readable one.
	for slot := range a.Ruleset().Fields {
		if err := s.Push(); err != nil {
			return ch, false, fmt.Errorf("solver: diff: %w", err)
		}
		if err := s.Assert(a.Unanswered(slot)); err != nil {
			return ch, false, err
		}
		res, err := s.Check(ctx)
		if err != nil {
			return ch, false, err
		}
		if res != z3.Sat {
			if err := s.Pop(1); err != nil {
				return ch, false, fmt.Errorf("solver: diff: %w", err)
			}
			continue
		}
		scopes++
	}
	kept, err := nearAnchors(ctx, s, a, moved)
	scopes += kept
	if err != nil {
		return ch, false, err
	}
	if res, err := s.Check(ctx); err != nil || res != z3.Sat {
		return ch, false, fmt.Errorf("solver: diff: the witness could not be read back (%v, %v)", res, err)
	}
	m, err := s.Model()
	if err != nil {
		return ch, false, err
	}
	defer m.Close()
	if ch.Witness, err = diffWitness(m, a, b); err != nil {
		return ch, false, err
	}
	if ch.Criteria, err = criterionChanges(m, a, b); err != nil {
		return ch, false, err
	}
	return ch, true, nil
}

// diffWitness is the model's answers as field id to wire value, from a for
// the fields it declares and b for the others.
func diffWitness(m *z3.Model, a, b *solver.Encoding) (map[string]any, error) {
	out := map[string]any{}
	for _, e := range []*solver.Encoding{b, a} {
		in, _, err := e.Decode(m)
		if err != nil {
			return nil, err
		}
		var answers map[string]json.RawMessage
		if err := json.Unmarshal(e.Ruleset().WireAnswers(in.Values, true), &answers); err != nil {
			return nil, fmt.Errorf("diff witness: %w", err)
		}
		for id, v := range answers {
			out[id] = v
		}
	}
	return out, nil
}

// criterionChanges lists the criteria whose status the model gives
// differently under a and b, criteria of only one version included.
func criterionChanges(m *z3.Model, a, b *solver.Encoding) ([]CriterionChange, error) {
	sa, err := a.Statuses(m)
	if err != nil {
		return nil, err
	}
	sb, err := b.Statuses(m)
	if err != nil {
		return nil, err
	}
	type side struct {
		status string
		quotes []string
	}
	read := func(r *engine.Ruleset, st solver.Statuses) map[string]side {
		out := map[string]side{}
		for i := range r.NumCriteria() {
			cr, _ := r.CriterionAt(i)
			q := []string{}
			for _, ci := range cr.Citations {
				q = append(q, ci.Quote)
			}
			out[cr.ID] = side{st.Criteria[i].String(), q}
		}
		return out
	}
	olds, news := read(a.Ruleset(), sa), read(b.Ruleset(), sb)
	var ids []string
	for id, o := range olds {
		if n, ok := news[id]; !ok || n.status != o.status {
			ids = append(ids, id)
		}
	}
	for id := range news {
		if _, ok := olds[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	out := []CriterionChange{}
	for _, id := range ids {
		o, n := olds[id], news[id]
		out = append(out, CriterionChange{CriterionID: id, Old: o.status, New: n.status,
			OldQuotes: orNone(o.quotes), NewQuotes: orNone(n.quotes)})
	}
	return out, nil
}

func orNone(q []string) []string {
	if q == nil {
		return []string{}
	}
	return q
}

// fieldChanges lists fields added, removed or redeclared.
func fieldChanges(old, new *engine.Ruleset) []FieldChange {
	describe := func(f *engine.Field) string {
		if f.Type == engine.SortEnum {
			return fmt.Sprintf("enum %q", f.EnumValues)
		}
		return f.Type.String()
	}
	out := []FieldChange{}
	for i := range old.Fields {
		f := &old.Fields[i]
		j := new.FieldIndex(f.ID)
		switch {
		case j < 0:
			out = append(out, FieldChange{Field: f.ID, Kind: "removed", Old: describe(f)})
		case new.Fields[j].Type != f.Type:
			out = append(out, FieldChange{Field: f.ID, Kind: "type_changed", Old: describe(f), New: describe(&new.Fields[j])})
		case f.Type == engine.SortEnum && !slices.Equal(f.EnumValues, new.Fields[j].EnumValues):
			out = append(out, FieldChange{Field: f.ID, Kind: "values_changed", Old: describe(f), New: describe(&new.Fields[j])})
		}
	}
	for i := range new.Fields {
		if old.FieldIndex(new.Fields[i].ID) < 0 {
			out = append(out, FieldChange{Field: new.Fields[i].ID, Kind: "added", New: describe(&new.Fields[i])})
		}
	}
	return out
}
