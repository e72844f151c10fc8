package verify

// The checks of the static analysis, one method per kind of finding, run
// in the order of analysisStages (analyze.go) over the shared analysis
// state.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver"
	"github.com/eligo/eligo/solver/z3"
)

// criteria finds the criteria never satisfied and those always satisfied
// once their fields are answered. Discretionary criteria are skipped.
func (a *analysis) criteria() error {
	for i := range a.r.NumCriteria() {
		cr, g := a.r.CriterionAt(i)
		if cr.Discretionary || cr.Expr == nil {
			continue
		}
		satisfied := func(s analyzeSample) bool { return s.res.Criteria[i] == engine.Satisfied }
		res, err := a.possible("criterion "+cr.ID+" satisfiable", satisfied, a.enc.CriterionIs(i, engine.Satisfied))
		if err != nil {
			return err
		}
		a.critSatisfiable[i] = a.critSatisfiable[i] || res == z3.Sat
		if res == z3.Unsat {
			a.critNever[i] = true
			a.add(i, g, FindingCriterionNeverSatisfied, nil, fmt.Sprintf("%s can never be satisfied: %s, so %s.",
				a.criterionName(i), a.noAnswer(cr), a.deadEnd(g)))
			continue
		}
		failed := func(s analyzeSample) bool {
			return s.res.Criteria[i] == engine.NotSatisfied && a.completeAt(s.in, cr.Slots)
		}
		as := []*z3.Expr{a.c.Not(a.enc.CriterionIs(i, engine.Satisfied))}
		for _, s := range cr.Slots {
			as = append(as, a.enc.Complete(s))
		}
		res, err = a.possible("criterion "+cr.ID+" can fail", failed, as...)
		if err != nil {
			return err
		}
		if res == z3.Unsat {
			a.alwaysSatisfied[i] = true
			a.add(i, g, FindingCriterionAlwaysSatisfied, nil, a.alwaysMessage(i, cr))
		}
	}
	return nil
}

// alwaysMessage words criterion_always_satisfied.
func (a *analysis) alwaysMessage(i int, cr *engine.Criterion) string {
	if len(cr.Fields) == 0 {
		return fmt.Sprintf("%s is satisfied on every decision date, so it never rules anyone out.", a.criterionName(i))
	}
	return fmt.Sprintf("%s is satisfied whatever the answers to %s (once answered), so it only makes the applicant answer and never rules anyone out.",
		a.criterionName(i), andList(cr.Fields))
}

// noAnswer says "no answers to f and g make it hold" for a criterion's
// fields, mentioning the decision date when the ruleset reads it.
func (a *analysis) noAnswer(cr *engine.Criterion) string {
	what := "no answers to " + andList(cr.Fields) + " make it hold"
	if len(cr.Fields) == 0 {
		what = "it holds in no case"
	}
	if a.r.ReadsDecisionDate {
		what += " on any decision date"
	}
	return what
}

// deadEnd says what a criterion that never holds does to its group g.
func (a *analysis) deadEnd(g int) string {
	grp := &a.r.Groups[g]
	if grp.Kind == engine.GroupAll {
		return fmt.Sprintf("group %s can never be satisfied either", grp.ID)
	}
	return fmt.Sprintf("it never helps anyone satisfy group %s", grp.ID)
}

