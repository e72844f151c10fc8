package review

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver/bound"
)

// Input is everything the review reads. The caller (the authoring service)
// gathers it from the project's stored draft, tests and sources; the
// review itself does no I/O, so the same Input always gives the same
// Report.
type Input struct {
	// ProjectID is substituted into every check's ActionableVia, so the
	// endpoint a team is pointed at is the one it can call. Empty leaves the
	// "{id}" placeholder in place.
	ProjectID string
	// Rules is the project's draft compiled; nil when there is no draft or
	// it does not compile, and then every check that needs rules is na.
	Rules *engine.Ruleset
	// DraftProblem says why Rules is nil ("no draft yet", or the compile
	// error); empty otherwise. It is draft_compiles' evidence.
	DraftProblem string
	// Cases are the project's test cases as stored (field names as the team
	// wrote them).
	Cases []engine.Case
	// Results are Rules.RunCase for each case after unknown field names
	// were dropped (parallel to Cases); nil when Rules is nil. A result
	// whose Result is nil (the case could not be evaluated) counts as a
	// failing case and decides no criterion.
	Results []engine.CaseResult
	// IgnoredFields maps a case name to the field names it sent that the
	// draft does not declare (treated as absent, as
	// docs/authoring.md#1-create-a-project says). unused_fields reports them.
	IgnoredFields map[string][]string
	// Citations are the draft's quotes and their verification against the
	// project's sources, one per cite line.
	Citations []Citation
	// Sources are the project's uploaded sources with their clause
	// coverage, in the order the project lists them.
	Sources []Source
	// Questions are the draft's recorded source questions.
	Questions []Question
	// Today is the service's today as an ordinal date (value.DateOf of
	// its clock): effective_period warns of a period that ended before it.
	Today int64
	// LivePeriod is the effective period of the version live under the
	// draft's slug, and LiveLabel its version ("v3"); nil and empty when
	// there is none or it declares no period.
	LivePeriod *engine.Period
	LiveLabel  string

	// gate is Options.Gate, set by Build for the solver checks.
	gate *bound.Gate
}

// Citation is one quote of the draft and what verifying it found; the
// caller verifies (white space normalised exact match), the review only
// reports.
type Citation struct {
	// Citer names the declaration whose cite line this is, as messages
	// say it: "criterion hours" or "value net_income".
	Citer string
	// SourceID is the source id declared in the rules.
	SourceID string
	// ProjectSourceID is the project source it resolved to; "" when
	// unresolved (then the quote cannot be verified).
	ProjectSourceID string
	// Quote is the cited words.
	Quote string
	// Verified is true when the quote was found in that source's text
	// (white space normalised).
	Verified bool
	// Nearest is, for a quote not verified, the passage of its source
	// nearest it (white space collapsed), so the evidence can say what the
	// source has instead; "" when none is close.
	Nearest string
}

// Source is one uploaded project source with its clause coverage, as
// clause_coverage and superseded_sources read it.
type Source struct {
	// ID is the project source id that Citation.ProjectSourceID refers to.
	ID string
	// Filename names the source in evidence.
	Filename string
	// Status is active, superseded or reference_only; only active sources
	// count towards clause coverage.
	Status string
	// SupersededBy is the id of the source that replaces a superseded one;
	// empty otherwise.
	SupersededBy string
	// Clauses is how many clauses the source text was split into.
	Clauses int
	// CoveredClauses is how many of them some verified quote falls in.
	CoveredClauses int
	// Uncited are uncited clause texts (may be truncated by the caller);
	// the review shows at most five per source.
	Uncited []string
}

// Question is one recorded source question: a conflicting or ambiguous
// passage on which generation took a provisional reading.
type Question struct {
	// ID identifies the question.
	ID string
	// Quote is the passage the question is about.
	Quote string
	// Question is the question put to the team.
	Question string
	// Resolved is true once the team has answered it.
	Resolved bool
}

