package metering

// Anonymous /decide cost units (docs/metering.md).
const (
	// PlainDecideCost is the cost of a /decide call without costly flags.
	PlainDecideCost = 1
	// FlagSurcharge is added for each costly flag set: no_cache,
	// include_trace, include_explanation and include_graph_overlay, each
	// of which makes the evaluation dearer.
	FlagSurcharge = 5
)

// DecideCost returns the anonymous cost of one /decide call with costly of
// its costly flags set: 1, plus 5 for each, so trace plus explanation
// costs 11. Which flags are costly is the api package's flag table's to
// say; here is only the arithmetic. Keyed callers always pay 1 per call:
// their quota counts decisions.
func DecideCost(costly int) int64 {
	return PlainDecideCost + int64(costly)*FlagSurcharge
}