// groups finds the groups never satisfied, discretionary criteria decided
// in the applicant's favour. An any group is never satisfied exactly when
// each of its alternatives is (as the criteria step proved); an all group
// when its criteria conflict, which a minimal unsat core names.
func (a *analysis) groups() error {
	for g := range a.r.Groups {
		grp := &a.r.Groups[g]
		if a.groupSatisfiable[g] {
			continue
		}
		var criteria []int
		free := false
		for i := range a.r.NumCriteria() {
			cr, cg := a.r.CriterionAt(i)
			switch {
			case cg != g:
			case cr.Discretionary || cr.Expr == nil:
				free = true
			default:
				criteria = append(criteria, i)
			}
		}
		if grp.Kind == engine.GroupAny {
			if free || slices.ContainsFunc(criteria, func(i int) bool { return !a.critNever[i] }) {
				continue
			}
			a.groupNever[g] = true
			msg := fmt.Sprintf("Group %s (%q) can never be satisfied: none of its alternatives can hold.", grp.ID, grp.Title)
			a.out = append(a.out, Finding{Kind: FindingGroupNeverSatisfied, Group: grp.ID, Message: msg})
			continue
		}
		if len(criteria) == 0 {
			continue
		}
		// The group as one term first: Z3 finds a model of it far
		// faster than of the tracked literals the core needs.
		satisfied := func(s analyzeSample) bool { return s.res.Groups[g] == engine.Satisfied }
		res, err := a.possible("group "+grp.ID+" satisfiable", satisfied, a.decided.GroupIs(g, engine.Satisfied))
		if err != nil {
			return err
		}
		if res != z3.Unsat {
			// Satisfiable with discretionary criteria decided: the
			// redundancy step's premises are consistent.
			a.groupSatisfiable[g] = a.groupSatisfiable[g] || res == z3.Sat
			continue
		}
		core, err := a.minimalCore("group "+grp.ID+" conflict", nil, criteria)
		if err != nil {
			return err
		}
		if core == nil {
			continue
		}
		a.groupNever[g] = true
		ids := a.criterionIDs(core)
		why := fmt.Sprintf("criteria %s cannot hold together", andList(ids))
		if len(ids) == 1 {
			why = fmt.Sprintf("criterion %s can never hold", ids[0])
		}
		msg := fmt.Sprintf("Group %s (%q) can never be satisfied: %s.", grp.ID, grp.Title, why)
		a.out = append(a.out, Finding{Kind: FindingGroupNeverSatisfied, Group: grp.ID, Others: ids, Message: msg})
	}
	return nil
}

// outcome checks whether any answers make the outcome eligible, and
// whether every complete set of answers does.
func (a *analysis) outcome() error {
	favour := ""
	if a.hasDiscretionary() {
		favour = ", even with every discretionary criterion decided in the applicant's favour"
	}
	eligible := func(s analyzeSample) bool { return s.res.Outcome == engine.Eligible }
	res, err := a.possible("outcome eligible", eligible, a.decided.OutcomeIs(engine.Eligible))
	if err != nil {
		return err
	}
	if res == z3.Unsat {
		a.outcomeFixed = true
		a.out = append(a.out, Finding{Kind: FindingOutcomeNeverEligible,
			Message: "No answers make the outcome eligible" + favour + ": every applicant is found not eligible or undetermined."})
	}
	refused := func(s analyzeSample) bool {
		return s.res.Outcome == engine.NotEligible && a.r.Complete(s.in)
	}
	as := []*z3.Expr{a.c.Not(a.decided.OutcomeIs(engine.Eligible))}
	for s := range a.r.Fields {
		as = append(as, a.enc.Complete(s))
	}
	res, err = a.possible("outcome can fail", refused, as...)
	if err != nil {
		return err
	}
	if res == z3.Unsat {
		whatever := ""
		if a.hasDiscretionary() {
			whatever = ", however the discretionary criteria are decided"
		}
		a.outcomeFixed = true
		a.out = append(a.out, Finding{Kind: FindingOutcomeAlwaysEligible,
			Message: "Every applicant who answers every question is found eligible" + whatever + ", so the rules never turn anyone down."})
	}
	return nil
}

// hasDiscretionary reports whether r has a discretionary criterion, which
// the outcome messages then mention.
func (a *analysis) hasDiscretionary() bool {
	for i := range a.r.NumCriteria() {
		if cr, _ := a.r.CriterionAt(i); cr.Discretionary || cr.Expr == nil {
			return true
		}
	}
	return false
}