// Options tune a review without changing its checks.
type Options struct {
	// Coach adds Report.Coaching, the paragraph that walks through what to
	// fix in order; off by default because it repeats the checks at length.
	Coach bool
	// DocsURL returns the documentation address of a check id (e.g. base +
	// "/docs/authoring#" + id). Nil leaves every docs_url empty.
	DocsURL func(checkID string) string
	// Budget bounds the time the solver checks (presence_polarity,
	// static_analysis, mutation_score with its suggested cases) take
	// together; DefaultBudget when zero or negative. ctx's deadline, when
	// sooner, bounds them too. Each check gets an equal share of what is
	// left when it starts, so time one does not use passes to the next. A
	// check that runs out reports itself unfinished (Check.Incomplete)
	// instead of failing the review.
	Budget time.Duration
	// Gate, when not nil, is the process's bound on heavy solver runs,
	// shared with every other caller of the solver; each solver check
	// waits for a slot within its share of the budget.
	Gate *bound.Gate
}

// DefaultBudget is the solver checks' time budget when Options leave
// Budget zero. A review answers a request (and publish computes one after
// committing), which must finish well inside the API's 60 s write timeout;
// every casebank ruleset's solver checks take under two seconds together,
// so 20 s leaves them ten times that and the request room for the rest.
const DefaultBudget = 20 * time.Second

// Report is the review report, in the wire shape of
// docs/authoring.md#review-checks: the API returns it as the body of POST /projects/{id}/review.
type Report struct {
	// Score is 0-100 over the checks that counted (see the package doc);
	// null when no check counted.
	Score *int `json:"score"`
	// DataCompleteness is "ok", or "thin" when the section has fewer than
	// five test cases, so that a reader knows how much the score rests on.
	DataCompleteness string `json:"data_completeness"`
	// Checks are every check, in the package's fixed order; never null.
	Checks []Check `json:"checks" nullable:"false"`
	// Strengths are one sentence per passing counted check; never null.
	Strengths []string `json:"strengths" nullable:"false"`
	// NextSkill is the most valuable check to fix next, or null when every
	// counted check passes.
	NextSkill *Hint `json:"next_skill"`
	// Coaching is a deterministic paragraph (no model) walking through the
	// failing, then warning, then unfinished checks in priority order;
	// only when Options.Coach, null otherwise.
	Coaching *string `json:"coaching"`
	// Complete is false when some check could not finish (its Incomplete
	// says why): the report is then partial, and the score covers only the
	// checks that finished.
	Complete bool `json:"complete" doc:"False when some check could not finish within the review's time budget (or the solver gave up); each such check has status na and says why in incomplete. The score then covers only the checks that finished: an unfinished check never passes."`
}

// SchemaName is the name of Report's schema in the published API document,
// where the Go name would not say what it is.
func (Report) SchemaName() string { return "ReviewReport" }

// ReviewHint returns the report's next step, the same as NextSkill: publish
// and generate-and-test responses carry it as review_hint, so a team sees
// the next thing to improve without asking for a full review.
func (r Report) ReviewHint() *Hint { return r.NextSkill }

// Check is one named check of the review with the evidence behind its
// status.
type Check struct {
	// ID is the check id (the Check* constants), stable across releases
	// and the anchor of its documentation.
	ID string `json:"id"`
	// Title names the check for people.
	Title string `json:"title"`
	// Status is pass, warn, fail, na or info (the Status* constants).
	Status string `json:"status"`
	// Evidence is concrete: names of tests, criteria, fields, thresholds,
	// passages; never null.
	Evidence []string `json:"evidence" nullable:"false"`
	// Weight is the check's share of the score (see the package doc), shown
	// even when the check did not count.
	Weight int `json:"weight"`
	// Scored is true when the check counted in this report's score: a
	// scored check whose status is pass, warn or fail.
	Scored bool `json:"scored"`
	// Why says in one sentence why the check matters.
	Why string `json:"why"`
	// ActionableVia is the endpoint that fixes it, with the project id
	// substituted, e.g. "POST /projects/p1/tests".
	ActionableVia string `json:"actionable_via"`
	// DocsURL is the check's documentation address; empty when
	// Options.DocsURL is nil.
	DocsURL string `json:"docs_url"`
	// Incomplete says why the check could not finish (the review's time
	// budget ran out, or the solver could not decide); null when it
	// finished. An unfinished check is na, or warn when what it found
	// before stopping is already worth a warning, and never pass.
	Incomplete *string `json:"incomplete" doc:"Why the check could not finish (the review's time budget ran out, or the solver could not decide), or null when it finished. An unfinished check is na (or warn when what it found before stopping already warrants it), never pass, and is not scored as a pass."`
}

