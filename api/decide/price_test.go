package decide

import (
	"fmt"
	"net/http"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/metering"
)

// TestFreeKeyDailyQuotaOnDecide walks the free tier's daily quota on the
// real /decide: a new free key is served 500 decisions, each with the
// rate-limit headers, and refused the 501st with the documented body and
// headers; /usage then shows the count.
func TestFreeKeyDailyQuotaOnDecide(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	f.Publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	key := apitest.TierKey(t, f.Store, auth.TierFree, auth.ScopeDecide)
	body := `{"ruleset_id":"acme/all-types","field_values":{"a.count":3},"include_trace":true,"include_explanation":true}`
	for i := 1; i <= 500; i++ {
		r := f.Decide(t, key, body)
		if r.Status != http.StatusOK {
			t.Fatalf("decision %d: %d %s", i, r.Status, r.Raw)
		}
		// A key pays one per decision whatever the flags.
		apitest.CheckRateHeaders(t, r, "decide", 500, int64(500-i), time.Time{})
	}
	r := f.Decide(t, key, body)
	want := `{"detail":{"error":"too_many_requests","reason_code":"daily_quota_exceeded",
		"message":"The key has used its rolling 24-hour budget of 500 decide requests.",
		"hint":"Usage falls as hourly buckets leave the 24-hour window (see X-RateLimit-Reset); GET /usage shows every class. A higher tier is set through support."}}`
	if r.Status != http.StatusTooManyRequests || !reflect.DeepEqual(r.Body, apitest.JSONValue(t, want)) {
		t.Fatalf("decision 501: %d %s", r.Status, r.Raw)
	}
	if r.Header.Get("Retry-After") != "86400" {
		t.Fatalf("decision 501: Retry-After %q, want 86400", r.Header.Get("Retry-After"))
	}
	apitest.CheckRateHeaders(t, r, "decide", 500, 0, time.Time{})

	u := f.Do(t, http.MethodGet, "/usage", map[string]string{"x-api-key": key}, nil)
	if u.Status != http.StatusOK {
		t.Fatalf("usage: %d %s", u.Status, u.Raw)
	}
	apitest.NoRateHeaders(t, "/usage", u.Header)
	usage := u.Body.(map[string]any)
	decide := usage["classes"].([]any)[0].(map[string]any)
	if usage["tier"] != "free" || decide["class"] != "decide" || decide["used"] != 500.0 || decide["remaining"] != 0.0 || decide["budget"] != 500.0 {
		t.Fatalf("usage: %s", u.Raw)
	}
	rolling := usage["rolling"].(map[string]any)
	if rolling["7d"].(map[string]any)["decide"] != 500.0 || rolling["30d"].(map[string]any)["decide"] != 500.0 {
		t.Fatalf("usage rolling totals: %s", u.Raw)
	}
}

// TestAnonymousDecideCostUnits: on the real /decide an anonymous caller
// pays 11 units for trace plus explanation against 250 a day, and the
// limiter answers the anonymous shape of docs/metering.md with the rate-limit headers.
func TestAnonymousDecideCostUnits(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	f.Publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	body := `{"ruleset_id":"acme/all-types","field_values":{},"include_trace":true,"include_explanation":true}`
	start := time.Now()
	for i := int64(1); i <= 22; i++ {
		r := f.Decide(t, "", body)
		if r.Status != http.StatusOK {
			t.Fatalf("call %d: %d %s", i, r.Status, r.Raw)
		}
		apitest.CheckRateHeaders(t, r, "decide", 250, 250-11*i, time.Time{})
	}
	r := f.Decide(t, "", body)
	if r.Status != http.StatusTooManyRequests {
		t.Fatalf("call 23 (253 units > 250): %d %s", r.Status, r.Raw)
	}
	apitest.CheckRateHeaders(t, r, "decide", 250, 8, time.Time{})
	// Every unit was spent this hour (or, if the hour turned meanwhile, in
	// this hour and the one before): the request fits again once they leave
	// the window, 24 hours on, not at the next hourly boundary.
	got := r.Body.(map[string]any)
	retryAfter, _ := got["retry_after"].(float64)
	dayLater := func(t time.Time) float64 { return float64(metering.HourOf(t).Add(24 * time.Hour).Unix()) }
	if len(got) != 2 || got["error"] != "rate_limit_exceeded" || (retryAfter != dayLater(start) && retryAfter != dayLater(time.Now())) {
		t.Fatalf("anonymous 429 body %s, want retry_after %d", r.Raw, int64(dayLater(start)))
	}
	// The 8 units left still buy a plain decision.
	r = f.Decide(t, "", `{"ruleset_id":"acme/all-types","field_values":{}}`)
	if r.Status != http.StatusOK {
		t.Fatalf("plain call with 8 units left: %d %s", r.Status, r.Raw)
	}
	apitest.CheckRateHeaders(t, r, "decide", 250, 7, time.Time{})
}