// redundancy looks, in each all group that can be satisfied, for criteria
// the others imply. It goes from the last criterion to the first and drops
// each redundant one from the premises of the next, so that the criteria
// reported can all be removed together, and of two criteria that imply
// each other the later one is reported.
func (a *analysis) redundancy() error {
	for g := range a.r.Groups {
		grp := &a.r.Groups[g]
		if grp.Kind != engine.GroupAll || a.groupNever[g] {
			continue
		}
		var kept []int
		for i := range a.r.NumCriteria() {
			if cr, cg := a.r.CriterionAt(i); cg == g && !cr.Discretionary && cr.Expr != nil {
				kept = append(kept, i)
			}
		}
		if len(kept) < 2 {
			continue
		}
		if !a.groupSatisfiable[g] {
			// The group's check was undecided: with conflicting
			// premises everything would look implied.
			continue
		}
		var found []Finding
		for k := len(kept) - 1; k >= 0; k-- {
			i := kept[k]
			others := slices.Delete(slices.Clone(kept), k, k+1)
			if a.alwaysSatisfied[i] || len(others) == 0 {
				continue
			}
			counter := func(s analyzeSample) bool {
				return s.res.Criteria[i] != engine.Satisfied &&
					!slices.ContainsFunc(others, func(o int) bool { return s.res.Criteria[o] != engine.Satisfied })
			}
			cr, _ := a.r.CriterionAt(i)
			unmet := a.c.Not(a.enc.CriterionIs(i, engine.Satisfied))
			as := []*z3.Expr{unmet}
			for _, o := range others {
				as = append(as, a.enc.CriterionIs(o, engine.Satisfied))
			}
			res, err := a.possible("criterion "+cr.ID+" not implied", counter, as...)
			if err != nil {
				return err
			}
			if res != z3.Unsat {
				continue
			}
			core, err := a.minimalCore("criterion "+cr.ID+" implied by", []*z3.Expr{unmet}, others)
			if err != nil {
				return err
			}
			if core == nil {
				continue
			}
			kept = others
			ids := a.criterionIDs(core)
			msg := fmt.Sprintf("%s holds whenever %s %s, so it never changes whether group %s is satisfied.",
				a.criterionName(i), criteriaPhrase(ids), holdVerb(ids), grp.ID)
			found = append(found, a.finding(i, g, FindingCriterionRedundant, ids, msg))
		}
		slices.Reverse(found)
		a.out = append(a.out, found...)
	}
	return nil
}

// alternatives compares the alternatives of each any group that can be
// satisfied, each with the earlier ones that are not duplicates themselves.
func (a *analysis) alternatives() error {
	for g := range a.r.Groups {
		grp := &a.r.Groups[g]
		if grp.Kind != engine.GroupAny {
			continue
		}
		var distinct []int
		for i := range a.r.NumCriteria() {
			cr, cg := a.r.CriterionAt(i)
			if cg != g || cr.Discretionary || cr.Expr == nil || !a.critSatisfiable[i] {
				continue
			}
			same, err := a.sameAs(i, distinct)
			if err != nil {
				return err
			}
			if same < 0 {
				distinct = append(distinct, i)
				continue
			}
			other, _ := a.r.CriterionAt(same)
			msg := fmt.Sprintf("%s is satisfied by exactly the same answers as alternative %s of group %s, so one of the two is a duplicate.",
				a.criterionName(i), other.ID, grp.ID)
			a.out = append(a.out, a.finding(i, g, FindingAlternativesOverlap, []string{other.ID}, msg))
		}
	}
	return nil
}

// sameAs returns the first of the criteria satisfied by exactly the answer
// sets that satisfy criterion i, or -1.
func (a *analysis) sameAs(i int, criteria []int) (int, error) {
	cr, _ := a.r.CriterionAt(i)
	for _, j := range criteria {
		differ := func(s analyzeSample) bool {
			return (s.res.Criteria[i] == engine.Satisfied) != (s.res.Criteria[j] == engine.Satisfied)
		}
		other, _ := a.r.CriterionAt(j)
		res, err := a.possible("alternatives "+other.ID+" and "+cr.ID+" differ", differ,
			a.c.Xor(a.enc.CriterionIs(i, engine.Satisfied), a.enc.CriterionIs(j, engine.Satisfied)))
		if err != nil {
			return -1, err
		}
		if res == z3.Unsat {
			return j, nil
		}
	}
	return -1, nil
}

// fields finds the fields whose answer never changes the outcome: a field
// no criterion reads without asking Z3; any other by comparing two complete
// answer sets that differ only in it (a Variant with fresh variables for
// it), each in a Push scope of its own. When the outcome never changes at
// all, which the outcome step reported, it says nothing.
func (a *analysis) fields() error {
	if a.outcomeFixed {
		return nil
	}
	reads := fieldReads(a.r)
	for slot, f := range a.r.Fields {
		id := f.ID
		if m := f.Member; m != nil {
			// The members of a list are alike: the aggregates read them
			// all the same way, and any member of a household can be
			// numbered first. So the first member's field stands for
			// every member's, and a finding names the field as declared.
			if m.Index > 0 {
				continue
			}
			id = m.List + "." + m.Name
		}
		if reads[slot] == readNone {
			a.out = append(a.out, Finding{Kind: FindingFieldNeverMatters, Field: id,
				Message: fmt.Sprintf("No criterion reads field %s, so its answer never changes the outcome.", id)})
			continue
		}
		matters, err := a.fieldMatters(slot)
		if err != nil {
			return err
		}
		if matters {
			continue
		}
		msg := fmt.Sprintf("No answer to field %s changes the outcome while the other answers stay the same, so either the question can go or a condition that should depend on it does not.", id)
		switch {
		case f.List != nil:
			msg = fmt.Sprintf("No change to the %s list (how many there are, or what they answer) changes the outcome while the other answers stay the same, so either the questions about them can go or a condition that should depend on them does not.", id)
		case reads[slot] == readPresence:
			msg = fmt.Sprintf("Only whether field %s is answered is read, never its value: once every question is answered, no answer to it changes the outcome.", id)
		}
		a.out = append(a.out, Finding{Kind: FindingFieldNeverMatters, Field: id, Message: msg})
	}
	return nil
}

