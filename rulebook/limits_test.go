package rulebook

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// leaves writes n section leaves, cycling through A, B and C.
func leaves(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(`{"section":"%c"}`, 'A'+i%3)
	}
	return out
}

// balanced writes a balanced binary and/or tree of 2^depth leaves: as
// narrow as a tree gets, and shallow enough for MaxOutcomeDepth.
func balanced(depth int) string {
	if depth == 0 {
		return `{"section":"A"}`
	}
	sub := balanced(depth - 1)
	return `{"op":"and","args":[` + sub + "," + sub + `]}`
}

// orOf writes an or node over args.
func orOf(args []string) string { return `{"op":"or","args":[` + strings.Join(args, ",") + `]}` }

// wideAnd writes an and of width or-nodes of fan leaves each: 1 + width +
// width*fan nodes.
func wideAnd(width, fan int) string {
	ors := make([]string, width)
	for i := range ors {
		ors[i] = orOf(leaves(fan))
	}
	return `{"op":"and","args":[` + strings.Join(ors, ",") + `]}`
}

func TestParseOutcomeSizeLimits(t *testing.T) {
	t.Parallel()
	// The largest trees within the limits are read.
	nodesAtLimit := wideAnd(31, 32) // 1 + 31 + 31*32 = 1024
	for name, raw := range map[string]string{
		"widest node": orOf(leaves(MaxOutcomeArgs)),
		"most nodes":  nodesAtLimit,
		// Braces and commas inside strings are not structure: the tree
		// is refused for its member, not for its size.
	} {
		if n, problems := ParseOutcomeTree([]byte(raw), 3); n == nil || problems != nil {
			t.Errorf("%s: refused: %v", name, problems)
		}
	}
	if strings.Count(nodesAtLimit, "{") != MaxOutcomeNodes {
		t.Fatalf("the tree at the limit has %d nodes, want %d", strings.Count(nodesAtLimit, "{"), MaxOutcomeNodes)
	}
	for _, tc := range []struct {
		name, raw, msg string
	}{
		{"one argument too many", orOf(leaves(MaxOutcomeArgs + 1)), "more than 64 arguments"},
		{"a wide node deep down", `{"op":"not","args":[` + orOf(leaves(MaxOutcomeArgs+1)) + `]}`, "more than 64 arguments"},
		{"one node too many", wideAnd(31, 32)[:len(wideAnd(31, 32))-2] + `,{"section":"A"}]}`, "more than 1024 nodes"},
		{"a million leaves", orOf(leaves(1_000_000)), "more than 64 arguments"},
		{"a million nodes, none wide", strings.Repeat(`{"op":"not","args":[`, 1_000_000), "more than 1024 nodes"},
		{"a million leaves, two to a node", balanced(20), "more than 1024 nodes"},
	} {
		n, problems := ParseOutcomeTree([]byte(tc.raw), 3)
		if n != nil || len(problems) != 1 {
			t.Errorf("%s: got %v and %d problems, want one", tc.name, n, len(problems))
			continue
		}
		p := problems[0]
		if p.Type != "too_long" || len(p.Loc) != 1 || p.Loc[0] != "outcome_logic" || !strings.Contains(p.Msg, tc.msg) || p.Input != nil {
			t.Errorf("%s: problem %+v, want too_long at outcome_logic saying %q and echoing nothing", tc.name, p, tc.msg)
		}
	}
	// Structure inside strings is not counted.
	quoted := `{"section":"A","note":"` + strings.Repeat(`{[,`, 5000) + `"}`
	if _, problems := ParseOutcomeTree([]byte(quoted), 3); len(problems) != 1 || problems[0].Type != "extra_forbidden" {
		t.Errorf("braces in a string: %v, want the unknown member only", problems)
	}
	escaped := `{"section":"A","note":"\"` + strings.Repeat(`{`, 5000) + `"}`
	if _, problems := ParseOutcomeTree([]byte(escaped), 3); len(problems) != 1 || problems[0].Type != "extra_forbidden" {
		t.Errorf("an escaped quote before braces: %v, want the unknown member only", problems)
	}
}

// TestParseOutcomeHugeTreeCostsLittle is the probe's request: a
// million-leaf tree in a 16 MB body cost 2.86 GB when it was decoded
// before it was judged. Refusing it now allocates next to nothing.
func TestParseOutcomeHugeTreeCostsLittle(t *testing.T) {
	raw := []byte(orOf(leaves(1_000_000)))
	if len(raw) < 16_000_000 {
		t.Fatalf("the probe is %d bytes, want about 16 MB", len(raw))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, problems := ParseOutcomeTree(raw, 3)
	runtime.ReadMemStats(&after)
	if len(problems) != 1 {
		t.Fatalf("problems %v, want one", problems)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<10 {
		t.Errorf("refusing the tree allocated %d bytes, want under 64 KiB", alloc)
	}
}

func TestValidateSizeLimits(t *testing.T) {
	t.Parallel()
	wide := &Node{Op: OpOr}
	for range MaxOutcomeArgs + 1 {
		wide.Args = append(wide.Args, &Node{Section: "A"})
	}
	if err := wide.Validate(2); err == nil || !strings.Contains(err.Error(), "outcome_logic.args: an operator node lists more than 64 arguments") {
		t.Errorf("Validate(wide) = %v", err)
	}
	var big Node
	if err := json.Unmarshal([]byte(wideAnd(31, 33)), &big); err != nil {
		t.Fatal(err)
	}
	if err := big.Validate(3); err == nil || !strings.Contains(err.Error(), "more than 1024 nodes") {
		t.Errorf("Validate(1056 nodes) = %v", err)
	}
	var atLimit Node
	if err := json.Unmarshal([]byte(wideAnd(31, 32)), &atLimit); err != nil {
		t.Fatal(err)
	}
	if err := atLimit.Validate(3); err != nil {
		t.Errorf("Validate(1024 nodes) = %v", err)
	}
}

// BenchmarkParseOutcomeHuge measures refusing the probe's million-leaf
// tree (16 MB): its time and memory are the cost any caller can impose.
func BenchmarkParseOutcomeHuge(b *testing.B) {
	for name, raw := range map[string][]byte{"wide": []byte(orOf(leaves(1_000_000))), "binary": []byte(balanced(20))} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, problems := ParseOutcomeTree(raw, 3); len(problems) != 1 {
					b.Fatal(problems)
				}
			}
		})
	}
}
