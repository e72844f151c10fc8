package rulebooks

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
)

// adjunctRules is a WIC-like section: income is met by getting the other
// programme (a bool field a rulebook can bind) or by a low income.
var adjunctRules = []byte(`section adjunct
source law "Test law" url "https://example.test/adjunct" licence "public-domain"
field benefit.other bool weight 1
  question "Do you get the other programme?"
field adjunct.income decimal weight 5
  question "What is your income?"
group income any "Income met" {
  criterion by_other "Gets the other programme" {
    benefit.other == true
    cite law "gets it"
  }
  criterion low "Low income" {
    adjunct.income <= 100
    cite law "low income"
  }
}
`)

// TestRulebookSectionFacts creates a rulebook over HTTP whose section B
// reads a field bound to section A's outcome, and decides over it: the
// field is not in the schema, never missing nor asked, reads A's decision
// (explained with its title), and the release keeps the facts. Bad facts
// are 422 in the validation list's shape, each located.
func TestRulebookSectionFacts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	b := &book{f: f, key: f.Key(t, "acme", []auth.Scope{auth.ScopeRulebooksRead, auth.ScopeRulebooksWrite, auth.ScopeDecide, auth.ScopeRulesetsRead}, time.Time{})}
	f.Publish(t, "acme", "acme/other", section("other", "person.age", "int", "person.age >= 18"), false)
	f.Publish(t, "acme", "acme/adjunct", adjunctRules, false)
	refs := `"ruleset_refs":[{"section_id":"other"},{"section_id":"adjunct"}]`

	for _, tc := range []struct {
		name, facts string
		loc         string
		msg         string
	}{
		{"unknown section", `[{"field":"benefit.other","section":"C"}]`, `["body","section_facts",0,"section"]`, "there is no section C"},
		{"twice", `[{"field":"benefit.other","section":"A"},{"field":"benefit.other","section":"A"}]`, `["body","section_facts",1,"field"]`, "bound twice"},
		{"unknown field", `[{"field":"benefit.others","section":"A"}]`, `["body","section_facts"]`, "no section declares field benefit.others"},
		{"not bool", `[{"field":"adjunct.income","section":"A"}]`, `["body","section_facts"]`, "field adjunct.income is decimal"},
		{"bound to itself", `[{"field":"benefit.other","section":"B"}]`, `["body","section_facts"]`, "a section is bound to itself"},
		{"missing member", `[{"field":"benefit.other"}]`, `section`, "section"},
	} {
		r := b.do(t, http.MethodPost, "/rulebooks/", fmt.Sprintf(`{"name":"Bad","slug":"acme/bad",%s,"section_facts":%s}`, refs, tc.facts))
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Raw, tc.msg) || !strings.Contains(strings.ReplaceAll(r.Raw, " ", ""), tc.loc) {
			t.Errorf("%s: %d %s, want 422 at %s saying %q", tc.name, r.Status, r.Raw, tc.loc, tc.msg)
		}
	}

	r := b.do(t, http.MethodPost, "/rulebooks/", `{"name":"Adjunct","slug":"acme/adjunct-book",`+refs+`,
		"outcome_logic":{"section":"B"},"section_facts":[{"field":"benefit.other","section":"A"}]}`)
	want(t, r, http.StatusCreated, "create with section facts")
	if facts := r.Field(t, "section_facts").([]any); len(facts) != 1 || facts[0].(map[string]any)["field"] != "benefit.other" {
		t.Fatalf("section facts: %s", r.Raw)
	}
	r = b.do(t, http.MethodPost, rulebookPath("acme/adjunct-book", "/activate"), "")
	want(t, r, http.StatusOK, "activate")
	label := r.Field(t, "release").(map[string]any)["label"].(string)

	s := b.do(t, http.MethodGet, rulebookPath("acme/adjunct-book", "/schema"), "")
	want(t, s, http.StatusOK, "schema")
	if strings.Contains(s.Raw, `"benefit.other"`) || !strings.Contains(s.Raw, `"person.age"`) {
		t.Fatalf("schema shows the bound field, or lacks A's: %s", s.Raw)
	}

	decide := func(answers string) apitest.Response {
		t.Helper()
		d := b.do(t, http.MethodPost, "/decide", `{"rulebook_id":"acme/adjunct-book","include_explanation":true,"field_values":`+answers+`}`)
		want(t, d, http.StatusOK, "decide "+answers)
		return d
	}
	question := func(d apitest.Response) string {
		q, _ := d.Field(t, "next_question").(map[string]any)
		id, _ := q["field_id"].(string)
		return id
	}
	// Nothing answered: A's question (weight 1) is the cheapest way to B.
	d := decide(`{}`)
	if d.Field(t, "decision") != "undetermined" || question(d) != "person.age" || strings.Contains(fmt.Sprint(d.Field(t, "missing_fields")), "benefit.other") {
		t.Fatalf("nothing answered: %s", d.Raw)
	}
	// A low income meets B: A's question is no longer asked.
	d = decide(`{"adjunct.income": 50}`)
	if d.Field(t, "decision") != "eligible" || d.Field(t, "next_question") != nil {
		t.Fatalf("low income: %s", d.Raw)
	}
	// A decides B through the fact, which the explanation shows by its title.
	d = decide(`{"person.age": 30, "adjunct.income": 500}`)
	if d.Field(t, "decision") != "eligible" || !strings.Contains(d.Raw, `"title":"Other (section A)"`) {
		t.Fatalf("through the fact: %s", d.Raw)
	}
	d = decide(`{"person.age": 10, "adjunct.income": 500}`)
	if d.Field(t, "decision") != "not_eligible" {
		t.Fatalf("A not eligible: %s", d.Raw)
	}
	// An answer to the bound field is no answer: it is not a field.
	d = b.do(t, http.MethodPost, "/decide", `{"rulebook_id":"acme/adjunct-book","field_values":{"benefit.other": true, "adjunct.income": 500}}`)
	want(t, d, http.StatusOK, "decide with an answer to the bound field")
	if d.Field(t, "decision") != "undetermined" || !strings.Contains(fmt.Sprint(d.Field(t, "field_errors")), "field:benefit.other") {
		t.Fatalf("the bound field was taken as an answer: %s", d.Raw)
	}

	// PATCH [] removes the facts: the field is asked again.
	r = b.do(t, http.MethodPatch, rulebookPath("acme/adjunct-book", ""), `{"section_facts":[]}`)
	want(t, r, http.StatusOK, "remove the facts")
	if len(r.Field(t, "section_facts").([]any)) != 0 {
		t.Fatalf("facts kept: %s", r.Raw)
	}
	d = decide(`{"person.age": 10, "adjunct.income": 500}`)
	if d.Field(t, "decision") != "undetermined" || question(d) != "benefit.other" {
		t.Fatalf("without facts: %s", d.Raw)
	}
	// The first release froze its facts: by its label, A still decides.
	d = b.do(t, http.MethodPost, "/decide", `{"rulebook_id":"acme/adjunct-book","release_id":"`+label+`","field_values":{"person.age": 30, "adjunct.income": 500}}`)
	want(t, d, http.StatusOK, "decide by the first release")
	if d.Field(t, "decision") != "eligible" {
		t.Fatalf("the first release lost its facts: %s", d.Raw)
	}
}
