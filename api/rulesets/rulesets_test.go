package rulesets

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/publish"
)

func slugsOf(t testing.TB, r apitest.Response) []string {
	t.Helper()
	list, ok := r.Body.([]any)
	if !ok {
		t.Fatalf("body is not an array: %s", r.Raw)
	}
	out := make([]string, len(list))
	for i, e := range list {
		out[i], _ = e.(map[string]any)["slug"].(string)
	}
	return out
}

func TestRulesetReadsVisibilityAndTenantIsolation(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	public := f.Publish(t, "acme", "acme/leave", apitest.LeaveRules("12"), true)
	private := f.Publish(t, "acme", "acme/secret", apitest.LeaveRules("24"), false)
	f.Publish(t, "beta", "beta/hidden", apitest.LeaveRules("6"), false)

	readers := []auth.Scope{auth.ScopeRulesetsRead, auth.ScopeRulesetsExplain, auth.ScopeRulesetsSource}
	keyA := f.Key(t, "acme", readers, time.Time{})
	keyB := f.Key(t, "beta", readers, time.Time{})
	decideOnlyA := f.Key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Time{})

	t.Run("catalogue", func(t *testing.T) {
		for _, tc := range []struct {
			key  string
			want []string
		}{
			{"", []string{"acme/leave"}},
			{keyA, []string{"acme/leave", "acme/secret"}},
			{keyB, []string{"acme/leave", "beta/hidden"}},
			// A key without rulesets:read is ignored on the open surface.
			{decideOnlyA, []string{"acme/leave"}},
		} {
			r := f.Do(t, http.MethodGet, "/rulesets", apitest.WithKey(tc.key), nil)
			if r.Status != http.StatusOK || !slices.Equal(slugsOf(t, r), tc.want) {
				t.Errorf("GET /rulesets = %d %s, want %v", r.Status, r.Raw, tc.want)
			}
			if got := r.Header.Get(headerSkippedInvalid); got != "0" {
				t.Errorf("%s = %q, want 0", headerSkippedInvalid, got)
			}
			if got := r.Header.Values(headerNextCursor); len(got) != 0 {
				t.Errorf("single page carries %s %v", headerNextCursor, got)
			}
		}
	})

	// Every read answers by slug and by concrete id alike: the owner and
	// everyone for the public ruleset, only the owner for the private one,
	// and the 404 with a string detail for everyone else (docs/api.md#errors).
	reads := []string{"/schema", "/explain", "/graph", "/source"}
	for _, tc := range []struct {
		name string
		ref  string
		key  string
		want int
	}{
		{"public by slug, anonymous", "acme/leave", "", http.StatusOK},
		{"public by id, anonymous", public.RulesetID, "", http.StatusOK},
		{"public by slug, other tenant", "acme/leave", keyB, http.StatusOK},
		{"private by slug, owner", "acme/secret", keyA, http.StatusOK},
		{"private by id, owner", private.RulesetID, keyA, http.StatusOK},
		{"private by slug, anonymous", "acme/secret", "", http.StatusNotFound},
		{"private by id, anonymous", private.RulesetID, "", http.StatusNotFound},
		{"private by slug, other tenant", "acme/secret", keyB, http.StatusNotFound},
		{"private by id, other tenant", private.RulesetID, keyB, http.StatusNotFound},
		// A key presented without the needed scope earns its 403
		// (docs/api.md#keys-and-access) wherever nothing public answers, existing or
		// not, so it reveals nothing about the ref.
		{"private by slug, owner key without the read scope", "acme/secret", decideOnlyA, http.StatusForbidden},
		{"unknown slug, key without the read scope", "acme/nothing", decideOnlyA, http.StatusForbidden},
		{"public by slug, key without the read scope (ignored)", "acme/leave", decideOnlyA, http.StatusOK},
		{"unknown slug", "acme/nothing", keyA, http.StatusNotFound},
		{"unknown id", "leave:20260101-000000000000", keyA, http.StatusNotFound},
	} {
		for _, read := range reads {
			want := tc.want
			if read == "/source" && tc.key == "" {
				want = http.StatusUnauthorized // the source export is keyed
			}
			if read == "/source" && tc.key == decideOnlyA {
				want = http.StatusForbidden
			}
			r := f.Do(t, http.MethodGet, apitest.RulesetPath(tc.ref, read), apitest.WithKey(tc.key), nil)
			if r.Status != want {
				t.Errorf("%s %s: status %d %s, want %d", tc.name, read, r.Status, r.Raw, want)
				continue
			}
			switch want {
			case http.StatusNotFound:
				if _, isString := r.Field(t, "detail").(string); !isString {
					t.Errorf("%s %s: 404 detail is not a string: %s", tc.name, read, r.Raw)
				}
			case http.StatusOK:
				if id := r.Field(t, "ruleset_id"); id != public.RulesetID && id != private.RulesetID {
					t.Errorf("%s %s: ruleset_id %v", tc.name, read, id)
				}
			}
		}
	}

	t.Run("writes belong to the owner", func(t *testing.T) {
		writerB := f.Key(t, "beta", []auth.Scope{auth.ScopeRulesetsWrite}, time.Time{})
		for _, path := range []string{apitest.RulesetPath("acme/leave", "/archive"), apitest.RulesetPath(private.RulesetID, "/archive")} {
			if r := f.Do(t, http.MethodPost, path, apitest.WithKey(writerB), nil); r.Status != http.StatusNotFound {
				t.Errorf("other tenant POST %s = %d %s, want 404", path, r.Status, r.Raw)
			}
		}
		r := f.Do(t, http.MethodPatch, apitest.RulesetPath("acme/leave", "/visibility"), apitest.WithKey(writerB), strings.NewReader(`{"visibility":"private"}`))
		if r.Status != http.StatusNotFound {
			t.Errorf("other tenant PATCH visibility = %d %s, want 404", r.Status, r.Raw)
		}
		if r := f.Do(t, http.MethodGet, apitest.RulesetPath("acme/leave", "/schema"), nil, nil); r.Status != http.StatusOK {
			t.Errorf("public ruleset after refused writes = %d", r.Status)
		}
	})
}

