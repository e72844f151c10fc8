package projects

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/api/rulesets"
	"github.com/eligo/eligo/api/wiring"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/authoring/llm/llmtest"
	"github.com/eligo/eligo/worker"
)

// sentinelKey is the provider key every generation test sends; after them
// it must be found in no table, no job row and no log line.
const sentinelKey = "sk-sentinel-7f3a9c21-never-store-me"

// genFixture is a server with a generator on a live River client, calling
// a scripted model, with every log line kept.
type genFixture struct {
	*apitest.Fixture
	model *llmtest.Server
	gen   *worker.Generator
	logs  *apitest.LogBuffer
	key   string
}

// newGenFixture serves the projects with a generator whose model is a
// scripted server; models is the model table (empty: one roomy model).
func newGenFixture(t *testing.T, models string, timeout time.Duration) *genFixture {
	t.Helper()
	logs := &apitest.LogBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	g := &genFixture{model: llmtest.NewServer(t), logs: logs}
	if models == "" {
		models = "scripted-large:128000"
	}
	table, err := llm.ParseModels(models)
	if err != nil {
		t.Fatal(err)
	}
	opts := apitest.Options{Config: wiring.Config{API: api.Config{Metering: apitest.GenerousMetering(), Logger: logger},
		Generation: wiring.Generation{BaseURL: g.model.URL(), Models: table, Timeout: timeout}}}
	g.Fixture = apitest.Start(t, opts, func(s *api.Server, sv apitest.Services) {
		g.gen = sv.Generator
		startWorker(t, sv, worker.Config{Logger: logger, Generator: g.gen, GenerationOnly: true, Metrics: sv.Metrics})
		Register(s, Deps{Authoring: sv.Authoring, Generator: g.gen, Wait: 20 * time.Second, Catalog: sv.Catalog, Gate: sv.Gate, Clock: sv.Clock})
		rulesets.Register(s, rulesets.Deps{Catalog: sv.Catalog, Publisher: sv.Publisher, Clock: sv.Clock, Gate: sv.Gate})
	})
	g.key = tenantKey(t, g.Fixture, "acme", allProjectScopes...)
	return g
}

// startWorker starts a River client over sv's store working what cfg
// names, stopped when the test ends.
func startWorker(t testing.TB, sv apitest.Services, cfg worker.Config) {
	t.Helper()
	client, err := worker.New(sv.Store, cfg)
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
}

// generate posts to rest (generate, generate-and-test, discover/...) with
// the sentinel key in the header.
func (g *genFixture) generate(t *testing.T, p grantProject, rest string, body any) apitest.Response {
	t.Helper()
	return g.Do(t, http.MethodPost, p.base+rest, map[string]string{"x-api-key": g.key, "X-Provider-Key": sentinelKey}, jsonBody(t, body))
}

func jsonBody(t *testing.T, v any) *bytes.Reader {
	t.Helper()
	if v == nil {
		return bytes.NewReader([]byte("{}"))
	}
	return bytes.NewReader(mustJSON(t, v))
}

// reply is a model answer holding rules.
func reply(rules string) string { return "Here are the rules.\n\n```rules\n" + rules + "```\n" }

// status reads the project's status envelope.
func (g *genFixture) status(t *testing.T, p grantProject) map[string]any {
	t.Helper()
	r := call(t, g.Fixture, g.key, http.MethodGet, p.base+"/status", nil)
	want(t, r, http.StatusOK)
	return obj(t, r.Body)
}