// TestDecideNullMembers: an optional member sent as null is accepted and
// leaves the member as it was, in the decoder and in metering alike, so a
// flag followed by a null gets the flag and pays for it.
func TestDecideNullMembers(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	f.Publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	r := f.Decide(t, "", `{"ruleset_id":"acme/all-types","field_values":{"a.count":1},"rulebook_id":null,"release_id":null,`+
		`"include_trace":null,"include_explanation":null,"include_graph_overlay":null,"include_choice_context":null,`+
		`"include_timing":null,"no_cache":null,"inquiry_context":null,"caller_ref":null}`)
	if r.Status != http.StatusOK || r.Field(t, "trace") != nil {
		t.Fatalf("every optional member null: %d %s", r.Status, r.Raw)
	}
	apitest.CheckRateHeaders(t, r, "decide", 250, 249, time.Time{})
	r = f.Decide(t, "", `{"ruleset_id":"acme/all-types","field_values":{"a.count":1},"include_trace":true,"include_trace":null}`)
	if r.Status != http.StatusOK || r.Field(t, "trace") == nil {
		t.Fatalf("include_trace true then null: %d %s", r.Status, r.Raw)
	}
	apitest.CheckRateHeaders(t, r, "decide", 250, 249-6, time.Time{})
}

// TestAnonymousCostEveryFlagCombination sends every combination of the four
// costly flags from its own client address and reads the cost off
// X-RateLimit-Remaining.
func TestAnonymousCostEveryFlagCombination(t *testing.T) {
	t.Parallel()
	s := newFixture(t, api.Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	s.Publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	names := []string{"no_cache", "include_trace", "include_explanation", "include_graph_overlay"}
	for mask := range 16 {
		var members []string
		for bit, name := range names {
			if mask&(1<<bit) != 0 {
				members = append(members, `"`+name+`":true`)
			} else if mask%3 == 0 {
				members = append(members, `"`+name+`":false`)
			}
		}
		set := strings.Count(fmt.Sprintf("%b", mask), "1")
		client := fmt.Sprintf("198.51.100.%d", mask+1)
		r := s.Do(t, http.MethodPost, "/decide", map[string]string{"X-Forwarded-For": client},
			strings.NewReader(`{"ruleset_id":"acme/all-types","field_values":{}`+strings.Join(append([]string{""}, members...), ",")+"}"))
		if r.Status != http.StatusOK {
			t.Fatalf("flags %v: %d %s", members, r.Status, r.Raw)
		}
		apitest.CheckRateHeaders(t, r, "decide", 250, int64(250-1-5*set), time.Time{})
	}
	// A repeated member counts by its last occurrence, as the decoder reads
	// it: a leading false cannot hide a flag.
	r := s.Do(t, http.MethodPost, "/decide", map[string]string{"X-Forwarded-For": "198.51.100.200"},
		strings.NewReader(`{"ruleset_id":"acme/all-types","field_values":{},"include_trace":false,"include_trace":true}`))
	if r.Status != http.StatusOK {
		t.Fatalf("duplicate member: %d %s", r.Status, r.Raw)
	}
	apitest.CheckRateHeaders(t, r, "decide", 250, 244, time.Time{})
}

// TestAnonymousRefusedDecideCostsPlainUnit: a /decide body the reader
// refuses is priced at the plain unit whatever flags it carries, and is
// refused before anything is evaluated, so it buys nothing dearer.
func TestAnonymousRefusedDecideCostsPlainUnit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	f.Publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	remaining := int64(250)
	for _, body := range []string{
		`{"ruleset_id":"acme/all-types","field_values":5,"include_trace":true,"include_explanation":true,"no_cache":true}`,
		`{"ruleset_id":"acme/all-types","field_values":{},"include_trace":true,"include_graph_overlay":"yes"}`,
		`{"ruleset_id":"acme/all-types","include_trace":true,"include_explanation":true}`,
		`{"ruleset_id":"acme/all-types","field_values":{},"include_trace":true,"unknown":1}`,
		`{"ruleset_id":"acme/all-types","field_values":{},"include_trace":true`,
	} {
		r := f.Decide(t, "", body)
		remaining--
		if r.Status != http.StatusUnprocessableEntity && r.Status != http.StatusBadRequest {
			t.Fatalf("%s: %d %s, want a refusal", body, r.Status, r.Raw)
		}
		apitest.CheckRateHeaders(t, r, "decide", 250, remaining, time.Time{})
	}
}
