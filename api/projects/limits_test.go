package projects

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/eligo/eligo/authoring"
	"github.com/eligo/eligo/authoring/source/sourcetest"
	"github.com/eligo/eligo/store"
)

// The probe's upload: a PDF of a few hundred kilobytes whose pages repeat
// one content stream extracts to far more text than a source may hold. It
// is refused (413 naming the limit) with nothing stored, where it took
// the server from 58 MB to 2.54 GB.
func TestUploadAmplifyingPDF(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)
	pdf := sourcetest.Amplifying(330) // 70 KB of file, 11 MB of text
	ct, body := form(t, "amplified.pdf", "application/pdf", pdf, nil)
	r := send(t, f, key, http.MethodPost, g.base+"/sources", ct, body)
	if r.Status != http.StatusRequestEntityTooLarge || reason(t, r) != authoring.ReasonSourceTextTooLarge || !strings.Contains(r.Raw, "10485760 bytes") {
		t.Fatalf("amplifying PDF: %d %s", r.Status, r.Raw)
	}
	r = g.do(t, http.MethodGet, "/sources", nil)
	if n := len(list(t, obj(t, r.Body)["sources"])); n != 1 {
		t.Fatalf("%d sources after the refusal, want the first only", n)
	}
}

// Guidance goes whole into every prompt: notes that would take the
// project's guidance past its limit are refused, naming it.
func TestGuidanceTextLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	key := tenantKey(t, f, "acme", allProjectScopes...)
	g := newGrantProject(t, f, key)
	note := map[string]any{"guidance_text": strings.Repeat("Read the act. ", 19_000/14), "process_type": "rule_generation"}
	for i := range 13 { // 13 notes of 19 KB: 247 KB, within 256 KiB
		if r := g.do(t, http.MethodPost, "/guidance", note); r.Status != http.StatusCreated {
			t.Fatalf("note %d: %d %.300s", i+1, r.Status, r.Raw)
		}
	}
	r := g.do(t, http.MethodPost, "/guidance", note)
	if r.Status != http.StatusRequestEntityTooLarge || reason(t, r) != authoring.ReasonGuidanceLimit || !strings.Contains(r.Raw, "262144 bytes of guidance text") {
		t.Fatalf("the 14th note: %d %.300s", r.Status, r.Raw)
	}
}

// A tenant's generations under way are limited although the generate
// class is only metered: past the limit a start is 429 with a reason and
// Retry-After, before anything is planned or sent to the model.
func TestGenerationStartsLimitedPerTenant(t *testing.T) {
	t.Parallel()
	g := newGenFixture(t, "", 0)
	// Generations already queued in the tenant's other projects, owned by
	// this process's queue so they stay queued.
	for range authoring.DefaultMaxActiveGenerations {
		other := newGrantProject(t, g.Fixture, g.key)
		id := strings.TrimPrefix(other.base, "/projects/")
		if _, err := g.Store.StartGeneration(context.Background(), store.Generation{ProjectID: id, TenantID: "acme", Mode: "fresh",
			Model: "scripted-large", OwnerQueue: g.gen.Queue()}, func(context.Context, pgx.Tx) (int64, error) { return 1, nil }); err != nil {
			t.Fatal(err)
		}
	}
	p := newGrantProject(t, g.Fixture, g.key)
	for _, rest := range []string{"/generate", "/generate-and-test"} {
		r := g.generate(t, p, rest, nil)
		if r.Status != http.StatusTooManyRequests || reason(t, r) != authoring.ReasonGenerationLimit ||
			r.Header.Get("Retry-After") != "30" || !strings.Contains(r.Raw, "at most 3 generations") {
			t.Fatalf("%s past the limit: %d %v %s", rest, r.Status, r.Header, r.Raw)
		}
	}
	if n := len(g.model.Requests()); n != 0 {
		t.Fatalf("%d requests reached the model", n)
	}
	if st := g.status(t, p); st["state"] != "idle" {
		t.Fatalf("the refused project's status: %v", st)
	}
}
