package projects

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/answerlogging"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/api/decide"
	"github.com/eligo/eligo/api/rulebooks"
	"github.com/eligo/eligo/api/rulesets"
	"github.com/eligo/eligo/api/wiring"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/worker"
)

// impactFixture serves the projects, the rulesets, the rulebooks, answer
// logging and /decide, with
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
	// sv are the fixture's services, for what the test sets up directly.
	sv apitest.Services
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

// newImpactFixture serves the project, ruleset, rulebook, answer-logging
// and decide routes with a worker running impact runs, publishes two
// versions of acme/snap and makes a SNAP project with keys for it.
// Its callers get five minutes to send a body, not the 30 seconds a server
// gives by default: the uploads of the larger caseloads stream into a
// check that the race detector slows many times over, and these tests are
// about what the upload does, not how fast a loaded machine reads it.
func newImpactFixture(t testing.TB, cfg worker.ImpactConfig) *impactFixture {
	t.Helper()
	return newImpactFixtureWith(t, cfg, api.Config{Metering: apitest.GenerousMetering(), BodyReadTimeout: 5 * time.Minute})
}

// newImpactFixtureWith is newImpactFixture with the API's configuration.
func newImpactFixtureWith(t testing.TB, cfg worker.ImpactConfig, apiCfg api.Config) *impactFixture {
	t.Helper()
	f := &impactFixture{}
	opts := apitest.Options{Config: wiring.Config{API: apiCfg, Impact: cfg}}
	f.Fixture = apitest.Start(t, opts, func(s *api.Server, sv apitest.Services) {
		f.sv = sv
		startWorker(t, sv, worker.Config{Generator: sv.Generator, GenerationOnly: true, Impact: sv.Impact})
		Register(s, Deps{Authoring: sv.Authoring, Catalog: sv.Catalog, Clock: sv.Clock, Gate: sv.Gate, Store: sv.Store, Impact: sv.Impact})
		rulesets.Register(s, rulesets.Deps{Catalog: sv.Catalog, Publisher: sv.Publisher, Clock: sv.Clock, Gate: sv.Gate})
		rulebooks.Register(s, rulebooks.Deps{Catalog: sv.Catalog, Publisher: sv.Publisher, Clock: sv.Clock, Gate: sv.Gate})
		answerlogging.Register(s, answerlogging.Deps{Catalog: sv.Catalog, Store: sv.Store})
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
func (f *impactFixture) upload(t testing.TB, key, contentType, query, body string) apitest.Response {
	t.Helper()
	return send(t, f.Fixture, key, http.MethodPost, f.project+"/caseloads"+query, contentType, []byte(body))
}

// uploaded uploads a JSON Lines caseload and returns its id.
func (f *impactFixture) uploaded(t testing.TB, body string) string {
	t.Helper()
	r := f.upload(t, f.key, "application/x-ndjson", "", body)
	want(t, r, http.StatusCreated)
	return obj(t, r.Body)["caseload_id"].(string)
}

// start asks for a run and returns its id.
func (f *impactFixture) start(t testing.TB, req map[string]any) string {
	t.Helper()
	r := call(t, f.Fixture, f.key, http.MethodPost, f.project+"/impact", req)
	want(t, r, http.StatusAccepted)
	return obj(t, r.Body)["run_id"].(string)
}

// ended polls a run until it is neither queued nor running, read with key.
func (f *impactFixture) ended(t testing.TB, key, id string) map[string]any {
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

// TestCaseloads: an upload is read as a run reads it (bad rows counted by
// line, the upload going on), kept with its retention, listed, read back
// as counts and deleted; line numbers only for caseloads:read; a file that
// cannot be read as a whole, or one past the project's count, is refused.
func TestCaseloads(t *testing.T) {
	t.Parallel()
	f := newImpactFixture(t, worker.ImpactConfig{})
	jsonl := "{\"field_values\": {\"household.size\": 2}, \"reference\": \"A-1\"}\nnot json\n\n{\"field_values\": 3}\n{\"field_values\": {}}\n"
	csv := "household.size,decision_date,reference\n2,2026-01-15,A-1\n3,yesterday,A-2\n4,,A-3,extra\n"
	cases := []struct {
		name, contentType, query, body string
		format, filename               string
		rows, cases                    float64
		bad                            map[string][]any // reason: lines
		days                           int
	}{
		{"json lines", "application/x-ndjson", "?filename=apr.jsonl", jsonl, "jsonl", "apr.jsonl", 4, 2,
			map[string][]any{"the line is not JSON": {float64(2)}, "field_values is missing or not a JSON object": {float64(4)}}, 90},
		{"csv by content type", "text/csv; charset=utf-8", "?retention_days=7", csv, "csv", "caseload.csv", 3, 1,
			map[string][]any{"decision_date is not a YYYY-MM-DD date": {float64(3)}, "the record does not have one cell per header column": {float64(4)}}, 7},
		{"csv by name", "application/octet-stream", "?filename=may.csv&retention_days=1", csv, "csv", "may.csv", 3, 1, nil, 1},
		{"format wins", "text/csv", "?format=jsonl", jsonl, "jsonl", "caseload.jsonl", 4, 2, nil, 90},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.upload(t, f.key, c.contentType, c.query, c.body)
			want(t, r, http.StatusCreated)
			got := obj(t, r.Body)
			if got["format"] != c.format || got["filename"] != c.filename || got["rows"] != c.rows || got["cases"] != c.cases {
				t.Errorf("caseload = %v, want %s %s with %v rows and %v cases", got, c.format, c.filename, c.rows, c.cases)
			}
			created, _ := time.Parse(time.RFC3339Nano, got["created_at"].(string))
			expires, _ := time.Parse(time.RFC3339Nano, got["expires_at"].(string))
			if d := expires.Sub(created); d < time.Duration(c.days)*24*time.Hour-time.Minute || d > time.Duration(c.days)*24*time.Hour+time.Minute {
				t.Errorf("kept for %s, want %d days", d, c.days)
			}
			id := got["caseload_id"].(string)
			for _, k := range []struct {
				key   string
				lines bool
			}{{f.key, true}, {f.blind, false}} {
				r := call(t, f.Fixture, k.key, http.MethodGet, f.project+"/caseloads/"+id, nil)
				want(t, r, http.StatusOK)
				for _, x := range obj(t, r.Body)["bad_rows"].([]any) {
					b := obj(t, x)
					if c.bad != nil {
						wantLines, ok := c.bad[b["reason"].(string)]
						if !ok {
							t.Errorf("bad row reason %q not expected", b["reason"])
						}
						if !k.lines {
							wantLines = []any{}
						}
						if fmt.Sprint(b["lines"]) != fmt.Sprint(wantLines) {
							t.Errorf("lines of %q = %v, want %v (key with caseloads:read: %v)", b["reason"], b["lines"], wantLines, k.lines)
						}
					}
				}
				if strings.Contains(string(r.Raw), "household.size") {
					t.Errorf("a caseload's answer came back: %s", r.Raw)
				}
			}
		})
	}
	r := call(t, f.Fixture, f.key, http.MethodGet, f.project+"/caseloads", nil)
	want(t, r, http.StatusOK)
	list := obj(t, r.Body)["caseloads"].([]any)
	if len(list) != len(cases) {
		t.Fatalf("listed %d caseloads, want %d", len(list), len(cases))
	}

	// Refused: a header that cannot be read; retention past 90 days.
	r = f.upload(t, f.key, "text/csv", "", "household.size,household.size\n1,2\n")
	want(t, r, http.StatusUnprocessableEntity)
	if code := obj(t, obj(t, r.Body)["detail"])["reason_code"]; code != ReasonCaseloadUnreadable {
		t.Errorf("reason_code = %v, want %s", code, ReasonCaseloadUnreadable)
	}
	want(t, f.upload(t, f.key, "text/csv", "?retention_days=91", csv), http.StatusUnprocessableEntity)
	want(t, f.upload(t, f.key, "text/csv", "?format=xml", csv), http.StatusUnprocessableEntity)

	// Deleted, it is gone.
	first := obj(t, list[0])["caseload_id"].(string)
	want(t, call(t, f.Fixture, f.key, http.MethodDelete, f.project+"/caseloads/"+first, nil), http.StatusNoContent)
	want(t, call(t, f.Fixture, f.key, http.MethodGet, f.project+"/caseloads/"+first, nil), http.StatusNotFound)
	want(t, call(t, f.Fixture, f.key, http.MethodDelete, f.project+"/caseloads/"+first, nil), http.StatusNotFound)

	// The project's count is bounded.
	for range MaxCaseloads - len(cases) + 1 {
		want(t, f.upload(t, f.key, "application/x-ndjson", "", jsonl), http.StatusCreated)
	}
	r = f.upload(t, f.key, "application/x-ndjson", "", jsonl)
	want(t, r, http.StatusRequestEntityTooLarge)
	if code := obj(t, obj(t, r.Body)["detail"])["reason_code"]; code != ReasonCaseloadLimit {
		t.Errorf("reason_code = %v, want %s", code, ReasonCaseloadLimit)
	}
}

// TestCaseloadExpiry: a caseload past its retention is hidden at once and
// deleted, with its runs, by the prune.
func TestCaseloadExpiry(t *testing.T) {
	t.Parallel()
	f := newImpactFixture(t, worker.ImpactConfig{})
	_, body := snapCaseload(5)
	id := f.uploaded(t, body)
	run := f.ended(t, f.key, f.start(t, map[string]any{"caseload_id": id, "decision_date": "2026-01-15",
		"candidate": map[string]any{"slug": "acme/snap", "version": "v2"}}))
	ctx := context.Background()
	if _, err := f.Pool.Exec(ctx, "UPDATE caseloads SET expires_at = now() - interval '1 second' WHERE id = $1", id); err != nil {
		t.Fatal(err)
	}
	want(t, call(t, f.Fixture, f.key, http.MethodGet, f.project+"/caseloads/"+id, nil), http.StatusNotFound)
	n, err := f.Store.DeleteExpiredCaseloads(ctx)
	if err != nil || n != 1 {
		t.Fatalf("DeleteExpiredCaseloads = %d, %v; want the one", n, err)
	}
	want(t, call(t, f.Fixture, f.key, http.MethodGet, f.project+"/impact/"+run["run_id"].(string), nil), http.StatusNotFound)
}

// TestImpactPrivacy: counts below 10 are shown only as fewer than 10;
// references and line numbers only to a key with caseloads:read; another
// tenant finds neither the caseload nor the run (404, as for none).
func TestImpactPrivacy(t *testing.T) {
	t.Parallel()
	f := newImpactFixture(t, worker.ImpactConfig{SmallCount: 3}) // below the floor: raised to 10
	_, body := snapCaseload(40)
	caseload := f.uploaded(t, body)
	id := f.start(t, map[string]any{"caseload_id": caseload, "decision_date": "2026-01-15",
		"candidate": map[string]any{"slug": "acme/snap", "version": "v2"}, "baseline": map[string]any{"version": "v1"}})
	for _, k := range []struct {
		key  string
		sees bool
	}{{f.key, true}, {f.blind, false}} {
		report := obj(t, f.ended(t, k.key, id)["report"])
		small := 0
		var check func(v any)
		check = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				if _, ok := x["fewer_than"]; ok {
					switch {
					case x["count"] == nil && x["fewer_than"] != float64(10):
						t.Errorf("%v: hidden count without fewer_than 10", x)
					case x["count"] == nil:
						small++
					case x["fewer_than"] != nil || x["count"].(float64) > 0 && x["count"].(float64) < 10:
						t.Errorf("%v: a count from 1 to 9 shown", x)
					}
				}
				for name, m := range x {
					if (name == "examples" || name == "lines") && len(m.([]any)) > 0 != k.sees && len(m.([]any)) > 0 {
						t.Errorf("%s %v shown to a key without caseloads:read", name, m)
					}
					check(m)
				}
			case []any:
				for _, m := range x {
					check(m)
				}
			}
		}
		check(report)
		if small == 0 {
			t.Errorf("no count was hidden in %v: the caseload tests nothing", report)
		}
		if k.sees && len(transitions(t, report)) > 0 {
			seen := false
			for _, refs := range transitions(t, report) {
				seen = seen || len(refs) > 0
			}
			if !seen {
				t.Error("a key with caseloads:read sees no example")
			}
		}
	}

	other := tenantKey(t, f.Fixture, "globex", append(slices.Clone(allProjectScopes), auth.ScopeCaseloadsRead)...)
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, f.project + "/caseloads"},
		{http.MethodGet, f.project + "/caseloads/" + caseload},
		{http.MethodDelete, f.project + "/caseloads/" + caseload},
		{http.MethodGet, f.project + "/impact"},
		{http.MethodGet, f.project + "/impact/" + id},
		{http.MethodPost, f.project + "/impact/" + id + "/cancel"},
	} {
		if r := call(t, f.Fixture, other, c.method, c.path, nil); r.Status != http.StatusNotFound {
			t.Errorf("%s %s by another tenant: %d, want 404", c.method, c.path, r.Status)
		}
	}
	r := send(t, f.Fixture, other, http.MethodPost, f.project+"/caseloads", "text/csv", []byte("household.size\n1\n"))
	want(t, r, http.StatusNotFound)
	want(t, call(t, f.Fixture, other, http.MethodPost, f.project+"/impact", map[string]any{"caseload_id": caseload}), http.StatusNotFound)
}

