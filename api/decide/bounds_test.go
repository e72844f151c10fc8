package decide

import (
	"bytes"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/auth"
)

// TestMillionKeyBodyCostsLittle sends a keyed /decide whose field_values
// has a million unknown keys (17 MB, under the keyed body cap). It used to
// cost about 2 KB of server memory per key and answer 105 MB; now it is a
// 422 too_long before any member is converted, and the process allocates
// little beyond the body itself while answering it.
func TestMillionKeyBodyCostsLittle(t *testing.T) {
	f := newFixture(t, api.Config{})
	f.Publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	key := f.Key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Time{})
	var body bytes.Buffer
	body.WriteString(`{"ruleset_id":"acme/all-types","field_values":{`)
	for i := range 1_000_000 {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `"k%07d":1`, i)
	}
	body.WriteString(`}}`)
	size := body.Len()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := f.Do(t, http.MethodPost, "/decide", map[string]string{"Content-Type": "application/json", "X-Api-Key": key}, bytes.NewReader(body.Bytes()))
	runtime.ReadMemStats(&after)
	if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Raw, `"too_long"`) || len(r.Raw) > 4096 {
		t.Fatalf("a million keys: %d, %d bytes: %.300s", r.Status, len(r.Raw), r.Raw)
	}
	// What remains is the body itself: the server's read buffer as it
	// grows, the reader's view of it and the copy of field_values the
	// decoder keeps, about 4.5 body sizes (more under the race detector,
	// and the process's background work counts too). Bound: ten body
	// sizes; it was about 160.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > uint64(10*size) {
		t.Errorf("answering a %d-byte body allocated %d bytes; want under %d", size, grew, 10*size)
	}
}

// TestFieldErrorsAreListedUpToACap: 200 unknown keys (within the member cap)
// give 200 field errors; the answer lists the first MaxListedFieldErrors,
// counts the rest in a warning, and the record counts all of them.
func TestFieldErrorsAreListedUpToACap(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	f.Publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	key := f.Key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Time{})
	members := make([]string, 200)
	for i := range members {
		members[i] = fmt.Sprintf(`"nope.k%03d":1`, i)
	}
	r := f.Decide(t, key, `{"ruleset_id":"acme/all-types","field_values":{`+strings.Join(members, ",")+`}}`)
	if r.Status != http.StatusOK {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	listed, _ := r.Field(t, "field_errors").([]any)
	if len(listed) != resource.MaxListedFieldErrors {
		t.Errorf("listed %d field errors, want %d", len(listed), resource.MaxListedFieldErrors)
	}
	if !strings.Contains(r.Raw, `"field_errors_truncated"`) || !strings.Contains(r.Raw, "100 more were not listed") {
		t.Errorf("no warning counts the unlisted errors: %.500s", r.Raw)
	}
	id, _ := r.Field(t, "decision_id").(string)
	if rec := f.RecordOf(t, id); rec.FieldErrors != 200 {
		t.Errorf("the record counts %d field errors, want 200", rec.FieldErrors)
	}
	// At the member cap itself the request is read; one past it is not.
	many := make([]string, 257)
	for i := range many {
		many[i] = fmt.Sprintf(`"nope.k%03d":1`, i)
	}
	for n, want := range map[int]int{256: http.StatusOK, 257: http.StatusUnprocessableEntity} {
		r := f.Decide(t, key, `{"ruleset_id":"acme/all-types","field_values":{`+strings.Join(many[:n], ",")+`}}`)
		if r.Status != want {
			t.Errorf("%d members: %d, want %d", n, r.Status, want)
		}
	}
}
