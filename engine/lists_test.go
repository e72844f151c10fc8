package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine/internal/testfiles"
	"github.com/eligo/eligo/engine/syntax"
	"github.com/eligo/eligo/engine/value"
)

func compileHousehold(t *testing.T) *Ruleset {
	t.Helper()
	r, warnings, err := Compile("household.rules", []byte(testfiles.HouseholdRules))
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	if len(warnings) > 0 {
		t.Fatalf("warnings: %v", warnings)
	}
	return r
}

// TestListsEvaluate checks the three-valued meaning of aggregates over a
// partly known household (engine/syntax/GRAMMAR.md, "Three-valued meaning").
func TestListsEvaluate(t *testing.T) {
	t.Parallel()
	r := compileHousehold(t)
	opts := Options{DecisionDate: value.DateOrdinal(2026, 3, 1)}
	for _, tt := range []struct {
		name     string
		answers  string
		outcome  Outcome
		criteria map[string]Status
		values   map[string]string // "?" for unknown
	}{
		{"nothing known: the list's length is unknown, so is everything",
			`{}`, Undetermined,
			map[string]Status{"young_or_pregnant": Pending, "residents": Pending, "income": Pending},
			map[string]string{"household_earnings": "?", "young_children": "?", "top_earnings": "?"}},
		{"a known child under five settles any, whatever the others; count waits for every age",
			`{"member": [{"age": 34}, {"age": 3}, {}]}`, Undetermined,
			map[string]Status{"young_or_pregnant": Satisfied, "residents": Pending},
			map[string]string{"young_children": "?", "household_earnings": "?", "top_earnings": "?"}},
		{"one member known not resident settles all",
			`{"member": [{"resident": true}, {"resident": false}, {}]}`, NotEligible,
			map[string]Status{"residents": NotSatisfied}, nil},
		{"any is false only once every member is known not to",
			`{"member": [{"age": 34, "pregnant": false}, {"age": 40, "pregnant": false}]}`, NotEligible,
			map[string]Status{"young_or_pregnant": NotSatisfied}, map[string]string{"young_children": "0"}},
		{"count and sum over every member once known",
			`{"member": [{"age": 30, "pregnant": true, "earnings": 1200.50, "resident": true}, {"age": 2, "earnings": 0, "resident": true}, {"age": 4, "earnings": 0, "resident": true}]}`, Eligible,
			map[string]Status{"young_or_pregnant": Satisfied, "residents": Satisfied, "income": Satisfied},
			map[string]string{"household_earnings": "1200.5", "young_children": "2", "top_earnings": "1200.5"}},
		{"members beyond the list's length count for nothing",
			`{"member": [{"age": 30, "pregnant": false, "earnings": 3000, "resident": true}]}`, NotEligible,
			map[string]Status{"young_or_pregnant": NotSatisfied, "income": NotSatisfied},
			map[string]string{"household_earnings": "3000", "young_children": "0", "top_earnings": "3000"}},
		{"max counts only the members its condition takes, and says else when it takes none",
			`{"member": [{"age": 15, "earnings": 900, "pregnant": false, "resident": true}, {"age": 2, "earnings": 0, "resident": true}]}`, Eligible,
			nil, map[string]string{"top_earnings": "0", "household_earnings": "900"}},
		{"max waits for a member whose condition is unknown",
			`{"member": [{"age": 40, "earnings": 900}, {"earnings": 2000}]}`, NotEligible,
			nil, map[string]string{"top_earnings": "?"}},
		{"max is known once every member it might take is known",
			`{"member": [{"age": 40, "earnings": 900}, {"age": 10, "earnings": 2000}, {"age": 17, "earnings": 1500.25}]}`, NotEligible,
			nil, map[string]string{"top_earnings": "1500.25"}},
		{"an empty household: sums are zero, all holds, any does not",
			`{"member": []}`, NotEligible,
			map[string]Status{"young_or_pregnant": NotSatisfied, "residents": Satisfied, "income": Satisfied},
			map[string]string{"household_earnings": "0", "young_children": "0", "top_earnings": "0"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := convertClean(t, r, tt.answers)
			res := r.Evaluate(in, opts)
			if res.Outcome != tt.outcome {
				t.Errorf("outcome %s, want %s", res.Outcome, tt.outcome)
			}
			for id, want := range tt.criteria {
				if got := criterionStatus(t, r, res, id); got != want {
					t.Errorf("criterion %s is %s, want %s", id, got, want)
				}
			}
			for id, want := range tt.values {
				got := "?"
				if v := res.Values[valueSlot(t, r, id)]; v.Known {
					got = v.NumberString()
				}
				if got != want {
					t.Errorf("%s = %s, want %s", id, got, want)
				}
			}
		})
	}
}

