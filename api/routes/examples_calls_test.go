package routes

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/authoring/llm/llmtest"
)

// fmlaDraft is the draft the model proposes for the example project: the
// tenure and worksite tests of 29 U.S.C. 2611, each quoted from the notes
// uploaded with the statute's url.
const fmlaDraft = `ruleset "demo/us-fmla-employee"
section fmla_employee
name "FMLA employee eligibility"
source usc29_2611 "29 U.S.C. 2611 (FMLA definitions)" url "` + fmlaURL + `" licence "public-domain"
field employment.months_employed int weight 1
  question "For how many months in total have you worked for this employer?"
field worksite.employees_within_75_miles int weight 2
  question "How many people does your employer employ within 75 miles of your worksite?"
group service all "Length of service" {
  criterion tenure "Employed for at least 12 months" {
    employment.months_employed >= 12
    cite usc29_2611 "has been employed for at least 12 months by the employer"
  }
}
group worksite all "Worksite size" {
  criterion worksite_size "50 or more employees within 75 miles" {
    worksite.employees_within_75_miles >= 50
    cite usc29_2611 "50 or more employees within 75 miles"
  }
}
outcome service and worksite
`

const fmlaURL = "https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title29-section2611&num=0&edition=prelim"

// providerKey is a placeholder provider key: the scripted model takes any,
// and the server never echoes it. It goes in the header, so no recorded
// request shows it.
var providerKey = map[string]string{"X-Provider-Key": "sk-test"}

