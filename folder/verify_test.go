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