// TestListsWire checks how a household is read from field_values: field
// errors name the member, a list longer than the bound is one error, and
// a member's answer outside the list is refused.
func TestListsWire(t *testing.T) {
	t.Parallel()
	r := compileHousehold(t)
	for _, tt := range []struct {
		name, answers string
		errs          []string // "field: message part"
	}{
		{"a member's bad answer is named by its place", `{"member": [{"age": 30}, {"age": "two"}]}`,
			[]string{"member[1].age: expected a number"}},
		{"an unknown member field is suggested", `{"member": [{"agee": 30}]}`,
			[]string{`member[0].agee: unknown field "agee": the rules ask one member no such question; did you mean "age"?`}},
		{"more members than the rules handle", `{"member": [{}, {}, {}, {}, {}, {}, {}]}`,
			[]string{"member: 7 members were sent, and these rules handle at most 6"}},
		{"the list must be a list", `{"member": 3}`,
			[]string{"member: expected a list of members"}},
		{"each member is an object", `{"member": [{"age": 3}, 4]}`,
			[]string{"member[1]: expected an object of one member's answers, got a number"}},
		{"a member's answer outside the list is refused", `{"member[0].age": 30}`,
			[]string{`member[0].age: answers about one member go in the list`}},
		{"a range is checked per member", `{"member": [{"age": 131}]}`,
			[]string{"member[0].age: 131 is outside the range"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, err := r.Convert([]byte(tt.answers))
			if err != nil {
				t.Fatal(err)
			}
			if len(in.FieldErrors) != len(tt.errs) {
				t.Fatalf("field errors %+v, want %d", in.FieldErrors, len(tt.errs))
			}
			for i, want := range tt.errs {
				field, msg, _ := strings.Cut(want, ": ")
				if got := in.FieldErrors[i]; got.Field != field || !strings.Contains(got.Message, msg) {
					t.Errorf("error %d is %s: %s, want %s: ...%s...", i, got.Field, got.Message, field, msg)
				}
			}
		})
	}
}

