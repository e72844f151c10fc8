package decide

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/eligo/eligo/api"
)

// netIncomeRules computes net income with named values, one of them an
// output.
const netIncomeRules = `ruleset "demo/net-income"
section net_income
effective 2025-10-01

source law "Act" url "https://example.org/act" licence "public-domain"

field income.earned decimal weight 1
  range 0..
field household.size int weight 1
  range 1..

value net_income decimal "Net monthly income" unit "USD" output {
  max(round(income.earned * 0.8, 0.01) - 204, 0)
  cite law "net income"
}

value per_person decimal "Income per person" unit "USD" output {
  floor(net_income / household.size, 0.01)
  cite law "per member"
}

group net all "Net income" {
  criterion under "Net income at or below the limit" {
    net_income <= 1000
    cite law "at or below the limit"
  }
}
`

// TestDecideReturnsOutputValues: a decision on rules that compute returns
// their output values with figures (null when the answers do not settle
// them), each criterion's explanation lists the values it rests on with
// their law, and the same answers give the same figures again (a replay);
// rules without values answer without the member.
func TestDecideReturnsOutputValues(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	f.Publish(t, "demo", "demo/net-income", []byte(netIncomeRules), true)
	body := `{"ruleset_id":"demo/net-income","decision_date":"2026-01-05","include_explanation":true,"field_values":{"income.earned":1000.40}}`
	var first string
	for i := range 2 {
		r := f.Decide(t, "", body)
		if r.Status != 200 {
			t.Fatalf("status %d: %s", r.Status, r.Raw)
		}
		var d struct {
			Decision    string            `json:"decision"`
			Values      []json.RawMessage `json:"values"`
			Explanation struct {
				Groups []struct {
					Criteria []struct {
						Values []struct {
							Value            string          `json:"value"`
							Figure           json.RawMessage `json:"figure"`
							Definition       string          `json:"definition"`
							SourceReferences []struct {
								DeepLink string `json:"deep_link"`
							} `json:"source_references"`
						} `json:"values"`
					} `json:"criteria"`
				} `json:"groups"`
			} `json:"explanation"`
		}
		if err := json.Unmarshal([]byte(r.Raw), &d); err != nil {
			t.Fatal(err)
		}
		got := string(d.Values[0]) + " " + string(d.Values[1])
		want := `{"value":"net_income","title":"Net monthly income","figure":596.32,"unit":"USD"} {"value":"per_person","title":"Income per person","figure":null,"unit":"USD"}`
		if d.Decision != "eligible" || got != want {
			t.Errorf("decision %s, values %s, want %s", d.Decision, got, want)
		}
		v := d.Explanation.Groups[0].Criteria[0].Values
		if len(v) != 1 || v[0].Value != "net_income" || string(v[0].Figure) != "596.32" || v[0].Definition != "max(round(income.earned * 0.8, 0.01) - 204, 0)" ||
			len(v[0].SourceReferences) != 1 || !strings.Contains(v[0].SourceReferences[0].DeepLink, "#:~:text=net%20income") {
			t.Errorf("explanation values %+v", v)
		}
		if i == 0 {
			first = got
		} else if got != first {
			t.Errorf("the same answers gave %s, then %s", first, got)
		}
	}
	f.Publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	r := f.Decide(t, "", `{"ruleset_id":"acme/all-types","field_values":{"a.count":1},"include_explanation":true}`)
	if r.Status != 200 || strings.Contains(r.Raw, `"values"`) {
		t.Errorf("rules without values: %d %s", r.Status, r.Raw)
	}
}
