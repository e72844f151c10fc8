// Package solver answers questions about a compiled ruleset that one
// evaluation cannot: which questions to ask next, whether any answer set
// reaches an outcome, whether an unanswered field can look better than an
// answer, which criteria stand between given answers and an expected
// outcome, what two versions decide differently, and how well a suite of
// cases pins the rules down. It encodes the engine's compiled IR into SMT
// and asks Z3 through solver/z3.
//
// It serves two audiences. The /decide hot path uses only the Planner,
// whose plans are cached so that Z3 is seldom asked per request.
// Everything else runs on request of an author or an operator (explain
// failure, diff, publish, promotion, review, the CLI), where a run may
// take seconds and is bounded (bound.go).
//
// The encoding and its direct queries:
//
//   - Encode (encode.go, encode_dates.go, decode.go) builds the
//     three-valued SMT form of a ruleset: presence and value variables per
//     field (ints as Int, decimals as Real, enums as bounded Ints, dates as
//     year, month and day so that years_between and days_between stay
//     linear), a Tri (Known, Value) per criterion, group and the outcome,
//     terms to state answers and statuses, and Decode/Statuses to read
//     models back. The differential test holds it to the evaluator on every
//     casebank ruleset.
//   - CheckPresencePolarity (polarity.go) is the go-live gate: findings where
//     leaving a field unanswered looks better than some answer, each with a
//     witness replayed through the evaluator. Promotion to live refuses on
//     one (non_conservative_presence_op); the review reports them.
//   - ExplainFailure and Explainer (explain.go) give the minimal set of
//     criteria that rules out an expected outcome (an unsat core via
//     assumptions, shrunk until each member is necessary), with facts,
//     source references and a mechanism hint. The explain-failure
//     operation uses an Explainer the catalog keeps per content;
//     generation's repair rounds and `eligo eval` call ExplainFailure.
//
// The /decide planner:
//
//   - Planner (path*.go, routes*.go, choice.go, inquiry.go) works out
//     /decide's next_question, optimal_path and choice_context: the
//     outcome's routes in disjunctive form are precomputed per ruleset,
//     candidates are pruned with the engine's three-valued statuses and
//     tried with likely answers, and Z3 settles only what is left
//     (cross-criterion contradictions). Plans are cached per content digest
//     and answer pattern. The result equals a brute-force search on small
//     rulesets (path_property_test.go).
//
// The authoring-time verification tools:
//
//   - Analyze (analyze.go, analyze_checks.go) is static analysis: criteria
//     never or always satisfied, implied by their neighbours, alternatives
//     that are one, questions whose answer never changes the outcome; a
//     finding only when Z3 proves it. Publish reports its findings as
//     warnings, `eligo check` prints them, the review scores them.
//   - Diff (diff.go) is the semantic diff of two versions: whether any
//     applicant gets a different outcome, with a witness per kind of
//     change, and the fields added, removed or changed. `eligo diff`, the
//     ruleset and rulebook diff operations and promotion use it.
//   - MutationScore (mutate.go) edits the rules the way an author might
//     slip (a flipped comparison, a shifted threshold, a swapped
//     connective, a dropped criterion) and counts the mutants the cases
//     tell apart, leaving out those Z3 proves equivalent; the survivors are
//     what the suite would not notice.
//   - SuggestCases (suggest.go) proposes cases for what the suite leaves
//     untested: each criterion satisfied and not, each threshold at, just
//     below and just above its constant, ready to paste into cases.json.
//
// Bounds (bound.go): every query runs in a z3.Context owned by one
// goroutine, is bounded by a timeout and honours its context.Context, while
// encoding as well as while checking; a timeout is an error the caller
// sees. The authoring-time runs whose work grows with the draft are capped
// in items (MutationScoreWith samples beyond DefaultMaxMutants,
// SuggestCases beyond DefaultMaxGoals), bounded in time, and admitted
// through a Gate: one per process, built in the composition root, narrowed
// with For to a tenant's share, so that one caller cannot take every core.
// The mutation score and suggested cases return a partial result marked
// incomplete (Progress) when time runs out; Analyze returns what it found
// with an *Incomplete error.
//
// The package imports engine; engine never imports it.
package solver
