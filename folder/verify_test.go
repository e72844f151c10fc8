package folder

import (
	"fmt"
	"testing"

	"github.com/eligo/eligo/engine"
)

// verifyOne compiles a one-criterion ruleset citing quote from source and
// verifies it against text.
func verifyOne(t *testing.T, source, quote string, text []byte) []string {
	t.Helper()
	src := fmt.Sprintf(`section v
source act "Act" url "https://example.org/act" licence "public-domain"
source regs "Regs" url "https://example.org/regs" licence "public-domain"
field a.x bool
group g all "G" {
  criterion c "C" {
    a.x
    cite %s %q
  }
}
`, source, quote)
	r, _, err := engine.Compile("v.rules", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return VerifyCitations(r, text)
}

// TestVerifyCitationsOfValues: the quotes of named values and tables are
// verified as a criterion's are, and a missing one names the value.
func TestVerifyCitationsOfValues(t *testing.T) {
	t.Parallel()
	src := `section v
source act "Act" url "https://example.org/act" licence "public-domain"
field a.x decimal
field a.n int
  range 1..
value doubled decimal "Doubled" {
  a.x * 2
  cite act "twice the amount"
}
table limit int "Limit" {
  keys a.n
  1.. => 100
  cite act "words nobody wrote"
}
group g all "G" {
  criterion c "C" {
    doubled <= limit
    cite act "at most the limit"
  }
}
`
	r, _, err := engine.Compile("v.rules", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	text := []byte("== act ==\nThe amount counted is twice the amount earned, at most the limit.\n")
	got := VerifyCitations(r, text)
	want := `value limit: quote "words nobody wrote" does not appear in section act of the source text`
	if len(got) != 1 || got[0] != want {
		t.Errorf("problems %q, want [%q]", got, want)
	}
}
