package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/eligo/eligo/engine/internal/testfiles"
	"github.com/eligo/eligo/engine/syntax"
	"github.com/gowebpki/jcs"
)

// FuzzParse checks that any input either compiles or reports errors
// (never panics), and that every input that parses round-trips through the
// printer.
func FuzzParse(f *testing.F) {
	// Seeds are small on purpose: the fuzzer minimises every interesting
	// input, which takes long on a whole casebank file (those are covered
	// by TestRoundTripCasebank). More seeds live in testdata/fuzz/FuzzParse.
	f.Add([]byte(groupsRules))
	f.Add([]byte(testfiles.HouseholdRules))
	f.Add(fmt.Appendf(nil, testfiles.OpsRules, `not (a.n ?? -1 > 2 or a.e not in ["red"]) and years_between(a.born, decision_date()) >= 18`))
	// The error fixtures, so that the fuzzer starts from the mistakes the
	// parser recovers from (recovery must never loop or panic).
	fixtures, err := filepath.Glob("testdata/errors/*.rules")
	if err != nil {
		f.Fatal(err)
	}
	for _, path := range fixtures {
		src, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		r, _, err := Compile("fuzz.rules", src)
		if err == nil && r.ContentDigest() == "" {
			t.Fatal("compiled without a digest")
		}
		if err != nil {
			if _, ok := err.(syntax.ErrorList); !ok {
				t.Fatalf("error %T is not an ErrorList", err)
			}
		}
		file, errs := syntax.Parse("fuzz.rules", src)
		if len(errs) == 0 {
			checkRoundTrip(t, "fuzz.rules", file)
		}
	})
}

// FuzzConvertValues checks that any field_values either converts (with
// field errors) or is rejected as not an object, and evaluates without
// panicking, for a ruleset of every operator and for one with a list of
// members (a household read from a list of objects).
func FuzzConvertValues(f *testing.F) {
	household, _, err := Compile("household.rules", []byte(testfiles.HouseholdRules))
	if err != nil {
		f.Fatal(err)
	}
	rulesets := []*Ruleset{opsRuleset(f), household}
	for _, seed := range []string{
		`{"member": [{"age": 34, "pregnant": true, "earnings": 1200.50, "resident": true}, {"age": 3}, {}]}`,
		`{"member": [{"age": "x"}, 4, null, [], {"agee": 1, "age": null}], "member[0].age": 2}`,
		`{"member": [{}, {}, {}, {}, {}, {}, {}], "member.age": 3}`,
		`{"member": {"age": 3}}`, `{"member": null}`, `{"member": []}`,
		`{"a.n": 12, "a.d": 1250.50, "a.b": true, "a.e": "red", "a.born": "2024-02-29", "a.on": 738945}`,
		`{"a.n": 1e0, "a.d": -0.000001, "a.c": null, "x.y": [1, {"z": 2}]}`,
		`{"a.born": "2024-02-30", "a.n": 1.5, "a.e": 3, "a.b": "true"}`,
		`{"a.n": 99999999999999999999999, "a.d": 1e400, "a.on": 0}`,
		`[]`, `null`, `{`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, r := range rulesets {
			in, err := r.Convert(raw)
			if err != nil {
				return
			}
			res := r.Evaluate(in, Options{DecisionDate: 738945, Trace: true, Explanation: true})
			if len(res.FieldErrors) > 0 && res.Outcome != Undetermined {
				t.Fatalf("outcome %s with field errors %v", res.Outcome, res.FieldErrors)
			}
			for s := range in.Values {
				if in.Values[s].Known && !r.InList(s, in) {
					t.Fatalf("an answer for %s, a member the list does not hold", r.Fields[s].ID)
				}
			}
		}
		_, _ = InputsHash(raw)
	})
}

// FuzzLoadIR checks that any bytes either load as compiled IR or are
// refused, never a panic; that what loads has the digest of the bytes
// themselves and loads again from its own JSON; and that it evaluates,
// traces, explains, reports and draws without panicking. More seeds, some
// malformed, live in testdata/fuzz/FuzzLoadIR.
func FuzzLoadIR(f *testing.F) {
	for _, src := range []string{
		groupsRules,
		fmt.Sprintf(testfiles.OpsRules, `not (a.n ?? -1 > 2 or a.e not in ["red"]) and years_between(a.born, decision_date()) >= 18 and a.d * 2 <= max(a.n, 1.5) and present(a.c)`),
		refusalRules,
		testfiles.HouseholdRules,
	} {
		r, _, err := Compile("seed.rules", []byte(src))
		if err != nil {
			f.Fatal(err)
		}
		js, err := json.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(js)
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkLoadIR(t, data) })
}

// checkLoadIR is FuzzLoadIR's property: data loads or is refused, and what
// loads has the bytes' digest, loads again from its own JSON, and
// evaluates and reports without panicking (present's FuzzLoadIRGraph draws
// it). It reports whether data loaded.
func checkLoadIR(t *testing.T, data []byte) bool {
	t.Helper()
	r, err := LoadIR(IRVersion, data)
	if err != nil {
		if r != nil {
			t.Fatalf("a ruleset and an error: %v", err)
		}
		return false
	}
	canon, err := jcs.Transform(data)
	if err != nil {
		t.Fatalf("loaded bytes RFC 8785 cannot canonicalise: %v", err)
	}
	if r.ContentDigest() != digestOf(canon) {
		t.Fatalf("digest %s is not that of the bytes, %s", r.ContentDigest(), digestOf(canon))
	}
	again, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if r2, err := LoadIR(IRVersion, again); err != nil || r2.ContentDigest() != r.ContentDigest() {
		t.Fatalf("the loaded ruleset's own JSON does not load back the same: %v", err)
	}
	first, other := map[string]any{}, map[string]any{}
	for _, fd := range r.Fields {
		switch fd.Type {
		case SortInt, SortDecimal:
			first[fd.ID], other[fd.ID] = 1000, json.Number("-5")
		case SortBool:
			first[fd.ID], other[fd.ID] = true, false
		case SortEnum:
			first[fd.ID], other[fd.ID] = fd.EnumValues[0], fd.EnumValues[len(fd.EnumValues)-1]
		case SortDate:
			first[fd.ID], other[fd.ID] = "1990-01-01", "2024-02-29"
		}
	}
	for _, in := range []*Inputs{r.ConvertMap(nil), r.ConvertMap(first), r.ConvertMap(other)} {
		res := r.Evaluate(in, Options{DecisionDate: 739000, Trace: true, Explanation: true})
		if _, err := json.Marshal(r.Report(res, "")); err != nil {
			t.Fatal(err)
		}
	}
	return true
}