// TestListsStoredIR checks that a ruleset with a list is written as IR
// version 3, loads back to the same digest and decides the same, and
// that the text prints back to itself.
func TestListsStoredIR(t *testing.T) {
	t.Parallel()
	r := compileHousehold(t)
	if v := r.FormatVersion(); v != 3 {
		t.Fatalf("format version %d, want 3", v)
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadIR(3, data)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if loaded.ContentDigest() != r.ContentDigest() {
		t.Errorf("digest %s after loading, want %s", loaded.ContentDigest(), r.ContentDigest())
	}
	if _, err := LoadIR(2, data); err == nil || !strings.Contains(err.Error(), "lists") {
		t.Errorf("loading as version 2: %v, want a refusal naming lists", err)
	}
	answers := []byte(`{"member": [{"age": 30, "pregnant": true, "earnings": 100, "resident": true}]}`)
	opts := Options{DecisionDate: value.DateOrdinal(2026, 3, 1)}
	a, _ := r.Convert(answers)
	b, _ := loaded.Convert(answers)
	if x, y := r.Evaluate(a, opts).Outcome, loaded.Evaluate(b, opts).Outcome; x != y || x != Eligible {
		t.Errorf("outcomes %s and %s, want eligible twice", x, y)
	}
	f, errs := syntax.Parse("household.rules", []byte(testfiles.HouseholdRules))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	printed := syntax.Print(f)
	again, errs := syntax.Parse("household.rules", printed)
	if len(errs) > 0 {
		t.Fatalf("the printed text does not parse: %v\n%s", errs, printed)
	}
	if string(syntax.Print(again)) != string(printed) {
		t.Errorf("printing is not stable:\n%s", printed)
	}
}

// TestListsCheckerErrors checks the messages for lists used wrongly.
func TestListsCheckerErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, replace, with, want string }{
		{"a member field outside an aggregate", "all(member where member.resident)", "member.resident",
			"member.resident is about one member: read it inside count, sum, any, all, min or max"},
		{"any without a condition", "any(member where member.age < 5 or member.pregnant)", "any(member)",
			"any(member) needs a condition"},
		{"an aggregate inside another", "all(member where member.resident)", "all(member where count(member where member.resident) > 0)",
			"count inside another count, sum, any, all, min or max"},
		{"a sum over no member field", "sum(member.earnings)", "sum(3)",
			"sum( adds up a member field over a list's members"},
		{"a bound over the limit", "up to 6", "up to 65", "up to 65: a list holds from 2 to 64 members"},
		{"a bound of one", "up to 6", "up to 1", "up to 1: a list holds from 2 to 64 members"},
		{"more fields than a ruleset holds", "up to 6\n", "up to 64\nfield member.a bool\nfield member.b bool\nfield member.c bool\nfield member.d bool\n",
			"list member of up to 64 members, each answering 8 fields, makes 513 fields in all, and a ruleset holds at most 500"},
		{"an element named alone", "any(member where member.age < 5 or member.pregnant)", "member", "member is one member of a list"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(testfiles.HouseholdRules, tt.replace, tt.with, 1)
			if src == testfiles.HouseholdRules {
				t.Fatalf("%q is not in the rules", tt.replace)
			}
			_, _, err := Compile("household.rules", []byte(src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// criterionStatus is the status of criterion id in res.
func criterionStatus(t *testing.T, r *Ruleset, res *Result, id string) Status {
	t.Helper()
	for i := range r.NumCriteria() {
		if c, _ := r.CriterionAt(i); c.ID == id {
			return res.Criteria[i]
		}
	}
	t.Fatalf("no criterion %s", id)
	return 0
}

// TestListsPrintAsWritten checks that the unrolled aggregates print back
// as the rules wrote them, on both paths into a ruleset: the text traces,
// explanations and reviews show.
func TestListsPrintAsWritten(t *testing.T) {
	t.Parallel()
	r := compileHousehold(t)
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadIR(3, data)
	if err != nil {
		t.Fatal(err)
	}
	// An aggregate beside others of its connective stays whole.
	mixed := strings.Replace(testfiles.HouseholdRules, "all(member where member.resident)",
		"all(member where member.resident) and any(member where member.earnings > 0) or all(member where member.age > 17)", 1)
	m, _, err := Compile("mixed.rules", []byte(mixed))
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.NumCriteria() {
		if c, _ := m.CriterionAt(i); c.ID == "residents" && c.Text != "(all(member where member.resident) and any(member where member.earnings > 0)) or all(member where member.age > 17)" {
			t.Errorf("an aggregate in a chain prints as %q", c.Text)
		}
	}
	want := map[string]string{
		"young_or_pregnant":  "any(member where member.age < 5 or member.pregnant)",
		"residents":          "all(member where member.resident)",
		"income":             "household_earnings <= 1000 + 500 * count(member)",
		"household_earnings": "sum(member.earnings)",
		"young_children":     "count(member where member.age < 5)",
		"top_earnings":       "max(member.earnings where member.age >= 16 else 0)",
	}
	for _, rs := range []*Ruleset{r, loaded} {
		got := map[string]string{}
		for i := range rs.NumCriteria() {
			c, _ := rs.CriterionAt(i)
			got[c.ID] = c.Text
		}
		for _, v := range rs.Values {
			got[v.ID] = v.Text
		}
		for id, text := range want {
			if got[id] != text {
				t.Errorf("%s prints as %q, want %q", id, got[id], text)
			}
		}
	}
}

// TestListsMemberGuards: each aggregate over the household's list of up
// to six has one guard per member, each `member > i`; a bare count (the
// list's own field) and an expression that is no aggregate have none.
func TestListsMemberGuards(t *testing.T) {
	t.Parallel()
	r := compileHousehold(t)
	exprs := map[string]*Expr{}
	for i := range r.NumCriteria() {
		c, _ := r.CriterionAt(i)
		exprs[c.ID] = c.Expr
	}
	for _, v := range r.Values {
		exprs[v.ID] = v.Expr
	}
	for id, want := range map[string]int{
		"young_or_pregnant": 6, "residents": 6, "household_earnings": 6, "young_children": 6, "top_earnings": 6, "income": 0,
	} {
		e := exprs[id]
		if e == nil {
			t.Fatalf("%s is not in the household rules", id)
		}
		found := map[*Expr]bool{}
		var visit func(x *Expr)
		visit = func(x *Expr) {
			for _, g := range MemberGuards(x) {
				found[g] = true
			}
			for _, a := range x.Args {
				visit(a)
			}
		}
		visit(e)
		at := map[int64]bool{}
		for g := range found {
			l, i, ok := guardIndex(g)
			if !ok || l != "member" {
				t.Errorf("%s: guard %+v is not member > i", id, g)
			}
			at[i] = true
		}
		if len(found) != want || len(at) != want {
			t.Errorf("%s: %d guards at %d indices, want %d", id, len(found), len(at), want)
		}
	}
}

// memberValueRules are testfiles.HouseholdRules with values of each
// member: whether the member is left out, and what of the member's
// earnings counts, read by a household value through a sum.
var memberValueRules = strings.Replace(testfiles.HouseholdRules, "value household_earnings", `value member.left_out bool "Left out of the household" {
  member.age >= 18 and member.age < 22 and not member.resident
  cite act "a member aged 18 to 21 who lives out of the state"
}

value member.countable decimal "Countable earnings" unit "USD a month" {
  if member.age < 16 then 0 else member.earnings
  cite act "the earnings of a member aged 16 or over"
}

value countable_earnings decimal "Countable household earnings" unit "USD a month" output {
  sum(member.countable where not member.left_out)
  cite act "the earnings of every member of the household"
}

value household_earnings`, 1)

// TestListsMemberValues checks values of each member (value
// member.countable): one per member, each reading that member's answers,
// read through aggregates, three-valued as any value, printed back as
// written, and kept by the stored IR.
func TestListsMemberValues(t *testing.T) {
	t.Parallel()
	r, warnings, err := Compile("household.rules", []byte(memberValueRules))
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	if len(warnings) > 0 {
		t.Fatalf("warnings: %v", warnings)
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadIR(3, data)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{DecisionDate: value.DateOrdinal(2026, 3, 1)}
	for _, rs := range []*Ruleset{r, loaded} {
		if got, want := len(rs.Values), 2*6+4; got != want {
			t.Errorf("%d values, want %d: each member's value once per member", got, want)
		}
		for _, tt := range []struct {
			answers, want string
		}{
			{`{"member": [{"age": 40, "earnings": 1000, "resident": true}, {"age": 12, "earnings": 300, "resident": true}]}`, "1000"},
			{`{"member": [{"age": 40, "earnings": 1000, "resident": true}, {"age": 19, "earnings": 300, "resident": false}]}`, "1000"},
			{`{"member": [{"age": 40, "earnings": 1000, "resident": true}, {"age": 19, "earnings": 300, "resident": true}]}`, "1300"},
			{`{"member": [{"age": 40, "earnings": 1000, "resident": true}, {"age": 19, "earnings": 300}]}`, "?"},
			{`{"member": [{"age": 40, "earnings": 1000, "resident": true}, {"age": 12, "resident": false}]}`, "1000"},
			{`{"member": []}`, "0"},
		} {
			in, err := rs.Convert([]byte(tt.answers))
			if err != nil || len(in.FieldErrors) > 0 {
				t.Fatalf("%s: %v %v", tt.answers, err, in.FieldErrors)
			}
			res := rs.Evaluate(in, opts)
			got := "?"
			for _, o := range rs.Outputs(res) {
				if o.Value == "countable_earnings" && string(o.Figure) != "null" {
					got = string(o.Figure)
				}
			}
			if got != tt.want {
				t.Errorf("%s: countable earnings %s, want %s", tt.answers, got, tt.want)
			}
		}
		texts := map[string]string{}
		for _, v := range rs.Values {
			texts[v.ID] = v.Text
		}
		for id, want := range map[string]string{
			"countable_earnings":  "sum(member.countable where not member.left_out)",
			"member[3].countable": "if member.age < 16 then 0 else member.earnings",
		} {
			if texts[id] != want {
				t.Errorf("%s prints as %q, want %q", id, texts[id], want)
			}
		}
	}
	for _, tt := range []struct{ replace, with, want string }{
		{"household_earnings <= 1000", "member.countable <= 1000",
			"member.countable is each member's own value: read it inside count, sum, any, all, min or max"},
		{`value member.left_out bool "Left out of the household" {`, `value person.left_out bool "Left out of the household" {`,
			"value person.left_out: a value's name has a dot only when it is each member's value, named after a list"},
		{`value member.countable decimal "Countable earnings" unit "USD a month" {`, `value member.countable decimal "Countable earnings" unit "USD a month" output {`,
			"value member.countable is each member's own, and only a household's figure can be an output"},
		{`value member.left_out bool "Left out of the household" {`, `value member.age bool "Left out of the household" {`,
			"value member.age has the name of a member's field"},
		{"up to 6", "up to 64", ""},
		{"value household_earnings", manyMemberValues + "value household_earnings",
			"value member.v6 is one value for each of up to 64 members, which makes 513 values in all, and a ruleset holds at most 500"},
	} {
		src := strings.Replace(memberValueRules, tt.replace, tt.with, 1)
		if strings.HasPrefix(tt.with, manyMemberValues) {
			src = strings.Replace(src, "up to 6", "up to 64", 1)
		}
		if src == memberValueRules {
			t.Fatalf("%q is not in the rules", tt.replace)
		}
		_, _, err := Compile("household.rules", []byte(src))
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.with, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("error %v, want one containing %q", err, tt.want)
		}
	}
}

// manyMemberValues declares six more values of each member, for the limit
// on values in all.
var manyMemberValues = func() string {
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, "value member.v%d int \"V\" {\n  member.age + %d\n  cite act \"each member\"\n}\n\n", i+1, i)
	}
	return b.String()
}()
