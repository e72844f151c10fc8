package solver

import "flag"

// differentialSamples, when set, is the number of random answer sets the
// differential test draws per ruleset, overriding the default and -long;
// `make test` runs it at 2,000 outside the race detector.
var differentialSamples = flag.Int("differential-samples", 0, "random answer sets per ruleset in the differential test (0: 400, or 5,000 with -long)")
