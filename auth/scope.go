// Package auth holds what Eligo knows about callers: API keys (their format,
// issuance and verification), the eleven scopes and four tiers (docs/api.md#keys-and-access), and
// the Principal that an authenticated request carries in its context.
package auth

import (
	"fmt"
	"slices"
	"strings"
)

// Scope is one permission a key can carry, spelled exactly as in the scope
// list of docs/api.md#keys-and-access.
type Scope string

// The eleven scopes (docs/api.md#keys-and-access). CaseloadsRead lets a key
// see what identifies cases in an impact run's report (example references
// and line numbers, docs/impact.md#who-sees-what), which projects:read alone
// does not. AdminRead is never self-servable: only an
// operator with database access issues it, through `eligo keys create`.
const (
	ScopeDecide          Scope = "decide"
	ScopeRulesetsRead    Scope = "rulesets:read"
	ScopeRulesetsExplain Scope = "rulesets:explain"
	ScopeRulesetsSource  Scope = "rulesets:source"
	ScopeRulesetsWrite   Scope = "rulesets:write"
	ScopeProjectsRead    Scope = "projects:read"
	ScopeProjectsWrite   Scope = "projects:write"
	ScopeCaseloadsRead   Scope = "caseloads:read"
	ScopeRulebooksRead   Scope = "rulebooks:read"
	ScopeRulebooksWrite  Scope = "rulebooks:write"
	ScopeAdminRead       Scope = "admin:read"
)

// AllScopes lists every scope in the order of docs/api.md#keys-and-access.
var AllScopes = []Scope{
	ScopeDecide, ScopeRulesetsRead, ScopeRulesetsExplain, ScopeRulesetsSource, ScopeRulesetsWrite,
	ScopeProjectsRead, ScopeProjectsWrite, ScopeCaseloadsRead, ScopeRulebooksRead, ScopeRulebooksWrite, ScopeAdminRead,
}

// ParseScopes reads a comma-separated scope list such as
// "decide,rulesets:read". The word "all" stands for every scope. Unknown
// scopes are an error, duplicates are dropped, and the result keeps the order
// of docs/api.md#keys-and-access.
func ParseScopes(list string) ([]Scope, error) {
	seen := map[Scope]bool{}
	for _, part := range strings.Split(list, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "":
			continue
		case part == "all":
			for _, s := range AllScopes {
				seen[s] = true
			}
		case slices.Contains(AllScopes, Scope(part)):
			seen[Scope(part)] = true
		default:
			return nil, fmt.Errorf("unknown scope %q (known: %s, or all)", part, strings.Join(ScopeNames(AllScopes), ","))
		}
	}
	if len(seen) == 0 {
		return nil, fmt.Errorf("no scopes given")
	}
	out := make([]Scope, 0, len(seen))
	for _, s := range AllScopes {
		if seen[s] {
			out = append(out, s)
		}
	}
	return out, nil
}

// ScopeNames spells scopes as strings, in their order: the form the store
// keeps and the OpenAPI document and error bodies show.
func ScopeNames(scopes []Scope) []string {
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	return names
}

// Tier is the commercial tier of a key; it selects metering budgets. It is
// set when the key is created and changed only through support.
type Tier string

// The four tiers.
const (
	TierFree     Tier = "free"
	TierStarter  Tier = "starter"
	TierPro      Tier = "pro"
	TierInternal Tier = "internal"
)

// AllTiers lists every tier, cheapest first.
var AllTiers = []Tier{TierFree, TierStarter, TierPro, TierInternal}

// ParseTier checks that s names a tier.
func ParseTier(s string) (Tier, error) {
	if slices.Contains(AllTiers, Tier(s)) {
		return Tier(s), nil
	}
	return "", fmt.Errorf("unknown tier %q (known: free, starter, pro, internal)", s)
}
