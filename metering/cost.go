package metering

// DecideFlags are the request flags of /decide that make an anonymous
// evaluation dearer.
type DecideFlags struct {
	// NoCache is the request's no_cache: bypass the decision cache.
	NoCache bool
	// IncludeTrace is include_trace: the response adds a trace.
	IncludeTrace bool
	// IncludeExplanation is include_explanation: the response adds an
	// explanation.
	IncludeExplanation bool
	// IncludeGraphOverlay is include_graph_overlay: the response adds a
	// graph with overlays.
	IncludeGraphOverlay bool
}

// Anonymous /decide cost units (spec, Limits 6).
const (
	// PlainDecideCost is the cost of a /decide call without costly flags.
	PlainDecideCost = 1
	// FlagSurcharge is added for each of no_cache, include_trace,
	// include_explanation and include_graph_overlay.
	FlagSurcharge = 5
)

// DecideCost returns the anonymous cost of one /decide call with flags: 1,
// plus 5 for each costly flag, so trace plus explanation costs 11. Keyed
// callers always pay 1 per call: their quota counts decisions.
func DecideCost(f DecideFlags) int64 {
	cost := int64(PlainDecideCost)
	for _, set := range []bool{f.NoCache, f.IncludeTrace, f.IncludeExplanation, f.IncludeGraphOverlay} {
		if set {
			cost += FlagSurcharge
		}
	}
	return cost
}
