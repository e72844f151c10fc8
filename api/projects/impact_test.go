package projects

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/api/decide"
	"github.com/eligo/eligo/api/rulesets"
	"github.com/eligo/eligo/api/wiring"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/worker"
)

// impactFixture serves the projects, the ruleset reads and /decide, with
// a River client working the impact queue.
type impactFixture struct {
	*apitest.Fixture
	// key carries projects:*, rulesets:* and caseloads:read; blind the
	// same but caseloads:read.
	key, blind string
	// project is the base path of acme's snap_income project.
	project string
	// v1 and v2 are acme/snap's two published versions: the federal
	// figures, and v2 with the gross limit of a household of two raised.
	v1, v2 string
}

// snapText is the casebank's SNAP income rules under acme's slug, with
// the gross limit of a household of two in the 48 states raised to limit.
func snapText(t testing.TB, limit int) string {
	t.Helper()
	text := string(apitest.Casebank(t, "snap-income").Rules)
	text = strings.Replace(text, `ruleset "us/snap-income"`, `ruleset "acme/snap"`, 1)
	raised := strings.Replace(text, "income.gross_monthly <= 2292", fmt.Sprintf("income.gross_monthly <= %d", limit), 1)
	if limit != 2292 && raised == text {
		t.Fatal("the household-of-two gross limit is not in the rules any more")
	}
	return raised
}

func newImpactFixture(t *testing.T, cfg worker.ImpactConfig) *impactFixture {
	t.Helper()
	f := &impactFixture{}
	opts := apitest.Options{Config: wiring.Config{API: api.Config{Metering: apitest.GenerousMetering()}, Impact: cfg}}
	f.Fixture = apitest.Start(t, opts, func(s *api.Server, sv apitest.Services) {
		client, err := worker.New(sv.Store, worker.Config{Generator: sv.Generator, GenerationOnly: true, Impact: sv.Impact})
		if err != nil {
			t.Fatal(err)
		}
		if err := client.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = worker.Stop(ctx, client)
		})
		Register(s, Deps{Authoring: sv.Authoring, Catalog: sv.Catalog, Clock: sv.Clock, Gate: sv.Gate, Store: sv.Store, Impact: sv.Impact})
		rulesets.Register(s, rulesets.Deps{Catalog: sv.Catalog, Publisher: sv.Publisher, Clock: sv.Clock, Gate: sv.Gate})
		decide.Register(s, decide.Deps{Catalog: sv.Catalog, Decisions: sv.Decisions, Clock: sv.Clock, Metrics: sv.Metrics}, decide.Config{})
	})
	scopes := append(slices.Clone(allProjectScopes), auth.ScopeDecide)
	f.blind = tenantKey(t, f.Fixture, "acme", scopes...)
	f.key = tenantKey(t, f.Fixture, "acme", append(scopes, auth.ScopeCaseloadsRead)...)
	f.v1 = f.Publish(t, "acme", "acme/snap", []byte(snapText(t, 2292)), false).RulesetID
	f.v2 = f.Publish(t, "acme", "acme/snap", []byte(snapText(t, 2400)), false).RulesetID
	r := call(t, f.Fixture, f.key, http.MethodPost, "/projects/", map[string]any{"name": "SNAP", "section_id": "snap_income", "source_text": "", "test_cases": []any{}})
	want(t, r, http.StatusCreated)
	f.project = "/projects/" + obj(t, r.Body)["project_id"].(string)
	return f
}

// upload posts a caseload as contentType with query (may be empty).
func (f *impactFixture) upload(t *testing.T, key, contentType, query, body string) apitest.Response {
	t.Helper()
	return send(t, f.Fixture, key, http.MethodPost, f.project+"/caseloads"+query, contentType, []byte(body))
}

// uploaded uploads a JSON Lines caseload and returns its id.
func (f *impactFixture) uploaded(t *testing.T, body string) string {
	t.Helper()
	r := f.upload(t, f.key, "application/x-ndjson", "", body)
	want(t, r, http.StatusCreated)
	return obj(t, r.Body)["caseload_id"].(string)
}

