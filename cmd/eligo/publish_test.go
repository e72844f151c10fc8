package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/folder"
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
	fmla, err := folder.Load(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	passed := fmt.Sprintf("tests %d/%d; 2 sources verified", len(fmla.Cases), len(fmla.Cases))

	code, out, errOut := eligo(t, "publish", "--database-url", dbURL, "--tenant", "demo", rules, "--cases", cases, "--public", "--slug", "demo/fmla")
	if code != 0 || !strings.HasPrefix(out, "published fmla_employee:") || !strings.Contains(out, " v1 as demo/fmla (public, ") ||
		!strings.Contains(out, passed) || strings.Contains(errOut, "warning: no ") {
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
	// A changed version says whom it affects against the cut it replaces.
	text, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	raised := filepath.Join(t.TempDir(), "us-fmla-employee.rules")
	if err := os.WriteFile(raised, []byte(strings.Replace(string(text), "employment.months_employed >= 12", "employment.months_employed >= 13", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = eligo(t, "publish", raised, "--database-url", dbURL, "--tenant", "demo", "--public", "--slug", "demo/fmla", "--sources", filepath.Join(dir, "source.txt"))
	if code != 0 || !strings.Contains(out, " v2 as demo/fmla") || !strings.Contains(out, "against "+row.ID) ||
		!strings.Contains(out, "eligible -> not_eligible, for example:") || !strings.Contains(out, "employment.months_employed = 12") {
		t.Fatalf("a changed version: exit %d, %q %q", code, out, errOut)
	}
	// Published from a folder with no cases.json, it says nothing tested
	// it (and, the sources given, no more).
	if !strings.Contains(errOut, "warning: no test cases") || strings.Contains(errOut, "warning: no source text") {
		t.Errorf("a file with no cases beside it: stderr %q", errOut)
	}
	// The two published versions, by id and by slug, with eligo diff.
	code, out, errOut = eligo(t, "diff", "--database-url", dbURL, row.ID, "demo/fmla")
	if code != 0 || !strings.Contains(out, "eligible -> not_eligible, for example:") || !strings.Contains(out, "criterion tenure: satisfied -> not_satisfied") {
		t.Fatalf("diff of two published versions: exit %d, %q %q", code, out, errOut)
	}
	row, _ = st.RulesetByRef(ctx, "demo/fmla")

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

// `eligo rulebook publish` creates the tenant's rulebook over its
// published sections and activates it; a rerun reuses the release; a
// section the tenant has not published refuses, naming it.
func TestRulebookPublishCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	dbURL := pool.Config().ConnString()
	book := filepath.Join("..", "..", "casebank", "au-age-pension-rulebook")
	code, _, errOut := eligo(t, "rulebook", "publish", book, "--database-url", dbURL, "--tenant", "demo")
	if code != 1 || !strings.Contains(errOut, "section au_pension_age") {
		t.Fatalf("before its sections are published: exit %d, %q", code, errOut)
	}
	for _, name := range []string{"au-pension-age", "au-qualifying-residence", "au-residence-alternatives"} {
		dir := filepath.Join("..", "..", "casebank", name)
		if code, out, errOut := eligo(t, "publish", filepath.Join(dir, name+".rules"), "--database-url", dbURL, "--tenant", "demo",
			"--cases", filepath.Join(dir, "cases.json"), "--slug", "demo/"+name); code != 0 {
			t.Fatalf("publish %s: exit %d %q %q", name, code, out, errOut)
		}
	}
	code, first, errOut := eligo(t, "rulebook", "publish", book, "--database-url", dbURL, "--tenant", "demo", "--public", "--slug", "demo/au")
	if code != 0 || !strings.Contains(first, "published rulebook demo/au as rb_") || !strings.Contains(first, "(public): release v1 ") {
		t.Fatalf("publish: exit %d, %q %q", code, first, errOut)
	}
	code, again, errOut := eligo(t, "rulebook", "publish", "--slug", "demo/au", book, "--database-url", dbURL, "--tenant", "demo", "--public")
	if code != 0 || again != first {
		t.Fatalf("rerun: exit %d, %q (first %q) %q", code, again, first, errOut)
	}
	rb, err := store.New(pool).RulebookByRef(ctx, "demo/au")
	if err != nil || rb.Status != store.RulebookActive || len(rb.Refs) != 3 || rb.Visibility != store.VisibilityPublic {
		t.Fatalf("stored %+v, %v", rb, err)
	}
}

// `eligo publish` of rules whose effective period ended before today
// publishes them and warns, naming the period and today.
func TestPublishCommandWarnsOfEndedPeriod(t *testing.T) {
	t.Parallel()
	dbURL := storetest.New(t).Config().ConnString()
	file := filepath.Join(t.TempDir(), "old.rules")
	src := `ruleset "demo/old"
section old
effective 2024-01-01 until 2024-12-31
source law "Old Act" url "https://example.org/old" licence "public-domain"
field a.n int
group g all "G" {
  criterion c "C" {
    a.n > 1
    cite law "more than one"
  }
}
`
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	today := clock.Starting(time.Date(2026, 6, 15, 0, 0, 0, 0, time.UTC))
	err := runPublish(context.Background(), today, []string{file, "--database-url", dbURL, "--tenant", "demo", "--sources", "none"}, &stdout, &stderr)
	if err != nil || !strings.HasPrefix(stdout.String(), "published old:") {
		t.Fatalf("publish: %v, %q %q", err, stdout.String(), stderr.String())
	}
	want := "warning: period_ended: the rules' effective period (2024-01-01 until 2024-12-31) ended before today, 2026-06-15"
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}
