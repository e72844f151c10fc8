package engine

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/eligo/eligo/engine/value"
)

// Trace is the trace object (docs/api.md#trace-and-explanation): how the decision was reached, for
// debugging rules. It is not a citation (see Explanation for that).
type Trace struct {
	// Status is the outcome: eligible, not_eligible or undetermined.
	Status Outcome `json:"status"`
	// Path lists every criterion in evaluation order with its status.
	Path []TraceStep `json:"path"`
	// Answered lists the fields that were answered, in declaration order.
	Answered []string `json:"answered"`
	// GroupStatuses maps each group id to its status.
	GroupStatuses map[string]Status `json:"group_statuses"`
	// FailureReasons has one entry per not-satisfied group; on the wire
	// each is a pair [group, items].
	FailureReasons []FailureReason `json:"failure_reasons"`
	// Values are the named values the decision computed, each with its
	// figure, in declaration order: the figures the answer rests on (the
	// explanation adds their law). Left out when it computed none, so a
	// ruleset without values traces as it always did.
	Values []OutputValue `json:"values,omitempty"`
}

// TraceStep is one evaluated criterion in a trace (plan.PathStep, by
// contrast, is a field still to ask on the optimal path).
type TraceStep struct {
	// Group is the id of the criterion's group.
	Group string `json:"group"`
	// Criterion is the criterion id.
	Criterion string `json:"criterion"`
	// Status is what the criterion evaluated to.
	Status Status `json:"status"`
}

// FailureReason says why a group is not satisfied: for each failed
// criterion, the answers it read and the condition that did not hold.
type FailureReason struct {
	// Group is the id of the not-satisfied group (the pair's first member).
	Group string
	// Items are, for each not-satisfied criterion of the group in
	// declaration order, its answered fields then its condition (the
	// pair's second member).
	Items []FailureItem
}

// MarshalJSON writes the pair [group, items], leaving < > & unescaped
// so that an expression reads as written.
func (f FailureReason) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode([]any{f.Group, f.Items}); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// FailureItem is {"type":"answer","field":..,"value":..} or
// {"type":"condition","expression":"<the criterion's condition>"}.
type FailureItem struct {
	// Type is "answer" or "condition"; it says which members are set.
	Type string `json:"type"`
	// Field is the answered field id of an "answer" item.
	Field string `json:"field,omitempty"`
	// Value is the answer of an "answer" item, rendered by ValueJSON.
	Value json.RawMessage `json:"value,omitempty"`
	// Expression is the criterion's condition printed in the rules
	// language (Criterion.Text), for a "condition" item.
	Expression string `json:"expression,omitempty"`
}

func (r *Ruleset) trace(in *Inputs, res *Result) *Trace {
	t := &Trace{Status: res.Outcome, Path: []TraceStep{}, Answered: []string{},
		GroupStatuses: map[string]Status{}, FailureReasons: []FailureReason{}}
	for s, v := range in.Values {
		if v.Known {
			t.Answered = append(t.Answered, r.Fields[s].ID)
		}
	}
	for i := range r.criteria {
		c, g := r.CriterionAt(i)
		t.Path = append(t.Path, TraceStep{Group: r.Groups[g].ID, Criterion: c.ID, Status: res.Criteria[i]})
	}
	for g := range r.Groups {
		t.GroupStatuses[r.Groups[g].ID] = res.Groups[g]
	}
	for g := range r.Groups {
		reason := FailureReason{Group: r.Groups[g].ID}
		for ci := range r.Groups[g].Criteria {
			c := &r.Groups[g].Criteria[ci]
			if res.Groups[g] == NotSatisfied && res.Criteria[r.CriterionIndex(g, ci)] == NotSatisfied {
				for _, s := range c.Slots {
					if in.Values[s].Known {
						reason.Items = append(reason.Items, FailureItem{Type: "answer", Field: r.Fields[s].ID, Value: r.ValueJSON(s, in.Values[s])})
					}
				}
				reason.Items = append(reason.Items, FailureItem{Type: "condition", Expression: c.Text})
			}
		}
		if len(reason.Items) > 0 {
			t.FailureReasons = append(t.FailureReasons, reason)
		}
	}
	for v := range r.Values {
		if fig := res.Values[v]; fig.Known {
			t.Values = append(t.Values, r.outputValue(v, fig))
		}
	}
	return t
}