// fieldMatters asks whether two complete answer sets differing only in
// field slot can get different outcomes (discretionary criteria decided the
// same way in both); an undecided check counts as "matters". The samples
// are tried first, each complete one with the field's answer swapped for
// the other samples' answers to it.
func (a *analysis) fieldMatters(slot int) (bool, error) {
	if a.swapMatters(slot) {
		return true, nil
	}
	// A list's length cannot change alone in a complete answer set: its
	// members come and go with it. So the list is compared whole, its
	// members' answers free in the other answer set too.
	fresh := a.listSlots(slot)
	other, err := a.decidedVariant(fresh)
	if err != nil {
		return false, err
	}
	for _, s := range []*z3.Solver{a.s, a.loose} {
		if err := s.Push(); err != nil {
			return false, fmt.Errorf("field %s: %w", a.r.Fields[slot].ID, err)
		}
		defer func() { _ = s.Pop(1) }()
	}
	if err := solver.AssertAll(a.s, other.Axioms()); err != nil {
		return false, err
	}
	if err := solver.AssertAll(a.loose, other.LooseBounds(fresh)); err != nil {
		return false, err
	}
	c := a.c
	o1, o2 := a.decided.Outcome(), other.Outcome()
	same := c.And(c.Eq(o1.Known, o2.Known), c.Implies(o1.Known, c.Eq(o1.Value, o2.Value)))
	as := []*z3.Expr{c.Not(same), other.Present(slot), c.Not(c.Eq(a.enc.Value(slot), other.Value(slot)))}
	for s := range a.r.Fields {
		as = append(as, a.enc.Complete(s))
	}
	for _, s := range fresh[1:] {
		as = append(as, other.Complete(s))
	}
	differ := func(m *z3.Model) bool {
		s1, ok1 := a.sample(m)
		s2, ok2 := a.sampleOf(other, m)
		return ok1 && ok2 && a.r.Complete(s1.in) && a.r.Complete(s2.in) && knownApart(s1.res.Outcome, s2.res.Outcome)
	}
	what := "field " + a.r.Fields[slot].ID + " matters"
	res, err := a.existsIn([]*solver.Encoding{other}, what, differ, as)
	if err != nil {
		return false, err
	}
	return res != z3.Unsat, nil
}