func TestRulesetSchemaExplainGraphSourceBodies(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	pub := f.Publish(t, "acme", "acme/leave", apitest.LeaveRules("12"), true)

	r := f.Do(t, http.MethodGet, apitest.RulesetPath("acme/leave", "/schema"), nil, nil)
	want := apitest.JSONValue(t, `{
	  "ruleset_id": "`+pub.RulesetID+`", "slug": "acme/leave", "name": "Leave", "ruleset_version": "v1",
	  "content_digest": "`+pub.ContentDigest+`", "engine_version": "`+engine.Version+`",
	  "fields": [
	    {"field_id": "employment.months", "field_type": "int", "description": "", "question": "How many months have you worked here?",
	     "weight": 2, "enum_values": null, "notes": []},
	    {"field_id": "employment.kind", "field_type": "enum", "description": "", "question": "Are you staff or a contractor?",
	     "weight": 1, "enum_values": ["staff", "contractor"],
	     "notes": [{"note_text": "WHY: Contractors are not employees.", "source": "law", "metadata": {"type": "why", "section": "leave"}}]}
	  ]}`)
	if r.Status != http.StatusOK || !reflect.DeepEqual(r.Body, want) {
		t.Errorf("schema = %d %s", r.Status, r.Raw)
	}

	r = f.Do(t, http.MethodGet, apitest.RulesetPath(pub.RulesetID, "/explain"), nil, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("explain = %d %s", r.Status, r.Raw)
	}
	criteria, _ := r.Field(t, "criteria").([]any)
	if len(criteria) != 2 {
		t.Fatalf("explain criteria: %s", r.Raw)
	}
	tenure := criteria[0].(map[string]any)
	wantRef := apitest.JSONValue(t, `{"source": "law", "title": "Leave Act", "quote": {"exact": "twelve months of service"},
	  "url": "https://example.org/leave", "deep_link": "https://example.org/leave#:~:text=twelve%20months%20of%20service",
	  "licence": "public-domain", "schema_version": 1}`)
	if tenure["criterion_id"] != "tenure" || tenure["group"] != "service" || tenure["expression"] != "employment.months >= 12" ||
		!reflect.DeepEqual(tenure["source_references"], []any{wantRef}) || tenure["description"] == "" {
		t.Errorf("explain tenure criterion = %v", tenure)
	}
	wantGroups := apitest.JSONValue(t, `[{"group": "service", "title": "Service", "kind": "all", "criterion_ids": ["tenure", "staff"]}]`)
	if !reflect.DeepEqual(r.Field(t, "groups"), wantGroups) {
		t.Errorf("explain groups = %v", r.Field(t, "groups"))
	}

	// The graph answers with the slug's slash sent as %2F.
	r = f.Do(t, http.MethodGet, "/rulesets/acme%2Fleave/graph", nil, nil)
	if r.Status != http.StatusOK || r.Field(t, "slug") != "acme/leave" || r.Field(t, "name") != "Leave" {
		t.Fatalf("graph = %d %s", r.Status, r.Raw)
	}
	graph := r.Field(t, "graph").(map[string]any)
	outcomes := 0
	for _, n := range graph["nodes"].([]any) {
		node := n.(map[string]any)
		if node["type"] == "outcome" {
			outcomes++
		}
		if node["overlay"] != nil {
			t.Errorf("graph node %v has an overlay without an evaluation", node["id"])
		}
	}
	if outcomes != 1 || !reflect.DeepEqual(graph["sections"], []any{"acme/leave"}) {
		t.Errorf("graph = %v", graph)
	}
	if m, _ := r.Field(t, "mermaid").(string); !strings.HasPrefix(m, "flowchart") {
		t.Errorf("mermaid = %q", m)
	}

	key := f.Key(t, "beta", []auth.Scope{auth.ScopeRulesetsSource}, time.Time{})
	r = f.Do(t, http.MethodGet, apitest.RulesetPath("acme/leave", "/source"), apitest.WithKey(key), nil)
	if r.Status != http.StatusOK || r.Field(t, "source") != string(apitest.LeaveRules("12")) || r.Field(t, "format") != "eligo-rules" ||
		r.Field(t, "ruleset_version") != "v1" {
		t.Errorf("source = %d %s", r.Status, r.Raw)
	}
}

