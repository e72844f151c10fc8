package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/eligo/eligo/engine/syntax"
)

// rangeRules is a ruleset whose fields declare ranges; %s is the range line
// of a.size.
const rangeRules = `section r
source s "S" url "u" licence "l"
field a.size int
  %s
field a.income decimal
  range 0..
field a.n int
group g all "G" {
  criterion c "C" {
    a.size >= 2 and a.income <= 1255.50 and a.n > 0
    cite s "S"
  }
}
`

// TestFieldRangeCompiles checks that a range reads, prints back the same,
// reaches the IR as the range member, loads back from it with the same
// digest, and that a field without one has no range member.
func TestFieldRangeCompiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line, wantJSON, wantWords string
	}{
		{"range 1..20", `"range":{"min":1,"max":20}`, "from 1 to 20"},
		{"range 1..", `"range":{"min":1}`, "at least 1"},
		{"range ..20", `"range":{"max":20}`, "at most 20"},
		{"range -5..-1", `"range":{"min":-5,"max":-1}`, "from -5 to -1"},
		{"range 3..3", `"range":{"min":3,"max":3}`, "from 3 to 3"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			src := fmt.Sprintf(rangeRules, tt.line)
			f, errs := syntax.Parse("r.rules", []byte(src))
			if len(errs) > 0 {
				t.Fatalf("parse: %v", errs)
			}
			checkRoundTrip(t, "r.rules", f)
			if printed := string(syntax.Print(f)); !strings.Contains(printed, "\n  "+tt.line+"\n") {
				t.Errorf("printed text lacks %q:\n%s", tt.line, printed)
			}
			r, _, err := Compile("r.rules", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Fields[0].Range.String(); got != tt.wantWords {
				t.Errorf("range reads %q, want %q", got, tt.wantWords)
			}
			ir, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(ir), tt.wantJSON) || !strings.Contains(string(ir), `"range":{"min":0}`) {
				t.Errorf("IR lacks %s or the income range: %s", tt.wantJSON, ir)
			}
			if n := strings.Count(string(ir), `"range"`); n != 2 {
				t.Errorf("IR has %d range members, want 2 (a.n declares none): %s", n, ir)
			}
			back, err := LoadIR(IRVersion, ir)
			if err != nil {
				t.Fatal(err)
			}
			if back.ContentDigest() != r.ContentDigest() || back.Fields[0].Range.String() != tt.wantWords {
				t.Errorf("loaded IR differs: digest %s vs %s, range %v", back.ContentDigest(), r.ContentDigest(), back.Fields[0].Range)
			}
		})
	}
}

// TestFieldRangeErrors checks that a bad range gets one clear error at
// its line and column.
func TestFieldRangeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, want string
	}{
		{"min above max", fmt.Sprintf(rangeRules, "range 20..1"), "r.rules:4:3: range of a.size: the lower end 20 is above the upper end 1"},
		{"fraction on int", fmt.Sprintf(rangeRules, "range 0.5..2"), "r.rules:4:3: range of int field a.size: 0.5 is not a whole number"},
		{"no ends", fmt.Sprintf(rangeRules, "range .."), "r.rules:4:3: range needs at least one end"},
		{"no dots", fmt.Sprintf(rangeRules, "range 1 20"), `expected <min>..<max> after range`},
		{"on a bool", strings.Replace(fmt.Sprintf(rangeRules, "range 1..2"), "a.n int", "a.n bool\n  range 0..1", 1),
			"r.rules:8:3: range on bool field a.n: only an int or decimal answer has a range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Compile("r.rules", []byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestFieldRangeLoadRefuses checks that the loader refuses a range member
// the compiler could not have written.
func TestFieldRangeLoadRefuses(t *testing.T) {
	t.Parallel()
	r, _, err := Compile("r.rules", []byte(fmt.Sprintf(rangeRules, "range 1..20")))
	if err != nil {
		t.Fatal(err)
	}
	ir, _ := json.Marshal(r)
	for _, tt := range []struct{ from, to, want string }{
		{`{"min":1,"max":20}`, `{"min":21,"max":20}`, "fields[0].range: min 21 is above max 20"},
		{`{"min":1,"max":20}`, `{}`, "fields[0].range: a range needs at least one end"},
		{`{"min":1,"max":20}`, `{"min":1.5}`, "whole-number ends"},
		{`{"min":1,"max":20}`, `{"min":"1"}`, "fields[0].range.min: must be a number"},
		{`{"min":1,"max":20}`, `{"low":1}`, `unknown member "low"`},
	} {
		_, err := LoadIR(IRVersion, []byte(strings.Replace(string(ir), tt.from, tt.to, 1)))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.to, err, tt.want)
		}
	}
}

// TestFieldRangeAnswers checks that an answer outside a field's range is
// a field error naming the range, and one inside it is taken.
func TestFieldRangeAnswers(t *testing.T) {
	t.Parallel()
	r, _, err := Compile("r.rules", []byte(fmt.Sprintf(rangeRules, "range 1..20")))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		answers, wantErr string
		wantOutcome      Outcome
	}{
		{`{"a.size": 0, "a.income": 10, "a.n": 1}`, "0 is outside the range the rules allow for this field: from 1 to 20", Undetermined},
		{`{"a.size": 21, "a.income": 10, "a.n": 1}`, "21 is outside the range the rules allow for this field: from 1 to 20", Undetermined},
		{`{"a.size": 2, "a.income": -0.01, "a.n": 1}`, "-0.01 is outside the range the rules allow for this field: at least 0", Undetermined},
		{`{"a.size": 20, "a.income": 0, "a.n": -3}`, "", NotEligible},
		{`{"a.size": 1, "a.income": 0, "a.n": 1}`, "", NotEligible},
		{`{"a.size": 2, "a.income": 1255.5, "a.n": 1}`, "", Eligible},
	}
	for _, tt := range tests {
		in, err := r.Convert([]byte(tt.answers))
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if len(in.FieldErrors) > 0 {
			got = in.FieldErrors[0].Message
		}
		if got != tt.wantErr {
			t.Errorf("%s: field error %q, want %q", tt.answers, got, tt.wantErr)
		}
		if res := r.Evaluate(in, Options{}); res.Outcome != tt.wantOutcome {
			t.Errorf("%s: outcome %v, want %v", tt.answers, res.Outcome, tt.wantOutcome)
		}
	}
}