// Hint is the one next step of a review, shared by next_skill and
// review_hint.
type Hint struct {
	// CheckID is the check the step fixes.
	CheckID string `json:"check_id"`
	// Message says concretely what to do.
	Message string `json:"message"`
	// ActionableVia is the endpoint to do it with, as on the check.
	ActionableVia string `json:"actionable_via"`
	// DocsURL is the check's documentation address, as on the check.
	DocsURL string `json:"docs_url"`
}

// Check statuses. Only pass, warn and fail count towards the score.
const (
	// StatusPass: the check holds.
	StatusPass = "pass"
	// StatusWarn: partly holds; half credit.
	StatusWarn = "warn"
	// StatusFail: does not hold; no credit.
	StatusFail = "fail"
	// StatusNA: does not apply to this project as it stands.
	StatusNA = "na"
	// StatusInfo: a fact worth showing that earns no credit.
	StatusInfo = "info"
)

// minTests is the number of tests below which a section is thin.
const minTests = 5

// Build runs every check over in and assembles the report. The solver
// checks share opts.Budget (see Options.Budget); one that runs out, or
// that the solver cannot decide, is reported unfinished and the report
// incomplete, since a review is advice and must not fail for want of it.
// Build returns an error only when ctx is cancelled.
func Build(ctx context.Context, in Input, opts Options) (Report, error) {
	if err := ctx.Err(); err != nil {
		return Report{}, err
	}
	in.gate = opts.Gate
	budget := opts.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	solverCtx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	solverChecks := 0
	for _, c := range checks {
		if c.solver {
			solverChecks++
		}
	}
	rep := Report{DataCompleteness: "ok", Checks: make([]Check, 0, len(checks)), Strengths: []string{}, Complete: true}
	if len(in.Cases) < minTests {
		rep.DataCompleteness = "thin"
	}
	advice := map[string]string{}
	var total, earned float64
	for _, c := range checks {
		var o outcome
		switch {
		case c.needsRules && in.Rules == nil:
			o = na("there is no compiled draft to check: " + draftProblem(in))
		case c.solver:
			checkCtx, cancel := context.WithTimeout(solverCtx, bound.Share(solverCtx, solverChecks))
			solverChecks--
			var err error
			o, err = c.run(checkCtx, &in)
			cancel()
			if err != nil {
				return Report{}, err
			}
		default:
			var err error
			if o, err = c.run(ctx, &in); err != nil {
				return Report{}, err
			}
		}
		if err := ctx.Err(); errors.Is(err, context.Canceled) {
			return Report{}, err
		}
		via := c.via
		if o.via != "" {
			via = o.via
		}
		id := in.ProjectID
		if id == "" {
			id = "{id}"
		}
		ch := Check{ID: c.id, Title: c.title, Status: o.status, Evidence: o.evidence, Weight: c.weight,
			Why: c.why, ActionableVia: strings.ReplaceAll(via, "{id}", id)}
		if ch.Evidence == nil {
			ch.Evidence = []string{}
		}
		if o.incomplete != "" {
			ch.Incomplete, rep.Complete = &o.incomplete, false
			if o.advice == "" {
				o.advice = unfinishedAdvice(o.incomplete)
			}
		}
		if opts.DocsURL != nil {
			ch.DocsURL = opts.DocsURL(c.id)
		}
		if credit, ok := credits[o.status]; ok && c.scored {
			ch.Scored = true
			total += float64(c.weight)
			earned += float64(c.weight) * credit
			if o.status == StatusPass {
				rep.Strengths = append(rep.Strengths, o.strength)
			}
		}
		advice[c.id] = o.advice
		rep.Checks = append(rep.Checks, ch)
	}
	if total > 0 {
		s := int(math.Round(100 * earned / total))
		rep.Score = &s
	}
	order := priority(rep.Checks)
	if len(order) > 0 {
		top := rep.Checks[order[0]]
		rep.NextSkill = &Hint{CheckID: top.ID, Message: advice[top.ID], ActionableVia: top.ActionableVia, DocsURL: top.DocsURL}
	}
	if opts.Coach {
		text := coaching(rep.Checks, order, advice)
		rep.Coaching = &text
	}
	return rep, nil
}

