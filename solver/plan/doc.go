// Package plan is the /decide planner: it works out a decision's
// next_question, optimal_path and choice_context, on the request path, so
// it is kept apart from the authoring-time tools of solver/verify.
//
// docs/api.md#planning-next_question-optimal_path-choice_context defines the path: among the ways the
// outcome can still become eligible given the answers so far, the one
// whose unanswered fields weigh least (ties: fewer fields, fields the
// inquiry context prefers, declaration order); when no way to eligible
// remains, the cheapest set that settles the outcome at all.
//
//   - ways.go: a way is one term of the outcome's disjunctive form (a set
//     of criterion statuses that together decide it) with the fields it
//     reads and their weight; the ways to eligible and to not_eligible are
//     precomputed once per compiled ruleset (content digest). A form too
//     large becomes one way over every criterion, searched exactly.
//   - supports.go: the minimal field sets that can still settle a
//     criterion, a way or the outcome under the answers so far, from the
//     engine's three-valued statuses.
//   - search.go: a best-first search over field sets, cheapest first;
//     witness.go tries likely answers in the engine before asking Z3, and
//     feasible.go asks Z3 (a pooled, prepared solver.Encoding per ruleset)
//     only what is left: contradictions between criteria that three-valued
//     evaluation cannot see. A rejected set grows only by the fields its
//     unsat core names, and a core learned once rules out, without a
//     query, every set it covers.
//   - members.go: lists of members (docs/language.md#households): members
//     the answers say the same about are interchangeable, so one set
//     stands for each family of their questions; members beyond the
//     list's answered length are never asked about.
//   - choice.go: choice_context, the OR-groups and how open each
//     alternative still is; inquiry.go: the inquiry context, which steers
//     ties and never the outcome.
//   - fieldset.go: a set of fields is a bitmap of 256 fields in place (no
//     allocation), and of any fields beyond, in a ruleset of up to
//     syntax.MaxFields or a composed rulebook, in an immutable string
//     beside it.
//   - plan.go: Planner, safe for concurrent use, caches the per-ruleset
//     precomputation and finished plans (cache.go keys them by content
//     digest and answer pattern); each Z3 check is bounded in time
//     (checkTimeout) and each plan in checks (WithMaxChecks).
//
// The result equals a brute-force search on small rulesets
// (property_test.go). The package imports solver for the encoding, and
// engine; nothing below api/decide and the composition root imports it.
package plan
