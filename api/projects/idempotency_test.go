package projects

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/store"
)

// TestRetriedUploadIsNotDuplicated: an upload retried with its
// Idempotency-Key (its caller saw no answer) gets the first answer and
// adds nothing; the same key with another body is refused; while the first
// request runs, a retry is told to wait; another tenant's equal key is its
// own. Before, each retry added the sources again.
func TestRetriedUploadIsNotDuplicated(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	r := call(t, f, key, http.MethodPost, "/projects/", map[string]any{"name": "FMLA", "section_id": "fmla_employee", "source_text": "", "test_cases": []any{}})
	want(t, r, http.StatusCreated)
	pid := obj(t, r.Body)["project_id"].(string)
	base := "/projects/" + pid
	upload := func(key, idem, text string) apitest.Response {
		return f.Do(t, http.MethodPost, base+"/sources", map[string]string{"x-api-key": key, "Idempotency-Key": idem},
			strings.NewReader(`{"filename": "statute.txt", "text": "`+text+`"}`))
	}

	first := upload(key, "upload-1", "An employee is eligible after 12 months.")
	want(t, first, http.StatusCreated)
	again := upload(key, "upload-1", "An employee is eligible after 12 months.")
	want(t, again, http.StatusCreated)
	if again.Raw != first.Raw || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the retry was not answered with the first answer:\nfirst %s\nretry %s (replayed %q)", first.Raw, again.Raw, again.Header.Get("Idempotent-Replayed"))
	}
	if n := len(list(t, obj(t, call(t, f, key, http.MethodGet, base+"/sources", nil).Body)["sources"])); n != 1 {
		t.Errorf("the project holds %d sources after an upload and its retry, want 1", n)
	}

	other := upload(key, "upload-1", "Another text under the same key.")
	if other.Status != http.StatusUnprocessableEntity || reason(t, other) != api.ReasonIdempotencyKeyReused {
		t.Errorf("the key reused for another body: %d %s", other.Status, other.Raw)
	}
	if bad := upload(key, strings.Repeat("k", 256), "x"); bad.Status != http.StatusBadRequest || reason(t, bad) != api.ReasonIdempotencyKeyInvalid {
		t.Errorf("a 256-character key: %d %s", bad.Status, bad.Raw)
	}

	// A claim whose request is still running (as a concurrent request would
	// leave it): a retry is 409 with Retry-After.
	running := store.IdempotencyKey{TenantID: "acme", Operation: "upload-project-sources", Key: "upload-2"}
	body := `{"filename": "statute.txt", "text": "Still uploading."}`
	hash := api.IdempotencyHash(http.MethodPost, api.RootPath+base+"/sources", "application/json", []byte(body))
	if claimed, _, err := f.Store.ClaimIdempotency(context.Background(), running, hash, time.Hour); err != nil || !claimed {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	busy := f.Do(t, http.MethodPost, base+"/sources", map[string]string{"x-api-key": key, "Idempotency-Key": "upload-2"}, strings.NewReader(body))
	if busy.Status != http.StatusConflict || reason(t, busy) != api.ReasonIdempotencyKeyInUse || busy.Header.Get("Retry-After") != "5" {
		t.Errorf("a retry while the first runs: %d %s (Retry-After %q)", busy.Status, busy.Raw, busy.Header.Get("Retry-After"))
	}

	// Another tenant's key of the same text is its own: its request runs
	// (and, the project being acme's, is a 404 like any other).
	beta := tenantKey(t, f, "beta", allProjectScopes...)
	if r := upload(beta, "upload-1", "An employee is eligible after 12 months."); r.Status != http.StatusNotFound {
		t.Errorf("beta's request under acme's key: %d %s", r.Status, r.Raw)
	}
}

// TestUploadAnswersAreWhatGenerationEnforces: every uploaded source lists
// its possible duplicates, [] when there are none (the member used to be
// left out), and the budget an upload reports is the one a generation with
// the default model is held to (uploads said 112,000 while such a
// generation was held to the default model's much larger window, so a
// project told it was over budget generated anyway).
func TestUploadAnswersAreWhatGenerationEnforces(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	r := call(t, f, key, http.MethodPost, "/projects/", map[string]any{"name": "FMLA", "section_id": "fmla_employee",
		"source_text": "An employee is eligible after 12 months.", "test_cases": []any{}})
	want(t, r, http.StatusCreated)
	created := obj(t, r.Body)
	src := obj(t, list(t, created["sources"])[0])
	if dups, ok := src["possible_duplicates"].([]any); !ok || len(dups) != 0 {
		t.Errorf("a source with no duplicate: possible_duplicates %#v, want []", src["possible_duplicates"])
	}
	if got, want := created["generation_token_budget"], float64(llm.DefaultModels().Default().Budget()); got != want {
		t.Errorf("generation_token_budget %v, want the default model's budget %v", got, want)
	}
	listed := obj(t, call(t, f, key, http.MethodGet, "/projects/"+created["project_id"].(string)+"/sources", nil).Body)
	if listed["generation_token_budget"] != created["generation_token_budget"] {
		t.Errorf("the listing reports %v, the upload %v", listed["generation_token_budget"], created["generation_token_budget"])
	}
}
