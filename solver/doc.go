// Package solver answers questions about a compiled ruleset that one
// evaluation cannot: which questions to ask next, whether any answer set
// reaches an outcome, whether an unanswered field can look better than an
// answer, and which criteria stand between given answers and an expected
// outcome. It encodes the engine's compiled IR into SMT and asks Z3 through
// solver/z3.
//
//   - Encode (encode.go) builds the three-valued SMT form of a ruleset:
//     presence and value variables per field, a Tri (Known, Value) per
//     criterion, group and the outcome, terms to state answers and statuses,
//     and Decode/Statuses to read models back. The differential test holds it
//     to the evaluator on every casebank ruleset.
//   - CheckPresencePolarity (polarity.go) is the go-live gate: findings where
//     leaving a field unanswered looks better than some answer, each with a
//     witness replayed through the evaluator.
//   - ExplainFailure and Explainer (explain.go) give the minimal set of
//     criteria that rules out an expected outcome, with facts, source
//     references and a mechanism hint.
//   - Planner (path*.go, routes*.go, choice.go, inquiry.go) works out
//     /decide's next_question, optimal_path and choice_context: the
//     outcome's routes in disjunctive form are precomputed per ruleset,
//     candidates are pruned with the engine's three-valued statuses and
//     tried with likely answers, and Z3 settles only what is left
//     (cross-criterion contradictions). Plans are cached per content digest
//     and answer pattern. The result equals a brute-force search on small
//     rulesets (path_property_test.go).
//
// Every query runs in a z3.Context owned by one goroutine, is bounded by a
// timeout and honours its context.Context, while encoding as well as
// while checking; a timeout is an error the caller sees. The
// authoring-time runs whose work grows with the draft (bound.go) are
// capped in items (MutationScoreWith samples beyond DefaultMaxMutants,
// SuggestCases beyond DefaultMaxGoals), bounded in time, and admitted
// through a process-wide Gate; the mutation score and suggested cases
// return a partial result marked incomplete (Progress) when time runs out.
// The package imports engine; engine never imports it.
package solver
