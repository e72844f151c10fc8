// Package metering counts requests against budgets: six operation classes,
// per-tier daily budgets, a rolling 24-hour window of hourly buckets kept in
// PostgreSQL, and the anonymous cost rules of /decide.
//
// A Meter decides, for one caller and one class, whether a request fits the
// caller's budget. Counts go through an in-process accumulator that writes
// to the database at least every second; the window sum is read with one
// indexed query and reused briefly. The decision is exact for this process's
// own traffic and lags other processes by a bounded amount: see Meter for
// the bound.
package metering

import "slices"

// Class is an operation class: the budget an operation counts against and
// the usage metric it reports under. Every API operation declares exactly
// one (or Unmetered).
type Class string

// The six operation classes.
const (
	// ClassDecide is POST /decide: one decision per call, however many
	// fields, flags or cache hits are involved.
	ClassDecide Class = "decide"
	// ClassRulesets is /rulesets/*: listing, schema, explain, graph,
	// explain-failure, source, visibility and archive.
	ClassRulesets Class = "rulesets"
	// ClassRulebooks is /rulebooks/*.
	ClassRulebooks Class = "rulebooks"
	// ClassProjects is /projects/* authoring, except generation.
	ClassProjects Class = "projects"
	// ClassGenerate is model-backed generation (generate,
	// generate-and-test). It is report-only: over the ceiling a request is
	// counted and served.
	ClassGenerate Class = "generate"
	// ClassAdmin is the internal cross-tenant admin routes.
	ClassAdmin Class = "admin"
	// Unmetered marks operations that are never counted and never refused
	// for budget: GET /usage (reading your budget must not spend it). It is
	// not one of the six classes.
	Unmetered Class = "unmetered"
)

// ClassInfo describes one class in the class table.
type ClassInfo struct {
	// Class is the class name, as sent in X-RateLimit-Class.
	Class Class
	// Enforced is false for report-only classes: over the budget, requests
	// are recorded (and visible in /usage) but not refused.
	Enforced bool
	// Operations says in words what counts against the class, for the
	// reference documentation.
	Operations string
}

// Classes is the class table, in the order /usage lists them.
var Classes = []ClassInfo{
	{ClassDecide, true, "POST /decide"},
	{ClassRulesets, true, "/rulesets and /rulesets/{ruleset_id}/* (reads, explain-failure, source, visibility, archive)"},
	{ClassRulebooks, true, "/rulebooks/ and /rulebooks/{id}/*"},
	{ClassProjects, true, "/projects/* authoring (sources, tests, guidance, status, review, publish)"},
	{ClassGenerate, false, "POST /projects/{id}/generate and /generate-and-test"},
	{ClassAdmin, true, "internal admin routes"},
}

// Known reports whether c is one of the six classes.
func (c Class) Known() bool {
	return slices.ContainsFunc(Classes, func(i ClassInfo) bool { return i.Class == c })
}

// Enforced reports whether requests over the budget are refused; false for
// the report-only generate class and for anything that is not a class.
func (c Class) Enforced() bool {
	i := slices.IndexFunc(Classes, func(i ClassInfo) bool { return i.Class == c })
	return i >= 0 && Classes[i].Enforced
}
