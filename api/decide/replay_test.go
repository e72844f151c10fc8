package decide

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
)

// replayMembers are the envelope members a replay compares
// (docs/api.md#replay, and the date the decision was made as of, which the replay
// sends back as decision_date); decision_id and decision_time differ on
// every decision, replayed or not.
var replayMembers = []string{"inputs_hash", "engine_version", "content_digest", "ruleset_id", "ruleset_version", "decision_date", "decision"}

// replayMismatches lists the replay members on which two envelopes differ.
func replayMismatches(original, rerun map[string]any) []string {
	var diff []string
	for _, k := range replayMembers {
		if original[k] != rerun[k] {
			diff = append(diff, k)
		}
	}
	return diff
}

// TestReplay follows the replay procedure of docs/api.md#replay: keep field_values and
// the envelope, publish other content (a new version under the same slug,
// another ruleset), re-run with the envelope's concrete ruleset_id and
// compare. Re-running by slug instead reaches the new content, and the
// comparison says so.
func TestReplay(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	key := f.Key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Time{})
	v1, cb := f.PublishCasebank(t, "acme", "us-fmla-employee", "acme/fmla", false)

	// The caller keeps field_values and the envelope.
	fieldValues := cb.Cases[0].FieldValues
	original := f.Decide(t, key, `{"ruleset_id":"acme/fmla","include_explanation":true,"field_values":`+string(fieldValues)+`}`)
	if original.Status != 200 || original.Field(t, "decision") != "eligible" {
		t.Fatalf("original decision: %d %s", original.Status, original.Raw)
	}
	var kept struct {
		Envelope    map[string]any  `json:"envelope"`
		FieldValues json.RawMessage `json:"field_values"`
	}
	saved, err := json.Marshal(map[string]any{"envelope": original.Body, "field_values": fieldValues})
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(saved, &kept); err != nil {
		t.Fatal(err)
	}

	// Other content is published: the slug moves to a stricter v2, and an
	// unrelated ruleset appears.
	stricter := bytes.Replace(cb.Rules, []byte("employment.months_employed >= 12"), []byte("employment.months_employed >= 13"), 1)
	if bytes.Equal(stricter, cb.Rules) {
		t.Fatal("premise: the tenure threshold was not found in the rules")
	}
	v2 := f.Publish(t, "acme", "acme/fmla", stricter, false)
	if v2.RulesetID == v1.RulesetID || v2.Version == v1.Version {
		t.Fatalf("premise: republish reused the cut: %+v", v2)
	}
	other := apitest.Casebank(t, "uk-child-benefit")
	f.Publish(t, "acme", "acme/child-benefit", other.Rules, false)

	// Replay: the same ids, the kept field values.
	rerun := f.Decide(t, key, `{"ruleset_id":"`+kept.Envelope["ruleset_id"].(string)+`","decision_date":"`+kept.Envelope["decision_date"].(string)+
		`","include_explanation":true,"field_values":`+string(kept.FieldValues)+`}`)
	if rerun.Status != 200 {
		t.Fatalf("replay: %d %s", rerun.Status, rerun.Raw)
	}
	replayed := rerun.Body.(map[string]any)
	if diff := replayMismatches(kept.Envelope, replayed); len(diff) > 0 {
		t.Errorf("replay differs on %v:\noriginal %v\nreplay   %v", diff, kept.Envelope, replayed)
	}
	if replayed["decision_id"] == kept.Envelope["decision_id"] {
		t.Error("replay reused the decision_id")
	}
	// The explanation, a function of the same content and inputs, is the
	// same too.
	if a, b := mustJSON(t, kept.Envelope["explanation"]), mustJSON(t, replayed["explanation"]); a != b {
		t.Errorf("replayed explanation differs:\n%s\n%s", a, b)
	}

	// The server-side record of the original names the same identity.
	rec := f.RecordOf(t, kept.Envelope["decision_id"].(string))
	if rec.ContentDigest != kept.Envelope["content_digest"] || rec.InputsHash != kept.Envelope["inputs_hash"] ||
		rec.RulesetID != kept.Envelope["ruleset_id"] || rec.Outcome != kept.Envelope["decision"] ||
		rec.DecisionDate.Format(time.DateOnly) != kept.Envelope["decision_date"] {
		t.Errorf("record %+v does not match the kept envelope", rec)
	}

	// Re-running by slug is not a replay: once this process sees the moved
	// pointer (the catalog caches it for a few seconds) it reaches v2, and
	// the comparison shows the content changed.
	var diff []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		bySlug := f.Decide(t, key, `{"ruleset_id":"acme/fmla","field_values":`+string(kept.FieldValues)+`}`)
		if diff = replayMismatches(kept.Envelope, bySlug.Body.(map[string]any)); len(diff) > 0 {
			break
		}
	}
	if !slices.Contains(diff, "content_digest") || !slices.Contains(diff, "ruleset_id") || !slices.Contains(diff, "ruleset_version") {
		t.Errorf("by slug, the comparison found only %v", diff)
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