// waitEnded polls the status until the generation is no longer active.
func (g *genFixture) waitEnded(t *testing.T, p grantProject) map[string]any {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		st := g.status(t, p)
		if st["state"] != "queued" && st["state"] != "running" {
			return st
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the generation did not end")
	return nil
}

// From statute and tests to a published ruleset through generate: the
// model's first draft does not compile, the second cites a quote the act
// does not hold, the third fails a test, the fourth breaks a test that
// passed (discarded), the fifth passes. Status shows each call's stage and
// round; then refine repairs the ruleset after a test is added.
func TestGenerateRepairsToAcceptance(t *testing.T) {
	t.Parallel()
	g := newGenFixture(t, "", 0)
	p := newGrantProject(t, g.Fixture, g.key)
	p.do(t, http.MethodPost, "/guidance", map[string]any{"guidance_text": "Ages are completed years.", "process_type": "rule_generation"})
	var seen []string
	observe := func(r llmtest.Recorded) {
		st := g.status(t, p)
		prog := st["progress"].(map[string]any)
		seen = append(seen, fmt.Sprint(prog["stage"], "/", prog["round"]))
		if r.Authorization != "Bearer "+sentinelKey {
			t.Errorf("the model got %q", r.Authorization)
		}
	}
	wrongAge := strings.Replace(grantRules, ">= 18", ">= 21", 1)
	// Fixes "adult waits for the officer" but breaks "child", which passed.
	broken := strings.Replace(grantRules, ">= 18", ">= 10", 1)
	g.model.Append(
		llmtest.Turn{Reply: reply("section grant\nfield"), Check: observe},
		llmtest.Turn{Reply: reply(strings.Replace(grantRules, "is at least 18 years old", "is an adult", 1)), Check: observe},
		llmtest.Turn{Reply: reply(wrongAge), Check: observe},
		llmtest.Turn{Reply: reply(broken), Check: observe},
	)
	r := g.generate(t, p, "/generate", map[string]any{"repair_rounds_unused": nil})
	if r.Status != 422 {
		t.Fatalf("an unknown body member: %s", r.Raw)
	}
	// Four calls are the first and three repair rounds: the default bound.
	r = g.generate(t, p, "/generate", nil)
	want(t, r, http.StatusAccepted)
	st := g.waitEnded(t, p)
	if st["state"] != "success" || st["outcome"] != "failing_tests" {
		t.Fatalf("after four rounds: %v", st)
	}
	if want := []string{"call/1", "repair/2", "repair/3", "repair/4"}; strings.Join(seen, ",") != strings.Join(want, ",") {
		t.Fatalf("stages seen at each call: %v, want %v", seen, want)
	}
	res := obj(t, st["result"])
	rounds := list(t, res["rounds"])
	kept := []bool{}
	for _, rd := range rounds {
		kept = append(kept, obj(t, rd)["kept"].(bool))
	}
	if len(rounds) != 4 || kept[0] || kept[1] || !kept[2] || kept[3] || !strings.Contains(obj(t, rounds[3])["note"].(string), "broke tests") {
		t.Fatalf("rounds: %v", rounds)
	}
	msgs := g.model.Requests()[1].Messages
	if last := msgs[len(msgs)-1].Content; !strings.Contains(last, "do not compile") {
		t.Fatalf("round 2 was not told of the compile error: %s", last)
	}
	msgs = g.model.Requests()[3].Messages
	if last := msgs[len(msgs)-1].Content; !strings.Contains(last, "adult waits for the officer") || !strings.Contains(last, "criterion adult") {
		t.Fatalf("round 4 was not told of the failing test with its minimal reason: %s", last)
	}
	if !strings.Contains(g.model.Requests()[0].Messages[1].Content, "Ages are completed years.") {
		t.Fatal("the prompt lacks the guidance")
	}

	// A second generation repairs it, and the project publishes.
	g.model.Append(llmtest.Turn{Reply: reply(grantRules)})
	r = g.generate(t, p, "/generate-and-test", map[string]any{"model": "scripted-large"})
	want(t, r, http.StatusOK)
	ans := obj(t, r.Body)
	if ans["accepted"] != true || ans["outcome"] != "accepted" || ans["tests_passing"].(float64) != 2 || !strings.HasPrefix(ans["ruleset_id"].(string), "grant:draft-") {
		t.Fatalf("generate-and-test: %s", r.Raw)
	}
	if sc := obj(t, ans["source_check"]); sc["status"] != "ok" {
		t.Fatalf("a generated draft records its inputs: %v", sc)
	}
	want(t, p.do(t, http.MethodPost, "/publish", nil), http.StatusCreated)

	// Refine after a test is added: the seed is the published ruleset,
	// and the result names the criterion that changed.
	p.do(t, http.MethodPost, "/tests", map[string]any{"test_cases": []any{map[string]any{"name": "seventeen is not enough",
		"field_values": map[string]any{"person.age": 17}, "expected_outcome": "not_eligible"}}})
	g.model.Append(llmtest.Turn{Reply: reply(strings.Replace(grantRules, `"At least 18"`, `"Aged 18 or over"`, 1)), Check: func(r llmtest.Recorded) {
		if !strings.Contains(r.Messages[1].Content, "The ruleset in force") {
			t.Errorf("refine's prompt lacks the seed")
		}
	}})
	r = g.generate(t, p, "/generate-and-test", map[string]any{"mode": "refine"})
	want(t, r, http.StatusOK)
	if changed := list(t, obj(t, r.Body)["changed_criteria"]); len(changed) != 0 {
		// A title is not the condition: nothing the tests judge changed.
		t.Fatalf("changed criteria: %v", changed)
	}
	g.model.Append(llmtest.Turn{Reply: reply(strings.Replace(grantRules, "person.age >= 18", "person.age >= 18 and person.age < 150", 1))})
	r = g.generate(t, p, "/generate-and-test", map[string]any{"mode": "refine"})
	want(t, r, http.StatusOK)
	if changed := list(t, obj(t, r.Body)["changed_criteria"]); len(changed) != 1 || changed[0] != "adult" {
		t.Fatalf("changed criteria: %s", r.Raw)
	}
	assertNoTrace(t, g)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// assertNoTrace: the sentinel provider key is in no table of the database
// (River's job rows included) and in no log line.
func assertNoTrace(t *testing.T, g *genFixture) {
	t.Helper()
	noTrace(t, g)
	var jobs int
	if err := g.Pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE kind = 'generate'`).Scan(&jobs); err != nil || jobs == 0 {
		t.Fatalf("no generation job rows to check (%d, %v)", jobs, err)
	}
}

// noTrace is assertNoTrace without requiring job rows (discovery runs
// none).
func noTrace(t *testing.T, g *genFixture) {
	t.Helper()
	ctx := context.Background()
	rows, err := g.Pool.Query(ctx, `SELECT table_schema || '.' || table_name FROM information_schema.tables
		WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	if len(tables) < 10 {
		t.Fatalf("only %d tables found: %v", len(tables), tables)
	}
	for _, table := range tables {
		var n int
		if err := g.Pool.QueryRow(ctx, `SELECT count(*) FROM `+table+` x WHERE x::text LIKE '%' || $1 || '%'`, sentinelKey).Scan(&n); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if n > 0 {
			t.Errorf("the provider key is in %d rows of %s", n, table)
		}
	}
	logs := g.logs.String()
	if strings.Contains(logs, sentinelKey) || strings.Contains(logs, "never-store-me") {
		t.Errorf("the provider key is in the logs")
	}
	if !strings.Contains(logs, "generate") && !strings.Contains(logs, "river") {
		t.Errorf("no log lines were captured, so the check proves nothing: %q", logs)
	}
}

// Provider failures end the generation with the provider's reason, an
// honest retryable flag and no draft; nothing leaks the key even when the
// provider echoes it.
func TestGenerateProviderFailures(t *testing.T) {
	t.Parallel()
	g := newGenFixture(t, "", 500*time.Millisecond)
	p := newGrantProject(t, g.Fixture, g.key)
	for _, tc := range []struct {
		turn      llmtest.Turn
		reason    string
		retryable bool
	}{
		{llmtest.Turn{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: ` + sentinelKey + `","type":"invalid_request_error"}}`}, "provider_auth_failed", false},
		{llmtest.Turn{Status: 429}, "provider_rate_limited", true},
		{llmtest.Turn{Status: 500}, "provider_unavailable", true},
		{llmtest.Turn{Hang: true}, "provider_timeout", true},
	} {
		g.model.Append(tc.turn)
		r := g.generate(t, p, "/generate-and-test", nil)
		d := obj(t, obj(t, r.Body)["detail"])
		if r.Status != http.StatusBadGateway || d["reason_code"] != tc.reason || d["retryable"] != tc.retryable || d["job_id"] == nil {
			t.Errorf("%s: %d %s", tc.reason, r.Status, r.Raw)
		}
		// The failed job's worker may still be winding down for a moment
		// after the answer (retry_readiness cleanup_pending); the status
		// must then become ready by itself.
		st := g.status(t, p)
		for deadline := time.Now().Add(20 * time.Second); st["retry_readiness"] == "cleanup_pending" && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
			st = g.status(t, p)
		}
		if e := obj(t, st["error_detail"]); st["state"] != "failed" || e["reason_code"] != tc.reason || st["retry_readiness"] != "ready" {
			t.Errorf("%s: status %v", tc.reason, st)
		}
		if strings.Contains(r.Raw, sentinelKey) {
			t.Errorf("%s: the answer carries the key", tc.reason)
		}
	}
	if r := p.do(t, http.MethodGet, "/draft", nil); r.Status != http.StatusConflict {
		t.Fatalf("a failed generation kept a draft: %s", r.Raw)
	}
	assertNoTrace(t, g)
}

// A prompt over the model's budget is refused before any model call, with
// the count, the budget and the largest sources; an unknown model and a
// missing key are refused too.
func TestGenerateRefusals(t *testing.T) {
	t.Parallel()
	g := newGenFixture(t, "tiny:2000,scripted-large:128000", 0)
	p := newGrantProject(t, g.Fixture, g.key)
	r := g.generate(t, p, "/generate", nil)
	d := obj(t, obj(t, r.Body)["detail"])
	if r.Status != 422 || d["reason_code"] != "token_budget_exceeded" || d["token_budget"].(float64) != 1500 ||
		d["token_count"].(float64) <= 1500 || len(list(t, d["largest_sources"])) != 1 {
		t.Fatalf("over budget: %s", r.Raw)
	}
	if n := len(g.model.Requests()); n != 0 {
		t.Fatalf("%d requests reached the model", n)
	}
	for _, tc := range []struct {
		headers map[string]string
		body    any
		reason  string
	}{
		{map[string]string{"x-api-key": g.key, "X-Provider-Key": sentinelKey}, map[string]any{"model": "gpt-99"}, "model_unknown"},
		// A key sent as the model's name is not quoted back.
		{map[string]string{"x-api-key": g.key}, map[string]any{"model": sentinelKey}, "model_unknown"},
		{map[string]string{"x-api-key": g.key}, map[string]any{"model": "scripted-large"}, "provider_key_missing"},
		{map[string]string{"x-api-key": g.key, "X-Provider-Key": sentinelKey}, map[string]any{"model": "scripted-large", "mode": "refine"}, "seed_not_found"},
	} {
		r := g.Do(t, http.MethodPost, p.base+"/generate", tc.headers, jsonBody(t, tc.body))
		if r.Status != 422 || reason(t, r) != tc.reason || strings.Contains(r.Raw, "sentinel") {
			t.Errorf("%s: %d %s", tc.reason, r.Status, r.Raw)
		}
	}
	// The key in the body works like the header.
	// The model's source questions come back, warn-only, and the review
	// counts the open one.
	question := "```questions\n" + `[{"quote":"may, at their discretion, approve the grant","question":"Does approval need a form?",` +
		`"candidate_readings":["yes","no"],"provisional_reading":"no"}]` + "\n```\n"
	g.model.Append(llmtest.Turn{Reply: reply(grantRules) + question, Check: func(r llmtest.Recorded) {
		if r.Authorization != "Bearer "+sentinelKey {
			t.Errorf("body key: the model got %q", r.Authorization)
		}
	}})
	r = call(t, g.Fixture, g.key, http.MethodPost, p.base+"/generate-and-test", map[string]any{"model": "scripted-large", "provider_key": sentinelKey})
	want(t, r, http.StatusOK)
	qs := list(t, obj(t, r.Body)["source_questions"])
	if len(qs) != 1 || obj(t, qs[0])["id"] != "q1" || obj(t, qs[0])["provisional_reading"] != "no" || obj(t, qs[0])["resolved"] != false {
		t.Fatalf("source questions: %s", r.Raw)
	}
	r = p.do(t, http.MethodPost, "/review", nil)
	if !strings.Contains(r.Raw, `"id":"source_questions","title"`) || !strings.Contains(r.Raw, "Does approval need a form?") {
		t.Fatalf("review of an open question: %s", r.Raw)
	}
	assertNoTrace(t, g)
}

// One active generation per project, whatever the race; a cancel ends it
// at once (failed, cancelled), frees the project, and a repeat says
// already_cancelled; cancelling an ended generation is 409.
func TestGenerateOneActiveAndCancel(t *testing.T) {
	t.Parallel()
	g := newGenFixture(t, "", 0)
	p := newGrantProject(t, g.Fixture, g.key)
	called := make(chan struct{}, 1)
	g.model.Append(llmtest.Turn{Hang: true, Check: func(llmtest.Recorded) { called <- struct{}{} }})
	const starts = 6
	statuses := make(chan int, starts)
	var wg sync.WaitGroup
	for range starts {
		wg.Go(func() { statuses <- g.generate(t, p, "/generate", nil).Status })
	}
	wg.Wait()
	close(statuses)
	counts := map[int]int{}
	for s := range statuses {
		counts[s]++
	}
	if counts[http.StatusAccepted] != 1 || counts[http.StatusConflict] != starts-1 {
		t.Fatalf("concurrent starts: %v", counts)
	}
	<-called
	st := g.status(t, p)
	job := st["job_id"].(string)
	if st["state"] != "running" || st["retry_readiness"] != "blocked" || obj(t, st["progress"])["stage"] != "call" {
		t.Fatalf("while the model thinks: %v", st)
	}
	r := call(t, g.Fixture, g.key, http.MethodPost, p.base+"/generation/cancel", map[string]any{"job_id": job})
	want(t, r, http.StatusOK)
	if b := obj(t, r.Body); b["cancel_result"] != "cancelled" || b["state"] != "failed" || b["outcome"] != "cancelled" {
		t.Fatalf("cancel: %s", r.Raw)
	}
	r = call(t, g.Fixture, g.key, http.MethodPost, p.base+"/generation/cancel", map[string]any{"job_id": job})
	if b := obj(t, r.Body); r.Status != 200 || b["cancel_result"] != "already_cancelled" {
		t.Fatalf("cancel again: %s", r.Raw)
	}
	// The worker stops (its model call is cancelled) and the project is
	// free for the next generation.
	deadline := time.Now().Add(10 * time.Second)
	for g.status(t, p)["worker_lifecycle"] != "stopped" {
		if time.Now().After(deadline) {
			t.Fatalf("the cancelled worker did not stop: %v", g.status(t, p))
		}
		time.Sleep(50 * time.Millisecond)
	}
	g.model.Append(llmtest.Turn{Reply: reply(grantRules)})
	r = g.generate(t, p, "/generate-and-test", nil)
	want(t, r, http.StatusOK)
	next := obj(t, r.Body)["job_id"].(string)
	r = call(t, g.Fixture, g.key, http.MethodPost, p.base+"/generation/cancel", map[string]any{"job_id": next})
	if r.Status != http.StatusConflict || reason(t, r) != "generation_not_active" {
		t.Fatalf("cancelling an ended generation: %s", r.Raw)
	}
	if r := call(t, g.Fixture, g.key, http.MethodPost, p.base+"/generation/cancel", map[string]any{"job_id": "gen_AAAAAAAAAAAAAAAA"}); r.Status != 404 {
		t.Fatalf("cancelling an unknown generation: %s", r.Raw)
	}
	assertNoTrace(t, g)
}

// Discovery proposes fields and sections with verified quotes.
func TestDiscover(t *testing.T) {
	t.Parallel()
	g := newGenFixture(t, "", 0)
	p := newGrantProject(t, g.Fixture, g.key)
	g.model.Append(llmtest.Turn{Reply: "```json\n" + `[{"id":"person.age","type":"int","question":"How old are you?","enum_values":[],"quote":"is at least 18 years old"},
		{"id":"review.officer","type":"bool","question":"Did the officer approve?","quote":"an invented clause"},{"id":"Bad Id","type":"int","quote":"x"}]` + "\n```"},
		llmtest.Turn{Reply: "```json\n" + `[{"section_id":"grant","name":"Grant","quote":"A person qualifies for the grant"}]` + "\n```"})
	r := g.generate(t, p, "/discover/fields", nil)
	want(t, r, http.StatusOK)
	fields := list(t, obj(t, r.Body)["fields"])
	if len(fields) != 2 || obj(t, fields[0])["verified"] != true || obj(t, fields[0])["source_id"] != p.sourceID || obj(t, fields[1])["verified"] != false {
		t.Fatalf("fields: %s", r.Raw)
	}
	r = g.generate(t, p, "/discover/sections", nil)
	want(t, r, http.StatusOK)
	if s := list(t, obj(t, r.Body)["sections"]); len(s) != 1 || obj(t, s[0])["verified"] != true {
		t.Fatalf("sections: %s", r.Raw)
	}
	noTrace(t, g)
}

// The model table is listed in the configured order, the default first and
// marked, each with its window and prompt budget; a key without
// projects:read is refused.
func TestListGenerationModels(t *testing.T) {
	t.Parallel()
	g := newGenFixture(t, "local-big:131072,local-small:8192:cl100k_base", 0)
	r := call(t, g.Fixture, g.key, http.MethodGet, "/generation/models", nil)
	want(t, r, http.StatusOK)
	got := list(t, obj(t, r.Body)["models"])
	wantModels := []map[string]any{
		{"name": "local-big", "context_window": 131072.0, "token_budget": float64(131072 - llm.DefaultReserved), "default": true},
		{"name": "local-small", "context_window": 8192.0, "token_budget": float64(8192 - 8192/4), "default": false},
	}
	if len(got) != len(wantModels) {
		t.Fatalf("models: %s", r.Raw)
	}
	for i, w := range wantModels {
		m := obj(t, got[i])
		for k, v := range w {
			if m[k] != v {
				t.Errorf("model %d %s = %v, want %v (%s)", i, k, m[k], v, r.Raw)
			}
		}
	}
	writer := tenantKey(t, g.Fixture, "acme", auth.ScopeProjectsWrite)
	if r := call(t, g.Fixture, writer, http.MethodGet, "/generation/models", nil); r.Status != http.StatusForbidden {
		t.Fatalf("without projects:read: %s", r.Raw)
	}
}
