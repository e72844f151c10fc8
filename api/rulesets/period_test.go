package rulesets

import (
	"strings"
	"testing"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
)

const periodRules = `ruleset "acme/period"
section period
effective 2025-10-01 until 2026-09-30

source law "Test law" url "https://example.test/law" licence "public-domain"

field h.income int weight 1

group income all "Income" {
  criterion under "Under the limit" {
    h.income <= 2000
    cite law "the whole law"
  }
}
`

// Outside the ruleset's effective period, explain-failure says so instead
// of blaming criteria; inside it, the criteria are explained as always.
func TestExplainFailureOutsidePeriod(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	pub := f.Publish(t, "acme", "acme/period", []byte(periodRules), true)
	path := "/rulesets/" + pub.RulesetID + "/explain-failure"
	status, body := apitest.PostExact(t, f, path, `{"field_values":{"h.income":2500},"expected_outcome":"eligible","decision_date":"2026-10-01"}`)
	warnings, _ := body["warnings"].([]any)
	if status != 200 || body["actual_outcome"] != "undetermined" || len(body["reasons"].(map[string]any)) != 0 || len(warnings) != 1 ||
		!strings.Contains(warnings[0].(map[string]any)["message"].(string), "2025-10-01 until 2026-09-30") || body["decision_date"] != "2026-10-01" {
		t.Errorf("outside the period: %d %v", status, body)
	} else if p, _ := warnings[0].(map[string]any)["period"].(map[string]any); p["from"] != "2025-10-01" || p["until"] != "2026-09-30" {
		t.Errorf("outside the period: the warning's period is %v", p)
	}
	status, body = apitest.PostExact(t, f, path, `{"field_values":{"h.income":2500},"expected_outcome":"eligible","decision_date":"2026-09-30"}`)
	if status != 200 || body["actual_outcome"] != "not_eligible" || body["reasons"].(map[string]any)["under"] == nil || body["warnings"] != nil {
		t.Errorf("inside the period: %d %v", status, body)
	}
}
