package decide

import (
	"math/bits"
	"strings"
)

// decideFlag is one boolean member of a /decide body and everything the
// server does with it. decideFlags is the only list of them: the body
// reader (readDecideRequest), the decision cache key (requestCacheFlags),
// the decision record (requestFlagNames) and the anonymous price
// (costlyFlags) all read it, so a flag is added or changed in one place.
// The last three read the request's flagSet, which the reader fills along
// with the members.
type decideFlag struct {
	// name is the member's name on the wire.
	name string
	// member is where the member lands in decideRequest.
	member func(*decideRequest) *bool
	// costly marks a flag that adds metering.FlagSurcharge to an anonymous
	// call's cost (docs/metering.md): it makes the evaluation dearer.
	costly bool
	// cache is the bit the flag sets in the decision cache key, for a flag
	// that changes the cached decision; zero for one that does not.
	cache cacheFlags
	// recorded marks a flag named in the decision record when set.
	recorded bool
}

// decideFlags are the boolean members of a /decide body, in the order the
// decision record lists them; a flagSet has room for eight.
var decideFlags = [...]decideFlag{
	{name: "include_trace", member: func(r *decideRequest) *bool { return &r.IncludeTrace }, costly: true, cache: flagTrace, recorded: true},
	{name: "include_explanation", member: func(r *decideRequest) *bool { return &r.IncludeExplanation }, costly: true, cache: flagExplanation, recorded: true},
	{name: "include_graph_overlay", member: func(r *decideRequest) *bool { return &r.IncludeGraphOverlay }, costly: true, cache: flagGraphOverlay, recorded: true},
	{name: "include_choice_context", member: func(r *decideRequest) *bool { return &r.IncludeChoiceContext }, cache: flagChoiceContext, recorded: true},
	{name: "include_timing", member: func(r *decideRequest) *bool { return &r.IncludeTiming }, recorded: true},
	{name: "no_cache", member: func(r *decideRequest) *bool { return &r.NoCache }, costly: true, recorded: true},
}

// A flagSet has a bit for every flag: this fails to compile if
// decideFlags outgrows it.
const _ = uint8(8 - len(decideFlags))

// flagSet holds one bit per entry of decideFlags, bit i for
// decideFlags[i]: the flags a request sets. readDecideRequest fills it as
// it fills the boolean members, so what the flags mean is derived without
// visiting every member, and a request with none set costs nothing here.
type flagSet uint8

// with returns s with flag i set to on.
func (s flagSet) with(i int, on bool) flagSet {
	if on {
		return s | 1<<i
	}
	return s &^ (1 << i)
}

// each calls fn with every flag in s, in table order.
func (s flagSet) each(fn func(*decideFlag)) {
	for ; s != 0; s &= s - 1 {
		fn(&decideFlags[bits.TrailingZeros8(uint8(s))])
	}
}

// decideFlagIndex returns the index in decideFlags of the flag whose wire
// name is name, or -1.
func decideFlagIndex(name string) int {
	for i := range decideFlags {
		if decideFlags[i].name == name {
			return i
		}
	}
	return -1
}

// requestCacheFlags are the flags of req that change the cached decision.
func requestCacheFlags(req *decideRequest) cacheFlags {
	var f cacheFlags
	req.flags.each(func(fl *decideFlag) { f |= fl.cache })
	return f
}

// requestFlagNames lists the recorded flags set on req, by wire name, for
// the decision record; nil when none is set.
func requestFlagNames(req *decideRequest) []string {
	var names []string
	req.flags.each(func(fl *decideFlag) {
		if fl.recorded {
			names = append(names, fl.name)
		}
	})
	return names
}

// costlyFlags counts the costly flags set on req: what an anonymous caller
// pays a surcharge for.
func costlyFlags(req *decideRequest) int {
	n := 0
	req.flags.each(func(fl *decideFlag) {
		if fl.costly {
			n++
		}
	})
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