func TestRulesetExplainHidesArtefactReferencesFromAnonymousCallers(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	f.Publish(t, "acme", "acme/internal", []byte(apitest.ArtefactRules), false)
	writer := f.Key(t, "acme", []auth.Scope{auth.ScopeRulesetsWrite, auth.ScopeRulesetsExplain}, time.Time{})

	r := f.Do(t, http.MethodGet, apitest.RulesetPath("acme/internal", "/explain"), apitest.WithKey(writer), nil)
	refs := r.Field(t, "criteria").([]any)[0].(map[string]any)["source_references"].([]any)
	if len(refs) != 1 || refs[0].(map[string]any)["target_kind"] != "artefact" || refs[0].(map[string]any)["schema_version"] != 2.0 {
		t.Fatalf("owner's explain references = %v", refs)
	}
	r = f.Do(t, http.MethodPatch, apitest.RulesetPath("acme/internal", "/visibility"), apitest.WithKey(writer), strings.NewReader(`{"visibility":"public"}`))
	if r.Status != http.StatusUnprocessableEntity || r.Field(t, "detail").(map[string]any)["reason_code"] != "artefact_reference_public_visibility_forbidden" {
		t.Fatalf("making an artefact ruleset public = %d %s", r.Status, r.Raw)
	}
	if r := f.Do(t, http.MethodGet, apitest.RulesetPath("acme/internal", "/explain"), nil, nil); r.Status != http.StatusNotFound {
		t.Fatalf("anonymous explain of the still private ruleset = %d", r.Status)
	}
}