// swapMatters looks among the samples for a context in which field slot
// changes the outcome: each sample, completed with the first answer any
// sample gives to each field it leaves unanswered, is evaluated with every
// answer the samples give to the field, and two of them that come out one
// eligible, the other not eligible, show that the field matters. A date
// answer is also tried moved by the difference of the two samples'
// decision dates, since an age is what the rules mostly read in a date.
func (a *analysis) swapMatters(slot int) bool {
	const most = 32 // answers tried per context: enough to cross a boundary
	type answer struct {
		v    value.Value
		date int64 // the decision date of the sample it came from
	}
	if len(a.samples) == 0 || a.r.Fields[slot].List != nil {
		return false // a list's length changes with its members: Z3 compares lists whole
	}
	var answers []answer
	filler := make([]value.Value, len(a.r.Fields))
	for _, s := range a.samples {
		for i, v := range s.in.Values {
			if v.Known && !filler[i].Known {
				filler[i] = v
			}
		}
		if v := s.in.Values[slot]; v.Known && len(answers) < most {
			answers = append(answers, answer{v, s.res.DecisionDate})
		}
	}
	// A number is also tried at both ends of what it allows: the samples'
	// answers may all lie on one side of a limit a value computes.
	f := &a.r.Fields[slot]
	if f.Type == engine.SortInt || f.Type == engine.SortDecimal {
		answers = append(answers, answer{v: allowedAnswer(f)}, answer{v: largeAnswer(f)})
	}
	if len(answers) < 2 {
		return false
	}
	// The contexts: each sample completed from the others, then the
	// plainest household there is, every field at the low end of what it
	// allows (no income, no costs, the smallest size).
	low := make([]value.Value, len(a.r.Fields))
	for i, v := range filler {
		low[i] = allowedAnswer(&a.r.Fields[i])
		if !v.Known {
			// No sample answers the field (one the rules read only on
			// some branch): any answer the field allows completes the
			// context, since the evidence is two complete answer sets
			// that differ in slot alone.
			filler[i] = low[i]
		}
	}
	contexts := make([]analyzeSample, 0, len(a.samples)+1)
	contexts = append(contexts, a.samples...)
	contexts = append(contexts, analyzeSample{in: &engine.Inputs{Values: low}, res: a.samples[0].res})
	isDate := f.Type == engine.SortDate
	var res engine.Result
	in := &engine.Inputs{Values: make([]value.Value, len(a.r.Fields)), Provided: len(a.r.Fields)}
	for _, s := range contexts {
		for i, v := range s.in.Values {
			in.Values[i] = v
			if !v.Known {
				in.Values[i] = filler[i]
			}
		}
		if m := f.Member; m != nil {
			// A household too small to hold the member grows to hold
			// it, the new members answering as the filler does.
			if n := &in.Values[a.r.FieldIndex(m.List)]; !n.Known || n.Num <= int64(m.Index) {
				*n = value.IntValue(int64(m.Index) + 1)
			}
		}
		for i := range in.Values {
			if !a.r.InList(i, in) {
				in.Values[i] = value.Value{} // no such member in this household
			}
		}
		date := s.res.DecisionDate
		seen := map[engine.Outcome]bool{}
		try := func(v value.Value) bool {
			in.Values[slot] = v
			a.r.EvaluateInto(in, engine.Options{DecisionDate: date}, &res)
			if len(res.FieldErrors) == 0 {
				seen[res.Outcome] = true
			}
			return seen[engine.Eligible] && seen[engine.NotEligible]
		}
		for _, ans := range answers {
			if try(ans.v) {
				return true
			}
			if moved := ans.v.Num + date - ans.date; isDate && date != 0 && ans.date != 0 && moved >= 1 && moved <= solver.MaxOrdinal && try(value.Value{Num: moved, Known: true}) {
				return true
			}
		}
	}
	return false
}

// largeAnswer is a large answer number field f allows: the high end of its
// range, or a billion.
func largeAnswer(f *engine.Field) value.Value {
	if f.Range != nil && f.Range.Max.Known {
		return f.Range.Max
	}
	return value.IntValue(1_000_000_000)
}

// allowedAnswer is an answer field f allows: the low end of its range (or
// zero, or the high end when the range lies below zero), its first listed
// value, false, or its earliest allowed date.
func allowedAnswer(f *engine.Field) value.Value {
	switch f.Type {
	case engine.SortBool:
		return value.BoolValue(false)
	case engine.SortEnum:
		return value.Value{Num: 0, Known: true}
	}
	v := value.IntValue(0)
	if f.Type == engine.SortDate {
		v = value.Value{Num: value.DateOrdinal(2000, 1, 1), Known: true}
	}
	if f.Range != nil && !f.Range.Contains(v) {
		if f.Range.Min.Known {
			return f.Range.Min
		}
		return f.Range.Max
	}
	return v
}

// listSlots is slot and, when slot is a list's length, the slots of every
// field of its members.
func (a *analysis) listSlots(slot int) []int {
	slots := []int{slot}
	if a.r.Fields[slot].List == nil {
		return slots
	}
	for s := range a.r.Fields {
		if m := a.r.Fields[s].Member; m != nil && m.List == a.r.Fields[slot].ID {
			slots = append(slots, s)
		}
	}
	return slots
}

// completeAt reports whether in answers slots as a complete answer set
// does (engine.Ruleset.Complete): each answered, but a member's only while
// its list holds it.
func (a *analysis) completeAt(in *engine.Inputs, slots []int) bool {
	return !slices.ContainsFunc(slots, func(s int) bool { return !a.r.CompleteAt(s, in) })
}

