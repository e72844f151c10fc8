// Package verify holds the authoring-time verification tools: questions
// about every possible answer set that an author asks of a draft before it
// goes live, each bounded (solver/bound) because a draft's size is the
// caller's to choose. They share the SMT encoding of package solver and
// are kept apart from the /decide planner (solver/plan), so the request
// path and the authoring path do not share a package.
//
//   - Analyze (analyze.go, analyze_checks.go): static analysis, findings
//     Z3 proves (a criterion no answer satisfies or every answer does, one
//     implied by its neighbours, alternatives that are one, a question that
//     never matters, an outcome never or always eligible). Publish reports
//     them as warnings; the review and `eligo check` print them.
//   - Diff (diff.go): the semantic diff of two versions: each way an
//     applicant's outcome can change, with a witness answer set and the
//     criteria that changed for it, beside the field changes.
//   - MutationScore (mutate.go): how many plausible slips of the author
//     (a flipped comparison, a moved threshold, a dropped criterion...) the
//     test cases catch, equivalent mutants set aside by Z3.
//   - SuggestCases (suggest*.go): the test cases a suite is missing, one per
//     goal (each criterion satisfied and not, each threshold at and beside
//     its boundary, each alternative alone), each solved by Z3 and replayed
//     through the evaluator.
//
// Every run is capped in items, bounded in time and admitted through the
// process's bound.Gate; the mutation score and the suggested cases return
// a partial result marked incomplete (bound.Progress) when time runs out.
package verify
