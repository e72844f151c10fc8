package decide

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/decisionlog"
	"github.com/eligo/eligo/engine"
)

// perCall are the envelope members stamped on every call.
var perCall = []string{"decision_id", "decision_time", "timing"}

func withoutPerCall(body any) map[string]any {
	m := map[string]any{}
	for k, v := range body.(map[string]any) {
		if !slices.Contains(perCall, k) {
			m[k] = v
		}
	}
	return m
}

func TestDecideCache(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	f.Publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	key := f.Key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Time{})
	const flags = `"include_trace":true,"include_explanation":true`
	first := f.Decide(t, key, `{"ruleset_id":"acme/all-types",`+flags+`,"field_values":{"a.count":1,"a.kind":"x"}}`)
	// The same request spelt differently: key order, 1 vs 1.0.
	hit := f.Decide(t, key, `{"ruleset_id":"acme/all-types",`+flags+`,"field_values":{"a.kind":"x","a.count":1.0}}`)
	bypass := f.Decide(t, key, `{"ruleset_id":"acme/all-types",`+flags+`,"no_cache":true,"field_values":{"a.count":1,"a.kind":"x"}}`)
	otherFlags := f.Decide(t, key, `{"ruleset_id":"acme/all-types","field_values":{"a.count":1,"a.kind":"x"}}`)

	want := []struct {
		name     string
		r        apitest.Response
		cacheHit bool
	}{{"first", first, false}, {"identical", hit, true}, {"no_cache", bypass, false}, {"other flags", otherFlags, false}}
	ids := map[string]bool{}
	for _, w := range want {
		if w.r.Status != 200 {
			t.Fatalf("%s: %d %s", w.name, w.r.Status, w.r.Raw)
		}
		id := w.r.Field(t, "decision_id").(string)
		if ids[id] {
			t.Errorf("%s: decision_id %s reused", w.name, id)
		}
		ids[id] = true
		rec := f.RecordOf(t, id)
		if rec.CacheHit != w.cacheHit {
			t.Errorf("%s: record cache_hit %v, want %v", w.name, rec.CacheHit, w.cacheHit)
		}
	}
	if !reflect.DeepEqual(withoutPerCall(first.Body), withoutPerCall(hit.Body)) ||
		!reflect.DeepEqual(withoutPerCall(first.Body), withoutPerCall(bypass.Body)) {
		t.Errorf("a cache hit differs from the evaluation beyond the per-call members:\n%s\n%s", first.Raw, hit.Raw)
	}
	if first.Field(t, "decision_time") == hit.Field(t, "decision_time") && first.Field(t, "decision_id") == hit.Field(t, "decision_id") {
		t.Error("per-call members were cached")
	}
}

// TestDecideCacheTellsApartWhatInputsHashCannot: the cache keys on the
// converted values, so two answers with one inputs_hash but different
// meanings never share a cached decision.
func TestDecideCacheTellsApartWhatInputsHashCannot(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	f.Publish(t, "acme", "acme/big", []byte(apitest.BigIntRules), true)
	below := f.Decide(t, "", `{"ruleset_id":"acme/big","field_values":{"x.n":9007199254740992}}`)
	above := f.Decide(t, "", `{"ruleset_id":"acme/big","field_values":{"x.n":9007199254740993}}`)
	if below.Field(t, "inputs_hash") != above.Field(t, "inputs_hash") {
		t.Fatal("premise: RFC 8785 should canonicalise both integers alike")
	}
	if below.Field(t, "decision") != "not_eligible" || above.Field(t, "decision") != "eligible" {
		t.Errorf("decisions %v and %v, want not_eligible and eligible", below.Field(t, "decision"), above.Field(t, "decision"))
	}
}

func TestDecideCacheExpires(t *testing.T) {
	t.Parallel()
	const ttl = 2 * time.Second
	f := newFixtureWith(t, api.Config{}, Config{CacheTTL: ttl}, nil)
	f.Publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	// Two back-to-back calls: the second is a hit when it comes within the
	// TTL of the first. A stall of the whole machine past the TTL makes
	// the pair prove nothing, so it is tried again with fresh answers
	// (a fresh cache entry) rather than failed.
	var ids []string
	var body string
	for attempt := 1; ids == nil; attempt++ {
		if attempt > 5 {
			t.Fatalf("no two calls within %s of each other in 5 attempts", ttl)
		}
		body = fmt.Sprintf(`{"ruleset_id":"acme/all-types","field_values":{"a.count":%d}}`, attempt)
		start := time.Now()
		pair := []string{f.Decide(t, "", body).Field(t, "decision_id").(string), f.Decide(t, "", body).Field(t, "decision_id").(string)}
		if time.Since(start) < ttl {
			ids = pair
		}
	}
	// The third call comes well after the entry's TTL, however slow the
	// machine: it must be computed afresh.
	time.Sleep(ttl + 500*time.Millisecond)
	ids = append(ids, f.Decide(t, "", body).Field(t, "decision_id").(string))
	hits := []bool{}
	for _, id := range ids {
		hits = append(hits, f.RecordOf(t, id).CacheHit)
	}
	if !slices.Equal(hits, []bool{false, true, false}) {
		t.Errorf("cache hits %v, want [false true false]", hits)
	}
}