// exampleCalls are the calls whose requests and answers the document
// shows, one per operation, in the order they run: a later call may refer
// to an earlier answer's member as $operation.member (array items by
// index). It publishes the rulesets they read and scripts the model's
// answers to the discovery and generation calls.
func exampleCalls(t *testing.T, f *apitest.Fixture, model *llmtest.Server) []exampleCall {
	res, _ := f.PublishCasebank(t, "demo", "us-fmla-employee", "demo/us-fmla-employee", true)
	f.PublishCasebank(t, "demo", "snap-income", "demo/snap-income", true)
	answers := `{"employment.employer_type":"private","employment.months_employed":14,"employment.hours_12_months":1300}`
	project := map[string]string{"project_id": "$create-project.project_id"}
	// The first source (source.txt, from source_text) and the notes.
	firstSource := map[string]string{"project_id": "$create-project.project_id", "source_id": "$list-project-sources.sources.0.source_id"}
	notes := map[string]string{"project_id": "$create-project.project_id", "source_id": "$list-project-sources.sources.1.source_id"}
	family := map[string]string{"rulebook_id": "demo/family-leave"}

	called := make(chan struct{}, 1)
	model.Append(
		llmtest.Turn{Reply: "```json\n" + mustJSON(t, []any{
			map[string]any{"id": "employment.months_employed", "type": "int", "question": "For how many months in total have you worked for this employer?",
				"enum_values": []any{}, "quote": "has been employed for at least 12 months by the employer"},
			map[string]any{"id": "worksite.employees_within_75_miles", "type": "int", "question": "How many people does your employer employ within 75 miles of your worksite?",
				"enum_values": []any{}, "quote": "50 or more employees within 75 miles"},
		}) + "\n```"},
		llmtest.Turn{Reply: "```json\n" + mustJSON(t, []any{map[string]any{"section_id": "fmla_employee", "name": "FMLA employee eligibility",
			"quote": "An eligible employee has been employed for at least 12 months by the employer."}}) + "\n```"},
		// generate-project's model call thinks until it is cancelled.
		llmtest.Turn{Hang: true, Check: func(llmtest.Recorded) { called <- struct{}{} }},
		llmtest.Turn{Reply: "Here is the draft.\n\n```rules\n" + fmlaDraft + "```\n"},
	)
	modelCalled := func(t *testing.T, _ map[string]any) {
		select {
		case <-called:
		case <-time.After(20 * time.Second):
			t.Fatal("generate-project never called the model")
		}
	}
	workerStopped := func(t *testing.T, answers map[string]any) {
		status := "/projects/" + resolve(t, "$create-project.project_id", answers) + "/status"
		key := map[string]string{"x-api-key": f.Key(t, "demo", []auth.Scope{auth.ScopeProjectsRead}, time.Time{})}
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			r := f.Do(t, http.MethodGet, status, key, nil)
			if lifecycle, _ := r.Body.(map[string]any)["worker_lifecycle"].(string); lifecycle == "stopped" {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the cancelled generation's worker did not stop: %s", r.Raw)
			}
		}
	}

	caseload := map[string]string{"project_id": "$create-project.project_id", "caseload_id": "$upload-project-caseload.caseload_id"}
	impactRun := map[string]string{"project_id": "$create-project.project_id", "run_id": "$start-impact-run.run_id"}
	projectKey := func(t *testing.T) map[string]string {
		return map[string]string{"x-api-key": f.Key(t, "demo", []auth.Scope{auth.ScopeProjectsRead, auth.ScopeProjectsWrite}, time.Time{})}
	}
	impactEnded := func(t *testing.T, answers map[string]any) {
		run := "/projects/" + resolve(t, "$create-project.project_id", answers) + "/impact/" + resolve(t, "$start-impact-run.run_id", answers)
		key := projectKey(t)
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			r := f.Do(t, http.MethodGet, run, key, nil)
			if state, _ := r.Body.(map[string]any)["state"].(string); state != "queued" && state != "running" {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the impact run did not end: %s", r.Raw)
			}
		}
	}
	// The slots the second run waits for, held from its start until its
	// cancel has been answered (gateHeld), so that it decides nothing.
	release := func() {}
	gateHeld := func(*testing.T, map[string]any) { release() }
	secondRun := func(t *testing.T, answers map[string]any) {
		_, giveBack := f.Gate.For("demo").TryMore(1 << 10)
		release = sync.OnceFunc(giveBack)
		t.Cleanup(release)
		r := f.Do(t, http.MethodPost, "/projects/"+resolve(t, "$create-project.project_id", answers)+"/impact", projectKey(t),
			strings.NewReader(mustJSON(t, map[string]any{"caseload_id": resolve(t, "$upload-project-caseload.caseload_id", answers),
				"baseline": map[string]any{"version": "v1"}, "decision_date": "2026-11-23"})))
		if r.Status != http.StatusAccepted {
			t.Fatalf("start a second impact run: %d %s", r.Status, r.Raw)
		}
		answers["second-run"] = r.Body
	}

	// A decision of the demo tenant's own key under a slug it logs, for
	// the caseload made from the log.
	loggedDecision := func(t *testing.T, _ map[string]any) {
		key := map[string]string{"x-api-key": f.Key(t, "demo", []auth.Scope{auth.ScopeDecide}, time.Time{})}
		r := f.Do(t, http.MethodPost, "/decide", key, strings.NewReader(`{"ruleset_id":"demo/us-fmla-employee","field_values":`+answers+`}`))
		if r.Status != http.StatusOK {
			t.Fatalf("a logged decision: %d %s", r.Status, r.Raw)
		}
		f.RecordOf(t, r.Body.(map[string]any)["decision_id"].(string))
	}
	fmla := map[string]string{"ruleset_id": "demo/us-fmla-employee"}

	return []exampleCall{
		{op: "list-rulesets", method: http.MethodGet, path: "/rulesets", params: map[string]string{"limit": "1"}},
		{op: "get-ruleset-schema", method: http.MethodGet, path: "/rulesets/{ruleset_id}/schema", params: map[string]string{"ruleset_id": "demo/us-fmla-employee"}},
		{op: "explain-ruleset", method: http.MethodGet, path: "/rulesets/{ruleset_id}/explain", params: map[string]string{"ruleset_id": "demo/us-fmla-employee"}},
		{op: "get-ruleset-graph", method: http.MethodGet, path: "/rulesets/{ruleset_id}/graph", params: map[string]string{"ruleset_id": "demo/us-fmla-employee"}},
		{op: "get-ruleset-source", method: http.MethodGet, path: "/rulesets/{ruleset_id}/source", params: map[string]string{"ruleset_id": "demo/us-fmla-employee"}, keyed: true},
		{op: "diff-ruleset", method: http.MethodGet, path: "/rulesets/{ruleset_id}/diff", params: map[string]string{"ruleset_id": "demo/us-fmla-employee", "against": "demo/us-fmla-employee"}, keyed: true},
		{op: "decide", method: http.MethodPost, path: "/decide",
			body: `{"ruleset_id":"demo/us-fmla-employee","field_values":` + answers + `,"include_explanation":true}`},
		{op: "explain-ruleset-failure", method: http.MethodPost, path: "/rulesets/{ruleset_id}/explain-failure", params: map[string]string{"ruleset_id": res.RulesetID},
			body: `{"expected_outcome":"eligible","field_values":{"employment.employer_type":"private","employment.months_employed":3}}`},
		{op: "set-ruleset-visibility", method: http.MethodPatch, path: "/rulesets/{ruleset_id}/visibility", params: map[string]string{"ruleset_id": "demo/snap-income"},
			body: `{"visibility":"private"}`, keyed: true},
		{op: "archive-ruleset", method: http.MethodPost, path: "/rulesets/{ruleset_id}/archive", params: map[string]string{"ruleset_id": "demo/snap-income"}, keyed: true},
		{op: "get-usage", method: http.MethodGet, path: "/usage", keyed: true},
		{op: "create-rulebook", method: http.MethodPost, path: "/rulebooks/", keyed: true,
			body: `{"name":"Family leave","slug":"demo/family-leave","domain":"employment","ruleset_refs":[{"section_id":"fmla_employee"}],"outcome_logic":{"section":"A"}}`},
		{op: "activate-rulebook", method: http.MethodPost, path: "/rulebooks/{rulebook_id}/activate", params: family, keyed: true},
		{op: "get-rulebook", method: http.MethodGet, path: "/rulebooks/{rulebook_id}", params: family, keyed: true},
		{op: "list-rulebooks", method: http.MethodGet, path: "/rulebooks/", keyed: true},
		{op: "get-rulebook-schema", method: http.MethodGet, path: "/rulebooks/{rulebook_id}/schema", params: family, keyed: true},
		{op: "create-project", method: http.MethodPost, path: "/projects/", keyed: true,
			body: `{"name":"FMLA","section_id":"fmla_employee","source_text":"An eligible employee has been employed for at least 12 months by the employer.","test_cases":[{"name":"short tenure","field_values":{"employment.months_employed":3},"expected_outcome":"not_eligible"}]}`},
		{op: "upload-project-sources", method: http.MethodPost, path: "/projects/{project_id}/sources", params: project, keyed: true,
			body: `{"filename":"fmla-notes.txt","text":"An eligible employee has been employed for at least 12 months by the employer. An employer must employ 50 or more employees within 75 miles.","url":"` + fmlaURL + `","licence":"public-domain","title":"Notes on 29 U.S.C. 2611"}`},
		{op: "list-project-sources", method: http.MethodGet, path: "/projects/{project_id}/sources", params: project, keyed: true},
		{op: "update-project-source", method: http.MethodPatch, path: "/projects/{project_id}/sources/{source_id}", params: firstSource, keyed: true,
			body: `{"status":"reference_only"}`},
		{op: "get-project-source-raw", method: http.MethodGet, path: "/projects/{project_id}/sources/{source_id}/raw", params: notes, keyed: true, text: true},
		{op: "add-project-guidance", method: http.MethodPost, path: "/projects/{project_id}/guidance", params: project, keyed: true,
			body: `{"guidance_text":"Count months of employment, not of the current contract.","process_type":"rule_generation","adherence":"exact"}`},
		{op: "list-project-guidance", method: http.MethodGet, path: "/projects/{project_id}/guidance", params: project, keyed: true},
		{op: "list-generation-models", method: http.MethodGet, path: "/generation/models", keyed: true},
		{op: "discover-project-fields", method: http.MethodPost, path: "/projects/{project_id}/discover/fields", params: project, keyed: true,
			headers: providerKey, body: `{"model":"gpt-4.1-mini"}`},
		{op: "discover-project-sections", method: http.MethodPost, path: "/projects/{project_id}/discover/sections", params: project, keyed: true,
			headers: providerKey, body: `{"model":"gpt-4.1-mini"}`},
		{op: "put-project-draft", method: http.MethodPut, path: "/projects/{project_id}/draft", params: project, keyed: true,
			body: mustJSON(t, map[string]any{"rules": strings.Replace(fmlaDraft, `cite usc29_2611 "50 or more employees within 75 miles"`, `cite usc29_2611 "50 or more employes within 75 mile"`, 1) +
				"\n# Hours of service (29 U.S.C. 2611(2)(A)(ii)) still to add.\n"})},
		{op: "format-project-draft", method: http.MethodPost, path: "/projects/{project_id}/draft/format", params: project, keyed: true,
			body: mustJSON(t, map[string]any{"rules": "section fmla_employee\nfield employment.months_employed int weight 1   question \"How many months have you worked for this employer?\"\n" +
				"group service all \"Service\" { criterion tenure \"Employed for at least 12 months\" { employment.months_employed >= 12 } }\noutcome service\n"})},
		// An editor's text as typed: a type the language does not have.
		{op: "check-project-draft", method: http.MethodPost, path: "/projects/{project_id}/draft/check", params: project, keyed: true,
			body: mustJSON(t, map[string]any{"rules": strings.Replace(fmlaDraft, "field employment.months_employed int", "field employment.months_employed integer", 1)})},
		// Ctrl+Space after cite, on line 12 (11 from 0).
		{op: "complete-project-draft", method: http.MethodPost, path: "/projects/{project_id}/draft/complete", params: project, keyed: true,
			body: mustJSON(t, map[string]any{"rules": strings.Replace(fmlaDraft, `    cite usc29_2611 "has been employed for at least 12 months by the employer"`, "    cite ", 1),
				"position": map[string]any{"line": 11, "character": 9}})},
		{op: "set-project-tests", method: http.MethodPost, path: "/projects/{project_id}/tests", params: project, keyed: true,
			body: `{"replace":true,"test_cases":[{"name":"long tenure","field_values":{"employment.months_employed":14},"expected_outcome":"undetermined"}]}`},
		// Z3 may pick other answers for the same goals (see verify.SuggestCases).
		{op: "suggest-project-cases", method: http.MethodPost, path: "/projects/{project_id}/suggest-cases", params: project, keyed: true,
			body: `{"decision_date":"2026-11-23"}`, volatile: []string{"field_values"}},
		{op: "get-project", method: http.MethodGet, path: "/projects/{project_id}", params: project, keyed: true},
		{op: "list-projects", method: http.MethodGet, path: "/projects", keyed: true},
		// Read as the worker may or may not have taken the job yet.
		{op: "generate-project", method: http.MethodPost, path: "/projects/{project_id}/generate", params: project, keyed: true,
			headers: providerKey, body: `{"mode":"fresh","model":"gpt-4.1-mini"}`,
			volatile: []string{"state", "worker_lifecycle", "progress", "retry_readiness", "started_at"}},
		// A cancel during the model call: its worker may not have stopped.
		{op: "cancel-generation", method: http.MethodPost, path: "/projects/{project_id}/generation/cancel", params: project, keyed: true,
			body: `{"job_id":"$generate-project.job_id"}`, before: modelCalled,
			volatile: []string{"worker_lifecycle", "retry_readiness", "progress"}},
		// The recovery envelope of the cancelled generation, once its worker
		// has stopped.
		{op: "get-project-status", method: http.MethodGet, path: "/projects/{project_id}/status", params: project, keyed: true, before: workerStopped},
		{op: "generate-and-test-project", method: http.MethodPost, path: "/projects/{project_id}/generate-and-test", params: project, keyed: true,
			headers: providerKey, body: `{"model":"gpt-4.1-mini"}`},
		{op: "get-project-draft", method: http.MethodGet, path: "/projects/{project_id}/draft", params: project, keyed: true},
		{op: "diff-project-draft", method: http.MethodGet, path: "/projects/{project_id}/draft/diff", params: project, keyed: true},
		{op: "get-project-draft-symbols", method: http.MethodGet, path: "/projects/{project_id}/draft/symbols", params: project, keyed: true},
		{op: "get-project-source-text", method: http.MethodGet, path: "/projects/{project_id}/sources/{source_id}/text", params: notes, keyed: true},
		{op: "review-project", method: http.MethodPost, path: "/projects/{project_id}/review", params: project, keyed: true, body: `{"coach":true}`},
		{op: "publish-project", method: http.MethodPost, path: "/projects/{project_id}/publish", params: project, keyed: true,
			body: `{"name":"FMLA employee eligibility (tenure and worksite)"}`},
		// A caseload of one applicant (a request example is JSON: one line
		// of JSON Lines is), and a run of the draft against the casebank's
		// cut v1, read once it has ended.
		{op: "upload-project-caseload", method: http.MethodPost, path: "/projects/{project_id}/caseloads", keyed: true,
			params:   map[string]string{"project_id": "$create-project.project_id", "filename": "applicants-2026-11.jsonl", "retention_days": "30"},
			body:     `{"field_values":{"employment.employer_type":"private","employment.months_employed":14,"worksite.employees_within_75_miles":60},"decision_date":"2026-11-20","reference":"A-1042"}`,
			volatile: []string{"caseload_id", "expires_at"}},
		{op: "list-project-caseloads", method: http.MethodGet, path: "/projects/{project_id}/caseloads", params: project, keyed: true,
			volatile: []string{"caseload_id", "expires_at"}},
		{op: "get-project-caseload", method: http.MethodGet, path: "/projects/{project_id}/caseloads/{caseload_id}", params: caseload, keyed: true,
			volatile: []string{"caseload_id", "expires_at"}},
		{op: "start-impact-run", method: http.MethodPost, path: "/projects/{project_id}/impact", params: project, keyed: true,
			body:     `{"caseload_id":"$upload-project-caseload.caseload_id","baseline":{"version":"v1"},"decision_date":"2026-11-23","examples":5}`,
			volatile: []string{"run_id", "caseload_id", "baseline_ruleset_id"}},
		{op: "get-impact-run", method: http.MethodGet, path: "/projects/{project_id}/impact/{run_id}", params: impactRun, keyed: true,
			before: impactEnded, volatile: []string{"run_id", "caseload_id", "baseline_ruleset_id"}},
		{op: "list-impact-runs", method: http.MethodGet, path: "/projects/{project_id}/impact", params: project, keyed: true,
			volatile: []string{"run_id", "caseload_id", "baseline_ruleset_id"}},
		// A second run, waiting for a CPU slot of the tenant's share
		// (held by the test), cancelled before it decides a case.
		{op: "cancel-impact-run", method: http.MethodPost, path: "/projects/{project_id}/impact/{run_id}/cancel", keyed: true,
			params: map[string]string{"project_id": "$create-project.project_id", "run_id": "$second-run.run_id"},
			// Whether the worker has taken the run (started_at) before the
			// cancel arrives is the scheduler's choice.
			before: secondRun, volatile: []string{"run_id", "caseload_id", "baseline_ruleset_id", "started_at"}},
		{op: "delete-project-caseload", method: http.MethodDelete, path: "/projects/{project_id}/caseloads/{caseload_id}", params: caseload, keyed: true,
			before: gateHeld},
		// 204 has no body, so no response example: OpenAPI puts examples in
		// a media type, and neither Redocly's recommended rules nor
		// spectral:oas ask for one on a response without content.
		{op: "delete-project-source", method: http.MethodDelete, path: "/projects/{project_id}/sources/{source_id}", params: firstSource, keyed: true},
		{op: "update-rulebook", method: http.MethodPatch, path: "/rulebooks/{rulebook_id}", params: family, keyed: true,
			body: `{"description":"Federal family and medical leave: the employee's eligibility."}`},
		{op: "set-rulebook-fields", method: http.MethodPost, path: "/rulebooks/{rulebook_id}/fields", params: family, keyed: true,
			body: `{"fields":{"employment.months_employed":{"question":"How many months in all have you worked for this employer?","weight":2}}}`},
		{op: "explain-rulebook", method: http.MethodGet, path: "/rulebooks/{rulebook_id}/explain", params: family, keyed: true},
		{op: "get-rulebook-graph", method: http.MethodGet, path: "/rulebooks/{rulebook_id}/graph", params: family, keyed: true},
		{op: "get-rulebook-graph-by-slug", method: http.MethodGet, path: "/rulebooks/{namespace}/{name}/graph", params: map[string]string{"namespace": "demo", "name": "family-leave"}, keyed: true},
		{op: "set-rulebook-visibility", method: http.MethodPatch, path: "/rulebooks/{rulebook_id}/visibility", params: family, keyed: true,
			body: `{"visibility":"public"}`},
		{op: "promote-ruleset-to-live", method: http.MethodPost, path: "/rulebooks/{rulebook_id}/rulesets/{name}/promote-to-live", params: map[string]string{"rulebook_id": "demo/family-leave", "name": "fmla_employee"}, keyed: true,
			body: `{"ruleset_id":"$publish-project.ruleset_id"}`},
		{op: "list-rulebook-releases", method: http.MethodGet, path: "/rulebooks/{rulebook_id}/releases", params: family, keyed: true},
		{op: "diff-rulebook", method: http.MethodGet, path: "/rulebooks/{rulebook_id}/diff", params: map[string]string{"rulebook_id": "demo/family-leave", "against": "$activate-rulebook.release.label"}, keyed: true},
		{op: "put-rulebook-answer-logging", method: http.MethodPut, path: "/rulebooks/{rulebook_id}/answer-logging", params: family, keyed: true,
			body: `{"masked":["employment.months_employed"],"retention_days":14}`, volatile: []string{"setting_version"}},
		{op: "get-rulebook-answer-logging", method: http.MethodGet, path: "/rulebooks/{rulebook_id}/answer-logging", params: family, keyed: true,
			volatile: []string{"setting_version"}},
		{op: "delete-rulebook-answer-logging", method: http.MethodDelete, path: "/rulebooks/{rulebook_id}/answer-logging", params: family, keyed: true},
		{op: "archive-rulebook", method: http.MethodPost, path: "/rulebooks/{rulebook_id}/archive", params: family, keyed: true},
		// Answer logging on the demo tenant's FMLA ruleset, one decision
		// of its own key, and the caseload made of it.
		{op: "put-ruleset-answer-logging", method: http.MethodPut, path: "/rulesets/{ruleset_id}/answer-logging", params: fmla, keyed: true,
			body: `{"dropped":["worksite.employees_within_75_miles"],"masked":["employment.months_employed"],"retention_days":30}`, volatile: []string{"setting_version"}},
		{op: "get-ruleset-answer-logging", method: http.MethodGet, path: "/rulesets/{ruleset_id}/answer-logging", params: fmla, keyed: true,
			volatile: []string{"setting_version"}},
		{op: "make-project-caseload-from-log", method: http.MethodPost, path: "/projects/{project_id}/caseloads/from-log", params: project, keyed: true,
			body: `{"slug":"demo/us-fmla-employee","retention_days":30}`, before: loggedDecision,
			volatile: []string{"caseload_id", "expires_at", "content_digest"}},
		{op: "delete-ruleset-answer-logging", method: http.MethodDelete, path: "/rulesets/{ruleset_id}/answer-logging", params: fmla, keyed: true},
	}
}

// mustJSON is v as JSON text.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
