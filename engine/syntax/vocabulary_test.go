package syntax

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// The vocabulary an editor completes from is the one the parser uses:
// every keyword table it reads is in it, and the lists are the caller's own.
func TestVocabulary(t *testing.T) {
	kw, fns := Keywords(), Functions()
	for _, table := range []map[string]bool{topLevel, fieldAttr} {
		for word := range table {
			if !slices.Contains(kw, word) {
				t.Errorf("keyword %q is missing from Keywords", word)
			}
		}
	}
	kw[0], fns[0] = "changed", "changed"
	if Keywords()[0] == "changed" || Functions()[0] == "changed" {
		t.Error("the lists are shared with their callers")
	}
}

// TestDescribeFunction keeps the hover's words GRAMMAR.md's: every
// function has a FunctionDoc whose signature names it, and the table of
// calls has a row with that signature, type and meaning.
func TestDescribeFunction(t *testing.T) {
	doc, err := os.ReadFile("GRAMMAR.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{} // signature -> its row
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, " | ")
		for _, sig := range strings.Split(strings.TrimPrefix(cells[0], "| "), ", `") {
			rows[strings.Trim(sig, "`")] = line
		}
	}
	for _, name := range Functions() {
		d, ok := DescribeFunction(name)
		if !ok {
			t.Errorf("%s has no FunctionDoc", name)
			continue
		}
		if !strings.HasPrefix(d.Signature, name+"(") {
			t.Errorf("%s: signature %q does not call it", name, d.Signature)
		}
		row, ok := rows[d.Signature]
		if !ok {
			t.Errorf("%s: GRAMMAR.md's table of calls has no row for %q", name, d.Signature)
			continue
		}
		if want := " | " + d.Result + " | " + d.Meaning + " |"; !strings.HasSuffix(row, want) {
			t.Errorf("%s: GRAMMAR.md's row %q does not end %q", name, row, want)
		}
	}
	if _, ok := DescribeFunction("sqrt"); ok {
		t.Error("DescribeFunction describes sqrt, which the language lacks")
	}
}
