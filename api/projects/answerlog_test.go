package projects

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/worker"
)

// logging is acme/snap's answer logging path.
const logging = "/rulesets/acme%2Fsnap/answer-logging"

// decideLogged decides values on acme/snap as of date with key, and
// returns the envelope once its record is in the table.
func (f *impactFixture) decideLogged(t *testing.T, key string, values map[string]any, date string) map[string]any {
	t.Helper()
	r := call(t, f.Fixture, key, http.MethodPost, "/decide", map[string]any{"ruleset_id": "acme/snap", "field_values": values, "decision_date": date})
	want(t, r, http.StatusOK)
	env := obj(t, r.Body)
	f.RecordOf(t, env["decision_id"].(string))
	return env
}

// loggedAnswers are the answers kept for a decision, nil when none were.
func (f *impactFixture) loggedAnswers(t *testing.T, decisionID string) map[string]any {
	t.Helper()
	a, err := f.Store.LoggedAnswerOf(t.Context(), decisionID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var values map[string]any
	if err := json.Unmarshal(a.Answers, &values); err != nil {
		t.Fatal(err)
	}
	return values
}

var snapAnswers = map[string]any{"household.region": "alaska", "household.size": 2, "household.elderly_or_disabled_member": false,
	"income.gross_monthly": 2350, "income.net_monthly": 1500}

// TestAnswerLogging: off by default (no answers kept, no answers_logged
// in the envelope); on, the answers are kept with the setting's fields
// dropped and masked and the envelope names the setting; other tenants'
// and anonymous decisions are never kept; another tenant gets 404 for the
// setting; bad fields and retention are refused naming what is wrong;
// off again, nothing more is kept.
func TestAnswerLogging(t *testing.T) {
	t.Parallel()
	f := newImpactFixture(t, worker.ImpactConfig{})

	// Off by default.
	if r := call(t, f.Fixture, f.key, http.MethodGet, logging, nil); r.Status != http.StatusNotFound {
		t.Fatalf("GET before any PUT: %d %s, want 404", r.Status, r.Raw)
	}
	env := f.decideLogged(t, f.key, snapAnswers, "2026-01-15")
	if _, ok := env["answers_logged"]; ok {
		t.Errorf("answers_logged with logging off: %v", env["answers_logged"])
	}
	if got := f.loggedAnswers(t, env["decision_id"].(string)); got != nil {
		t.Errorf("answers kept with logging off: %v", got)
	}

	// Refusals: unknown fields (named), bad retention, another tenant.
	for _, tc := range []struct {
		name   string
		body   map[string]any
		status int
		names  []string
	}{
		{"unknown fields", map[string]any{"dropped": []string{"household.pets"}, "masked": []string{"income.gross_monthly", "person.age"}, "retention_days": 30},
			http.StatusUnprocessableEntity, []string{"household.pets", "person.age"}},
		{"retention zero", map[string]any{"retention_days": 0}, http.StatusUnprocessableEntity, []string{"retention_days"}},
		{"retention too long", map[string]any{"retention_days": 91}, http.StatusUnprocessableEntity, []string{"retention_days"}},
		{"retention missing", map[string]any{"dropped": []string{}}, http.StatusUnprocessableEntity, []string{"retention_days"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, f.Fixture, f.key, http.MethodPut, logging, tc.body)
			if r.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.Status, tc.status, r.Raw)
			}
			for _, n := range tc.names {
				if !strings.Contains(r.Raw, n) {
					t.Errorf("the refusal does not name %s: %s", n, r.Raw)
				}
			}
			if strings.Contains(r.Raw, "income.gross_monthly is not") {
				t.Errorf("a known field refused: %s", r.Raw)
			}
		})
	}
	other := tenantKey(t, f.Fixture, "globex", append(allProjectScopes, "decide")...)
	for _, method := range []string{http.MethodPut, http.MethodGet, http.MethodDelete} {
		if r := call(t, f.Fixture, other, method, logging, map[string]any{"retention_days": 30}); r.Status != http.StatusNotFound {
			t.Errorf("%s by another tenant: %d %s, want 404", method, r.Status, r.Raw)
		}
	}

	// On.
	r := call(t, f.Fixture, f.key, http.MethodPut, logging, map[string]any{"dropped": []string{"income.net_monthly"},
		"masked": []string{"household.region", "household.region"}, "retention_days": 30})
	want(t, r, http.StatusOK)
	setting := obj(t, r.Body)
	version := setting["setting_version"].(float64)
	if setting["slug"] != "acme/snap" || !reflect.DeepEqual(setting["dropped"], []any{"income.net_monthly"}) ||
		!reflect.DeepEqual(setting["masked"], []any{"household.region"}) || setting["retention_days"] != 30.0 || version < 1 {
		t.Errorf("setting = %v", setting)
	}
	if r := call(t, f.Fixture, other, http.MethodGet, logging, nil); r.Status != http.StatusNotFound {
		t.Errorf("GET of an existing setting by another tenant: %d, want 404", r.Status)
	}
	r = call(t, f.Fixture, f.key, http.MethodGet, logging, nil)
	want(t, r, http.StatusOK)
	if !reflect.DeepEqual(obj(t, r.Body), setting) {
		t.Errorf("GET = %v, want the PUT's %v", r.Body, setting)
	}

	env = f.decideLogged(t, f.key, snapAnswers, "2026-01-15")
	wantLogged := map[string]any{"setting_version": version, "dropped": []any{"income.net_monthly"}, "masked": []any{"household.region"}, "retention_days": 30.0}
	if !reflect.DeepEqual(env["answers_logged"], wantLogged) {
		t.Errorf("answers_logged = %v, want %v", env["answers_logged"], wantLogged)
	}
	id := env["decision_id"].(string)
	wantKept := map[string]any{"household.region": "[masked]", "household.size": 2.0, "household.elderly_or_disabled_member": false, "income.gross_monthly": 2350.0}
	if got := f.loggedAnswers(t, id); !reflect.DeepEqual(got, wantKept) {
		t.Errorf("answers kept = %v, want %v", got, wantKept)
	}
	a, err := f.Store.LoggedAnswerOf(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	decided, _ := time.Parse(time.RFC3339Nano, env["decision_time"].(string))
	if a.SettingVersion != int64(version) || !a.ExpiresAt.Equal(decided.AddDate(0, 0, 30).Truncate(time.Microsecond)) || a.DecisionDate.Format(time.DateOnly) != "2026-01-15" {
		t.Errorf("kept under %d until %s as of %s, want %v until %s as of 2026-01-15", a.SettingVersion, a.ExpiresAt, a.DecisionDate, version, decided.AddDate(0, 0, 30))
	}
	// The record itself is what it always was.
	if rec := f.RecordOf(t, id); rec.InputsHash != env["inputs_hash"] {
		t.Errorf("record's inputs hash %s, envelope's %s", rec.InputsHash, env["inputs_hash"])
	}

	// Another tenant's and anonymous decisions under the slug are never
	// kept (the slug is public for this).
	f.Publish(t, "acme", "acme/snap", []byte(snapText(t, 2292)), true)
	for name, key := range map[string]string{"another tenant": other, "anonymous": ""} {
		env := f.decideLogged(t, key, snapAnswers, "2026-01-15")
		if _, ok := env["answers_logged"]; ok || f.loggedAnswers(t, env["decision_id"].(string)) != nil {
			t.Errorf("%s's decision was logged: %v", name, env["answers_logged"])
		}
	}

	// Off again.
	want(t, call(t, f.Fixture, f.key, http.MethodDelete, logging, nil), http.StatusNoContent)
	env = f.decideLogged(t, f.key, snapAnswers, "2026-01-15")
	if _, ok := env["answers_logged"]; ok || f.loggedAnswers(t, env["decision_id"].(string)) != nil {
		t.Errorf("logged after DELETE: %v", env["answers_logged"])
	}
	if r := call(t, f.Fixture, f.key, http.MethodDelete, logging, nil); r.Status != http.StatusNotFound {
		t.Errorf("second DELETE: %d, want 404", r.Status)
	}

	// A rulebook's slug has its own setting: on for the rulebook, its
	// decisions are kept, while the ruleset's (off) are not.
	books := tenantKey(t, f.Fixture, "acme", "decide", "rulebooks:read", "rulebooks:write")
	want(t, call(t, f.Fixture, books, http.MethodPost, "/rulebooks/", map[string]any{"name": "Book", "slug": "acme/book",
		"ruleset_refs": []any{map[string]any{"section_id": "snap_income"}}}), http.StatusCreated)
	want(t, call(t, f.Fixture, books, http.MethodPost, "/rulebooks/acme%2Fbook/activate", nil), http.StatusOK)
	bookLogging := "/rulebooks/acme%2Fbook/answer-logging"
	if r := call(t, f.Fixture, books, http.MethodPut, bookLogging, map[string]any{"dropped": []string{"person.age"}, "retention_days": 5}); r.Status != http.StatusUnprocessableEntity ||
		!strings.Contains(r.Raw, "person.age is not a field of the rulebook acme/book") {
		t.Errorf("a rulebook's unknown field: %d %s, want 422 naming it", r.Status, r.Raw)
	}
	want(t, call(t, f.Fixture, books, http.MethodPut, bookLogging, map[string]any{"dropped": []string{"income.net_monthly"}, "retention_days": 5}), http.StatusOK)
	r = call(t, f.Fixture, books, http.MethodPost, "/decide", map[string]any{"rulebook_id": "acme/book", "field_values": snapAnswers, "decision_date": "2026-01-15"})
	want(t, r, http.StatusOK)
	env = obj(t, r.Body)
	f.RecordOf(t, env["decision_id"].(string))
	if logged, _ := env["answers_logged"].(map[string]any); logged == nil || logged["retention_days"] != 5.0 {
		t.Errorf("rulebook decision's answers_logged = %v, want the rulebook's setting", env["answers_logged"])
	}
	if got := f.loggedAnswers(t, env["decision_id"].(string)); got == nil || got["income.net_monthly"] != nil || got["income.gross_monthly"] != 2350.0 {
		t.Errorf("rulebook decision's answers kept = %v, want all but income.net_monthly", got)
	}
	env = f.decideLogged(t, f.key, snapAnswers, "2026-01-15")
	if _, ok := env["answers_logged"]; ok {
		t.Errorf("a ruleset decision logged under its rulebook's setting: %v", env["answers_logged"])
	}
}

