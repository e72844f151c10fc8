package engine

import (
	"encoding/json"
	"testing"
)

// TestOutcomeJSONRoundTrip: an outcome written as JSON reads back as
// itself, and an unknown spelling is refused.
func TestOutcomeJSONRoundTrip(t *testing.T) {
	t.Parallel()
	for _, o := range []Outcome{Undetermined, Eligible, NotEligible} {
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		var back Outcome
		if err := json.Unmarshal(b, &back); err != nil || back != o {
			t.Errorf("%s: read back %v, %v", b, back, err)
		}
	}
	var o Outcome
	if err := json.Unmarshal([]byte(`"maybe"`), &o); err == nil {
		t.Error(`"maybe" read as an outcome`)
	}
}
