package metering

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/eligo/eligo/auth"
)

// Anonymous is the budget tier of callers without a usable key; their
// subject is their client address.
const Anonymous = "anonymous"

// Tiers lists the budget tiers: Anonymous, then the key tiers of
// auth.AllTiers, cheapest first. It is built from auth.AllTiers so that a
// tier added there gets a row in the budget table without a second list to
// keep in step; each call returns a fresh slice.
func Tiers() []string {
	tiers := make([]string, 0, 1+len(auth.AllTiers))
	tiers = append(tiers, Anonymous)
	for _, t := range auth.AllTiers {
		tiers = append(tiers, string(t))
	}
	return tiers
}

// Budgets is the configuration table: for each tier, the rolling 24-hour
// budget of each class. For Anonymous the unit is the cost unit (see
// DecideCost); for key tiers it is the request. A class missing from a
// tier's row has budget 0: every request of that class is refused (or, for
// a report-only class, counted as over).
type Budgets map[string]map[Class]int64

// DefaultBudgets returns the figures of docs/metering.md.
//
// Anonymous: the interface contract gives two conflicting per-IP figures for /decide, 500
// per day (an earlier tier listing) and 250 decisions per day (a preview
// statement). Eligo uses 250 cost units: it is the more recent and the more
// conservative statement, it keeps a free key (500 decisions, flags
// included) strictly more useful than no key, and raising it later is a
// configuration change that breaks no client, whereas lowering it would.
// /rulesets/* reads get the only figure given, 500, and the anonymous
// /rulebooks/ catalogue the same.
//
// Keys: free 500/500/500, starter 10,000/500/100, pro 100,000/5,000/500 for
// decide, rulesets and projects, as the contract lists. It gives no
// figures for rulebooks (Eligo uses the rulesets figure), generate (report
// only; Eligo reports against 20/100/500) or admin (1,000: only internal
// keys carry admin:read, so for other tiers the figure is moot). Internal
// keys get 100,000,000 for every class: a guard against a runaway
// client, not a plan limit (a load test at 20,000 decisions/s stays under
// it for over an hour).
func DefaultBudgets() Budgets {
	return Budgets{
		Anonymous: {ClassDecide: 250, ClassRulesets: 500, ClassRulebooks: 500},
		string(auth.TierFree): {
			ClassDecide: 500, ClassRulesets: 500, ClassRulebooks: 500,
			ClassProjects: 500, ClassGenerate: 20, ClassAdmin: 1_000,
		},
		string(auth.TierStarter): {
			ClassDecide: 10_000, ClassRulesets: 500, ClassRulebooks: 500,
			ClassProjects: 100, ClassGenerate: 100, ClassAdmin: 1_000,
		},
		string(auth.TierPro): {
			ClassDecide: 100_000, ClassRulesets: 5_000, ClassRulebooks: 5_000,
			ClassProjects: 500, ClassGenerate: 500, ClassAdmin: 1_000,
		},
		string(auth.TierInternal): {
			ClassDecide: 100_000_000, ClassRulesets: 100_000_000, ClassRulebooks: 100_000_000,
			ClassProjects: 100_000_000, ClassGenerate: 100_000_000, ClassAdmin: 100_000_000,
		},
	}
}

// UniformBudgets gives every tier, anonymous included, the same budget n
// in every class: a flat limit, or, with a large n, no practical limit for
// tests whose subject is something else.
func UniformBudgets(n int64) Budgets {
	b := Budgets{}
	for _, tier := range Tiers() {
		b[tier] = map[Class]int64{}
		for _, c := range Classes {
			b[tier][c.Class] = n
		}
	}
	return b
}

// Limit returns the budget of class for tier.
func (b Budgets) Limit(tier string, class Class) int64 {
	return b[tier][class]
}

// Clone returns a deep copy, so overrides never change a shared table.
func (b Budgets) Clone() Budgets {
	out := make(Budgets, len(b))
	for tier, row := range b {
		out[tier] = make(map[Class]int64, len(row))
		for c, n := range row {
			out[tier][c] = n
		}
	}
	return out
}

// Override returns a copy of b with the overrides in spec applied. spec is
// a comma-separated list of tier.class=budget, for example
// "anonymous.decide=500,pro.generate=1000". Unknown tiers or classes and
// negative budgets are errors, so a typo fails at start.
func (b Budgets) Override(spec string) (Budgets, error) {
	out := b.Clone()
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, value, ok := strings.Cut(item, "=")
		tier, class, ok2 := strings.Cut(strings.TrimSpace(name), ".")
		if !ok || !ok2 {
			return nil, fmt.Errorf("budget override %q: want tier.class=budget", item)
		}
		if tiers := Tiers(); !slices.Contains(tiers, tier) {
			return nil, fmt.Errorf("budget override %q: unknown tier %q (known: %s)", item, tier, strings.Join(tiers, ", "))
		}
		if !Class(class).Known() {
			return nil, fmt.Errorf("budget override %q: unknown class %q", item, class)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("budget override %q: budget must be a whole number of at least 0", item)
		}
		if out[tier] == nil {
			out[tier] = map[Class]int64{}
		}
		out[tier][Class(class)] = n
	}
	return out, nil
}
