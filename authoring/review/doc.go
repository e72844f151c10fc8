// Package review builds the deterministic review report of an authoring
// project (POST /projects/{id}/review): a list of named checks over the
// team's draft ruleset, test cases, sources, citations and source
// questions, each with concrete evidence, a score, the strengths, the one
// check most worth fixing next, and on request a coaching paragraph. It is
// advisory only: nothing here blocks generation or publishing, and
// publish responses carry the same next step as review_hint.
//
// The package is pure apart from the solver: it reads no database and
// serves no HTTP. The caller gathers everything into an Input (the compiled
// draft, the cases and their results, the verified citations, the sources
// with their clause coverage, the recorded questions) and Build returns
// the Report. The same Input always gives the same Report, so a team can
// re-run the review after each change and see exactly what moved.
//
// # Checks
//
// Checks run in this order, which is also the tie-break for next_skill.
// Weights sum to 100, so a score reads as "points of 100 earned among the
// checks that apply".
//
//	id                    weight  needs rules  pass / warn / fail
//	draft_compiles          10    no           info when it compiles (not scored) / - / fail when not
//	tests_per_section       10    no           >= 5 tests / 1-4 / none
//	tests_pass              15    yes          every case passes / - / any case fails
//	criteria_both_ways      10    yes          each criterion seen satisfied and not_satisfied /
//	                                           some seen only one way / some never decided
//	threshold_boundaries    10    yes          every threshold tested at its boundary / some / none
//	criteria_cited          10    yes          every criterion has a verified quote, none unverified /
//	                                           all cited but some quotes unverified / some criterion uncited
//	clause_coverage          5    no           >= 60% of active clauses cited / >= 30% / below 30%
//	presence_polarity       10    yes          no finding / - / a finding (na, unfinished, when the solver cannot finish)
//	unused_fields            4    yes          none / some field unread or unknown to the draft / -
//	superseded_sources       4    yes          every citation resolves to an active source / some do not / -
//	source_questions         2    no           no open question / some open / -
//	static_analysis          5    yes          the solver finds nothing / findings / - (na or warn, unfinished, when it cannot finish)
//	mutation_score           5    yes          >= 80% of mutants killed / >= 50% / below 50%
//	effective_period         0    yes          the period is current / it ended before today, or before the
//	                                           period of the version live under the slug began / -
//	                                           (advisory: never scored; na without a period)
//
// A check is na when it does not apply (no draft for the checks that need
// rules, no cases to run, no active source with clauses, no comparison
// with a constant, the solver could not answer); an na or info check is
// left out of the score and reported with Scored false, so that Scored
// says whether the check counted in this report. Weight is always the
// check's weight, applicable or not.
//
// # Budget and unfinished checks
//
// The three solver checks (presence_polarity, static_analysis,
// mutation_score with its suggested cases) share a time budget,
// Options.Budget (DefaultBudget, 20 s), each taking an equal share of what
// is left when it starts; they also wait for a slot of the process's
// solver Gate within that share. A check that runs out, or that the solver
// cannot decide, is unfinished: its status is na (warn when the analysis
// had already proved findings), never pass; Check.Incomplete says why and
// its evidence starts with "not finished: ". Report.Complete is then false,
// the score covers only the checks that finished, and an unfinished check
// comes after the failing and warning ones in next_skill's order (so
// publish's review_hint names it when nothing else needs fixing). A
// mutation score cut short gives no score, only the mutants decided; one
// over verify.DefaultMaxMutants is scored on a fixed sample and says so.
// Build fails only when ctx is cancelled.
//
// # Score
//
// score = round(100 × Σ weight × credit / Σ weight) over the checks that
// counted, credit being 1 for pass, 0.5 for warn and 0 for fail; null when
// no check counted. data_completeness is "thin" below 5 test cases (a
// project is one section), else "ok".
//
// next_skill is the failing counted check of highest weight, else the
// warning one of highest weight (ties: check order), with a message that
// says what to do; null when every counted check passes. The coaching
// paragraph (Options.Coach) walks every failing, then warning, check in
// that same order; it is assembled from the checks, with no model.
//
// # Threshold boundaries
//
// A threshold is a comparison (<, <=, >, >=, ==) of an int, decimal or date
// expression with a constant, in a criterion. The other side may be a field
// or computed (years_between(birth, decision_date()) >= 66, income ?? 0 <=
// 1305): its value per case is worked out by the engine itself, by
// compiling a probe ruleset (engine.Build) whose criteria ask "is this side
// equal to / below / above the boundary" and evaluating each case with it,
// so the review never re-implements the evaluator. A threshold is tested
// when some case sits exactly on the constant and some case sits just on
// the other side of the boundary: for int and date the neighbour (11 for
// `>= 12`, 13 for `> 12`; the day before or after), for decimal any value
// strictly on that side; for == either neighbour. A constant written as a
// negated literal (`x >= -5`) is not a constant node and is not checked; an
// int side compared with a fractional constant needs a case on each side.
package review