func TestRulesetVisibilityAndArchive(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	pub := f.Publish(t, "acme", "acme/leave", apitest.LeaveRules("12"), false)
	writer := f.Key(t, "acme", []auth.Scope{auth.ScopeRulesetsWrite}, time.Time{})
	reader := f.Key(t, "acme", []auth.Scope{auth.ScopeRulesetsRead}, time.Time{})

	if r := f.Do(t, http.MethodGet, apitest.RulesetPath("acme/leave", "/schema"), nil, nil); r.Status != http.StatusNotFound {
		t.Fatalf("private schema, anonymous = %d", r.Status)
	}
	for _, tc := range []struct {
		name, key, body string
		status          int
	}{
		{"no key", "", `{"visibility":"public"}`, http.StatusUnauthorized},
		{"key without rulesets:write", reader, `{"visibility":"public"}`, http.StatusForbidden},
		{"unknown visibility", writer, `{"visibility":"everyone"}`, http.StatusUnprocessableEntity},
		{"extra member", writer, `{"visibility":"public","x":1}`, http.StatusUnprocessableEntity},
	} {
		r := f.Do(t, http.MethodPatch, apitest.RulesetPath("acme/leave", "/visibility"), apitest.WithKey(tc.key), strings.NewReader(tc.body))
		if r.Status != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.name, r.Status, r.Raw, tc.status)
		}
	}

	r := f.Do(t, http.MethodPatch, apitest.RulesetPath("acme/leave", "/visibility"), apitest.WithKey(writer), strings.NewReader(`{"visibility":"public"}`))
	if r.Status != http.StatusOK || r.Field(t, "visibility") != "public" || r.Field(t, "ruleset_id") != pub.RulesetID {
		t.Fatalf("make public = %d %s", r.Status, r.Raw)
	}
	// This process forgets its cached pointer at once.
	if r := f.Do(t, http.MethodGet, apitest.RulesetPath("acme/leave", "/schema"), nil, nil); r.Status != http.StatusOK {
		t.Fatalf("public schema, anonymous = %d %s", r.Status, r.Raw)
	}
	if r := f.Do(t, http.MethodGet, "/rulesets", nil, nil); !slices.Equal(slugsOf(t, r), []string{"acme/leave"}) {
		t.Fatalf("catalogue after making public: %s", r.Raw)
	}

	for range 2 { // archiving twice is harmless
		r = f.Do(t, http.MethodPost, apitest.RulesetPath("acme/leave", "/archive"), apitest.WithKey(writer), nil)
		if r.Status != http.StatusOK || r.Field(t, "status") != "archived" {
			t.Fatalf("archive = %d %s", r.Status, r.Raw)
		}
	}
	if r := f.Do(t, http.MethodGet, apitest.RulesetPath("acme/leave", "/schema"), nil, nil); r.Status != http.StatusNotFound {
		t.Errorf("archived ruleset by slug = %d, want 404", r.Status)
	}
	if r := f.Do(t, http.MethodGet, apitest.RulesetPath(pub.RulesetID, "/schema"), nil, nil); r.Status != http.StatusOK {
		t.Errorf("archived ruleset by concrete id = %d, want 200 (replay)", r.Status)
	}
	if r := f.Do(t, http.MethodGet, "/rulesets", nil, nil); len(slugsOf(t, r)) != 0 {
		t.Errorf("catalogue lists an archived ruleset: %s", r.Raw)
	}

	// Publishing the same content again makes it active under the same id.
	again := f.Publish(t, "acme", "acme/leave", apitest.LeaveRules("12"), true)
	if !again.Reused || again.RulesetID != pub.RulesetID {
		t.Fatalf("republish after archive = %+v", again)
	}
	events, err := f.Store.AuditEvents(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.Kind)
	}
	for _, k := range []string{"ruleset_visibility_changed", "ruleset_archived"} {
		if !slices.Contains(kinds, k) {
			t.Errorf("audit events %v lack %s", kinds, k)
		}
	}
}

