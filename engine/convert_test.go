package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine/internal/testfiles"
)

func opsRuleset(t testing.TB) *Ruleset {
	t.Helper()
	r, _, err := Compile("ops.rules", fmt.Appendf(nil, testfiles.OpsRules,
		`a.n > 0 and a.m > 0 and a.d > 0 and a.b and a.c and a.e == "red" and a.born < a.on`))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestConvert(t *testing.T) {
	t.Parallel()
	r := opsRuleset(t)
	tests := []struct {
		name, values string
		// want is the converted answer of the single field sent, printed as
		// ValueJSON; empty when a field error is expected instead.
		field, want string
		errText     string
	}{
		{"int", `{"a.n": 12}`, "a.n", "12", ""},
		{"int written 1.0", `{"a.n": 1.0}`, "a.n", "1", ""},
		{"int written 1e0", `{"a.n": 1e0}`, "a.n", "1", ""},
		{"int written 12.50e1", `{"a.n": 12.50e1}`, "a.n", "125", ""},
		{"negative int", `{"a.n": -3}`, "a.n", "-3", ""},
		{"int with a fraction", `{"a.n": 1.5}`, "a.n", "", "whole number"},
		{"int as string", `{"a.n": "12"}`, "a.n", "", "expected a number"},
		{"int too long", `{"a.n": 1234567890123456789012}`, "a.n", "", "18 significant digits"},
		{"decimal exact", `{"a.d": 0.1}`, "a.d", "0.1", ""},
		{"decimal many digits", `{"a.d": 1234567.123456789}`, "a.d", "1234567.123456789", ""},
		{"decimal trailing zeros", `{"a.d": 1250.500}`, "a.d", "1250.5", ""},
		{"decimal as bool", `{"a.d": true}`, "a.d", "", "expected a number"},
		{"bool", `{"a.b": false}`, "a.b", "false", ""},
		{"bool as string", `{"a.b": "true"}`, "a.b", "", "expected true or false"},
		{"bool as number", `{"a.b": 1}`, "a.b", "", "expected true or false"},
		{"enum", `{"a.e": "green"}`, "a.e", `"green"`, ""},
		{"enum outside the set", `{"a.e": "purple"}`, "a.e", "", "is not one of"},
		{"enum wrong case", `{"a.e": "Red"}`, "a.e", "", "is not one of"},
		{"enum as number", `{"a.e": 1}`, "a.e", "", "expected one of"},
		{"date ISO", `{"a.born": "2024-02-29"}`, "a.born", `"2024-02-29"`, ""},
		{"date ordinal", `{"a.born": 738945}`, "a.born", `"2024-02-29"`, ""},
		{"date ordinal 1", `{"a.born": 1}`, "a.born", `"0001-01-01"`, ""},
		{"date ordinal 1.0", `{"a.born": 1.0}`, "a.born", `"0001-01-01"`, ""},
		{"date ordinal 0", `{"a.born": 0}`, "a.born", "", "from 1"},
		{"date ordinal negative", `{"a.born": -5}`, "a.born", "", "from 1"},
		{"date ordinal fraction", `{"a.born": 738945.5}`, "a.born", "", "whole number"},
		{"date impossible", `{"a.born": "2024-02-30"}`, "a.born", "", "not a calendar date"},
		{"date not leap", `{"a.born": "2023-02-29"}`, "a.born", "", "not a calendar date"},
		{"date datetime", `{"a.born": "2024-02-01T00:00:00Z"}`, "a.born", "", "not a calendar date"},
		{"date other layout", `{"a.born": "01/02/2024"}`, "a.born", "", "not a calendar date"},
		{"date as bool", `{"a.born": true}`, "a.born", "", "expected a date"},
		{"unknown key", `{"a.nope": 1}`, "a.nope", "", "unknown field"},
		{"null is unanswered", `{"a.n": null}`, "a.n", "null", ""},
		{"int beyond float64", `{"a.n": 1e400}`, "a.n", "", "cannot read 1e400"},
		{"decimal beyond float64", `{"a.d": -1e400}`, "a.d", "", "cannot read -1e400"},
		{"decimal below float64", `{"a.d": 1e-400}`, "a.d", "", "cannot read 1e-400"},
		{"bool beyond float64", `{"a.b": 1e400}`, "a.b", "", "expected true or false"},
		{"date beyond float64", `{"a.born": 1e400}`, "a.born", "", "from 1"},
		{"list holding a number beyond float64", `{"a.n": [1e400]}`, "a.n", "", "expected a number, got a list"},
		{"unknown key beyond float64", `{"a.nope": 1e400}`, "a.nope", "", "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in, err := r.Convert([]byte(tt.values))
			if err != nil {
				t.Fatal(err)
			}
			if tt.errText != "" {
				if len(in.FieldErrors) != 1 || in.FieldErrors[0].Field != tt.field || !strings.Contains(in.FieldErrors[0].Message, tt.errText) {
					t.Fatalf("field errors %+v, want one for %s containing %q", in.FieldErrors, tt.field, tt.errText)
				}
				res := r.Evaluate(in, Options{})
				if res.Outcome != Undetermined {
					t.Errorf("outcome with a field error is %s, want undetermined", res.Outcome)
				}
				return
			}
			if len(in.FieldErrors) != 0 {
				t.Fatalf("unexpected field errors %+v", in.FieldErrors)
			}
			slot := r.FieldIndex(tt.field)
			if got := string(r.ValueJSON(slot, in.Values[slot])); got != tt.want {
				t.Errorf("converted to %s, want %s", got, tt.want)
			}
		})
	}
}