// start asks for a run and returns its id.
func (f *impactFixture) start(t *testing.T, req map[string]any) string {
	t.Helper()
	r := call(t, f.Fixture, f.key, http.MethodPost, f.project+"/impact", req)
	want(t, r, http.StatusAccepted)
	return obj(t, r.Body)["run_id"].(string)
}

// ended polls a run until it is neither queued nor running, read with key.
func (f *impactFixture) ended(t *testing.T, key, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		r := call(t, f.Fixture, key, http.MethodGet, f.project+"/impact/"+id, nil)
		want(t, r, http.StatusOK)
		run := obj(t, r.Body)
		if run["state"] != "queued" && run["state"] != "running" {
			return run
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("impact run %s did not end", id)
	return nil
}

// snapCase is one applicant of the generated caseload.
type snapCase struct {
	FieldValues  map[string]any `json:"field_values"`
	DecisionDate string         `json:"decision_date,omitempty"`
	Reference    string         `json:"reference"`
}

// snapCaseload draws n households around the income limits (a fixed
// seed, so the same every run), a few dated outside the rules' period and
// a few without a region; as JSON Lines, with one line that is not JSON.
func snapCaseload(n int) ([]snapCase, string) {
	rng := rand.New(rand.NewPCG(7, 11))
	regions := []string{"contiguous_us_guam_vi", "alaska", "hawaii"}
	var cases []snapCase
	var b strings.Builder
	for i := range n {
		size := 1 + rng.IntN(4)
		gross := 1500 + rng.IntN(1500)
		values := map[string]any{"household.size": size, "household.elderly_or_disabled_member": rng.IntN(5) == 0,
			"income.gross_monthly": gross, "income.net_monthly": gross * (50 + rng.IntN(40)) / 100}
		if i%17 != 0 {
			values["household.region"] = regions[rng.IntN(len(regions))]
		}
		c := snapCase{FieldValues: values, Reference: fmt.Sprintf("A-%04d", i)}
		if i%23 == 0 {
			c.DecisionDate = "2025-06-30"
		}
		line, _ := json.Marshal(c)
		b.Write(line)
		b.WriteString("\n")
		if i == n/2 {
			b.WriteString("not json\n")
		}
		cases = append(cases, c)
	}
	return cases, b.String()
}

// transitions are a report's transitions as from->to: references.
func transitions(t *testing.T, report map[string]any) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, x := range report["transitions"].([]any) {
		tr := obj(t, x)
		var refs []string
		for _, e := range tr["examples"].([]any) {
			refs = append(refs, e.(string))
		}
		slices.Sort(refs)
		out[tr["from"].(string)+"->"+tr["to"].(string)] = refs
	}
	return out
}

