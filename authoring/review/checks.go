package review

import (
	"context"
	"strings"
	"unicode/utf8"
)

// The check ids, in report order. They are stable: clients and the
// documentation's anchors key on them.
const (
	// CheckDraftCompiles: the draft exists and compiles.
	CheckDraftCompiles = "draft_compiles"
	// CheckTestsPerSection: the section has at least five test cases.
	CheckTestsPerSection = "tests_per_section"
	// CheckTestsPass: every test case passes against the draft.
	CheckTestsPass = "tests_pass"
	// CheckCriteriaBothWays: every criterion is seen satisfied and
	// not_satisfied by some case.
	CheckCriteriaBothWays = "criteria_both_ways"
	// CheckThresholdBoundaries: every comparison with a constant is tested
	// at its boundary.
	CheckThresholdBoundaries = "threshold_boundaries"
	// CheckCriteriaCited: every criterion rests on a verified quote.
	CheckCriteriaCited = "criteria_cited"
	// CheckClauseCoverage: enough of the active sources' clauses are cited.
	CheckClauseCoverage = "clause_coverage"
	// CheckPresencePolarity: no presence operator makes an unanswered field
	// look better than an answer.
	CheckPresencePolarity = "presence_polarity"
	// CheckUnusedFields: no declared field goes unread and no test sends a
	// field the draft does not declare.
	CheckUnusedFields = "unused_fields"
	// CheckSupersededSources: no citation rests on a source that is not
	// active.
	CheckSupersededSources = "superseded_sources"
	// CheckSourceQuestions: no source question is left open.
	CheckSourceQuestions = "source_questions"
	// CheckStaticAnalysis: the solver finds nothing dead, redundant or
	// always true in the rules.
	CheckStaticAnalysis = "static_analysis"
	// CheckMutationScore: the tests kill most mutants of the rules.
	CheckMutationScore = "mutation_score"
	// CheckEffectivePeriod: the rules' effective period has not ended
	// before today nor before the period of the version live under the
	// slug began. Advisory: weight 0, never scored.
	CheckEffectivePeriod = "effective_period"
)

// Endpoints the checks point at; "{id}" becomes the project id.
const (
	viaTests    = "POST /projects/{id}/tests"
	viaDraft    = "PUT /projects/{id}/draft"
	viaGuidance = "POST /projects/{id}/guidance"
)

// check is one named stage of the review: what it is, what it weighs and
// the function that decides it. The table below is the review.
type check struct {
	// id is the Check* constant.
	id string
	// title names the check for people.
	title string
	// weight is its share of the score; the weights sum to 100.
	weight int
	// scored says whether its pass/warn/fail counts in the score.
	scored bool
	// needsRules makes the check na, without running, when there is no
	// compiled draft.
	needsRules bool
	// solver marks the checks that ask the solver: each runs under its
	// share of the review's solver budget (see Options.Budget).
	solver bool
	// why is Check.Why.
	why string
	// via is the endpoint that fixes it, unless the outcome names another.
	via string
	// run decides the check. A solver check whose ctx ends returns an
	// unfinished outcome, not an error; Build returns an error only when
	// the caller cancels.
	run func(ctx context.Context, in *Input) (outcome, error)
}

// outcome is what one check found.
type outcome struct {
	// status is one of the Status* constants.
	status string
	// evidence is Check.Evidence.
	evidence []string
	// strength is the sentence Report.Strengths shows when it passes.
	strength string
	// advice says what to do when it warns or fails: the hint's message
	// and the check's part of the coaching.
	advice string
	// via overrides check.via when the fix depends on what was found.
	via string
	// incomplete, when not empty, says why the check could not finish
	// (Check.Incomplete); its status is then what it could establish, na
	// when nothing.
	incomplete string
}

// unfinished is the outcome of a check that could not finish: na (it
// counts for nothing, and never passes for want of time), with why as its
// incomplete reason and evidence, then what it established before.
func unfinished(why string, evidence ...string) outcome {
	return outcome{status: StatusNA, evidence: append([]string{"not finished: " + why}, evidence...), incomplete: why}
}

// na is the outcome of a check that does not apply, saying why.
func na(reason string) outcome {
	return outcome{status: StatusNA, evidence: []string{reason}}
}

