package syntax_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/eligo/eligo/engine/syntax"
)

// TestDeclarations lists a file's names by kind in source order, a
// criterion with its group, and keeps what parsed of a file with a syntax
// error.
func TestDeclarations(t *testing.T) {
	src := `ruleset "t/x"
section x
source law "Law" url "https://example.org" licence "public-domain"
field a.n int
field a.e enum ["x", "y"]
group g all "G" {
  criterion c1 "One" { a.n > 1 }
  criterion c2 "Two" { a.e == "x" }
}
group h any "H" {
  criterion c3 "Three" { a.n >>= 2 }
}
outcome g and h
`
	f, errs := syntax.Parse("t.rules", []byte(src))
	if len(errs) != 1 {
		t.Fatalf("want the one syntax error, got %v", errs)
	}
	var got []string
	for _, d := range f.Declarations() {
		s := fmt.Sprintf("%s %s %d", d.Kind, d.ID, d.Pos.Line)
		if d.Kind == syntax.DeclCriterion {
			s += " in " + d.Group.ID
		}
		got = append(got, s)
	}
	want := []string{"source law 3", "field a.n 4", "field a.e 5", "group g 6", "criterion c1 7 in g", "criterion c2 8 in g", "group h 10", "criterion c3 11 in h"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Declarations:\n got %q\nwant %q", got, want)
	}
}