// Explanation is the explanation object (docs/api.md#trace-and-explanation): which groups and criteria
// decided, the facts each rests on and the law each cites.
type Explanation struct {
	// Decision is the outcome being explained, the same as Result.Outcome.
	Decision Outcome `json:"decision"`
	// DecisionPath names the groups that decided: the satisfied groups of
	// an eligible decision, the not-satisfied groups of a not_eligible one,
	// the pending groups of an undetermined one.
	DecisionPath []string `json:"decision_path"`
	// Groups explains every group, in declaration order.
	Groups []GroupExplanation `json:"groups"`
	// UnusedFacts are answered fields no criterion reads.
	UnusedFacts []string `json:"unused_facts"`
}

// GroupExplanation is one group of an Explanation.
type GroupExplanation struct {
	// Group is the group id.
	Group string `json:"group"`
	// Title is the group's title from the rules file.
	Title string `json:"title"`
	// Kind is all or any.
	Kind GroupKind `json:"kind"`
	// Status is what the group evaluated to.
	Status Status `json:"status"`
	// Criteria explains every criterion of the group, in declaration order.
	Criteria []CriterionExplanation `json:"criteria"`
}

// CriterionExplanation is one criterion of an Explanation.
type CriterionExplanation struct {
	// CriterionID is the criterion id.
	CriterionID string `json:"criterion_id"`
	// Title is the criterion's title from the rules file.
	Title string `json:"title"`
	// Status is what the criterion evaluated to.
	Status Status `json:"status"`
	// Values are the named values the criterion rests on (directly or
	// through other values) that the decision computed, each with its
	// figure and its law, in declaration order; left out when it reads
	// none, so a ruleset without values explains as it always did.
	Values []ValueFact `json:"values,omitempty"`
	// SupportingFacts are the answers the criterion read. In a satisfied
	// any group only the first satisfied alternative carries facts: the
	// branch the group rests on.
	SupportingFacts []Fact `json:"supporting_facts"`
	// SourceReferences are the criterion's citations, built once at
	// compile time and shared by every explanation: read-only.
	SourceReferences []SourceReference `json:"source_references"`
}

// ValueFact is a named value as an explanation shows it: what the law
// calls it, the figure this decision computed, how it is defined and the
// law it rests on ("net income $1,187.40 = ...").
type ValueFact struct {
	// Value is the value's name in the rules ("net_income").
	Value string `json:"value"`
	// Title is the value's name for people ("Net monthly income").
	Title string `json:"title"`
	// Figure is the computed value: a number, true/false or a
	// "YYYY-MM-DD" date.
	Figure json.RawMessage `json:"figure"`
	// Unit is what the figure counts ("USD"); left out when none.
	Unit string `json:"unit,omitempty"`
	// Definition is the value's expression in the rules language; for a
	// table, the row the figure was looked up in, as the rules write it
	// (`"48_states", 1..8 => 1696 + 596 * (household.size - 1)`).
	Definition string `json:"definition"`
	// Period is, for a table with figures by period, the period whose row
	// gave the figure ("2025-10-01 until 2026-09-30"); left out otherwise.
	Period string `json:"period,omitempty"`
	// SourceReferences are the value's citations.
	SourceReferences []SourceReference `json:"source_references"`
}

// Fact is one answer: {"field": ..., "value": ...}.
type Fact struct {
	// Field is the answered field id.
	Field string `json:"field"`
	// Value is the answer as ValueJSON renders it: a number, true/false,
	// the enum string or "YYYY-MM-DD".
	Value json.RawMessage `json:"value"`
}

// SourceReference is what the ruleset knows about a citation. The publish
// path adds the verification members (content_digest, verified_at,
// snapshot) after fetching the text.
type SourceReference struct {
	// Source is the cited source id.
	Source string `json:"source"`
	// Title is the source's title; empty if the id matches no source
	// (the checker rejects that, so only a hand-built Ruleset has it).
	Title string `json:"title"`
	// URL is the source's address, or its artefact locator for a v2
	// reference (TargetKind "artefact").
	URL string `json:"url"`
	// Licence is the licence the source text is published under.
	Licence string `json:"licence"`
	// Quote is the cited words, exactly as the rules file quotes them.
	Quote Quote `json:"quote"`
	// DeepLink is URL plus a percent-encoded #:~:text= fragment of the quote.
	DeepLink string `json:"deep_link"`
	// SchemaVersion is 1 for a reference to a web address and 2 for one to
	// a project artefact.
	SchemaVersion int `json:"schema_version"`
	// TargetKind is "artefact" for a v2 reference to a project file.
	TargetKind string `json:"target_kind,omitempty"`
}

