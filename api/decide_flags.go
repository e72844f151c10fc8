package api

import "strings"

// decideFlag is one boolean member of a /decide body and everything the
// server does with it. decideFlags is the only list of them: the body
// reader (readDecideRequest), the decision cache key (requestCacheFlags),
// the decision record (requestFlagNames) and the anonymous price
// (costlyFlags) all read it, so a flag is added or changed in one place.
type decideFlag struct {
	// name is the member's name on the wire.
	name string
	// member is where the member lands in decideRequest.
	member func(*decideRequest) *bool
	// costly marks a flag that adds metering.FlagSurcharge to an anonymous
	// call's cost (spec, Limits 6): it makes the evaluation dearer.
	costly bool
	// cache is the bit the flag sets in the decision cache key, for a flag
	// that changes the cached decision; zero for one that does not.
	cache cacheFlags
	// recorded marks a flag named in the decision record when set.
	recorded bool
}

// decideFlags are the boolean members of a /decide body, in the order the
// decision record lists them.
var decideFlags = [...]decideFlag{
	{name: "include_trace", member: func(r *decideRequest) *bool { return &r.IncludeTrace }, costly: true, cache: flagTrace, recorded: true},
	{name: "include_explanation", member: func(r *decideRequest) *bool { return &r.IncludeExplanation }, costly: true, cache: flagExplanation, recorded: true},
	{name: "include_graph_overlay", member: func(r *decideRequest) *bool { return &r.IncludeGraphOverlay }, costly: true, cache: flagGraphOverlay, recorded: true},
	{name: "include_choice_context", member: func(r *decideRequest) *bool { return &r.IncludeChoiceContext }, cache: flagChoiceContext, recorded: true},
	{name: "include_timing", member: func(r *decideRequest) *bool { return &r.IncludeTiming }, recorded: true},
	{name: "no_cache", member: func(r *decideRequest) *bool { return &r.NoCache }, costly: true, recorded: true},
}

// decideFlagNamed returns the flag whose wire name is name, or nil.
func decideFlagNamed(name string) *decideFlag {
	for i := range decideFlags {
		if decideFlags[i].name == name {
			return &decideFlags[i]
		}
	}
	return nil
}

// requestCacheFlags are the flags of req that change the cached decision.
func requestCacheFlags(req *decideRequest) cacheFlags {
	var f cacheFlags
	for i := range decideFlags {
		if fl := &decideFlags[i]; *fl.member(req) {
			f |= fl.cache
		}
	}
	return f
}

// requestFlagNames lists the recorded flags set on req, by wire name, for
// the decision record; nil when none is set.
func requestFlagNames(req *decideRequest) []string {
	var names []string
	for i := range decideFlags {
		if fl := &decideFlags[i]; fl.recorded && *fl.member(req) {
			names = append(names, fl.name)
		}
	}
	return names
}

// costlyFlags counts the costly flags set on req: what an anonymous caller
// pays a surcharge for.
func costlyFlags(req *decideRequest) int {
	n := 0
	for i := range decideFlags {
		if fl := &decideFlags[i]; fl.costly && *fl.member(req) {
			n++
		}
	}
	return n
}

// costlyFlagList names the costly flags for the OpenAPI description:
// "`a`, `b` and `c`".
func costlyFlagList() string {
	var names []string
	for _, fl := range decideFlags {
		if fl.costly {
			names = append(names, "`"+fl.name+"`")
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
