package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// The operator's namespace command end to end: a reserved namespace is
// refused to a publish until an operator transfers it to the agency's
// tenant, which then publishes and is verified; a squatted namespace is
// handed over with its public content withdrawn, then released; each
// change leaves its audit event.
func TestNamespacesCommand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	dbURL := pool.Config().ConnString()
	st := store.New(pool)
	dir := filepath.Join("..", "..", "casebank", "us-fmla-employee")
	rules := filepath.Join(dir, "us-fmla-employee.rules")
	cases := filepath.Join(dir, "cases.json")
	publishAs := func(tenant, slug string) (int, string, string) {
		return eligo(t, "publish", rules, "--database-url", dbURL, "--tenant", tenant, "--cases", cases, "--public", "--slug", slug)
	}
	expect := func(what string, code int, out, errOut string, wantCode int, wantText string) {
		t.Helper()
		if code != wantCode || !strings.Contains(out+errOut, wantText) {
			t.Fatalf("%s: exit %d, %q %q; want exit %d saying %q", what, code, out, errOut, wantCode, wantText)
		}
	}

	code, out, errOut := publishAs("squatter", "usa/fmla")
	expect("a squatter publishes under usa", code, out, errOut, 1, `the namespace "usa" is reserved for the public body it names`)
	code, out, errOut = publishAs("squatter", "fedgov/fmla")
	expect("the squatter publishes under fedgov", code, out, errOut, 0, "as fedgov/fmla (public")
	code, out, errOut = eligo(t, "keys", "create", "--database-url", dbURL, "--tenant", "agency", "--scopes", "decide", "--tier", "pro")
	expect("the agency's key", code, out, errOut, 0, "created tenant agency")

	for _, step := range []struct {
		args     []string
		wantCode int
		wantText string
	}{
		{[]string{"transfer", "usa", "--to", "agency", "--actor", "alice"}, 0, "transferred usa to tenant agency, unverified (was no tenant's)"},
		{[]string{"verify", "usa", "--actor", "alice"}, 0, "verified usa for tenant agency"},
		{[]string{"transfer", "fedgov", "--to", "agency", "--withdraw", "--actor", "alice"}, 0,
			"transferred fedgov to tenant agency, unverified (was tenant squatter's); 1 public rulesets and rulebooks made private"},
		{[]string{"release", "fedgov", "--actor", "bob"}, 0, "released fedgov (was tenant agency's)"},
		{[]string{"release", "fedgov"}, 1, `namespace "fedgov" is owned by no tenant; nothing to release`},
		{[]string{"verify", "nobodys"}, 1, `namespace "nobodys" is owned by no tenant; assign it first`},
		{[]string{"transfer", "usa", "--to", "nobody"}, 1, `no tenant "nobody"`},
	} {
		code, out, errOut := eligo(t, append(append([]string{"namespaces"}, step.args...), "--database-url", dbURL)...)
		expect(strings.Join(step.args, " "), code, out, errOut, step.wantCode, step.wantText)
	}
	code, out, errOut = publishAs("agency", "usa/fmla")
	expect("the agency publishes under usa", code, out, errOut, 0, "as usa/fmla (public")
	if cut, err := st.RulesetByRef(ctx, "usa/fmla"); err != nil || !cut.NamespaceVerified {
		t.Fatalf("the agency's cut: verified %v, %v", cut.NamespaceVerified, err)
	}
	if cut, err := st.RulesetByRef(ctx, "fedgov/fmla"); err != nil || cut.Visibility != store.VisibilityPrivate {
		t.Fatalf("the squatter's withdrawn cut: %+v, %v", cut.Visibility, err)
	}
	code, out, errOut = eligo(t, "namespaces", "list", "--database-url", dbURL)
	if code != 0 || !strings.Contains(out, "NAMESPACE") || len(strings.Split(strings.TrimSpace(out), "\n")) != 2 {
		t.Fatalf("list: exit %d, %q %q", code, out, errOut)
	}
	if fields := strings.Fields(strings.Split(out, "\n")[1]); fields[0] != "usa" || fields[1] != "agency" || fields[4] != "alice" ||
		fields[5] != "1" || fields[6] != "yes" {
		t.Fatalf("list row %q", fields)
	}

	var kinds []string
	for _, tenant := range []string{"squatter", "agency"} {
		events, err := st.AuditEvents(ctx, tenant)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			if strings.HasPrefix(e.Kind, "namespace_") {
				kinds = append(kinds, tenant+":"+e.Kind)
			}
		}
	}
	want := []string{"squatter:namespace_transferred", "agency:namespace_transferred", "agency:namespace_verified",
		"agency:namespace_transferred", "agency:namespace_released"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("audit events %v, want %v", kinds, want)
	}
}

// Bad arguments are refused before any database is opened.
func TestNamespacesCommandArguments(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"namespaces"}, "usage: eligo namespaces list|release|transfer|verify"},
		{[]string{"namespaces", "frob"}, "usage: eligo namespaces list|release|transfer|verify"},
		{[]string{"namespaces", "release"}, "usage: eligo namespaces release <namespace> [flags]"},
		{[]string{"namespaces", "release", "a", "b"}, `unexpected argument "b"`},
		{[]string{"namespaces", "verify", "Bad"}, `"Bad" is not a namespace`},
		{[]string{"namespaces", "verify", "usa/benefit"}, `"usa/benefit" is not a namespace`},
		{[]string{"namespaces", "transfer", "usa"}, "--to: --tenant \"\""},
		{[]string{"namespaces", "transfer", "eligo", "--to", "agency"}, `"eligo" is the service's own namespace`},
		{[]string{"namespaces", "list", "--reserved-namespaces", "a/b"}, `--reserved-namespaces: "a/b" is not a namespace`},
		{[]string{"publish", "x.rules", "--tenant", "t", "--namespace-limits", "gold=3"}, `--namespace-limits "gold=3"`},
		{[]string{"publish", "x.rules", "--tenant", "t", "--namespace-limits", "free=-1"}, `want a count of 0 (no cap) or more`},
	} {
		code, out, errOut := eligo(t, append(tc.args, "--database-url", "postgres://nobody@127.0.0.1:1/none")...)
		if code == 0 || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("%v: exit %d, %q %q; want %q", tc.args, code, out, errOut, tc.want)
		}
	}
}
