package impact

import (
	"cmp"
	"slices"

	"github.com/eligo/eligo/engine"
)

// Report is what a run found: how many cases each outcome moved between,
// what moved them, and the rows it could not decide. Every count is exact.
// Its JSON form is what `eligo impact` prints (docs/impact.md#the-report).
type Report struct {
	// Baseline and Candidate identify the two rulesets compared.
	Baseline  RulesetInfo `json:"baseline"`
	Candidate RulesetInfo `json:"candidate"`
	// Cases counts the rows decided on both rulesets; bad rows are not
	// cases.
	Cases int64 `json:"cases"`
	// Changed counts the cases whose outcome differs between the two.
	Changed int64 `json:"changed"`
	// Transitions count the cases by baseline outcome and candidate
	// outcome, the unchanged ones included, in a fixed order (eligible,
	// not_eligible, undetermined, baseline first); a pair no case took is
	// left out.
	Transitions []Transition `json:"transitions"`
	// Criteria are the criteria (by id, declared by both rulesets) whose
	// status differed in at least one case, with the number of such cases,
	// most often first (then by id).
	Criteria []Count `json:"criteria"`
	// Values are the named values (by id, declared by both) whose figure
	// differed in at least one case, most often first (then by id). An
	// output value is compared on every case, unknown against known
	// included; any other value only where both decisions computed it,
	// since a decision computes only the values it needs.
	Values []ValueCount `json:"values"`
	// BadRows count the rows that could not be read, by reason.
	BadRows []Reason `json:"bad_rows"`
	// UnreadAnswers count the cases that answer a field one of the
	// rulesets does not declare, by ruleset and field. Such an answer is
	// left out of that ruleset's decision (rather than making it
	// undetermined, as /decide would) and counted here.
	UnreadAnswers []Reason `json:"unread_answers"`
	// Undecided count the cases a ruleset decided undetermined for a
	// reason other than its criteria, by ruleset and reason: a field error
	// (an answer of the wrong type or outside its range, arithmetic without
	// a result, no decision date for rules that need one) or a decision
	// date outside the ruleset's effective period.
	Undecided []Reason `json:"undecided"`
}

// RulesetInfo names one of the two rulesets of a run.
type RulesetInfo struct {
	// SectionID is the ruleset's section id.
	SectionID string `json:"section_id"`
	// Slug is its slug; empty when it declares none.
	Slug string `json:"slug,omitempty"`
	// ContentDigest is its "sha256:<hex>" digest.
	ContentDigest string `json:"content_digest"`
}

func infoOf(r *engine.Ruleset) RulesetInfo {
	return RulesetInfo{SectionID: r.SectionID, Slug: r.Slug, ContentDigest: r.ContentDigest()}
}

// Transition counts the cases that went from one outcome to another.
type Transition struct {
	// From is the baseline's outcome, To the candidate's.
	From engine.Outcome `json:"from"`
	To   engine.Outcome `json:"to"`
	// Count is how many cases did.
	Count int64 `json:"count"`
	// Examples are the references of the first cases that did, in file
	// order, at most Options.Examples of them; a case without a reference
	// is named "line N".
	Examples []string `json:"examples"`
}

// Count is how many cases an id (a criterion) changed in.
type Count struct {
	// ID is the criterion's id.
	ID string `json:"id"`
	// Count is the number of cases whose status for it differed.
	Count int64 `json:"count"`
}

// ValueCount is how many cases a named value's figure changed in.
type ValueCount struct {
	// ID is the value's id.
	ID string `json:"id"`
	// Output is true when the value is an output value of both rulesets.
	Output bool `json:"output"`
	// Count is the number of cases whose figure differed.
	Count int64 `json:"count"`
}

// Reason counts the rows or cases that one reason applies to.
type Reason struct {
	// Reason says what is wrong, in a sentence that names no answer.
	Reason string `json:"reason"`
	// Count is how many rows or cases it applies to.
	Count int64 `json:"count"`
	// Lines are the line numbers of the first of them (at most
	// MaxLinesPerReason), in file order.
	Lines []int64 `json:"lines"`
}

// tally counts rows by reason, keeping the first line numbers of each and
// at most MaxReasons reasons, OtherReasons among them.
type tally struct {
	byReason map[string]*Reason
}

func (t *tally) add(reason string, line int64) {
	if t.byReason == nil {
		t.byReason = make(map[string]*Reason)
	}
	r := t.byReason[reason]
	if r == nil {
		if len(t.byReason) >= MaxReasons-1 { // room for OtherReasons
			reason = OtherReasons
			r = t.byReason[reason]
		}
		if r == nil {
			r = &Reason{Reason: reason}
			t.byReason[reason] = r
		}
	}
	r.Count++
	if len(r.Lines) < MaxLinesPerReason {
		r.Lines = append(r.Lines, line)
	}
}

// list is the tally most frequent first, then by reason: the same for the
// same file however the map iterates.
func (t *tally) list() []Reason {
	out := make([]Reason, 0, len(t.byReason))
	for _, r := range t.byReason {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b Reason) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Reason, b.Reason))
	})
	return out
}

// byCountThenID orders counts most frequent first, then by id.
func byCountThenID[T any](s []T, count func(T) int64, id func(T) string) {
	slices.SortFunc(s, func(a, b T) int {
		return cmp.Or(cmp.Compare(count(b), count(a)), cmp.Compare(id(a), id(b)))
	})
}