// TestDecisionRecords checks what a record holds: the envelope's identity
// and aggregate metadata, the tenant for keyed callers, never field values.
func TestDecisionRecords(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	pub := f.Publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	key := f.Key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Time{})
	const secret = "2001-02-03"
	cases := []struct {
		name, key, extra, tenant string
		flags                    []string
	}{
		{"anonymous", "", `,"caller_ref":{"case":"c1"}`, "", nil},
		{"keyed with flags", key, `,"include_trace":true,"include_timing":true,"no_cache":true,"caller_ref":{"case":"c1"}`, "acme",
			[]string{"include_trace", "include_timing", "no_cache"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.Decide(t, c.key, `{"ruleset_id":"acme/all-types","field_values":{"a.born":"`+secret+`","a.nope":1}`+c.extra+`}`)
			rec := f.RecordOf(t, r.Field(t, "decision_id").(string))
			if rec.TenantID != c.tenant || rec.RulesetID != pub.RulesetID || rec.Slug != "acme/all-types" ||
				rec.RulesetVersion != pub.Version || rec.ContentDigest != pub.ContentDigest ||
				rec.EngineVersion != engine.Version || rec.Outcome != "undetermined" ||
				rec.InputsHash != r.Field(t, "inputs_hash") || !slices.Equal(rec.Flags, c.flags) ||
				rec.FieldsProvided != 2 || rec.FieldErrors != 1 {
				t.Errorf("record %+v does not match envelope %s", rec, r.Raw)
			}
			if (c.tenant == "") != (rec.CallerRef == nil) {
				t.Errorf("caller_ref %v stored for tenant %q", rec.CallerRef, c.tenant)
			}
			var row string
			if err := f.Store.Pool().QueryRow(context.Background(),
				`SELECT row_to_json(d)::text FROM decisions d WHERE decision_id = $1`, rec.DecisionID).Scan(&row); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(row, secret) || strings.Contains(row, "a.nope") {
				t.Errorf("the record holds raw field values: %s", row)
			}
		})
	}
}

// TestDecisionRecordedBeforeAnswered issues decisions concurrently and
// finds each one's record in the table the moment its 200 arrives, before
// anything is flushed or shut down; then shuts the server down and finds
// that a decision after Close is refused rather than answered.
func TestDecisionRecordedBeforeAnswered(t *testing.T) {
	t.Parallel()
	f := newFixtureWith(t, api.Config{}, Config{}, &decisionlog.Config{BatchSize: 64, Linger: time.Millisecond})
	f.Publish(t, "acme", "acme/all-types", []byte(allTypesRules), true)
	// A key keeps the 400 calls within one tier's daily budget.
	key := f.Key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Time{})
	var (
		mu  sync.Mutex
		ids []string
		wg  sync.WaitGroup
	)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				body := `{"ruleset_id":"acme/all-types","field_values":{"a.count":` + string(rune('0'+(w+i)%10)) + `}}`
				req, _ := http.NewRequest(http.MethodPost, f.URL+"/decide", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("x-api-key", key)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				var env struct {
					DecisionID string `json:"decision_id"`
				}
				err = json.NewDecoder(res.Body).Decode(&env)
				res.Body.Close()
				if err != nil || res.StatusCode != 200 {
					t.Errorf("status %d, %v", res.StatusCode, err)
					return
				}
				if _, err := f.Store.DecisionByID(context.Background(), env.DecisionID); err != nil {
					t.Errorf("decision %s answered before its record was written: %v", env.DecisionID, err)
				}
				mu.Lock()
				ids = append(ids, env.DecisionID)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	f.HTTP.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.Server.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 400 {
		t.Fatalf("issued %d decisions, want 400", len(ids))
	}
	missing, err := f.Store.MissingDecisionIDs(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Fatalf("%d of %d issued decisions have no record, e.g. %s", len(missing), len(ids), missing[0])
	}
	// After Close the server issues no decision it cannot record: a
	// /decide that still reaches it is refused, not answered.
	late := httptest.NewServer(f.Server.Handler())
	defer late.Close()
	res, err := http.Post(late.URL+api.RootPath+"/decide", "application/json",
		strings.NewReader(`{"ruleset_id":"acme/all-types","field_values":{"a.count":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(raw), api.ReasonDecisionLogBacklogged) {
		t.Errorf("a decision after Close: %d %s, want 503 %s", res.StatusCode, raw, api.ReasonDecisionLogBacklogged)
	}
}