// withReport polls a run until it carries a report.
func (f *impactFixture) withReport(t *testing.T, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		r := call(t, f.Fixture, f.key, http.MethodGet, f.project+"/impact/"+id, nil)
		want(t, r, http.StatusOK)
		if run := obj(t, r.Body); run["report"] != nil {
			return run
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("impact run %s left no report", id)
	return nil
}

// progressing polls a run until it reports progress, failing when it
// ends first: a cancel then finds it deciding.
func (f *impactFixture) progressing(t *testing.T, id string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		run := obj(t, call(t, f.Fixture, f.key, http.MethodGet, f.project+"/impact/"+id, nil).Body)
		if run["state"] != "queued" && run["state"] != "running" {
			t.Fatalf("the run ended before it could be cancelled: %v", run)
		}
		if obj(t, run["progress"])["rows_done"].(float64) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the run reported no progress")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestImpactCancel: a cancel ends a running run at once; the run stops
// and leaves the report of the cases it decided, marked partial. A
// cancelled run cancels again as it is; one that ended otherwise is 409.
func TestImpactCancel(t *testing.T) {
	t.Parallel()
	f := newImpactFixture(t, worker.ImpactConfig{})
	const rows = 150_000
	line := `{"field_values":{"household.size":2,"household.region":"alaska","income.gross_monthly":2350,"income.net_monthly":1500,"household.elderly_or_disabled_member":false}}` + "\n"
	caseload := f.uploaded(t, strings.Repeat(line, rows))
	id := f.start(t, map[string]any{"caseload_id": caseload, "decision_date": "2026-01-15", "examples": 0,
		"candidate": map[string]any{"slug": "acme/snap", "version": "v2"}, "baseline": map[string]any{"version": "v1"}})
	f.progressing(t, id)
	r := call(t, f.Fixture, f.key, http.MethodPost, f.project+"/impact/"+id+"/cancel", nil)
	want(t, r, http.StatusOK)
	if run := obj(t, r.Body); run["state"] != "cancelled" || run["partial"] != true {
		t.Fatalf("cancel answered %v, want cancelled and partial", run)
	}
	run := f.withReport(t, id)
	cases := obj(t, obj(t, run["report"])["cases"])["count"].(float64)
	if run["state"] != "cancelled" || run["partial"] != true || cases <= 0 || cases >= rows {
		t.Errorf("run = %v with %v cases, want cancelled, partial, with some of the %d cases decided", run["state"], cases, rows)
	}
	if done := obj(t, run["progress"])["cases_done"].(float64); done != cases {
		t.Errorf("progress says %v cases done, the report %v", done, cases)
	}
	want(t, call(t, f.Fixture, f.key, http.MethodPost, f.project+"/impact/"+id+"/cancel", nil), http.StatusOK)

	_, small := snapCaseload(5)
	done := f.ended(t, f.key, f.start(t, map[string]any{"caseload_id": f.uploaded(t, small), "decision_date": "2026-01-15",
		"candidate": map[string]any{"slug": "acme/snap", "version": "v2"}}))
	r = call(t, f.Fixture, f.key, http.MethodPost, f.project+"/impact/"+done["run_id"].(string)+"/cancel", nil)
	want(t, r, http.StatusConflict)
	if code := obj(t, obj(t, r.Body)["detail"])["reason_code"]; code != ReasonImpactNotActive {
		t.Errorf("reason_code = %v, want %s", code, ReasonImpactNotActive)
	}
}

// TestImpactLimit: a run waits for a CPU slot within its tenant's share;
// past the tenant's runs under way a start is 429 with Retry-After; once
// the run ends, a start is admitted again.
func TestImpactLimit(t *testing.T) {
	t.Parallel()
	f := newImpactFixture(t, worker.ImpactConfig{MaxActiveRuns: 1})
	_, body := snapCaseload(5)
	caseload := f.uploaded(t, body)
	// Hold every slot of acme's share, so that its run waits.
	took, giveBack := f.Gate.For("acme").TryMore(1 << 10)
	release := sync.OnceFunc(giveBack)
	defer release()
	if took == 0 {
		t.Fatal("no slot of the gate was free")
	}
	req := map[string]any{"caseload_id": caseload, "decision_date": "2026-01-15", "candidate": map[string]any{"slug": "acme/snap", "version": "v2"}}
	first := f.start(t, req)
	r := call(t, f.Fixture, f.key, http.MethodPost, f.project+"/impact", req)
	want(t, r, http.StatusTooManyRequests)
	if code := obj(t, obj(t, r.Body)["detail"])["reason_code"]; code != ReasonImpactLimit || r.Header.Get("Retry-After") != "30" {
		t.Errorf("reason_code %v, Retry-After %q; want %s and 30", code, r.Header.Get("Retry-After"), ReasonImpactLimit)
	}
	want(t, call(t, f.Fixture, f.key, http.MethodPost, f.project+"/impact/"+first+"/cancel", nil), http.StatusOK)
	if run := f.ended(t, f.key, first); run["state"] != "cancelled" {
		t.Errorf("run = %v, want cancelled", run)
	}
	release()
	if run := f.ended(t, f.key, f.start(t, req)); run["state"] != "succeeded" {
		t.Errorf("run after the first ended = %v, want succeeded", run)
	}
}
