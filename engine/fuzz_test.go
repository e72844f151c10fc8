package engine

import (
	"fmt"
	"testing"
)

// FuzzParse checks that any input either compiles or reports errors
// (never panics), and that every input that parses round-trips through the
// printer.
func FuzzParse(f *testing.F) {
	// Seeds are small on purpose: the fuzzer minimises every interesting
	// input, which takes long on a whole casebank file (those are covered
	// by TestRoundTripCasebank). More seeds live in testdata/fuzz/FuzzParse.
	f.Add([]byte(groupsRules))
	f.Add(fmt.Appendf(nil, opsRules, `not (a.n ?? -1 > 2 or a.e not in ["red"]) and years_between(a.born, decision_date()) >= 18`))
	f.Fuzz(func(t *testing.T, src []byte) {
		r, _, err := Compile("fuzz.rules", src)
		if err == nil && r.ContentDigest() == "" {
			t.Fatal("compiled without a digest")
		}
		if err != nil {
			if _, ok := err.(ErrorList); !ok {
				t.Fatalf("error %T is not an ErrorList", err)
			}
		}
		file, errs := Parse("fuzz.rules", src)
		if len(errs) == 0 {
			checkRoundTrip(t, "fuzz.rules", file)
		}
	})
}

// FuzzConvertValues checks that any field_values either converts (with
// field errors) or is rejected as not an object, and evaluates without
// panicking.
func FuzzConvertValues(f *testing.F) {
	r := opsRuleset(f)
	for _, seed := range []string{
		`{"a.n": 12, "a.d": 1250.50, "a.b": true, "a.e": "red", "a.born": "2024-02-29", "a.on": 738945}`,
		`{"a.n": 1e0, "a.d": -0.000001, "a.c": null, "x.y": [1, {"z": 2}]}`,
		`{"a.born": "2024-02-30", "a.n": 1.5, "a.e": 3, "a.b": "true"}`,
		`{"a.n": 99999999999999999999999, "a.d": 1e400, "a.on": 0}`,
		`[]`, `null`, `{`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		in, err := r.Convert(raw)
		if err != nil {
			return
		}
		res := r.Evaluate(in, Options{DecisionDate: 738945, Trace: true, Explanation: true})
		if len(res.FieldErrors) > 0 && res.Outcome != Undetermined {
			t.Fatalf("outcome %s with field errors %v", res.Outcome, res.FieldErrors)
		}
		_, _ = InputsHash(raw)
	})
}