func TestRulesetCataloguePagingAndFilters(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	slugs := []string{"city/alpha", "city/beta", "city/gamma/one", "city/gamma/two", "cityx/delta", "other/epsilon"}
	for i, slug := range slugs {
		f.Publish(t, "acme", slug, apitest.LeaveRules(string(rune('1'+i))), true)
	}

	// Walk every page of two; the pages together are the whole catalogue.
	var all []string
	cursor := ""
	for page := 0; ; page++ {
		if page > len(slugs) {
			t.Fatal("paging does not end")
		}
		path := "/rulesets?limit=2"
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		r := f.Do(t, http.MethodGet, path, nil, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("%s = %d %s", path, r.Status, r.Raw)
		}
		all = append(all, slugsOf(t, r)...)
		cursor = r.Header.Get(headerNextCursor)
		if cursor == "" {
			break
		}
	}
	if !slices.Equal(all, slugs) {
		t.Fatalf("pages gave %v, want %v", all, slugs)
	}

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"namespace=city", []string{"city/alpha", "city/beta", "city/gamma/one", "city/gamma/two"}},
		{"namespace=city/gamma", []string{"city/gamma/one", "city/gamma/two"}},
		{"namespace=city/gamma/one", []string{"city/gamma/one"}},
		{"q=GAMMA", []string{"city/gamma/one", "city/gamma/two"}},
		{"q=employee", slugs}, // matches the description
		{"q=nothing-like-this", []string{}},
		{"namespace=city&q=beta", []string{"city/beta"}},
	} {
		r := f.Do(t, http.MethodGet, "/rulesets?"+tc.query, nil, nil)
		if r.Status != http.StatusOK || !slices.Equal(slugsOf(t, r), tc.want) {
			t.Errorf("?%s = %d %s, want %v", tc.query, r.Status, r.Raw, tc.want)
		}
	}

	r := f.Do(t, http.MethodGet, "/rulesets?limit=1", nil, nil)
	entry := r.Body.([]any)[0].(map[string]any)
	for _, k := range []string{"ruleset_id", "slug", "name", "description", "rule_count", "ruleset_version", "content_digest", "visibility", "status"} {
		if _, ok := entry[k]; !ok {
			t.Errorf("summary lacks %s: %v", k, entry)
		}
	}
	if entry["rule_count"] != 2.0 || entry["description"] != "Whether an employee may take leave." {
		t.Errorf("summary = %v", entry)
	}

	for _, bad := range []string{"cursor=not-a-cursor!", "cursor=" + resource.SlugCursor.Make("Bad Slug"), "namespace=Gov", "limit=0", "limit=101"} {
		r := f.Do(t, http.MethodGet, "/rulesets?"+bad, nil, nil)
		if r.Status != http.StatusUnprocessableEntity {
			t.Errorf("?%s = %d %s, want 422", bad, r.Status, r.Raw)
			continue
		}
		if _, isList := r.Field(t, "detail").([]any); !isList {
			t.Errorf("?%s: detail is not a validation list: %s", bad, r.Raw)
		}
	}
}