// Quote is the cited words.
type Quote struct {
	// Exact is the quote as written in the cite line, white space kept.
	Exact string `json:"exact"`
}

// Explain builds the explanation (docs/api.md#trace-and-explanation) of
// res, the evaluation of in: what Options.Explanation adds to a Result, and
// what a graph's overlay cites when the evaluation did not ask for one.
func (r *Ruleset) Explain(in *Inputs, res *Result) *Explanation {
	e := &Explanation{Decision: res.Outcome, DecisionPath: []string{}, Groups: []GroupExplanation{}, UnusedFacts: []string{}}
	e.UnusedFacts = append(e.UnusedFacts, in.Unused...)
	want := Pending
	switch res.Outcome {
	case Eligible:
		want = Satisfied
	case NotEligible:
		want = NotSatisfied
	}
	for g := range r.Groups {
		grp := &r.Groups[g]
		if res.Groups[g] == want {
			e.DecisionPath = append(e.DecisionPath, grp.ID)
		}
		ge := GroupExplanation{Group: grp.ID, Title: grp.Title, Kind: grp.Kind, Status: res.Groups[g]}
		branchTaken := false
		for ci := range grp.Criteria {
			c := &grp.Criteria[ci]
			i := r.CriterionIndex(g, ci)
			st := res.Criteria[i]
			ce := CriterionExplanation{CriterionID: c.ID, Title: c.Title, Status: st,
				SupportingFacts: []Fact{}, SourceReferences: r.refs[i]}
			facts := true
			if grp.Kind == GroupAny && res.Groups[g] == Satisfied {
				facts = st == Satisfied && !branchTaken
				branchTaken = branchTaken || facts
			}
			if facts {
				for _, s := range c.Slots {
					if in.Values[s].Known {
						ce.SupportingFacts = append(ce.SupportingFacts, Fact{Field: r.Fields[s].ID, Value: r.ValueJSON(s, in.Values[s])})
					}
				}
				ce.Values = r.CriterionValues(i, in, res)
			}
			ge.Criteria = append(ge.Criteria, ce)
		}
		e.Groups = append(e.Groups, ge)
	}
	return e
}

// valueFact is named value v with the figure this decision computed.
func (r *Ruleset) valueFact(v int, fig value.Value, in *Inputs, res *Result) ValueFact {
	nv := &r.Values[v]
	f := ValueFact{Value: nv.ID, Title: nv.Title, Figure: constJSON(nv.Type, fig, ""), Unit: nv.Unit,
		Definition: nv.Text, SourceReferences: r.valueRefs[v]}
	if row, period, ok := r.tableRow(v, in, res); ok {
		f.Definition = RowText(*row)
		if period != nil {
			f.Period = period.String()
		}
	}
	return f
}

// CriterionValues returns the named values criterion i (in CriterionAt
// order) rests on, directly or through other values, with the figures
// res (the evaluation of in) computed, in declaration order; nil when it
// reads none or none was computed. It is what a criterion's explanation
// lists, for other tools that explain a criterion (explain-failure).
func (r *Ruleset) CriterionValues(i int, in *Inputs, res *Result) []ValueFact {
	var out []ValueFact
	for _, v := range r.criterionValues[i] {
		if fig := res.Values[v]; fig.Known {
			out = append(out, r.valueFact(v, fig, in, res))
		}
	}
	return out
}

// references returns the source references of citations. They depend on
// the ruleset only, so finish computes them once per criterion and value,
// and every explanation shares them (read-only).
func (r *Ruleset) references(citations []Citation) []SourceReference {
	refs := make([]SourceReference, 0, len(citations))
	for _, ci := range citations {
		ref := SourceReference{Source: ci.Source, Quote: Quote{Exact: ci.Quote}, SchemaVersion: 1}
		for _, s := range r.Sources {
			if s.ID != ci.Source {
				continue
			}
			ref.Title, ref.Licence, ref.URL = s.Title, s.Licence, s.URL
			if s.Artefact != "" {
				ref.URL, ref.SchemaVersion, ref.TargetKind = s.Artefact, 2, "artefact"
			}
		}
		ref.DeepLink = ref.URL + "#:~:text=" + TextFragment(ci.Quote)
		refs = append(refs, ref)
	}
	return refs
}