// knownApart reports whether x and y are one eligible, the other not
// eligible: a difference that survives any decision of the discretionary
// criteria.
func knownApart(x, y engine.Outcome) bool {
	return x != y && x != engine.Undetermined && y != engine.Undetermined
}

// decidedVariant is the Variant of enc with fresh variables for the fields
// in slots whose discretionary criteria take the same official decisions
// as a.decided.
func (a *analysis) decidedVariant(slots []int) (*solver.Encoding, error) {
	v, err := a.enc.Variant("analyze", slots...)
	if err != nil {
		return nil, err
	}
	crit := make([]solver.Tri, len(a.official))
	for i := range crit {
		crit[i] = v.Criterion(i)
		if cr, _ := a.r.CriterionAt(i); cr.Discretionary || cr.Expr == nil {
			crit[i] = a.official[i]
		}
	}
	d, err := v.WithCriteria(crit)
	if err != nil {
		return nil, err
	}
	// withCriteria keeps v's axioms, which are the fresh field's.
	return d, nil
}

// How the criteria read a field: not at all, only under present/absent
// (whether it is answered), or its value.
const (
	readNone = iota
	readPresence
	readValue
)

// fieldReads says, per slot, how the criteria read each field, directly
// or through the named values they read (a value reads its fields for
// their figures).
func fieldReads(r *engine.Ruleset) []int {
	reads := make([]int, len(r.Fields))
	seen := make([]bool, len(r.Values))
	var walk func(x *engine.Expr, presenceOnly bool)
	walk = func(x *engine.Expr, presenceOnly bool) {
		if x == nil {
			return
		}
		if x.Kind == engine.ExprValue && !seen[x.Slot] {
			seen[x.Slot] = true
			for _, y := range r.Values[x.Slot].Exprs() {
				walk(y, false)
			}
		}
		if x.Kind == engine.ExprField {
			level := readValue
			if presenceOnly {
				level = readPresence
			}
			reads[x.Slot] = max(reads[x.Slot], level)
		}
		under := x.Kind == engine.ExprOp && (x.Op == engine.OpPresent || x.Op == engine.OpAbsent)
		for _, arg := range x.Args {
			walk(arg, under)
		}
	}
	for i := range r.NumCriteria() {
		cr, _ := r.CriterionAt(i)
		walk(cr.Expr, false)
	}
	return reads
}

// add records a finding about criterion i of group g.
func (a *analysis) add(i, g int, kind string, others []string, msg string) {
	a.out = append(a.out, a.finding(i, g, kind, others, msg))
}

// finding is a finding about criterion i of group g, with its first quote.
func (a *analysis) finding(i, g int, kind string, others []string, msg string) Finding {
	cr, _ := a.r.CriterionAt(i)
	f := Finding{Kind: kind, Criterion: cr.ID, Group: a.r.Groups[g].ID, Others: others, Message: msg}
	if len(cr.Citations) > 0 {
		f.Quote = cr.Citations[0].Quote
	}
	return f
}

// sorted returns the findings by kind, then in the order found (which is
// declaration order within a kind).
func (a *analysis) sorted() []Finding {
	out := slices.Clone(a.out)
	slices.SortStableFunc(out, func(x, y Finding) int { return findingOrder[x.Kind] - findingOrder[y.Kind] })
	return out
}

// criterionName is `criterion <id> ("<title>")` capitalised for the start
// of a sentence.
func (a *analysis) criterionName(i int) string {
	cr, _ := a.r.CriterionAt(i)
	return fmt.Sprintf("Criterion %s (%q)", cr.ID, cr.Title)
}

// criterionIDs are the ids of the criteria at the CriterionAt indexes is.
func (a *analysis) criterionIDs(is []int) []string {
	ids := make([]string, len(is))
	for k, i := range is {
		cr, _ := a.r.CriterionAt(i)
		ids[k] = cr.ID
	}
	return ids
}

// criteriaPhrase is "criterion a" or "criteria a and b".
func criteriaPhrase(ids []string) string {
	if len(ids) == 1 {
		return "criterion " + ids[0]
	}
	return "criteria " + andList(ids)
}

// holdVerb agrees "holds" with criteriaPhrase.
func holdVerb(ids []string) string {
	if len(ids) == 1 {
		return "holds"
	}
	return "hold"
}

// andList is "a", "a and b", "a, b and c".
func andList(xs []string) string {
	if len(xs) <= 1 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}