func TestRulesetExplainShowsVerifiedReferences(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	law := []byte("The Leave Act.\nLeave is granted to an employee with twelve months of service\non request.\n")
	res, err := f.Publisher.Ruleset(context.Background(), publish.RulesetRequest{
		TenantID: "acme", Filename: "leave.rules", Source: apitest.LeaveRules("12"), Visibility: publish.VisibilityOf(true),
		Sources: map[string][]byte{"law": law}, Actor: "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	r := f.Do(t, http.MethodGet, apitest.RulesetPath(res.RulesetID, "/explain"), nil, nil)
	sum := sha256.Sum256(law)
	digest := "sha256:" + hex.EncodeToString(sum[:])
	for _, c := range r.Field(t, "criteria").([]any) {
		for _, ref := range c.(map[string]any)["source_references"].([]any) {
			ref := ref.(map[string]any)
			verified, _ := ref["verified_at"].(string)
			if ref["content_digest"] != digest || ref["snapshot"] != digest {
				t.Errorf("reference %v: want content_digest and snapshot %s", ref, digest)
			}
			if _, err := time.Parse(time.RFC3339, verified); err != nil {
				t.Errorf("reference verified_at %q: %v", verified, err)
			}
		}
	}
}

func TestRulesetExplainFailure(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	pub := f.Publish(t, "acme", "acme/leave", apitest.LeaveRules("12"), true)
	private := f.Publish(t, "acme", "acme/secret", apitest.LeaveRules("24"), false)
	explainer := f.Key(t, "acme", []auth.Scope{auth.ScopeRulesetsExplain}, time.Time{})
	post := func(ref, key, body string) apitest.Response {
		return f.Do(t, http.MethodPost, apitest.RulesetPath(ref, "/explain-failure"), apitest.WithKey(key), strings.NewReader(body))
	}

	r := post(pub.RulesetID, "", `{"field_values": {"employment.months": 6, "employment.kind": "staff"}, "expected_outcome": "eligible"}`)
	if r.Status != http.StatusOK || r.Field(t, "actual_outcome") != "not_eligible" || r.Field(t, "ruleset_id") != pub.RulesetID {
		t.Fatalf("explain-failure = %d %s", r.Status, r.Raw)
	}
	reasons := r.Field(t, "reasons").(map[string]any)
	tenure, ok := reasons["tenure"].(map[string]any)
	if len(reasons) != 1 || !ok {
		t.Fatalf("reasons = %v, want tenure alone", reasons)
	}
	// changes gives changes_needed and changes, the fewest criteria to
	// change, which need not be as many as the reasons.
	changes := func(r apitest.Response) string {
		return fmt.Sprint(r.Field(t, "changes_needed"), r.Field(t, "changes"))
	}
	if got := changes(r); got != "1 [tenure]" {
		t.Errorf("one failing criterion: changes %s, want 1 [tenure]", got)
	}
	wantFacts := apitest.JSONValue(t, `[{"field": "employment.months", "value": 6}]`)
	if tenure["status"] != "not_satisfied" || tenure["needed_status"] != "satisfied" || tenure["mechanism"] != "threshold" ||
		!reflect.DeepEqual(tenure["facts"], wantFacts) || len(tenure["source_references"].([]any)) != 1 {
		t.Errorf("tenure reason = %v", tenure)
	}

	// Both criteria of the all group fail; either one alone already rules
	// eligible out, so a minimal core names exactly one of them, each with
	// its own mechanism.
	r = post(pub.RulesetID, "", `{"field_values": {"employment.months": 6, "employment.kind": "contractor"}, "expected_outcome": "eligible"}`)
	reasons = r.Field(t, "reasons").(map[string]any)
	wantMechanism := map[string]string{"tenure": "threshold", "staff": "enum_mismatch"}
	if len(reasons) != 1 {
		t.Errorf("two failing criteria of an all group: %s", r.Raw)
	}
	for id, reason := range reasons {
		if got := reason.(map[string]any)["mechanism"]; got != wantMechanism[id] {
			t.Errorf("reason %s: mechanism %v, want %q", id, got, wantMechanism[id])
		}
	}
	// ... while both must change.
	if got := changes(r); got != "2 [tenure staff]" {
		t.Errorf("two failing criteria of an all group: changes %s, want 2 [tenure staff]", got)
	}
	// The same two as alternatives of an any group: both are reasons, and
	// changing either one is enough.
	either := f.Publish(t, "acme", "acme/either", bytes.Replace(apitest.LeaveRules("12"), []byte("group service all"), []byte("group service any"), 1), true)
	r = post(either.RulesetID, "", `{"field_values": {"employment.months": 6, "employment.kind": "contractor"}, "expected_outcome": "eligible"}`)
	if reasons := r.Field(t, "reasons").(map[string]any); len(reasons) != 2 || r.Field(t, "changes_needed") != 1.0 || len(r.Field(t, "changes").([]any)) != 1 {
		t.Errorf("two failing alternatives of an any group: %s, want two reasons and one change", r.Raw)
	}

	r = post(pub.RulesetID, "", `{"field_values": {"employment.months": 13, "employment.kind": "staff"}, "expected_outcome": "eligible"}`)
	if r.Status != http.StatusOK || len(r.Field(t, "reasons").(map[string]any)) != 0 || r.Field(t, "actual_outcome") != "eligible" || changes(r) != "0 []" {
		t.Errorf("already eligible: %d %s", r.Status, r.Raw)
	}

	r = post(pub.RulesetID, "", `{"field_values": {"employment.months": "six"}, "expected_outcome": "eligible"}`)
	// The unreadable answer is reported, and the criterion it feeds is
	// explained as unanswered.
	if errs, _ := r.Field(t, "field_errors").([]any); r.Status != http.StatusOK || len(errs) != 1 ||
		r.Field(t, "actual_outcome") != "undetermined" {
		t.Errorf("field error: %d %s", r.Status, r.Raw)
	} else if reason, _ := r.Field(t, "reasons").(map[string]any)["tenure"].(map[string]any); reason["mechanism"] != "missing_answer" {
		t.Errorf("field error: want tenure explained as a missing answer: %s", r.Raw)
	}

	// Answers that convert but overflow in the rules' arithmetic are field
	// errors too, with nothing to explain.
	overflow := f.Publish(t, "acme", "acme/overflow", []byte(strings.NewReplacer(
		`ruleset "acme/big"`, `ruleset "acme/overflow"`, "x.n >= 9007199254740993", "x.n * 1000000000 > 10").Replace(apitest.BigIntRules)), true)
	r = post(overflow.RulesetID, "", `{"field_values": {"x.n": 999999999999999999}, "expected_outcome": "eligible"}`)
	if errs, _ := r.Field(t, "field_errors").([]any); r.Status != http.StatusOK || len(errs) != 1 ||
		r.Field(t, "actual_outcome") != "undetermined" || len(r.Field(t, "reasons").(map[string]any)) != 0 {
		t.Errorf("overflow: %d %s", r.Status, r.Raw)
	}

	for _, tc := range []struct {
		name, ref, key, body string
		status               int
	}{
		{"slug path", "acme/leave", "", `{"field_values": {}, "expected_outcome": "eligible"}`, http.StatusUnprocessableEntity},
		{"missing expected_outcome", pub.RulesetID, "", `{"field_values": {}}`, http.StatusUnprocessableEntity},
		{"unknown outcome", pub.RulesetID, "", `{"field_values": {}, "expected_outcome": "maybe"}`, http.StatusUnprocessableEntity},
		{"field_values not an object", pub.RulesetID, "", `{"field_values": [1], "expected_outcome": "eligible"}`, http.StatusUnprocessableEntity},
		{"bad decision_date", pub.RulesetID, "", `{"field_values": {}, "expected_outcome": "eligible", "decision_date": "2026-02-30"}`, http.StatusUnprocessableEntity},
		{"private, anonymous", private.RulesetID, "", `{"field_values": {}, "expected_outcome": "eligible"}`, http.StatusNotFound},
		{"private, owner", private.RulesetID, explainer, `{"field_values": {}, "expected_outcome": "eligible"}`, http.StatusOK},
	} {
		r := post(tc.ref, tc.key, tc.body)
		if r.Status != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.name, r.Status, r.Raw, tc.status)
		}
		if tc.status == http.StatusUnprocessableEntity {
			if _, isList := r.Field(t, "detail").([]any); !isList {
				t.Errorf("%s: detail is not a validation list: %s", tc.name, r.Raw)
			}
		}
	}
}

