package impact

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/folder"
)

// caseLine is one JSON Lines case as a test writes it.
type caseLine struct {
	FieldValues  json.RawMessage `json:"field_values"`
	DecisionDate string          `json:"decision_date,omitempty"`
	Reference    string          `json:"reference,omitempty"`
}

// caseload writes cases as JSON Lines, each dated as r decides it in a
// suite (engine.Ruleset.CaseDate) and referenced by its name.
func caseload(t testing.TB, r *engine.Ruleset, cases []engine.Case) []caseLine {
	t.Helper()
	var out []caseLine
	for _, c := range cases {
		d, err := r.CaseDate(c)
		if err != nil {
			t.Fatalf("case %q: %v", c.Name, err)
		}
		l := caseLine{FieldValues: c.FieldValues, Reference: c.Name}
		if len(l.FieldValues) == 0 {
			l.FieldValues = json.RawMessage("{}")
		}
		if d != 0 {
			l.DecisionDate = value.FormatDate(d)
		}
		out = append(out, l)
	}
	return out
}

func jsonl(t testing.TB, lines []caseLine) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func compile(t testing.TB, name, src string) *engine.Ruleset {
	t.Helper()
	r, _, err := engine.Compile(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// loadFolder compiles a casebank ruleset folder and returns it with its
// cases as a caseload.
func loadFolder(t testing.TB, name string) (*engine.Ruleset, *folder.Folder) {
	t.Helper()
	f, err := folder.Load(context.Background(), filepath.Join("..", "casebank", name))
	if err != nil {
		t.Fatal(err)
	}
	return compile(t, f.RulesPath, string(f.Rules)), f
}

// TestSameRulesetChangesNothing: a candidate equal to the baseline changes
// no case, for every casebank ruleset and rulebook over its own cases.
func TestSameRulesetChangesNothing(t *testing.T) {
	t.Parallel()
	entries, err := folder.DiscoverAll(filepath.Join("..", "casebank"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 30 {
		t.Fatalf("found %d casebank folders; the test is not looking at the casebank", len(entries))
	}
	for _, e := range entries {
		t.Run(filepath.Base(e.Dir), func(t *testing.T) {
			t.Parallel()
			var r *engine.Ruleset
			var cases []engine.Case
			if e.Kind == folder.KindRulebook {
				b, err := folder.LoadRulebook(context.Background(), e.Dir)
				if err != nil {
					t.Fatal(err)
				}
				r, cases = b.Composed.Rules, b.Cases
			} else {
				f, err := folder.Load(context.Background(), e.Dir)
				if err != nil {
					t.Fatal(err)
				}
				r, cases = compile(t, f.RulesPath, string(f.Rules)), f.Cases
			}
			rep, err := Run(context.Background(), bytes.NewReader(jsonl(t, caseload(t, r, cases))), Options{Baseline: r, Candidate: r, Examples: 1})
			if err != nil {
				t.Fatal(err)
			}
			// Unread answers are allowed: some cases test an unknown field.
			if rep.Cases != int64(len(cases)) || rep.Changed != 0 || len(rep.Criteria) != 0 || len(rep.Values) != 0 ||
				len(rep.BadRows) != 0 {
				t.Errorf("%d cases: %+v", len(cases), rep)
			}
			var n int64
			for _, tr := range rep.Transitions {
				if tr.From != tr.To {
					t.Errorf("transition %s -> %s", tr.From, tr.To)
				}
				n += tr.Count
			}
			if n != int64(len(cases)) {
				t.Errorf("transitions count %d cases of %d", n, len(cases))
			}
		})
	}
}

// expected is a report's counts as deciding each case one by one gives
// them.
type expected struct {
	cases       int64
	transitions map[[2]engine.Outcome]int64
	criteria    map[string]int64
	values      map[string]int64
}

// decideOne decides a case on r alone, through engine.Convert and
// Evaluate, leaving out the answers to fields r does not declare.
func decideOne(t testing.TB, r *engine.Ruleset, l caseLine, defaultDate int64) *engine.Result {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(l.FieldValues, &m); err != nil {
		t.Fatal(err)
	}
	for k := range m {
		if r.FieldIndex(k) < 0 {
			delete(m, k)
		}
	}
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	in, err := r.Convert(raw)
	if err != nil {
		t.Fatal(err)
	}
	d := defaultDate
	if l.DecisionDate != "" {
		d, _ = value.ParseDate(l.DecisionDate)
	}
	return r.Evaluate(in, engine.Options{DecisionDate: d})
}

// oneByOne works out what a run should report from the cases one at a
// time, with maps by id where the run pairs indexes.
func oneByOne(t testing.TB, base, cand *engine.Ruleset, lines []caseLine, defaultDate int64) expected {
	t.Helper()
	want := expected{transitions: map[[2]engine.Outcome]int64{}, criteria: map[string]int64{}, values: map[string]int64{}}
	statuses := func(r *engine.Ruleset, res *engine.Result) map[string]engine.Status {
		m := map[string]engine.Status{}
		for i := range r.NumCriteria() {
			c, _ := r.CriterionAt(i)
			m[c.ID] = res.Criteria[i]
		}
		return m
	}
	for _, l := range lines {
		a, b := decideOne(t, base, l, defaultDate), decideOne(t, cand, l, defaultDate)
		want.cases++
		want.transitions[[2]engine.Outcome{a.Outcome, b.Outcome}]++
		sb := statuses(cand, b)
		for id, s := range statuses(base, a) {
			if s2, ok := sb[id]; ok && s2 != s {
				want.criteria[id]++
			}
		}
		for i, v := range base.Values {
			j := cand.ValueIndex(v.ID)
			if j < 0 {
				continue
			}
			x, y := a.Values[i], b.Values[j]
			switch {
			case x.Known && y.Known:
				if value.Compare(x, y) != 0 {
					want.values[v.ID]++
				}
			case x.Known != y.Known && v.Output && cand.Values[j].Output:
				want.values[v.ID]++
			}
		}
	}
	return want
}

// got is the same counts read from a report.
func got(rep *Report) expected {
	g := expected{cases: rep.Cases, transitions: map[[2]engine.Outcome]int64{}, criteria: map[string]int64{}, values: map[string]int64{}}
	for _, tr := range rep.Transitions {
		g.transitions[[2]engine.Outcome{tr.From, tr.To}] = tr.Count
	}
	for _, c := range rep.Criteria {
		g.criteria[c.ID] = c.Count
	}
	for _, v := range rep.Values {
		g.values[v.ID] = v.Count
	}
	return g
}

// TestRunMatchesCaseByCase: the run's counts are those of deciding each
// case on its own with the engine, for casebank rulesets against their
// next version and against copies with a figure changed, over the cases
// of both.
func TestRunMatchesCaseByCase(t *testing.T) {
	t.Parallel()
	mutate := func(name, from, to string) func(t *testing.T) (*engine.Ruleset, *engine.Ruleset, []caseLine) {
		return func(t *testing.T) (*engine.Ruleset, *engine.Ruleset, []caseLine) {
			r, f := loadFolder(t, name)
			src := string(f.Rules)
			if !strings.Contains(src, from) {
				t.Fatalf("%s has no %q to change", name, from)
			}
			return r, compile(t, "mutant.rules", strings.Replace(src, from, to, 1)), caseload(t, r, f.Cases)
		}
	}
	versions := func(old, new string) func(t *testing.T) (*engine.Ruleset, *engine.Ruleset, []caseLine) {
		return func(t *testing.T) (*engine.Ruleset, *engine.Ruleset, []caseLine) {
			a, fa := loadFolder(t, old)
			b, fb := loadFolder(t, new)
			return a, b, append(caseload(t, a, fa.Cases), caseload(t, b, fb.Cases)...)
		}
	}
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T) (*engine.Ruleset, *engine.Ruleset, []caseLine)
		changed bool // whether some case's outcome must change
	}{
		{"snap-income against fy2027", versions("snap-income", "snap-income-fy2027"), true},
		{"us-independent-student against 2026-27", versions("us-independent-student", "us-independent-student-2026-27"), true},
		{"snap-income with a gross limit raised", mutate("snap-income", "income.gross_monthly <= 2292", "income.gross_monthly <= 2400"), true},
		{"full SNAP with a larger earned income deduction", mutate("us-snap-eligibility", "round(round(income.earned) * 0.2)", "round(round(income.earned) * 0.25)"), false},
		{"us-fmla-employee with an hours threshold moved", mutate("us-fmla-employee", "1250", "1000"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, cand, lines := tc.setup(t)
			rep, err := Run(context.Background(), bytes.NewReader(jsonl(t, lines)), Options{Baseline: base, Candidate: cand})
			if err != nil {
				t.Fatal(err)
			}
			want, have := oneByOne(t, base, cand, lines, 0), got(rep)
			if !reflect.DeepEqual(have, want) {
				t.Errorf("run:\n%+v\none by one:\n%+v", have, want)
			}
			if tc.changed && rep.Changed == 0 {
				t.Errorf("no case changed: %+v", rep)
			}
			if len(rep.BadRows) != 0 {
				t.Errorf("bad rows: %+v", rep.BadRows)
			}
		})
	}
}