// checks is the review, in report order.
var checks = []check{
	{id: CheckDraftCompiles, title: "Draft compiles", weight: 10, scored: true, via: viaDraft,
		why: "Nothing else about the rules can be checked, tested or published until the draft compiles.",
		run: draftCompiles},
	{id: CheckTestsPerSection, title: "Tests per section", weight: 10, scored: true, via: viaTests,
		why: "A handful of cases cannot pin down a section's criteria and thresholds; five is the least that starts to.",
		run: testsPerSection},
	{id: CheckTestsPass, title: "Tests pass", weight: 15, scored: true, needsRules: true, via: viaDraft,
		why: "A failing case means the draft and the team disagree about what the law decides.",
		run: testsPass},
	{id: CheckCriteriaBothWays, title: "Criteria tested both ways", weight: 10, scored: true, needsRules: true, via: viaTests,
		why: "A criterion only ever seen passing (or only failing) could be always true (or always false) without any test noticing.",
		run: criteriaBothWays},
	{id: CheckThresholdBoundaries, title: "Thresholds tested at their boundary", weight: 10, scored: true, needsRules: true, via: viaTests,
		why: "Off-by-one mistakes (> for >=, 12 for 11) live at the boundary and pass every test away from it.",
		run: thresholdBoundaries},
	{id: CheckCriteriaCited, title: "Criteria cited", weight: 10, scored: true, needsRules: true, via: viaDraft,
		why: "A criterion without a verified quote cannot be traced to the law, and publishing requires every quote verified.",
		run: criteriaCited},
	{id: CheckClauseCoverage, title: "Source clauses covered", weight: 5, scored: true, via: viaDraft,
		why: "Clauses of an active source that no criterion cites are often conditions the rules have missed.",
		run: clauseCoverage},
	{id: CheckPresencePolarity, title: "Unanswered fields never help", weight: 10, scored: true, needsRules: true, solver: true, via: viaDraft,
		why: "If leaving a field unanswered can make an applicant look more eligible than answering truthfully, go-live is refused.",
		run: presencePolarity},
	{id: CheckUnusedFields, title: "Fields used and named alike", weight: 4, scored: true, needsRules: true, via: viaDraft,
		why: "A declared field no criterion reads asks applicants a useless question, and a test field the draft does not declare is silently treated as absent.",
		run: unusedFields},
	{id: CheckSupersededSources, title: "Citations rest on active sources", weight: 4, scored: true, needsRules: true, via: viaDraft,
		why: "A quote from a superseded or reference-only source may no longer be the law.",
		run: supersededSources},
	{id: CheckSourceQuestions, title: "Source questions resolved", weight: 2, scored: true, via: viaGuidance,
		why: "An open question means the draft rests on a provisional reading of an ambiguous or conflicting passage.",
		run: sourceQuestions},
	{id: CheckStaticAnalysis, title: "Nothing dead or redundant in the rules", weight: 5, scored: true, needsRules: true, solver: true, via: viaDraft,
		why: "A criterion that can never (or always) hold, or a field that never matters, is usually a mistake in the rules that no test shows.",
		run: staticAnalysis},
	{id: CheckMutationScore, title: "Tests notice small changes", weight: 5, scored: true, needsRules: true, solver: true, via: viaTests,
		why: "Tests that pass whatever a threshold or comparison says do not pin the rules down; the share of mutants they kill measures how well they do.",
		run: mutationScore},
	{id: CheckEffectivePeriod, title: "Effective period still current", weight: 0, scored: false, needsRules: true, via: viaDraft,
		why: "Rules whose period has ended publish without complaint, then decide nothing: every decision dated after the period is undetermined.",
		run: effectivePeriod},
}

// clipLen is the length, in characters, a quoted passage is cut to in
// evidence.
const clipLen = 160

// clip normalises white space in s and cuts it to clipLen characters,
// ending with "…" when it cut.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= clipLen {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:clipLen-1])) + "…"
}

// plural returns one when n is 1, else many[0] when given, else one with
// an s.
func plural(n int, one string, many ...string) string {
	switch {
	case n == 1:
		return one
	case len(many) > 0:
		return many[0]
	}
	return one + "s"
}