// The stored IR is the content: a record whose IR was edited, or is of an
// IR version this engine does not read, is the 422
// ruleset_record_corrupt of docs/api.md#rulesets on every read (the source export included, since
// its text would be labelled with a digest that content no longer has),
// never a 500 or a wrong answer. A record whose source text was edited
// still serves its content, but its export is refused: the text no longer
// matches the digest recorded for it.
func TestCorruptStoredRuleset(t *testing.T) {
	t.Parallel()
	f := newFixture(t, api.Config{})
	owner := f.Key(t, "acme", []auth.Scope{auth.ScopeRulesetsRead, auth.ScopeRulesetsExplain, auth.ScopeRulesetsSource}, time.Time{})
	ctx := context.Background()
	reads := []string{"/schema", "/explain", "/graph", "/source"}
	for i, tc := range []struct {
		name, tamper string
		corrupt      []string
	}{
		{"edited IR", `UPDATE rulesets SET compiled_ir = jsonb_set(compiled_ir, '{name}', '"Other"') WHERE id = $1`, reads},
		{"unknown IR version", `UPDATE rulesets SET ir_version = 99 WHERE id = $1`, reads},
		{"IR not an object", `UPDATE rulesets SET compiled_ir = '[]' WHERE id = $1`, reads},
		{"edited source text", `UPDATE rulesets SET source_text = source_text || ' ' WHERE id = $1`, []string{"/source"}},
	} {
		res := f.Publish(t, "acme", fmt.Sprintf("acme/leave-%d", i), apitest.LeaveRules("12"), true)
		if _, err := f.Pool.Exec(ctx, tc.tamper, res.RulesetID); err != nil {
			t.Fatal(err)
		}
		for _, read := range reads {
			r := f.Do(t, http.MethodGet, apitest.RulesetPath(res.RulesetID, read), apitest.WithKey(owner), nil)
			if slices.Contains(tc.corrupt, read) {
				if r.Status != http.StatusUnprocessableEntity || r.Field(t, "detail").(map[string]any)["reason_code"] != api.ReasonRulesetRecordCorrupt {
					t.Errorf("%s: %s = %d %s, want 422 %s", tc.name, read, r.Status, r.Raw, api.ReasonRulesetRecordCorrupt)
				}
			} else if r.Status != http.StatusOK {
				t.Errorf("%s: %s = %d %s, want 200", tc.name, read, r.Status, r.Raw)
			}
		}
	}
}