// TestCaseloadFromLog: the answers logged for a slug make a caseload
// (one case per decision, its decision date, its decision_id as
// reference) whose impact run reports what the run of the uploaded file
// of the same answers reports; masked answers are counted as undecided;
// the caseload keeps the upload's limits; a slug not the tenant's is 404.
func TestCaseloadFromLog(t *testing.T) {
	t.Parallel()
	f := newImpactFixture(t, worker.ImpactConfig{})
	want(t, call(t, f.Fixture, f.key, http.MethodPut, logging, map[string]any{"retention_days": 30}), http.StatusOK)

	// Decide every case, and write the file of the same answers, each
	// named by its decision.
	cases, _ := snapCaseload(60)
	var file strings.Builder
	for _, c := range cases {
		date := c.DecisionDate
		if date == "" {
			date = "2026-01-15"
		}
		env := f.decideLogged(t, f.key, c.FieldValues, date)
		line, err := json.Marshal(snapCase{FieldValues: c.FieldValues, DecisionDate: date, Reference: env["decision_id"].(string)})
		if err != nil {
			t.Fatal(err)
		}
		file.Write(line)
		file.WriteString("\n")
	}
	uploaded := f.uploaded(t, file.String())

	r := call(t, f.Fixture, f.key, http.MethodPost, f.project+"/caseloads/from-log", map[string]any{"slug": "acme/snap", "retention_days": 7})
	want(t, r, http.StatusCreated)
	fromLog := obj(t, r.Body)
	if fromLog["rows"] != float64(len(cases)) || fromLog["cases"] != float64(len(cases)) || fromLog["format"] != "jsonl" ||
		fromLog["filename"] != "acme_snap.log.jsonl" || len(fromLog["bad_rows"].([]any)) != 0 {
		t.Errorf("caseload from the log = %v, want %d cases in JSON Lines", fromLog, len(cases))
	}
	if expires, _ := time.Parse(time.RFC3339Nano, fromLog["expires_at"].(string)); time.Until(expires) > 7*24*time.Hour {
		t.Errorf("expires_at %s: more than the 7 days asked for", fromLog["expires_at"])
	}

	reports := map[string]map[string]any{}
	for name, id := range map[string]string{"uploaded": uploaded, "from the log": fromLog["caseload_id"].(string)} {
		run := f.ended(t, f.key, f.start(t, map[string]any{"caseload_id": id, "candidate": map[string]any{"slug": "acme/snap", "version": "v2"},
			"baseline": map[string]any{"version": "v1"}, "examples": 100}))
		if run["state"] != "succeeded" {
			t.Fatalf("run over the caseload %s: %v", name, run)
		}
		reports[name] = obj(t, run["report"])
	}
	if c := obj(t, reports["from the log"]["changed"]); c["count"] == 0.0 {
		t.Fatal("no case changes outcome: the comparison tests nothing")
	}
	if !reflect.DeepEqual(reports["from the log"], reports["uploaded"]) {
		t.Errorf("report over the log\n%v\nwant the uploaded file's\n%v", reports["from the log"], reports["uploaded"])
	}

	// A period without decisions makes an empty caseload; a slug of no
	// one's, or of another tenant's, is 404; so is another tenant's call.
	r = call(t, f.Fixture, f.key, http.MethodPost, f.project+"/caseloads/from-log", map[string]any{"slug": "acme/snap", "until": "2020-01-01T00:00:00Z"})
	want(t, r, http.StatusCreated)
	if c := obj(t, r.Body); c["rows"] != 0.0 {
		t.Errorf("caseload of a period before any decision: %v, want no rows", c)
	}
	f.Publish(t, "globex", "globex/snap", []byte(strings.Replace(snapText(t, 2292), "acme/snap", "globex/snap", 1)), true)
	other := tenantKey(t, f.Fixture, "globex", allProjectScopes...)
	for _, tc := range []struct{ name, key, slug string }{
		{"unknown slug", f.key, "acme/none"}, {"another tenant's slug", f.key, "globex/snap"}, {"another tenant", other, "acme/snap"},
	} {
		if r := call(t, f.Fixture, tc.key, http.MethodPost, f.project+"/caseloads/from-log", map[string]any{"slug": tc.slug}); r.Status != http.StatusNotFound {
			t.Errorf("%s: %d %s, want 404", tc.name, r.Status, r.Raw)
		}
	}

	// Masked answers: each case whose gross income is masked is
	// undecided, counted under the field.
	want(t, call(t, f.Fixture, f.key, http.MethodPut, logging, map[string]any{"masked": []string{"income.gross_monthly"}, "retention_days": 30}), http.StatusOK)
	since := time.Now().UTC().Format(time.RFC3339Nano)
	f.decideLogged(t, f.key, snapAnswers, "2026-01-15")
	r = call(t, f.Fixture, f.key, http.MethodPost, f.project+"/caseloads/from-log", map[string]any{"slug": "acme/snap", "since": since})
	want(t, r, http.StatusCreated)
	run := f.ended(t, f.key, f.start(t, map[string]any{"caseload_id": obj(t, r.Body)["caseload_id"], "candidate": map[string]any{"slug": "acme/snap", "version": "v2"},
		"baseline": map[string]any{"version": "v1"}}))
	if undecided, _ := json.Marshal(obj(t, run["report"])["undecided"]); !strings.Contains(string(undecided), "income.gross_monthly") {
		t.Errorf("undecided = %s, want the masked field named", undecided)
	}
}