// unfinishedAdvice is the advice of an unfinished check: what it means
// and what to do about it.
func unfinishedAdvice(why string) string {
	return "This check could not finish (" + why + "), so its result is unknown, not a pass. " +
		"A draft this large costs more than one review allows: split the section into smaller rulesets, " +
		"or run the check without the server's budget (`eligo check` for the static analysis, `eligo test --suggest` for the mutation score)."
}

// credits are the share of a check's weight each counted status earns.
var credits = map[string]float64{StatusPass: 1, StatusWarn: 0.5, StatusFail: 0}

// priority returns the indexes of the counted checks that fail, then of
// those that warn, then of the checks that could not finish, each by
// weight (highest first) then check order: the order in which they are
// worth attending to. An unfinished check comes last, since nothing is
// known to be wrong, but it comes: a report with nothing to fix and a
// check unfinished does not read as all clear.
func priority(cs []Check) []int {
	var out []int
	for _, status := range []string{StatusFail, StatusWarn, ""} {
		start := len(out)
		for i, c := range cs {
			wrong := c.Scored && (c.Status == StatusFail || c.Status == StatusWarn)
			if wrong && c.Status == status || !wrong && status == "" && c.Incomplete != nil {
				out = append(out, i)
			}
		}
		// A stable insertion sort by weight keeps check order on ties.
		for i := start + 1; i < len(out); i++ {
			for j := i; j > start && cs[out[j]].Weight > cs[out[j-1]].Weight; j-- {
				out[j], out[j-1] = out[j-1], out[j]
			}
		}
	}
	return out
}

// coaching writes the paragraph that walks through the checks of order,
// using each check's advice.
func coaching(cs []Check, order []int, advice map[string]string) string {
	if len(order) == 0 {
		return "Every check that applies passes. Keep the suite growing with the law: add a test for each new criterion and each threshold it brings, and review again after each change."
	}
	var b strings.Builder
	for n, i := range order {
		c := cs[i]
		switch {
		case n == 0:
			b.WriteString("Start with ")
		case n == len(order)-1:
			b.WriteString(" Finally, ")
		default:
			b.WriteString(" Next, ")
		}
		b.WriteString(strings.ToLower(c.Title[:1]) + c.Title[1:])
		status := c.Status
		if c.Incomplete != nil {
			status += ", not finished"
		}
		b.WriteString(" (" + c.ID + ", " + status + ", weight ")
		b.WriteString(strconv.Itoa(c.Weight) + "): ")
		b.WriteString(advice[c.ID])
		b.WriteString(" Use " + c.ActionableVia + ".")
	}
	return b.String()
}

// draftProblem is why there are no rules, for na evidence.
func draftProblem(in Input) string {
	if in.DraftProblem != "" {
		return in.DraftProblem
	}
	return "no draft yet"
}
