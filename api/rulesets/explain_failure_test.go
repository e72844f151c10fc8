package rulesets

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
)

// validationItems returns the (type, loc) of each item of a 422 answer.
func validationItems(t *testing.T, body map[string]any) [][2]any {
	t.Helper()
	detail, ok := body["detail"].([]any)
	if !ok {
		t.Fatalf("detail is not a validation list: %v", body)
	}
	items := make([][2]any, 0, len(detail))
	for _, d := range detail {
		item := d.(map[string]any)
		items = append(items, [2]any{item["type"], item["loc"]})
	}
	return items
}

// explain-failure reads field_values exactly as /decide does: the same
// field_values get the same field_errors (200) from both, or the same 422
// item from both. Each case also pins which of the two it is, so that the
// endpoints cannot agree on a wrong answer.
func TestExplainFailureReadsFieldValuesAsDecide(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	ruleset := f.Publish(t, "acme", "acme/big", []byte(apitest.BigIntRules), true)
	jsonInvalid := [][2]any{{"json_invalid", []any{"body", "field_values"}}}

	for _, tc := range []struct {
		name, fieldValues string
		// fieldErrors is the number of field errors of a 200; refused, the
		// 422 items.
		fieldErrors int
		refused     [][2]any
	}{
		{"a good answer", `{"x.n": 1}`, 0, nil},
		{"beyond float64", `{"x.n": 1e400}`, 1, nil},
		{"below float64", `{"x.n": -1e400}`, 1, nil},
		{"beyond float64 in a list", `{"x.n": [1E+999]}`, 1, nil},
		{"a string for an int", `{"x.n": "six"}`, 1, nil},
		{"an unknown key", `{"x.nope": 1}`, 1, nil},
		{"an unknown key beyond float64", `{"x.n": 1, "x.nope": 1e400}`, 1, nil},
		{"a repeated key", `{"x.n": 1, "x.n": 2}`, 0, jsonInvalid},
		{"a repeated key, spelt differently", `{"x.n": 1, "x\u002en": 2}`, 0, jsonInvalid},
		{"a repeated key beside a huge number", `{"x.n": 1e400, "x.n": 2}`, 0, jsonInvalid},
		{"a lone surrogate", `{"x.n": "\ud800"}`, 0, jsonInvalid},
		{"a lone surrogate in a key", `{"\udc00": 1}`, 0, jsonInvalid},
		{"invalid UTF-8", "{\"x.n\": \"x\xff\"}", 0, jsonInvalid},
		{"a list", `[1]`, 0, [][2]any{{"dict_type", []any{"body", "field_values"}}}},
		{"a string", `"x"`, 0, [][2]any{{"dict_type", []any{"body", "field_values"}}}},
		{"null", `null`, 0, [][2]any{{"dict_type", []any{"body", "field_values"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			decideStatus, decided := apitest.PostExact(t, f, "/decide",
				`{"ruleset_id": "`+ruleset.RulesetID+`", "field_values": `+tc.fieldValues+`}`)
			explainStatus, explained := apitest.PostExact(t, f, apitest.RulesetPath(ruleset.RulesetID, "/explain-failure"),
				`{"field_values": `+tc.fieldValues+`, "expected_outcome": "eligible"}`)
			if decideStatus != explainStatus {
				t.Fatalf("/decide answers %d %v, explain-failure %d %v", decideStatus, decided, explainStatus, explained)
			}
			if tc.refused != nil {
				if decideStatus != http.StatusUnprocessableEntity {
					t.Fatalf("%d %v, want 422", decideStatus, decided)
				}
				decideItems, explainItems := validationItems(t, decided), validationItems(t, explained)
				if !reflect.DeepEqual(decideItems, tc.refused) || !reflect.DeepEqual(explainItems, tc.refused) {
					t.Errorf("422 items: /decide %v, explain-failure %v, want %v", decideItems, explainItems, tc.refused)
				}
				return
			}
			if decideStatus != http.StatusOK {
				t.Fatalf("%d %v, want 200", decideStatus, decided)
			}
			if !reflect.DeepEqual(decided["field_errors"], explained["field_errors"]) {
				t.Errorf("field_errors: /decide %v, explain-failure %v", decided["field_errors"], explained["field_errors"])
			}
			if errs, _ := explained["field_errors"].([]any); len(errs) != tc.fieldErrors {
				t.Errorf("field_errors %v, want %d", errs, tc.fieldErrors)
			}
			wantOutcome := "not_eligible"
			if tc.fieldErrors > 0 {
				wantOutcome = "undetermined"
			}
			if decided["decision"] != wantOutcome || explained["actual_outcome"] != wantOutcome {
				t.Errorf("outcomes: /decide %v, explain-failure %v, want %s", decided["decision"], explained["actual_outcome"], wantOutcome)
			}
		})
	}
}

// The body's own members are validated as the schema says, with the same
// 422 items as when huma read the body: reading field_values as sent
// changed what reaches the engine, not how the request is checked.
func TestExplainFailureBodyValidation(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	ruleset := f.Publish(t, "acme", "acme/big", []byte(apitest.BigIntRules), true)
	path := apitest.RulesetPath(ruleset.RulesetID, "/explain-failure")
	missing := func(member string) [2]any { return [2]any{"missing", []any{"body", member}} }

	for _, tc := range []struct {
		name, body string
		// outcome is the expected_outcome read from a body that is
		// served; otherwise items are the 422 items.
		outcome string
		items   [][2]any
	}{
		{"a good body", `{"field_values": {}, "expected_outcome": "not_eligible"}`, "not_eligible", nil},
		{"a date", `{"field_values": {}, "expected_outcome": "eligible", "decision_date": "2026-02-03"}`, "eligible", nil},
		{"a null date", `{"field_values": {}, "expected_outcome": "eligible", "decision_date": null}`, "eligible", nil},
		{"a repeated outcome, the last one good", `{"field_values": {}, "expected_outcome": "maybe", "expected_outcome": "undetermined"}`, "undetermined", nil},
		{"an escaped outcome", `{"field_values": {}, "expected_outcome": "elig\u0069ble"}`, "eligible", nil},
		{"a repeated outcome, the last one bad", `{"field_values": {}, "expected_outcome": "eligible", "expected_outcome": "maybe"}`, "",
			[][2]any{{"enum", []any{"body", "expected_outcome"}}}},
		{"no expected_outcome", `{"field_values": {}}`, "", [][2]any{missing("expected_outcome")}},
		{"no field_values", `{"expected_outcome": "eligible"}`, "", [][2]any{missing("field_values")}},
		{"an empty object", `{}`, "", [][2]any{missing("expected_outcome"), missing("field_values")}},
		{"no body", ``, "", [][2]any{{"missing", []any{"body"}}}},
		{"a list", `[]`, "", [][2]any{{"dict_type", []any{"body"}}}},
		{"null", `null`, "", [][2]any{{"dict_type", []any{"body"}}}},
		{"not JSON", `{"field_values": {}, "expected_outcome": "eligible"`, "", [][2]any{{"json_invalid", []any{"body"}}}},
		{"trailing data", `{"field_values": {}, "expected_outcome": "eligible"} x`, "", [][2]any{{"json_invalid", []any{"body"}}}},
		{"an unknown outcome", `{"field_values": {}, "expected_outcome": "maybe"}`, "", [][2]any{{"enum", []any{"body", "expected_outcome"}}}},
		{"a number for the outcome", `{"field_values": {}, "expected_outcome": 1}`, "", [][2]any{{"string_type", []any{"body", "expected_outcome"}}}},
		{"a null outcome", `{"field_values": {}, "expected_outcome": null}`, "", [][2]any{{"string_type", []any{"body", "expected_outcome"}}}},
		{"a null field_values", `{"field_values": null, "expected_outcome": "eligible"}`, "", [][2]any{{"dict_type", []any{"body", "field_values"}}}},
		{"no such day", `{"field_values": {}, "expected_outcome": "eligible", "decision_date": "2026-02-30"}`, "",
			[][2]any{{"date_from_datetime_parsing", []any{"body", "decision_date"}}}},
		{"an empty date", `{"field_values": {}, "expected_outcome": "eligible", "decision_date": ""}`, "",
			[][2]any{{"date_from_datetime_parsing", []any{"body", "decision_date"}}}},
		{"an ordinal for the date", `{"field_values": {}, "expected_outcome": "eligible", "decision_date": 739650}`, "eligible", nil},
		{"an ordinal past 9999-12-31", `{"field_values": {}, "expected_outcome": "eligible", "decision_date": 3652060}`, "",
			[][2]any{{"date_from_datetime_parsing", []any{"body", "decision_date"}}}},
		{"a fraction for the date", `{"field_values": {}, "expected_outcome": "eligible", "decision_date": 5.5}`, "",
			[][2]any{{"date_from_datetime_parsing", []any{"body", "decision_date"}}}},
		{"a bool for the date", `{"field_values": {}, "expected_outcome": "eligible", "decision_date": true}`, "",
			[][2]any{{"date_from_datetime_parsing", []any{"body", "decision_date"}}}},
		// The schema's date format takes year 0; the engine's calendar
		// starts at year 1.
		{"year 0", `{"field_values": {}, "expected_outcome": "eligible", "decision_date": "0000-01-01"}`, "",
			[][2]any{{"date_from_datetime_parsing", []any{"body", "decision_date"}}}},
		{"an unknown member", `{"field_values": {}, "expected_outcome": "eligible", "extra": 1}`, "",
			[][2]any{{"extra_forbidden", []any{"body", "extra"}}}},
		{"every member wrong", `{"field_values": {}, "expected_outcome": "maybe", "extra": 1, "decision_date": "soon"}`, "", [][2]any{
			{"date_from_datetime_parsing", []any{"body", "decision_date"}}, {"enum", []any{"body", "expected_outcome"}}, {"extra_forbidden", []any{"body", "extra"}}}},
		// Member names are exact, as on /decide: a name in other letter
		// case is not the member (it once stood in for it, unchecked).
		{"a member in other letter case", `{"field_values": {}, "Expected_Outcome": "eligible"}`, "", [][2]any{{"value_error", []any{"body"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			status, body := apitest.PostExact(t, f, path, tc.body)
			if tc.items == nil {
				if status != http.StatusOK || body["expected_outcome"] != tc.outcome {
					t.Errorf("%d %v, want 200 with expected_outcome %s", status, body, tc.outcome)
				}
				return
			}
			if status != http.StatusUnprocessableEntity {
				t.Fatalf("%d %v, want 422", status, body)
			}
			if items := validationItems(t, body); !reflect.DeepEqual(items, tc.items) {
				t.Errorf("422 items %v, want %v", items, tc.items)
			}
		})
	}
}

// The handler reads the body as bytes; the OpenAPI document still
// describes it, with its required members and no others.
func TestExplainFailureBodyDocumented(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	doc := f.Server.OpenAPI()
	body := doc.Paths["/rulesets/{ruleset_id}/explain-failure"].Post.RequestBody
	if body == nil || !body.Required || body.Content["application/json"] == nil {
		t.Fatalf("request body %+v, want a required JSON body", body)
	}
	schema := doc.Components.Schemas.SchemaFromRef(body.Content["application/json"].Schema.Ref)
	if schema == nil {
		t.Fatalf("request body schema %+v is not a registered schema", body.Content["application/json"].Schema)
	}
	var members []string
	for name := range schema.Properties {
		members = append(members, name)
	}
	if !sameStrings(members, []string{"field_values", "expected_outcome", "decision_date"}) ||
		!sameStrings(schema.Required, []string{"field_values", "expected_outcome"}) || schema.AdditionalProperties != false {
		t.Errorf("schema: members %v, required %v, additionalProperties %v", members, schema.Required, schema.AdditionalProperties)
	}
	if outcome := schema.Properties["expected_outcome"]; len(outcome.Enum) != 3 {
		t.Errorf("expected_outcome schema %+v, want the three outcomes", outcome)
	}
	if date := schema.Properties["decision_date"]; len(date.OneOf) != 2 || date.OneOf[0].Type != huma.TypeString ||
		date.OneOf[0].Format != "date" || date.OneOf[1].Type != huma.TypeInteger {
		t.Errorf("decision_date schema %+v, want a date string or an integer ordinal", date)
	}
}

func sameStrings(a, b []string) bool {
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}

// FuzzReadExplainFailureRequest checks the strict explain-failure body
// reader against the two readers it stands in for: whatever it accepts,
// the schema validator accepts too, and a strict encoding/json decode reads
// the same members (field_values as the same JSON object). A body it
// refuses goes to the validator, so refusing is always safe; accepting
// what the schema refuses is the bug this looks for.
func FuzzReadExplainFailureRequest(f *testing.F) {
	for _, seed := range []string{
		`{"field_values":{"x.n":1},"expected_outcome":"eligible"}`,
		`{"field_values":{},"expected_outcome":"not_eligible","decision_date":"2026-02-28"}`,
		`{"field_values":{},"expected_outcome":"undetermined","decision_date":null}`,
		`{"field_values":{},"expected_outcome":"eligible","decision_date":"2026-02-28","decision_date":null}`,
		`{"field_values":{},"expected_outcome":"maybe","expected_outcome":"eligible"}`,
		`{"field_values":{},"expected_outcome":"eligible","decision_date":"2026-02-30"}`,
		`{"field_values":{},"expected_outcome":"eligible","decision_date":"0000-01-01"}`,
		`{"field_values":{},"expected_outcome":"eligible","decision_date":""}`,
		`{"field_values":{},"expected_outcome":"eligible","extra":1}`,
		`{"field_values":{},"Expected_Outcome":"eligible"}`,
		`{"field_values":[1],"expected_outcome":"eligible"}`,
		`{"field_values":null,"expected_outcome":"eligible"}`,
		`{"field_values":{"x.n":1e400,"x.n":2,"\ud800":1},"expected_outcome":"eligible"}`,
		`{"field_values":{"a":[-1e400,{"b":1E+999}]},"expected_outcome":"elig\u0069ble"}`,
		`{"field_values":{"a":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `},"expected_outcome":"eligible"}`,
		`[]`, `null`, `{`, ``,
	} {
		f.Add([]byte(seed))
	}
	registry := huma.NewMapRegistry("#/components/schemas/", huma.DefaultSchemaNamer)
	schema := registry.Schema(reflect.TypeFor[explainFailureRequest](), true, "ExplainFailureRequest")
	f.Fuzz(func(t *testing.T, raw []byte) {
		fast, ok := readExplainFailureRequest(raw)
		if !ok {
			return
		}
		// The validator sees the body decoded, numbers kept as their text
		// so that field_values beyond float64 decodes too.
		parsed := apitest.DecodeExact(t, raw)
		pb := huma.NewPathBuffer(make([]byte, 0, 64), 0)
		pb.Push("body")
		res := &huma.ValidateResult{}
		huma.Validate(registry, schema, pb, huma.ModeWriteToServer, parsed, res)
		if len(res.Errors) > 0 {
			t.Fatalf("fast reader accepted %q, the schema refuses it: %v", raw, res.Errors)
		}
		var std explainFailureRequest
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&std); err != nil {
			t.Fatalf("fast reader accepted %q, encoding/json refuses it: %v", raw, err)
		}
		if !apitest.SameJSON(t, fast.FieldValues, std.FieldValues) {
			t.Fatalf("%q: field_values differ: fast %s, encoding/json %s", raw, fast.FieldValues, std.FieldValues)
		}
		fast.FieldValues, std.FieldValues = nil, nil
		if !reflect.DeepEqual(fast, &std) {
			t.Fatalf("%q: fast reader gives %+v, encoding/json %+v", raw, fast, std)
		}
	})
}

// TestExplainFailureOfAnUnreachableOutcome: when the outcome logic rules
// the expected outcome out whatever the criteria's statuses, no criterion
// is to blame: 200 with no reasons, complete, and the warning
// expected_outcome_unreachable, not an error.
func TestExplainFailureOfAnUnreachableOutcome(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	rules := string(apitest.LeaveRules("12")) + "\noutcome service and not service\n"
	ruleset := f.Publish(t, "acme", "acme/leave", []byte(rules), true)
	status, body := apitest.PostExact(t, f, apitest.RulesetPath(ruleset.RulesetID, "/explain-failure"),
		`{"field_values": {"employment.months": 13, "employment.kind": "staff"}, "expected_outcome": "eligible"}`)
	warnings, _ := body["warnings"].([]any)
	if status != http.StatusOK || body["complete"] != true || len(body["reasons"].(map[string]any)) != 0 || len(warnings) != 1 ||
		warnings[0].(map[string]any)["code"] != "expected_outcome_unreachable" {
		t.Fatalf("%d %v", status, body)
	}
}

// limitTableRules compares income with a limit looked up in a table by
// household size, for the values of an explain-failure reason.
const limitTableRules = `ruleset "acme/limits"
section limits
effective 2025-10-01 until 2026-09-30

source memo "Income limits" url "https://example.org/memo" licence "public-domain"

field household.size int weight 1
  range 1..
field income.gross decimal weight 1
  range 0..

table gross_limit decimal "Gross monthly income limit" unit "USD" {
  keys household.size
  1..8 => 1696 + 596 * (household.size - 1)
  9..  => 5868 + 596 * (household.size - 8)
  cite memo "gross income limits"
}

group gross all "Gross income" {
  criterion under "Gross income at or below the limit" {
    income.gross <= gross_limit
    cite memo "gross income limits"
  }
}
`

// TestExplainFailureShowsTheFigureInTheWay: a reason resting on a table
// carries the figure with the row it came from and the table's law, so a
// caseworker sees which limit the income was held against.
func TestExplainFailureShowsTheFigureInTheWay(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	ruleset := f.Publish(t, "acme", "acme/limits", []byte(limitTableRules), true)
	status, body := apitest.PostExact(t, f, apitest.RulesetPath(ruleset.RulesetID, "/explain-failure"),
		`{"field_values": {"household.size": 10, "income.gross": 7100}, "expected_outcome": "eligible", "decision_date": "2026-01-05"}`)
	if status != http.StatusOK {
		t.Fatalf("status %d: %v", status, body)
	}
	reason, _ := body["reasons"].(map[string]any)["under"].(map[string]any)
	values, _ := reason["values"].([]any)
	if len(values) != 1 {
		t.Fatalf("reason values %v", reason)
	}
	v := values[0].(map[string]any)
	refs, _ := v["source_references"].([]any)
	if v["value"] != "gross_limit" || v["figure"] != json.Number("7060") || v["definition"] != "9.. => 5868 + 596 * (household.size - 8)" ||
		v["unit"] != "USD" || len(refs) != 1 {
		t.Errorf("the limit in the way: %v", v)
	}
}
