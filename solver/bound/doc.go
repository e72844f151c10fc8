// Package bound holds the bounds every heavy solver run works under, so
// that the direct queries of package solver (explain-failure, the
// polarity gate) and the authoring-time tools of solver/verify (analysis,
// diff, mutation score, suggested cases) share one definition of them.
//
// The authoring-time tools do work that grows with the ruleset: a mutant
// per comparison, a goal per threshold, a Z3 check per field. A draft any
// key can upload may hold a thousand criteria, so each tool runs under
// three bounds: a cap on how many items it plans (Choose samples
// deterministically beyond the cap), a deadline for the whole run (the
// context's, and a default of its own: WithBudget), and a process-wide
// Gate on how many such runs use the cores at once, of which one tenant
// holds at most a share. A run that meets its deadline returns what it
// decided with a Progress that says so (Progress.Stop, Incomplete),
// instead of failing or claiming a result it did not reach.
//
// The package imports nothing of the project; the /decide planner
// (solver/plan) does not use it: its queries are bounded per check and
// per plan instead.
package bound