func TestConvertRejectsNonObjects(t *testing.T) {
	t.Parallel()
	r := opsRuleset(t)
	for _, raw := range []string{``, ` `, `[]`, `null`, `12`, `"{}"`, ` [{"a.n": 1}]`} {
		if _, err := r.Convert([]byte(raw)); !errors.Is(err, ErrNotObject) {
			t.Errorf("Convert(%q) = %v, want ErrNotObject", raw, err)
		}
	}
	// An object that cannot be read is an error, but not ErrNotObject.
	deep := `{"a.n":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`
	for _, raw := range []string{`{"a.n": 1} {}`, `{"a.n": }`, deep} {
		if _, err := r.Convert([]byte(raw)); err == nil || errors.Is(err, ErrNotObject) {
			t.Errorf("Convert(%.40q) = %v, want an error other than ErrNotObject", raw, err)
		}
	}
}

func TestConvertMapMatchesConvert(t *testing.T) {
	t.Parallel()
	r := opsRuleset(t)
	in1, err := r.Convert([]byte(`{"a.n": 3, "a.d": 2.5, "a.b": true, "a.e": "blue", "a.born": "2000-01-01"}`))
	if err != nil {
		t.Fatal(err)
	}
	in2 := r.ConvertMap(map[string]any{"a.n": 3, "a.d": 2.5, "a.b": true, "a.e": "blue", "a.born": "2000-01-01"})
	if fmt.Sprint(in1.Values) != fmt.Sprint(in2.Values) || len(in2.FieldErrors) != 0 {
		t.Errorf("ConvertMap %v %v, Convert %v", in2.Values, in2.FieldErrors, in1.Values)
	}
}

