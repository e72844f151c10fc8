// Package solver answers questions about a compiled ruleset that one
// evaluation cannot: which questions to ask next, whether any answer set
// reaches an outcome, whether an unanswered field can look better than an
// answer, which criteria stand between given answers and an expected
// outcome, what two versions decide differently, and how well a suite of
// cases pins the rules down. It encodes the engine's compiled IR into SMT
// and asks Z3 through solver/z3.
//
// It serves two audiences, each from a package of its own so that the
// hot path and the authoring path share only the encoding. The /decide
// hot path uses only the planner (package solver/plan), whose plans are
// cached so that Z3 is seldom asked per request. Everything else runs on
// request of an author or an operator (explain failure, diff, publish,
// promotion, review, the CLI), where a run may take seconds and is bounded
// (package solver/bound); the verification tools are package solver/verify.
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
// Built on the encoding, in packages of their own:
//
//   - solver/plan, the /decide planner: next_question, optimal_path and
//     choice_context, from the outcome's ways to eligible precomputed per
//     ruleset and checked with Z3 only where the evaluator cannot settle
//     them; cached per content digest and answer pattern.
//   - solver/verify, the authoring-time tools: static analysis (Analyze),
//     the semantic diff of two versions (Diff), the mutation score
//     (MutationScore, MutationScoreWith) and suggested cases
//     (SuggestCases, SuggestCasesReport).
//   - solver/bound, what keeps those runs bounded: the process's Gate
//     (narrowed with For to a tenant's share), and the Progress and
//     Incomplete a run reports when its time runs out.
//
// Every query runs in a z3.Context owned by one goroutine, is bounded by a
// timeout and honours its context.Context, while encoding (EncodeContext)
// as well as while checking; a timeout is an error the caller sees.
// WithCriteria, Term, LooseBounds, AssertAll, WalkExpr, RatValue, ValueRat
// and QueryTimeout are the encoding's pieces the two packages above build
// with.
//
// The package imports engine; engine never imports it.
package solver
