package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// The casebank folder publishes with its cases and its source text (found
// beside the rules), flags before or after FILE; a rerun reuses the cut; a
// failing case or a quote missing from the source refuses.
func TestPublishCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	dbURL := pool.Config().ConnString()
	st := store.New(pool)
	dir := filepath.Join("..", "..", "casebank", "us-fmla-employee")
	rules := filepath.Join(dir, "us-fmla-employee.rules")
	cases := filepath.Join(dir, "cases.json")

	code, out, errOut := eligo(t, "publish", "--database-url", dbURL, "--tenant", "demo", rules, "--cases", cases, "--public", "--slug", "demo/fmla")
	if code != 0 || !strings.HasPrefix(out, "published fmla_employee:") || !strings.Contains(out, " v1 as demo/fmla (public, ") ||
		!strings.Contains(out, "tests 16/16; 2 sources verified") {
		t.Fatalf("publish exited %d: %q %q", code, out, errOut)
	}
	code, out, errOut = eligo(t, "publish", rules, "--database-url", dbURL, "--tenant", "demo", "--public", "--slug", "demo/fmla")
	if code != 0 || !strings.HasPrefix(out, "unchanged content; reused fmla_employee:") || !strings.Contains(out, " v1 ") {
		t.Fatalf("rerun exited %d: %q %q", code, out, errOut)
	}
	row, err := st.RulesetByRef(ctx, "demo/fmla")
	if err != nil || row.Visibility != store.VisibilityPublic || len(row.SourceChecks) != 2 {
		t.Fatalf("stored %+v, %v", row, err)
	}

	tmp := t.TempDir()
	badCases := filepath.Join(tmp, "cases.json")
	if err := os.WriteFile(badCases, []byte(`[{"name": "wrong", "field_values": {}, "expected_outcome": "eligible"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = eligo(t, "publish", rules, "--database-url", dbURL, "--tenant", "demo", "--slug", "demo/other", "--cases", badCases)
	if code != 1 || !strings.Contains(errOut, "FAIL wrong") || !strings.Contains(errOut, "1 of 1 test cases fail") {
		t.Fatalf("failing case: exit %d, %q", code, errOut)
	}
	code, out, errOut = eligo(t, "publish", rules, "--database-url", dbURL, "--tenant", "demo", "--slug", "demo/other", "--cases", badCases, "--force-unsafe")
	if code != 0 || !strings.Contains(out, "tests 0/1") {
		t.Fatalf("forced: exit %d, %q %q", code, out, errOut)
	}

	wrongSource := filepath.Join(tmp, "source.txt")
	if err := os.WriteFile(wrongSource, []byte("== usc29_2611 ==\nnothing relevant\n== cfr29_825_110 ==\nnothing\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = eligo(t, "publish", rules, "--database-url", dbURL, "--tenant", "demo", "--slug", "demo/third", "--sources", wrongSource)
	if code != 1 || !strings.Contains(errOut, "does not appear in the text of source") {
		t.Fatalf("unverified quotes: exit %d, %q", code, errOut)
	}
	if code, _, errOut = eligo(t, "publish", "--tenant", "demo"); code != 1 || !strings.Contains(errOut, "usage: eligo publish") {
		t.Fatalf("no FILE: exit %d, %q", code, errOut)
	}
}