func TestInputsHash(t *testing.T) {
	t.Parallel()
	base, err := InputsHash([]byte(`{"a":1,"b":"x","c":[true,null]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(base, "sha256:") || len(base) != len("sha256:")+64 {
		t.Fatalf("hash %q is not sha256:<hex>", base)
	}
	for _, same := range []string{
		`{"b":"x","a":1,"c":[true,null]}`,
		"{ \"c\" : [ true , null ] ,\n\t\"a\": 1.0, \"b\": \"x\" }",
		`{"a":1e0,"b":"x","c":[true,null]}`,
	} {
		if h, err := InputsHash([]byte(same)); err != nil || h != base {
			t.Errorf("InputsHash(%s) = %s %v, want %s", same, h, err, base)
		}
	}
	for _, other := range []string{`{"a":2,"b":"x","c":[true,null]}`, `{"a":1,"b":"x","c":[null,true]}`} {
		if h, _ := InputsHash([]byte(other)); h == base {
			t.Errorf("InputsHash(%s) equals the base hash", other)
		}
	}
	if _, err := InputsHash([]byte(`{"a":`)); err == nil || errors.Is(err, ErrNotIJSON) {
		t.Errorf("InputsHash of broken JSON = %v, want a plain error", err)
	}
}

// TestInputsHashBeyondCanonicalJSON: a number beyond float64, which RFC
// 8785 cannot write, still hashes, and the hash keeps its documented
// invariants (key order, white space, number spelling; docs/api.md#deciding-post-decide) while differing from
// the hash of any document without such a number; JSON that is not I-JSON
// fails with ErrNotIJSON.
func TestInputsHashBeyondCanonicalJSON(t *testing.T) {
	t.Parallel()
	hash := func(s string) string {
		t.Helper()
		h, err := InputsHash([]byte(s))
		if err != nil {
			t.Fatalf("InputsHash(%s): %v", s, err)
		}
		return h
	}
	for _, tc := range []struct {
		raw  string
		same []string // the same value written otherwise
		diff []string // other values
	}{
		{`{"a": 1e400}`,
			[]string{`{"a":1e400}`, `{"a":1E400}`, `{"a":1e+400}`, `{"a":10e399}`, `{"a":0.1e401}`, `{"a":1.000e400}`},
			[]string{`{"a":2e400}`, `{"a":-1e400}`, `{"a":1e401}`, `{"a":1.7976931348623157e308}`, `{"a":0}`, `{"a":"1e400"}`}},
		{`{"b": {"c": 1E+999, "d": "x"}, "a": [ -1.5e400 , 2.0 ]}`,
			[]string{`{"a":[-15e399,2],"b":{"d":"x","c":1e999}}`, "{\n\t\"a\" : [ -1.50e400 , 2e0 ], \"b\":{\"d\":\"\\u0078\",\"c\":1e999}}"},
			[]string{`{"a":[2,-1.5e400],"b":{"c":1e999,"d":"x"}}`, `{"a":[-1.5e400,2],"b":{"c":1e999,"d":"y"}}`}},
	} {
		h := hash(tc.raw)
		for _, same := range tc.same {
			if got := hash(same); got != h {
				t.Errorf("InputsHash(%s) = %s, InputsHash(%s) = %s: the same value hashes differently", tc.raw, h, same, got)
			}
		}
		for _, other := range tc.diff {
			if got := hash(other); got == h {
				t.Errorf("InputsHash(%s) = InputsHash(%s): different values share a hash", tc.raw, other)
			}
		}
	}
	// A caller's string shaped like the stand-in for a huge number changes
	// nothing: the stand-in holds a nonce drawn for each document.
	if hash(`{"a":1e400,"b":"eligo-number-beyond-float64:x:0"}`) == hash(`{"a":"eligo-number-beyond-float64:x:0","b":1e400}`) {
		t.Error("swapping a huge number and a look-alike string keeps the hash")
	}
	for _, raw := range []string{
		`{"a":1,"a":2}`,
		`{"a":{"b":1,"\u0062":2}}`,
		`{"a":1e400,"a":2}`,
		`{"a":"\ud800"}`,
		`{"a":"\udc00\ud800"}`,
		`{"\ud83d":1}`,
		`{"a":"\ud83d\u0041"}`,
		"{\"a\":\"\xff\"}",
		`{"a":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
	} {
		if h, err := InputsHash([]byte(raw)); !errors.Is(err, ErrNotIJSON) {
			t.Errorf("InputsHash(%.60q) = %s %v, want ErrNotIJSON", raw, h, err)
		}
	}
	if _, err := InputsHash([]byte(`{"a":"\ud83d\ude00"}`)); err != nil {
		t.Errorf("a surrogate pair: %v", err)
	}
}

func TestOverflowIsAFieldError(t *testing.T) {
	t.Parallel()
	r, _, err := Compile("ops.rules", fmt.Appendf(nil, testfiles.OpsRules, "a.n * 1000000000000 > 0"))
	if err != nil {
		t.Fatal(err)
	}
	in, _ := r.Convert([]byte(`{"a.n": 100000000000}`))
	res := r.Evaluate(in, Options{})
	if res.Outcome != Undetermined || len(res.FieldErrors) != 1 || res.FieldErrors[0].Field != "a.n" {
		t.Errorf("outcome %s, field errors %+v; want undetermined with one error on a.n", res.Outcome, res.FieldErrors)
	}
	b, _ := json.Marshal(res.FieldErrors[0])
	if strings.Contains(string(b), `"value"`) {
		t.Errorf("an evaluation error carries no sent value: %s", b)
	}
}

func TestNormalNumber(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"1e400": "1e400", "1E+400": "1e400", "10e399": "1e400", "0.1e401": "1e400", "1.000e400": "1e400",
		"-1.5e999": "-1.5e999", "-15e998": "-1.5e999", "00012.3400e398": "1.234e399",
		"123456789012345678901234567890e300": "1.2345678901234567890123456789e329",
		"1e99999999999999999999999":          "1e99999999999999999999999",
	} {
		if got := normalNumber(in); got != want {
			t.Errorf("normalNumber(%s) = %s, want %s", in, got, want)
		}
	}
}