// TestImpactMatchesDecide: an impact run's outcomes agree, case by case,
// with deciding each case over POST /decide on both versions; the same
// version on both sides changes nothing; and the project's draft as the
// candidate gives the report its published twin gives.
func TestImpactMatchesDecide(t *testing.T) {
	t.Parallel()
	f := newImpactFixture(t, worker.ImpactConfig{})
	cases, body := snapCaseload(120)
	caseload := f.uploaded(t, body)

	// What /decide says of each case on each version.
	wantRefs := map[string][]string{}
	changed := 0
	for _, c := range cases {
		var outcome [2]string
		for i, id := range []string{f.v1, f.v2} {
			req := map[string]any{"ruleset_id": id, "field_values": c.FieldValues, "decision_date": "2026-01-15"}
			if c.DecisionDate != "" {
				req["decision_date"] = c.DecisionDate
			}
			r := call(t, f.Fixture, f.key, http.MethodPost, "/decide", req)
			want(t, r, http.StatusOK)
			outcome[i] = obj(t, r.Body)["decision"].(string)
		}
		k := outcome[0] + "->" + outcome[1]
		wantRefs[k] = append(wantRefs[k], c.Reference)
		if outcome[0] != outcome[1] {
			changed++
		}
	}
	for k := range wantRefs {
		slices.Sort(wantRefs[k])
		if len(wantRefs[k]) > 100 {
			t.Fatalf("%s has %d cases, more than a transition's examples hold: the comparison would be partial", k, len(wantRefs[k]))
		}
	}
	if changed == 0 {
		t.Fatal("no case changes outcome between v1 and v2: the caseload tests nothing")
	}

	cand := map[string]any{"slug": "acme/snap", "version": "v2"}
	base := map[string]any{"version": "v1"}
	run := f.ended(t, f.key, f.start(t, map[string]any{"caseload_id": caseload, "candidate": cand, "baseline": base,
		"decision_date": "2026-01-15", "examples": 100}))
	if run["state"] != "succeeded" || run["partial"] != false {
		t.Fatalf("run = %v, want succeeded and complete", run)
	}
	report := obj(t, run["report"])
	if got := transitions(t, report); !equalRefs(got, wantRefs) {
		t.Errorf("the run's transitions\n%v\nwant, from /decide,\n%v", got, wantRefs)
	}
	for _, x := range report["transitions"].([]any) {
		tr := obj(t, x)
		n := len(tr["examples"].([]any))
		switch {
		case n >= 10 && tr["count"] != float64(n):
			t.Errorf("transition %v: count %v, want %d", tr, tr["count"], n)
		case n < 10 && (tr["count"] != nil || tr["fewer_than"] != float64(10)):
			t.Errorf("transition %v: want its count of %d hidden as fewer than 10", tr, n)
		}
	}
	if p := obj(t, run["progress"]); p["rows_done"] != float64(len(cases)+1) || p["rows_total"] != float64(len(cases)+1) || p["cases_done"] != float64(len(cases)) {
		t.Errorf("progress = %v, want every row done", p)
	}
	if bad := report["bad_rows"].([]any); len(bad) != 1 || obj(t, bad[0])["reason"] != "the line is not JSON" {
		t.Errorf("bad_rows = %v, want the one line that is not JSON", bad)
	}

	t.Run("same version changes nothing", func(t *testing.T) {
		run := f.ended(t, f.key, f.start(t, map[string]any{"caseload_id": caseload, "candidate": cand,
			"baseline": map[string]any{"version": "v2"}, "decision_date": "2026-01-15"}))
		report := obj(t, run["report"])
		if c := obj(t, report["changed"]); c["count"] != float64(0) || c["fewer_than"] != nil {
			t.Errorf("changed = %v, want exactly 0", c)
		}
		for _, x := range report["transitions"].([]any) {
			if tr := obj(t, x); tr["from"] != tr["to"] {
				t.Errorf("transition %v with the same rules on both sides", tr)
			}
		}
		if len(report["criteria"].([]any)) != 0 || len(report["values"].([]any)) != 0 {
			t.Errorf("criteria %v, values %v changed with the same rules", report["criteria"], report["values"])
		}
	})

	t.Run("the draft as candidate", func(t *testing.T) {
		want(t, call(t, f.Fixture, f.key, http.MethodPut, f.project+"/draft", map[string]any{"rules": snapText(t, 2400)}), http.StatusOK)
		run := f.ended(t, f.key, f.start(t, map[string]any{"caseload_id": caseload, "baseline": base, "decision_date": "2026-01-15", "examples": 100}))
		if run["candidate_ruleset_id"] != nil || run["state"] != "succeeded" {
			t.Fatalf("run = %v, want the draft's, succeeded", run)
		}
		if got := transitions(t, obj(t, run["report"])); !equalRefs(got, wantRefs) {
			t.Errorf("the draft's transitions\n%v\nwant\n%v", got, wantRefs)
		}
	})
}

func equalRefs(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}