// TextFragment percent-encodes a quote for a #:~:text= fragment: white
// space collapsed as quotes are matched (CollapseSpace), every byte outside A-Z a-z 0-9 . _ ~
// encoded (including - , & which the fragment syntax reserves).
func TextFragment(quote string) string {
	const hexDigits = "0123456789ABCDEF"
	norm := CollapseSpace(quote)
	var b strings.Builder
	for i := 0; i < len(norm); i++ {
		c := norm[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

// Warning is a note on a decision, as the API's warnings give one: a code
// a program can branch on and a sentence for people.
type Warning struct {
	// Code names the kind of note, e.g. WarningOutsidePeriod.
	Code string `json:"code"`
	// Message says it in words.
	Message string `json:"message"`
}

// WarningOutsidePeriod is the code of the note on a decision dated outside
// the ruleset's effective period: the same code /decide's warnings use.
const WarningOutsidePeriod = "outside_effective_period"

// Report is a decision as the CLI prints it and as the API builds its
// envelope from: the outcome and everything the engine knows about it.
type Report struct {
	// Decision is the outcome: eligible, not_eligible or undetermined.
	Decision Outcome `json:"decision"`
	// SectionID is the ruleset's section id.
	SectionID string `json:"section_id"`
	// Slug is the ruleset's slug; empty when the file declares none.
	Slug string `json:"slug"`
	// ContentDigest is the ruleset's "sha256:<hex>" digest (see
	// Ruleset.ContentDigest).
	ContentDigest string `json:"content_digest"`
	// EngineVersion is Version, the engine that decided.
	EngineVersion string `json:"engine_version"`
	// InputsHash is the caller's "sha256:<hex>" of the canonical
	// field_values; omitted when the caller passed none.
	InputsHash string `json:"inputs_hash,omitempty"`
	// DecisionDate is the "YYYY-MM-DD" date the decision was made as of;
	// omitted when the ruleset neither reads decision_date() nor declares
	// an effective period.
	DecisionDate string `json:"decision_date,omitempty"`
	// Warnings are notes on the decision in the shape the API's warnings
	// have: when the decision date falls outside the ruleset's effective
	// period, one with the code WarningOutsidePeriod saying why the
	// decision is undetermined (Ruleset.PeriodWarning); omitted when
	// there is none.
	Warnings []Warning `json:"warnings,omitempty"`
	// FieldsProvided counts the non-null keys of field_values.
	FieldsProvided int `json:"fields_provided"`
	// FieldsEvaluated counts the distinct fields the criteria read.
	FieldsEvaluated int `json:"fields_evaluated"`
	// MissingFields are the unanswered fields some pending criterion
	// reads, in declaration order; never nil.
	MissingFields []string `json:"missing_fields"`
	// FieldErrors are the inputs that could not be applied; never nil.
	FieldErrors []FieldError `json:"field_errors"`
	// Groups maps every group id to its status.
	Groups map[string]Status `json:"groups"`
	// Criteria maps every criterion id to its status.
	Criteria map[string]Status `json:"criteria"`
	// Values are the output values with their figures (Ruleset.Outputs),
	// as /decide returns them; omitted for rules without output values.
	Values []OutputValue `json:"values,omitempty"`
	// Trace is set when the evaluation asked for one (Options.Trace).
	Trace *Trace `json:"trace,omitempty"`
	// Explanation is set when the evaluation asked for one
	// (Options.Explanation).
	Explanation *Explanation `json:"explanation,omitempty"`
}

// Report assembles the printable decision of res; inputsHash may be empty.
func (r *Ruleset) Report(res *Result, inputsHash string) Report {
	rep := Report{Decision: res.Outcome, SectionID: r.SectionID, Slug: r.Slug, ContentDigest: r.digest,
		EngineVersion: Version, InputsHash: inputsHash, FieldsProvided: res.FieldsProvided,
		FieldsEvaluated: res.FieldsEvaluated, MissingFields: append([]string{}, res.MissingFields...),
		FieldErrors: append([]FieldError{}, res.FieldErrors...), Groups: map[string]Status{},
		Criteria: map[string]Status{}, Values: r.Outputs(res), Trace: res.Trace, Explanation: res.Explanation}
	if res.DecisionDate != 0 {
		rep.DecisionDate = value.FormatDate(res.DecisionDate)
	}
	if res.OutsidePeriod {
		rep.Warnings = []Warning{{Code: WarningOutsidePeriod, Message: r.PeriodWarning(res.DecisionDate)}}
	}
	for g := range r.Groups {
		rep.Groups[r.Groups[g].ID] = res.Groups[g]
	}
	for i := range r.criteria {
		c, _ := r.CriterionAt(i)
		rep.Criteria[c.ID] = res.Criteria[i]
	}
	return rep
}
