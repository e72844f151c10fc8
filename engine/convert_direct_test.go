package engine_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/enginetest"
	"github.com/eligo/eligo/engine/internal/testfiles"
)

// directRulesets compiles every casebank ruleset and the household rules
// of engine/internal/testfiles (a list of members).
func directRulesets(t *testing.T) map[string]*engine.Ruleset {
	t.Helper()
	rulesets := map[string]*engine.Ruleset{}
	for _, path := range testfiles.Casebank(t) {
		r, _, err := engine.Compile(path, testfiles.Read(t, path))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		rulesets[filepath.Base(filepath.Dir(path))] = r
	}
	household, _, err := engine.Compile("household.rules", []byte(testfiles.HouseholdRules))
	if err != nil {
		t.Fatal(err)
	}
	rulesets["household"] = household
	return rulesets
}

// TestConvertDirectCasebank converts the field_values of every casebank
// case, as spelt in cases.json and compacted, for every casebank ruleset
// (all its own cases, and the first few of every other folder, which
// are mostly unknown keys and so field errors) both ways, and requires
// the same result. A
// folder's own answers must be taken by the direct reader, or the
// comparison would not be testing it.
func TestConvertDirectCasebank(t *testing.T) {
	t.Parallel()
	rulesets := directRulesets(t)
	answers := testfiles.CaseAnswers(t)
	direct, total := 0, 0
	for name, r := range rulesets {
		for folder, list := range answers {
			for i, raw := range list {
				if folder != name && i >= 3 {
					break
				}
				var compact bytes.Buffer
				if err := json.Compact(&compact, raw); err != nil {
					t.Fatal(err)
				}
				for _, spelling := range [][]byte{raw, compact.Bytes()} {
					diff, took := engine.ConvertPathsDiffer(r, spelling)
					if diff != "" {
						t.Fatalf("ruleset %s, %s case %d %s: %s", name, folder, i, spelling, diff)
					}
					total++
					if took {
						direct++
					}
					if folder == name && !took && !bytes.Contains(spelling, []byte(`\`)) {
						t.Errorf("ruleset %s, its own case %d %s: the direct reader did not take it", name, i, spelling)
					}
				}
			}
		}
	}
	t.Logf("%d conversions, %d by the direct reader", total, direct)
}

// TestConvertDirectSampled converts answer sets the sampler draws for
// every casebank ruleset and the household rules (boundaries, every field
// type, lists of members, some fields left out or sent as null) both
// ways, and requires the same result, taken by the direct reader.
func TestConvertDirectSampled(t *testing.T) {
	t.Parallel()
	for name, r := range directRulesets(t) {
		s := enginetest.NewSampler(r, 42)
		for trial := range 200 {
			answers := s.Answers([]float64{0, 0.3, 0.8, 1}[trial%4], s.DecisionDate())
			if trial%3 == 0 {
				for i := range r.Fields {
					if _, ok := answers[r.Fields[i].ID]; !ok && r.Fields[i].Member == nil {
						answers[r.Fields[i].ID] = nil
					}
				}
			}
			raw, err := json.Marshal(answers)
			if err != nil {
				t.Fatal(err)
			}
			diff, took := engine.ConvertPathsDiffer(r, raw)
			if diff != "" {
				t.Fatalf("ruleset %s trial %d %s: %s", name, trial, raw, diff)
			}
			if !took && !bytes.Contains(raw, []byte(`\`)) {
				t.Errorf("ruleset %s trial %d %s: the direct reader did not take it", name, trial, raw)
			}
		}
	}
}

// TestConvertDirectEdges converts hand-written answers both ways, for the
// household rules and the largest ruleset: the field errors of every
// kind, in key order, the spellings the direct reader takes and those it
// leaves to encoding/json, and bytes that are not field_values at all.
func TestConvertDirectEdges(t *testing.T) {
	t.Parallel()
	household, _, err := engine.Compile("household.rules", []byte(testfiles.HouseholdRules))
	if err != nil {
		t.Fatal(err)
	}
	large := enginetest.LargestRuleset(t)
	for _, tc := range []struct {
		raw string
		// direct is whether the direct reader takes raw.
		direct bool
	}{
		{`{}`, true},
		{` {"member": []} `, true},
		{"\t{\"member\" :\n[ {\"age\":34 , \"earnings\" : 1e3} ,{ } ]\r}\n", true},
		{`{"member": [{"age": 34, "pregnant": true, "earnings": 1200.50, "resident": true}, {"age": 3}, {}]}`, true},
		{`{"member": [{"age": "x", "agee": 1, "zzz": null, "age2": [1]}], "member[0].age": 2, "membr": 1}`, false},
		{`{"member": [{"age": "x", "agee": 1, "zzz": null, "pregnant": 1}], "member[0].age": 2, "membr": 1}`, true},
		{`{"member": [{"age": 1.5}, {"age": -1}, {"age": 1e400}, {"earnings": 123456789012345678901}]}`, true},
		{`{"member": [{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}]}`, true},
		{`{"member": {"age": 3}}`, false},
		{`{"member": 3}`, true},
		{`{"member": "x"}`, true},
		{`{"member": null, "zz": null}`, true},
		{`{"member": [1]}`, false},
		{`{"member": [null]}`, false},
		{`{"member": [{"age": 3, "age": 4}]}`, false},
		{`{"member": [{"age": 3}], "member": []}`, false},
		{`{"member": [{"a\u0067e": 3}]}`, false},
		{`{"member": [{"age": 3}]} {}`, false},
		{`{"member": [{"age": 3}]}}`, false},
		{`{"member": [{"age": 3}]`, false},
		{`{"member": [{"age": 03}]}`, false},
		{`{"member": [{"age": 3.}]}`, false},
		{`{"member": [{"age": -}]}`, false},
		{`{"member": [{"age": 1e}]}`, false},
		{`{"member": [{"age": tru}]}`, false},
		{`{"member": [{"age": 3,}]}`, false},
		{`{"ünknown": "wert", "<b>": "a&b", "x": "é"}`, true},
		{"{\"x\": \"\xff\"}", false},
		{"{\"x\": \"a\tb\"}", false},
		{`{"x": "a\"b"}`, false},
		{`[]`, false},
		{`null`, false},
		{``, false},
		{`{`, false},
		{`{"household.region": "48_states_dc", "household.size": 3.0, "income.earned": -5, "income.unearned": "300",
			"shelter.claims_sua": "true", "household.elderly_or_disabled": null, "resources.countable": 1E3}`, true},
	} {
		for _, r := range []*engine.Ruleset{household, large} {
			diff, took := engine.ConvertPathsDiffer(r, []byte(tc.raw))
			if diff != "" {
				t.Errorf("%s: %s", tc.raw, diff)
			}
			if took != tc.direct {
				t.Errorf("%s: taken by the direct reader %v, want %v", tc.raw, took, tc.direct)
			}
		}
	}
}
