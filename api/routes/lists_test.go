package routes

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
)

// householdRules decide on the people of a household: a child under five
// or a pregnant member, everyone resident, and earnings summed over the
// members against a limit that grows with the household.
const householdRules = `section household_help
name "Household help"
effective 2025-01-01

source law "Act" url "https://example.org/act" licence "public-domain"

list member "People in the household" up to 6
  question "How many people live in your household, counting yourself?"
field member.age int weight 2
  question "How old is this person?"
  range 0..130
field member.pregnant bool weight 3
  question "Is this person pregnant?"
field member.earnings decimal weight 4
  question "How much does this person earn a month?"
  range 0..

value earnings decimal "Household earnings" unit "USD" output {
  sum(member.earnings)
  cite law "the earnings of every member"
}

group help all "Household help" {
  criterion young_or_pregnant "A child under five or a pregnant member" {
    any(member where member.age < 5 or member.pregnant)
    cite law "a child under five or a pregnant member"
  }
  criterion income "Earnings within the limit" {
    earnings <= 1000 + 500 * count(member)
    cite law "not more than 1,000 dollars and 500 dollars for each member"
  }
}
`

// A ruleset with a list of members over HTTP: the schema describes the
// list and each member's fields, /decide reads the household as a list of
// objects, names a member in its field errors and asks how many people
// before anything about one of them, and every answer matches the
// published schemas.
func TestHouseholdOverHTTP(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	f.Publish(t, "demo", "demo/household-help", []byte(householdRules), true)
	doc := f.Server.OpenAPI()
	registry := doc.Components.Schemas

	schema := f.Do(t, http.MethodGet, apitest.RulesetPath("demo/household-help", "/schema"), nil, nil)
	if schema.Status != http.StatusOK {
		t.Fatalf("schema: %d %s", schema.Status, schema.Raw)
	}
	for _, e := range validateAgainst(registry, "GET /schema", operationFor(t, doc, http.MethodGet, "/rulesets/x/schema").Responses["200"].Content["application/json"].Schema, schema.Body) {
		t.Error(e)
	}
	byID := map[string]map[string]any{}
	for _, fl := range schema.Field(t, "fields").([]any) {
		byID[fl.(map[string]any)["field_id"].(string)] = fl.(map[string]any)
	}
	if l, ok := byID["member"]["list"].(map[string]any); !ok || l["max"] != 6.0 || l["noun"] != "person" {
		t.Errorf("the list's field %v", byID["member"])
	}
	if m, ok := byID["member[2].age"]["member"].(map[string]any); !ok || m["list"] != "member" || m["index"] != 2.0 || m["name"] != "age" ||
		byID["member[2].age"]["question"] != "Person 3: How old is this person?" {
		t.Errorf("the third person's age %v", byID["member[2].age"])
	}

	decideOp := operationFor(t, doc, http.MethodPost, "/decide")
	decide := func(fieldValues string) apitest.Response {
		t.Helper()
		r := f.Decide(t, "", `{"ruleset_id":"demo/household-help","field_values":`+fieldValues+`,"decision_date":"2026-03-01"}`)
		if r.Status != http.StatusOK {
			t.Fatalf("decide %s: %d %s", fieldValues, r.Status, r.Raw)
		}
		for _, e := range validateAgainst(registry, "POST /decide", decideOp.Responses["200"].Content["application/json"].Schema, r.Body) {
			t.Error(e)
		}
		return r
	}
	nextField := func(r apitest.Response) string {
		q, _ := r.Field(t, "next_question").(map[string]any)
		id, _ := q["field_id"].(string)
		return id
	}

	if r := decide(`{}`); r.Field(t, "decision") != "undetermined" || nextField(r) != "member" || len(r.Field(t, "missing_fields").([]any)) != 1 {
		t.Errorf("nothing known: %s", r.Raw)
	}
	r := decide(`{"member": [{"age": 34, "pregnant": false, "earnings": 1500}, {"age": 3, "earnings": 0}]}`)
	if r.Field(t, "decision") != "eligible" {
		t.Errorf("a mother and a toddler: %s", r.Raw)
	}
	if out := r.Field(t, "values").([]any); len(out) != 1 || out[0].(map[string]any)["figure"] != 1500.0 {
		t.Errorf("outputs %v", out)
	}
	r = decide(`{"member": [{"age": 34, "pregnant": false}, {}]}`)
	if r.Field(t, "decision") != "undetermined" || nextField(r) != "member[1].age" {
		t.Errorf("the second person's age is what is left: %s", r.Raw)
	}
	// Missing are the answers of the two people there are, not of the
	// four the rules could take.
	var missing []string
	for _, m := range r.Field(t, "missing_fields").([]any) {
		missing = append(missing, m.(string))
	}
	if strings.Join(missing, ",") != "member[0].earnings,member[1].age,member[1].pregnant,member[1].earnings" {
		t.Errorf("missing fields %v", missing)
	}
	r = decide(`{"member": [{"age": "thirty"}, {"age": 3, "eyes": "blue"}]}`)
	var errs []string
	for _, fe := range r.Field(t, "field_errors").([]any) {
		errs = append(errs, fe.(map[string]any)["field"].(string))
	}
	slices.Sort(errs)
	if strings.Join(errs, ",") != "member[0].age,member[1].eyes" || r.Field(t, "decision") != "undetermined" {
		t.Errorf("field errors %v in %s", errs, r.Raw)
	}

	// The household is hashed as sent: the same people in another order
	// are other inputs.
	a := decide(`{"member": [{"age": 3}, {"age": 34}]}`).Field(t, "inputs_hash")
	b := decide(`{"member": [{"age": 34}, {"age": 3}]}`).Field(t, "inputs_hash")
	if a == b {
		t.Errorf("one inputs_hash %v for two orders of the members", a)
	}
}