// TestAnswerLoggingKeepsWhatTheDatabaseTakes: answers PostgreSQL's jsonb
// cannot hold (a NUL character, which /decide takes) do not cost the
// decision its record: each record reaches the table, an answer holding a
// NUL at any depth is kept masked, a member whose name holds one is left
// out, and text that only spells \u0000 is kept as it is.
func TestAnswerLoggingKeepsWhatTheDatabaseTakes(t *testing.T) {
	t.Parallel()
	f := newImpactFixture(t, worker.ImpactConfig{})
	want(t, call(t, f.Fixture, f.key, http.MethodPut, logging, map[string]any{"retention_days": 30}), http.StatusOK)
	for _, tc := range []struct {
		name, values string
		kept         map[string]any
	}{
		{"NUL in an answer", `{"household.region": "ala\u0000ska", "household.size": 2}`,
			map[string]any{"household.region": "[masked]", "household.size": 2.0}},
		{"NUL deep in an answer", `{"household.size": 2, "note": [{"a": "x\u0000"}]}`,
			map[string]any{"household.size": 2.0, "note": "[masked]"}},
		{"NUL in a member's name", `{"household.size": 2, "no\u0000te": "ab", "other": {"k\u0000": 1}}`,
			map[string]any{"household.size": 2.0, "other": "[masked]"}},
		{"an escaped backslash before u0000", `{"household.region": "a\\u0000b", "household.size": 2}`,
			map[string]any{"household.region": `a\u0000b`, "household.size": 2.0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"ruleset_id": "acme/snap", "decision_date": "2026-01-15", "field_values": ` + tc.values + `}`
			r := send(t, f.Fixture, f.key, http.MethodPost, "/decide", "application/json", []byte(body))
			want(t, r, http.StatusOK)
			id := obj(t, r.Body)["decision_id"].(string)
			f.RecordOf(t, id)
			if got := f.loggedAnswers(t, id); !reflect.DeepEqual(got, tc.kept) {
				t.Errorf("answers kept = %v, want %v", got, tc.kept)
			}
		})
	}
}

// TestCaseloadFromLogKeepsNoAnswerPastItsRetention: a caseload made from
// the log holds copies of the answers, so it is deleted no later than the
// first of them would be, whatever retention_days it asks for; a period
// with no answers keeps the retention asked for.
func TestCaseloadFromLogKeepsNoAnswerPastItsRetention(t *testing.T) {
	t.Parallel()
	f := newImpactFixture(t, worker.ImpactConfig{})
	want(t, call(t, f.Fixture, f.key, http.MethodPut, logging, map[string]any{"retention_days": 3}), http.StatusOK)
	first := f.decideLogged(t, f.key, snapAnswers, "2026-01-15")
	want(t, call(t, f.Fixture, f.key, http.MethodPut, logging, map[string]any{"retention_days": 30}), http.StatusOK)
	f.decideLogged(t, f.key, snapAnswers, "2026-01-15")
	kept, err := f.Store.LoggedAnswerOf(t.Context(), first["decision_id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		body map[string]any
		// latest is the latest expires_at allowed; zero for the
		// retention asked for.
		latest time.Time
	}{
		{"default retention", map[string]any{"slug": "acme/snap"}, kept.ExpiresAt},
		{"longer retention asked for", map[string]any{"slug": "acme/snap", "retention_days": 60}, kept.ExpiresAt},
		{"shorter retention asked for", map[string]any{"slug": "acme/snap", "retention_days": 1}, time.Now().Add(24 * time.Hour)},
		{"no answers", map[string]any{"slug": "acme/snap", "until": "2020-01-01T00:00:00Z", "retention_days": 10}, time.Now().Add(10 * 24 * time.Hour)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, f.Fixture, f.key, http.MethodPost, f.project+"/caseloads/from-log", tc.body)
			want(t, r, http.StatusCreated)
			c := obj(t, r.Body)
			expires, err := time.Parse(time.RFC3339Nano, c["expires_at"].(string))
			if err != nil {
				t.Fatal(err)
			}
			if expires.After(tc.latest.Add(time.Minute)) {
				t.Errorf("the caseload expires at %s, past %s", expires, tc.latest)
			}
			if expires.Before(tc.latest.Add(-time.Hour)) {
				t.Errorf("the caseload expires at %s, well before %s", expires, tc.latest)
			}
			want(t, call(t, f.Fixture, f.key, http.MethodDelete, f.project+"/caseloads/"+c["caseload_id"].(string), nil), http.StatusNoContent)
		})
	}
}

// TestCaseloadFilenameTheDatabaseCannotKeep: a caseload's name holding a
// NUL character, or bytes that are not UTF-8, which the database cannot
// store as text, is refused with a 422 naming the filename, for an upload
// and for a caseload made from the log, rather than failing on the server.
func TestCaseloadFilenameTheDatabaseCannotKeep(t *testing.T) {
	t.Parallel()
	f := newImpactFixture(t, worker.ImpactConfig{})
	_, body := snapCaseload(3)
	for _, tc := range []struct {
		name string
		do   func() apitest.Response
		loc  string
	}{
		{"upload, NUL", func() apitest.Response {
			return f.upload(t, f.key, "application/x-ndjson", "?filename=a%00b.jsonl", body)
		}, `["query","filename"]`},
		{"upload, not UTF-8", func() apitest.Response {
			return f.upload(t, f.key, "application/x-ndjson", "?filename=a%FFb.jsonl", body)
		}, `["query","filename"]`},
		{"from the log, NUL", func() apitest.Response {
			return call(t, f.Fixture, f.key, http.MethodPost, f.project+"/caseloads/from-log", map[string]any{"slug": "acme/snap", "filename": "a\x00b"})
		}, `["body","filename"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.do()
			if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Raw, tc.loc) {
				t.Errorf("%d %s, want 422 at %s", r.Status, r.Raw, tc.loc)
			}
		})
	}
	if r := call(t, f.Fixture, f.key, http.MethodGet, f.project+"/caseloads", nil); len(obj(t, r.Body)["caseloads"].([]any)) != 0 {
		t.Errorf("caseloads kept: %s", r.Raw)
	}
}

// TestCaseloadFromLogByReference: a concrete ruleset_id names its slug,
// as it does for the setting: the caseload holds the slug's logged
// answers and is named after the slug, not an empty file of no slug's.
func TestCaseloadFromLogByReference(t *testing.T) {
	t.Parallel()
	f := newImpactFixture(t, worker.ImpactConfig{})
	want(t, call(t, f.Fixture, f.key, http.MethodPut, "/rulesets/"+f.v1+"/answer-logging", map[string]any{"retention_days": 30}), http.StatusOK)
	f.decideLogged(t, f.key, snapAnswers, "2026-01-15")
	f.decideLogged(t, f.key, snapAnswers, "2026-01-15")
	for _, ref := range []string{"acme/snap", f.v1, f.v2} {
		r := call(t, f.Fixture, f.key, http.MethodPost, f.project+"/caseloads/from-log", map[string]any{"slug": ref})
		want(t, r, http.StatusCreated)
		if c := obj(t, r.Body); c["rows"] != 2.0 || c["filename"] != "acme_snap.log.jsonl" {
			t.Errorf("caseload from the log of %s: %v rows named %v, want 2 named acme_snap.log.jsonl", ref, c["rows"], c["filename"])
		}
	}
}
