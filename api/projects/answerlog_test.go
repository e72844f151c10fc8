package projects

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

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
}
