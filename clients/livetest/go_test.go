package livetest_test

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/api/routes"
	"github.com/eligo/eligo/auth"
	eligo "github.com/eligo/eligo/clients/go"
)

// liveServer serves every resource, as the binary does, on a fresh
// database, with one casebank ruleset published as public, and returns
// the fixture, a client of it and that ruleset's concrete id.
func liveServer(t *testing.T) (*apitest.Fixture, *eligo.ClientWithResponses, string) {
	t.Helper()
	cfg := api.Config{Metering: apitest.GenerousMetering()}
	f := apitest.New(t, cfg, func(s *api.Server, sv apitest.Services) {
		routes.Mount(s, sv, routes.Config{})
	})
	res, _ := f.PublishCasebank(t, "demo", "us-fmla-employee", "demo/us-fmla-employee", true)
	client, err := eligo.NewClientWithResponses(f.URL)
	if err != nil {
		t.Fatal(err)
	}
	return f, client, res.RulesetID
}

// TestGeneratedClientAgainstALiveServer calls the real server through the
// committed Go client: typed results on success, typed error bodies on
// 404 and 422.
func TestGeneratedClientAgainstALiveServer(t *testing.T) {
	t.Parallel()
	f, client, rulesetID := liveServer(t)
	ctx := context.Background()

	list, err := client.ListRulesetsWithResponse(ctx, &eligo.ListRulesetsParams{})
	if err != nil || list.JSON200 == nil {
		t.Fatalf("list: %v %s", err, body(list.Body))
	}
	if len(*list.JSON200) != 1 || (*list.JSON200)[0].Slug != "demo/us-fmla-employee" {
		t.Errorf("list: %+v", *list.JSON200)
	}

	schema, err := client.GetRulesetSchemaWithResponse(ctx, "demo/us-fmla-employee")
	if err != nil || schema.JSON200 == nil {
		t.Fatalf("schema: %v %s", err, body(schema.Body))
	}
	types := map[string]eligo.FieldType{}
	for _, field := range schema.JSON200.Fields {
		types[field.FieldId] = field.FieldType
	}
	if types["employment.months_employed"] != eligo.FieldTypeInt || types["employment.employer_type"] != eligo.FieldTypeEnum {
		t.Errorf("schema field types %v", types)
	}

	explain := true
	decision, err := client.DecideWithResponse(ctx, eligo.DecisionRequest{
		RulesetId:          &rulesetID,
		FieldValues:        map[string]any{"employment.employer_type": "private", "employment.months_employed": 3},
		IncludeExplanation: &explain,
	})
	if err != nil || decision.JSON200 == nil {
		t.Fatalf("decide: %v %s", err, body(decision.Body))
	}
	d := decision.JSON200
	if d.Decision != eligo.OutcomeNotEligible || d.Explanation == nil || d.Explanation.Decision != eligo.OutcomeNotEligible {
		t.Errorf("decide: decision %s, explanation %+v", d.Decision, d.Explanation)
	}
	failed := false
	for _, g := range d.Explanation.Groups {
		for _, c := range g.Criteria {
			failed = failed || c.Status == eligo.CriterionStatusNotSatisfied
		}
	}
	if !failed {
		t.Errorf("explanation names no failed criterion: %+v", d.Explanation.Groups)
	}
	if decision.HTTPResponse.Header.Get("X-Request-Id") == "" || decision.HTTPResponse.Header.Get("X-RateLimit-Class") != "decide" {
		t.Errorf("decide headers %v", decision.HTTPResponse.Header)
	}

	why, err := client.ExplainRulesetFailureWithResponse(ctx, rulesetID, eligo.ExplainFailureRequest{
		ExpectedOutcome: eligo.OutcomeEligible,
		FieldValues:     map[string]any{"employment.employer_type": "private", "employment.months_employed": 3},
	})
	if err != nil || why.JSON200 == nil {
		t.Fatalf("explain-failure: %v %s", err, body(why.Body))
	}
	if why.JSON200.ActualOutcome == eligo.OutcomeEligible || len(why.JSON200.Reasons) == 0 || why.JSON200.FieldErrors == nil {
		t.Errorf("explain-failure: %+v", why.JSON200)
	}

	key := f.Key(t, "demo", []auth.Scope{auth.ScopeRulesetsRead}, time.Time{})
	usage, err := client.GetUsageWithResponse(ctx, func(_ context.Context, r *http.Request) error {
		r.Header.Set("x-api-key", key)
		return nil
	})
	if err != nil || usage.JSON200 == nil {
		t.Fatalf("usage: %v %s", err, body(usage.Body))
	}
	if len(usage.JSON200.Classes) == 0 || usage.JSON200.Rolling.SevenDays == nil {
		t.Errorf("usage: %+v", usage.JSON200)
	}

	// Errors arrive as the document's error types.
	missing, err := client.GetRulesetSchemaWithResponse(ctx, "demo/no-such-ruleset")
	if err != nil || missing.StatusCode() != http.StatusNotFound || missing.JSON404 == nil || missing.JSON404.Detail == "" {
		t.Errorf("404: %v %d %s", err, missing.StatusCode(), body(missing.Body))
	}
	zero := int64(0)
	invalid, err := client.ListRulesetsWithResponse(ctx, &eligo.ListRulesetsParams{Limit: &zero})
	if err != nil || invalid.StatusCode() != http.StatusUnprocessableEntity || invalid.JSON422 == nil || len(invalid.JSON422.Detail) == 0 {
		t.Fatalf("422: %v %d %s", err, invalid.StatusCode(), body(invalid.Body))
	}
	if loc := invalid.JSON422.Detail[0].Loc; len(loc) < 2 || loc[0] != "query" || loc[1] != "limit" {
		t.Errorf("422 loc %v", loc)
	}
}

// body is a response body for a failure message.
func body(b []byte) string {
	if len(b) > 300 {
		b = b[:300]
	}
	return string(b)
}

// TestGoClientInACleanModule installs the Go client as a user does: a new
// module of its own (testdata/goconsumer) that requires only
// github.com/eligo/eligo/clients/go, resolved to this repository's folder
// (as a published version would be), never the server's module. It builds
// and runs against a live server and prints the next question's words:
// values, not pointers.
func TestGoClientInACleanModule(t *testing.T) {
	t.Parallel()
	f, _, _ := liveServer(t)
	clientDir, err := filepath.Abs("../go")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src, err := os.ReadFile("testdata/goconsumer/main.go")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(clientDir, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	mod := "module example.com/consumer\n\ngo 1.24\n\nrequire github.com/eligo/eligo/clients/go v0.1.0\n\nreplace github.com/eligo/eligo/clients/go => " + clientDir + "\n"
	for name, body := range map[string][]byte{"main.go": src, "go.mod": []byte(mod), "go.sum": sum} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir = dir
	tidy.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := tidy.CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy in a clean module: %v\n%s", err, out)
	}
	run := exec.Command("go", "run", ".", f.URL)
	run.Dir = dir
	run.Env = append(os.Environ(), "GOWORK=off")
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("go run in a clean module: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 || lines[0] != "undetermined" || lines[1] != "employment.months_employed" ||
		!strings.HasPrefix(lines[2], "For how many months") {
		t.Errorf("the consumer printed %q; want the outcome, the next field and its question's words", out)
	}
}
