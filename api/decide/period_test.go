package decide

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/engine/value"
)

// periodRules is a ruleset with an income limit that changes on 1 October
// and an effective header (%s, %s: the period and the limit).
const periodRules = `ruleset "acme/snap-like"
section snap_like
name "Income under the limit"
effective %s

source law "Test law" url "https://example.test/law" licence "public-domain"

field h.income int weight 1

group income all "Income" {
  criterion under "Under the limit" {
    h.income <= %s
    cite law "the whole law"
  }
}
`

// TestDecideByDecisionDate publishes two consecutive periods under one
// slug and decides as of dates in each, between them and outside both.
func TestDecideByDecisionDate(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	fy26 := f.Publish(t, "acme", "acme/snap-like", fmt.Appendf(nil, periodRules, "2025-10-01 until 2026-09-30", "2000"), true)
	fy27 := f.Publish(t, "acme", "acme/snap-like", fmt.Appendf(nil, periodRules, "2026-10-01 until 2027-09-30", "2100"), true)
	decide := func(ref, date string) (string, string, string, []any) {
		t.Helper()
		body := `{"ruleset_id":"` + ref + `","field_values":{"h.income":2050}`
		if date != "" {
			body += `,"decision_date":` + date
		}
		r := f.Decide(t, "", body+`}`)
		if r.Status != 200 {
			t.Fatalf("%s on %s: %d %s", ref, date, r.Status, r.Raw)
		}
		warnings, _ := r.Field(t, "warnings").([]any)
		return r.Field(t, "ruleset_id").(string), r.Field(t, "decision").(string), r.Field(t, "decision_date").(string), warnings
	}
	tests := []struct {
		ref, date              string
		id, decision, dateSeen string
		warned                 bool
	}{
		{"acme/snap-like", `"2026-09-30"`, fy26.RulesetID, "not_eligible", "2026-09-30", false},
		{"acme/snap-like", `"2026-10-01"`, fy27.RulesetID, "eligible", "2026-10-01", false},
		// The ordinal of 2026-09-30, like a date answer.
		{"acme/snap-like", fmt.Sprint(value.DateOrdinal(2026, 9, 30)), fy26.RulesetID, "not_eligible", "2026-09-30", false},
		// No cut covers it: the latest answers, undetermined, with the warning.
		{"acme/snap-like", `"2027-10-01"`, fy27.RulesetID, "undetermined", "2027-10-01", true},
		{"acme/snap-like", `"2025-09-30"`, fy27.RulesetID, "undetermined", "2025-09-30", true},
		// A concrete id pins its cut, whatever the date.
		{fy26.RulesetID, `"2026-10-01"`, fy26.RulesetID, "undetermined", "2026-10-01", true},
		{fy27.RulesetID, `"2026-10-01"`, fy27.RulesetID, "eligible", "2026-10-01", false},
	}
	for _, tt := range tests {
		id, decision, seen, warnings := decide(tt.ref, tt.date)
		if id != tt.id || decision != tt.decision || seen != tt.dateSeen || (len(warnings) > 0) != tt.warned {
			t.Errorf("%s on %s: ran %s, %s on %s, warnings %v; want %s, %s on %s, warned %v",
				tt.ref, tt.date, id, decision, seen, warnings, tt.id, tt.decision, tt.dateSeen, tt.warned)
		}
		if tt.warned {
			w := warnings[0].(map[string]any)
			if w["code"] != "outside_effective_period" || !strings.Contains(w["message"].(string), strings.Trim(tt.date, `"`)) {
				t.Errorf("%s on %s: warning %v", tt.ref, tt.date, w)
			}
			// The period the cut that ran covers, as dates.
			want := map[string]any{"from": "2026-10-01", "until": "2027-09-30"}
			if tt.id == fy26.RulesetID {
				want = map[string]any{"from": "2025-10-01", "until": "2026-09-30"}
			}
			if !reflect.DeepEqual(w["period"], want) {
				t.Errorf("%s on %s: warning's period %v, want %v", tt.ref, tt.date, w["period"], want)
			}
		}
	}
	// Without a decision date, today (UTC) by the server's clock decides:
	// the envelope says which.
	_, _, seen, _ := decide("acme/snap-like", "")
	if today := f.Clock.Now().UTC().Format(time.DateOnly); seen != today {
		t.Errorf("default decision date %s, want today %s", seen, today)
	}
	// The decision date is on the record, and part of the cache key: the
	// same answers on two dates of the one cut are two decisions.
	for _, date := range []string{"2026-10-01", "2027-09-30"} {
		r := f.Decide(t, "", `{"ruleset_id":"`+fy27.RulesetID+`","field_values":{"h.income":2050},"decision_date":"`+date+`"}`)
		rec := f.RecordOf(t, r.Field(t, "decision_id").(string))
		if got := rec.DecisionDate.Format(time.DateOnly); got != date || rec.Outcome != "eligible" {
			t.Errorf("record of %s: decision date %s, outcome %s", date, got, rec.Outcome)
		}
	}
	r := f.Decide(t, "", `{"ruleset_id":"`+fy27.RulesetID+`","field_values":{"h.income":2050},"decision_date":"2027-10-01"}`)
	if r.Field(t, "decision") != "undetermined" {
		t.Errorf("a cached decision of another date answered: %s", r.Raw)
	}
	for _, bad := range []string{`"2026-02-30"`, `"2026-10-01T00:00:00Z"`, `0`, `true`, `"0000-01-01"`} {
		r := f.Decide(t, "", `{"ruleset_id":"acme/snap-like","field_values":{},"decision_date":`+bad+`}`)
		if r.Status != 422 || !strings.Contains(r.Raw, "decision_date") {
			t.Errorf("decision_date %s: %d %s, want 422 naming decision_date", bad, r.Status, r.Raw)
		}
	}
}

// TestBadDecisionDateSaysWhatIsAccepted: a decision_date of neither form
// (an impossible date, a datetime, a boolean, a fraction) is one 422 item
// that names the forms accepted; a value of the wrong JSON type used to
// get the schema validator's "expected value to match exactly one schema
// but matched none".
func TestBadDecisionDateSaysWhatIsAccepted(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{Metering: apitest.GenerousMetering()})
	for _, date := range []string{`"2026-13-01"`, `"2026-06-30T00:00:00Z"`, `"yesterday"`, `true`, `1.5`, `0`, `{}`} {
		r := f.Decide(t, "", `{"ruleset_id": "acme/anything", "field_values": {}, "decision_date": `+date+`}`)
		items, _ := r.Body.(map[string]any)["detail"].([]any)
		if r.Status != 422 || len(items) != 1 {
			t.Errorf("decision_date %s: %d %s", date, r.Status, r.Raw)
			continue
		}
		item := items[0].(map[string]any)
		if item["type"] != "date_from_datetime_parsing" || !strings.Contains(item["msg"].(string), "YYYY-MM-DD string or an integer ordinal") {
			t.Errorf("decision_date %s: %v", date, item)
		}
	}
}
