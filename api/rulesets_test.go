package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/authoring"
	"github.com/eligo/eligo/engine"
)

// leaveRulesText is a small ruleset with one cited criterion; MONTHS is
// replaced to make different content.
const leaveRulesText = `ruleset "acme/leave"
section leave
name "Leave"
description "Whether an employee may take leave."

source law "Leave Act" url "https://example.org/leave" licence "public-domain"

field employment.months int weight 2
  question "How many months have you worked here?"
field employment.kind enum ["staff", "contractor"] weight 1
  question "Are you staff or a contractor?"
  note why "Contractors are not employees." source law

group service all "Service" {
  criterion tenure "Enough months" {
    employment.months >= MONTHS
    cite law "twelve months of service"
  }
  criterion staff "Staff member" {
    employment.kind == "staff"
    cite law "an employee"
  }
}
`

func leaveRules(months string) []byte {
	return []byte(strings.Replace(leaveRulesText, "MONTHS", months, 1))
}

// artefactRules cites a project file, so it may never be public.
var artefactRules = []byte(`section internal_leave

source memo "Internal memo" artefact "project:p1/source:s1" licence "proprietary"

field employment.months int

group service all "Service" {
  criterion tenure "Enough months" {
    employment.months >= 12
    cite memo "twelve months"
  }
}
`)

// rulesetPath builds /rulesets/{ref}/<rest>, escaping the slug's slashes.
func rulesetPath(ref, rest string) string {
	return "/rulesets/" + url.PathEscape(ref) + rest
}

func withKey(key string) map[string]string {
	if key == "" {
		return nil
	}
	return map[string]string{"x-api-key": key}
}

func slugsOf(t testing.TB, r response) []string {
	t.Helper()
	list, ok := r.body.([]any)
	if !ok {
		t.Fatalf("body is not an array: %s", r.raw)
	}
	out := make([]string, len(list))
	for i, e := range list {
		out[i], _ = e.(map[string]any)["slug"].(string)
	}
	return out
}

func TestRulesetReadsVisibilityAndTenantIsolation(t *testing.T) {
	t.Parallel()
	f := newDecideFixture(t, Config{})
	public := f.publish(t, "acme", "acme/leave", leaveRules("12"), true)
	private := f.publish(t, "acme", "acme/secret", leaveRules("24"), false)
	f.publish(t, "beta", "beta/hidden", leaveRules("6"), false)

	readers := []auth.Scope{auth.ScopeRulesetsRead, auth.ScopeRulesetsExplain, auth.ScopeRulesetsSource}
	keyA := f.key(t, "acme", readers, time.Time{})
	keyB := f.key(t, "beta", readers, time.Time{})
	decideOnlyA := f.key(t, "acme", []auth.Scope{auth.ScopeDecide}, time.Time{})

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
			r := f.do(t, http.MethodGet, "/rulesets", withKey(tc.key), nil)
			if r.status != http.StatusOK || !slices.Equal(slugsOf(t, r), tc.want) {
				t.Errorf("GET /rulesets = %d %s, want %v", r.status, r.raw, tc.want)
			}
			if got := r.header.Get(headerSkippedInvalid); got != "0" {
				t.Errorf("%s = %q, want 0", headerSkippedInvalid, got)
			}
			if got := r.header.Values(headerNextCursor); len(got) != 0 {
				t.Errorf("single page carries %s %v", headerNextCursor, got)
			}
		}
	})

	// Every read answers by slug and by concrete id alike: the owner and
	// everyone for the public ruleset, only the owner for the private one,
	// and the spec's 404 with a string detail for everyone else.
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
		// A key presented without the needed scope earns its 403 (spec,
		// Authentication 2) wherever nothing public answers, existing or
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
			r := f.do(t, http.MethodGet, rulesetPath(tc.ref, read), withKey(tc.key), nil)
			if r.status != want {
				t.Errorf("%s %s: status %d %s, want %d", tc.name, read, r.status, r.raw, want)
				continue
			}
			switch want {
			case http.StatusNotFound:
				if _, isString := field(t, r, "detail").(string); !isString {
					t.Errorf("%s %s: 404 detail is not a string: %s", tc.name, read, r.raw)
				}
			case http.StatusOK:
				if id := field(t, r, "ruleset_id"); id != public.RulesetID && id != private.RulesetID {
					t.Errorf("%s %s: ruleset_id %v", tc.name, read, id)
				}
			}
		}
	}

	t.Run("writes belong to the owner", func(t *testing.T) {
		writerB := f.key(t, "beta", []auth.Scope{auth.ScopeRulesetsWrite}, time.Time{})
		for _, path := range []string{rulesetPath("acme/leave", "/archive"), rulesetPath(private.RulesetID, "/archive")} {
			if r := f.do(t, http.MethodPost, path, withKey(writerB), nil); r.status != http.StatusNotFound {
				t.Errorf("other tenant POST %s = %d %s, want 404", path, r.status, r.raw)
			}
		}
		r := f.do(t, http.MethodPatch, rulesetPath("acme/leave", "/visibility"), withKey(writerB), strings.NewReader(`{"visibility":"private"}`))
		if r.status != http.StatusNotFound {
			t.Errorf("other tenant PATCH visibility = %d %s, want 404", r.status, r.raw)
		}
		if r := f.do(t, http.MethodGet, rulesetPath("acme/leave", "/schema"), nil, nil); r.status != http.StatusOK {
			t.Errorf("public ruleset after refused writes = %d", r.status)
		}
	})
}

func TestRulesetSchemaExplainGraphSourceBodies(t *testing.T) {
	t.Parallel()
	f := newDecideFixture(t, Config{})
	pub := f.publish(t, "acme", "acme/leave", leaveRules("12"), true)

	r := f.do(t, http.MethodGet, rulesetPath("acme/leave", "/schema"), nil, nil)
	want := jsonValue(t, `{
	  "ruleset_id": "`+pub.RulesetID+`", "slug": "acme/leave", "name": "Leave", "ruleset_version": "v1",
	  "content_digest": "`+pub.ContentDigest+`", "engine_version": "`+engine.Version+`",
	  "fields": [
	    {"field_id": "employment.months", "field_type": "int", "description": "", "question": "How many months have you worked here?",
	     "weight": 2, "enum_values": null, "notes": []},
	    {"field_id": "employment.kind", "field_type": "enum", "description": "", "question": "Are you staff or a contractor?",
	     "weight": 1, "enum_values": ["staff", "contractor"],
	     "notes": [{"note_text": "WHY: Contractors are not employees.", "source": "law", "metadata": {"type": "why", "section": "leave"}}]}
	  ]}`)
	if r.status != http.StatusOK || !reflect.DeepEqual(r.body, want) {
		t.Errorf("schema = %d %s", r.status, r.raw)
	}

	r = f.do(t, http.MethodGet, rulesetPath(pub.RulesetID, "/explain"), nil, nil)
	if r.status != http.StatusOK {
		t.Fatalf("explain = %d %s", r.status, r.raw)
	}
	criteria, _ := field(t, r, "criteria").([]any)
	if len(criteria) != 2 {
		t.Fatalf("explain criteria: %s", r.raw)
	}
	tenure := criteria[0].(map[string]any)
	wantRef := jsonValue(t, `{"source": "law", "title": "Leave Act", "quote": {"exact": "twelve months of service"},
	  "url": "https://example.org/leave", "deep_link": "https://example.org/leave#:~:text=twelve%20months%20of%20service",
	  "licence": "public-domain", "schema_version": 1}`)
	if tenure["criterion_id"] != "tenure" || tenure["group"] != "service" || tenure["expression"] != "employment.months >= 12" ||
		!reflect.DeepEqual(tenure["source_references"], []any{wantRef}) || tenure["description"] == "" {
		t.Errorf("explain tenure criterion = %v", tenure)
	}
	wantGroups := jsonValue(t, `[{"group": "service", "title": "Service", "kind": "all", "criterion_ids": ["tenure", "staff"]}]`)
	if !reflect.DeepEqual(field(t, r, "groups"), wantGroups) {
		t.Errorf("explain groups = %v", field(t, r, "groups"))
	}

	// The graph answers with the slug's slash sent as %2F.
	r = f.do(t, http.MethodGet, "/rulesets/acme%2Fleave/graph", nil, nil)
	if r.status != http.StatusOK || field(t, r, "slug") != "acme/leave" || field(t, r, "name") != "Leave" {
		t.Fatalf("graph = %d %s", r.status, r.raw)
	}
	graph := field(t, r, "graph").(map[string]any)
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
	if m, _ := field(t, r, "mermaid").(string); !strings.HasPrefix(m, "flowchart") {
		t.Errorf("mermaid = %q", m)
	}

	key := f.key(t, "beta", []auth.Scope{auth.ScopeRulesetsSource}, time.Time{})
	r = f.do(t, http.MethodGet, rulesetPath("acme/leave", "/source"), withKey(key), nil)
	if r.status != http.StatusOK || field(t, r, "source") != string(leaveRules("12")) || field(t, r, "format") != "eligo-rules" ||
		field(t, r, "ruleset_version") != "v1" {
		t.Errorf("source = %d %s", r.status, r.raw)
	}
}

func TestRulesetExplainHidesArtefactReferencesFromAnonymousCallers(t *testing.T) {
	t.Parallel()
	f := newDecideFixture(t, Config{})
	f.publish(t, "acme", "acme/internal", artefactRules, false)
	writer := f.key(t, "acme", []auth.Scope{auth.ScopeRulesetsWrite, auth.ScopeRulesetsExplain}, time.Time{})

	r := f.do(t, http.MethodGet, rulesetPath("acme/internal", "/explain"), withKey(writer), nil)
	refs := field(t, r, "criteria").([]any)[0].(map[string]any)["source_references"].([]any)
	if len(refs) != 1 || refs[0].(map[string]any)["target_kind"] != "artefact" || refs[0].(map[string]any)["schema_version"] != 2.0 {
		t.Fatalf("owner's explain references = %v", refs)
	}
	r = f.do(t, http.MethodPatch, rulesetPath("acme/internal", "/visibility"), withKey(writer), strings.NewReader(`{"visibility":"public"}`))
	if r.status != http.StatusUnprocessableEntity || field(t, r, "detail").(map[string]any)["reason_code"] != "artefact_reference_public_visibility_forbidden" {
		t.Fatalf("making an artefact ruleset public = %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodGet, rulesetPath("acme/internal", "/explain"), nil, nil); r.status != http.StatusNotFound {
		t.Fatalf("anonymous explain of the still private ruleset = %d", r.status)
	}
}

func TestRulesetVisibilityAndArchive(t *testing.T) {
	t.Parallel()
	f := newDecideFixture(t, Config{})
	pub := f.publish(t, "acme", "acme/leave", leaveRules("12"), false)
	writer := f.key(t, "acme", []auth.Scope{auth.ScopeRulesetsWrite}, time.Time{})
	reader := f.key(t, "acme", []auth.Scope{auth.ScopeRulesetsRead}, time.Time{})

	if r := f.do(t, http.MethodGet, rulesetPath("acme/leave", "/schema"), nil, nil); r.status != http.StatusNotFound {
		t.Fatalf("private schema, anonymous = %d", r.status)
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
		r := f.do(t, http.MethodPatch, rulesetPath("acme/leave", "/visibility"), withKey(tc.key), strings.NewReader(tc.body))
		if r.status != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.name, r.status, r.raw, tc.status)
		}
	}

	r := f.do(t, http.MethodPatch, rulesetPath("acme/leave", "/visibility"), withKey(writer), strings.NewReader(`{"visibility":"public"}`))
	if r.status != http.StatusOK || field(t, r, "visibility") != "public" || field(t, r, "ruleset_id") != pub.RulesetID {
		t.Fatalf("make public = %d %s", r.status, r.raw)
	}
	// This process forgets its cached pointer at once.
	if r := f.do(t, http.MethodGet, rulesetPath("acme/leave", "/schema"), nil, nil); r.status != http.StatusOK {
		t.Fatalf("public schema, anonymous = %d %s", r.status, r.raw)
	}
	if r := f.do(t, http.MethodGet, "/rulesets", nil, nil); !slices.Equal(slugsOf(t, r), []string{"acme/leave"}) {
		t.Fatalf("catalogue after making public: %s", r.raw)
	}

	for range 2 { // archiving twice is harmless
		r = f.do(t, http.MethodPost, rulesetPath("acme/leave", "/archive"), withKey(writer), nil)
		if r.status != http.StatusOK || field(t, r, "status") != "archived" {
			t.Fatalf("archive = %d %s", r.status, r.raw)
		}
	}
	if r := f.do(t, http.MethodGet, rulesetPath("acme/leave", "/schema"), nil, nil); r.status != http.StatusNotFound {
		t.Errorf("archived ruleset by slug = %d, want 404", r.status)
	}
	if r := f.do(t, http.MethodGet, rulesetPath(pub.RulesetID, "/schema"), nil, nil); r.status != http.StatusOK {
		t.Errorf("archived ruleset by concrete id = %d, want 200 (replay)", r.status)
	}
	if r := f.do(t, http.MethodGet, "/rulesets", nil, nil); len(slugsOf(t, r)) != 0 {
		t.Errorf("catalogue lists an archived ruleset: %s", r.raw)
	}

	// Publishing the same content again makes it active under the same id.
	again := f.publish(t, "acme", "acme/leave", leaveRules("12"), true)
	if !again.Reused || again.RulesetID != pub.RulesetID {
		t.Fatalf("republish after archive = %+v", again)
	}
	events, err := f.store.AuditEvents(context.Background(), "acme")
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
	f := newDecideFixture(t, Config{})
	slugs := []string{"gov/alpha", "gov/beta", "gov/gamma/one", "gov/gamma/two", "govx/delta", "other/epsilon"}
	for i, slug := range slugs {
		f.publish(t, "acme", slug, leaveRules(string(rune('1'+i))), true)
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
		r := f.do(t, http.MethodGet, path, nil, nil)
		if r.status != http.StatusOK {
			t.Fatalf("%s = %d %s", path, r.status, r.raw)
		}
		all = append(all, slugsOf(t, r)...)
		cursor = r.header.Get(headerNextCursor)
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
		{"namespace=gov", []string{"gov/alpha", "gov/beta", "gov/gamma/one", "gov/gamma/two"}},
		{"namespace=gov/gamma", []string{"gov/gamma/one", "gov/gamma/two"}},
		{"namespace=gov/gamma/one", []string{"gov/gamma/one"}},
		{"q=GAMMA", []string{"gov/gamma/one", "gov/gamma/two"}},
		{"q=employee", slugs}, // matches the description
		{"q=nothing-like-this", []string{}},
		{"namespace=gov&q=beta", []string{"gov/beta"}},
	} {
		r := f.do(t, http.MethodGet, "/rulesets?"+tc.query, nil, nil)
		if r.status != http.StatusOK || !slices.Equal(slugsOf(t, r), tc.want) {
			t.Errorf("?%s = %d %s, want %v", tc.query, r.status, r.raw, tc.want)
		}
	}

	r := f.do(t, http.MethodGet, "/rulesets?limit=1", nil, nil)
	entry := r.body.([]any)[0].(map[string]any)
	for _, k := range []string{"ruleset_id", "slug", "name", "description", "rule_count", "ruleset_version", "content_digest", "visibility", "status"} {
		if _, ok := entry[k]; !ok {
			t.Errorf("summary lacks %s: %v", k, entry)
		}
	}
	if entry["rule_count"] != 2.0 || entry["description"] != "Whether an employee may take leave." {
		t.Errorf("summary = %v", entry)
	}

	for _, bad := range []string{"cursor=not-a-cursor!", "cursor=" + encodeCursor("Bad Slug"), "namespace=Gov", "limit=0", "limit=101"} {
		r := f.do(t, http.MethodGet, "/rulesets?"+bad, nil, nil)
		if r.status != http.StatusUnprocessableEntity {
			t.Errorf("?%s = %d %s, want 422", bad, r.status, r.raw)
			continue
		}
		if _, isList := field(t, r, "detail").([]any); !isList {
			t.Errorf("?%s: detail is not a validation list: %s", bad, r.raw)
		}
	}
}

func TestCatalogSeesRepublishAfterForget(t *testing.T) {
	t.Parallel()
	f := newDecideFixture(t, Config{})
	first := f.publish(t, "acme", "acme/leave", leaveRules("12"), true)
	ctx := context.Background()
	c := f.server.catalog

	got, err := f.server.resolveRuleset(ctx, "acme/leave")
	if err != nil || got.ID != first.RulesetID || got.Label != "v1" || got.Rules.ContentDigest() != first.ContentDigest {
		t.Fatalf("resolve = %+v, %v", got, err)
	}
	second := f.publish(t, "acme", "acme/leave", leaveRules("13"), true)
	// Within the pointer TTL this process may still serve the old cut, and
	// the old cut is exactly what it serves: id, version and compiled
	// content agree.
	got, err = f.server.resolveRuleset(ctx, "acme/leave")
	if err != nil || (got.ID == first.RulesetID) != (got.Rules.ContentDigest() == first.ContentDigest) {
		t.Fatalf("resolve during TTL = %+v, %v", got, err)
	}
	row, err := f.store.RulesetByRef(ctx, "acme/leave")
	if err != nil {
		t.Fatal(err)
	}
	c.forget(row)
	got, err = f.server.resolveRuleset(ctx, "acme/leave")
	if err != nil || got.ID != second.RulesetID || got.Label != "v2" || got.Rules.ContentDigest() != second.ContentDigest {
		t.Fatalf("resolve after expiry = %+v, %v", got, err)
	}
	// A concrete id keeps naming its own content.
	got, err = f.server.resolveRuleset(ctx, first.RulesetID)
	if err != nil || got.Rules.ContentDigest() != first.ContentDigest || got.Label != "v1" {
		t.Fatalf("resolve old id = %+v, %v", got, err)
	}
	// Each content digest was compiled once and is shared.
	again, _ := f.server.resolveRuleset(ctx, first.RulesetID)
	if again.Rules != got.Rules {
		t.Error("the compiled ruleset was not reused")
	}
	if _, err := f.server.resolveRuleset(ctx, "acme/none"); err == nil {
		t.Error("unknown slug resolved")
	}
}

func TestRulesetExplainShowsVerifiedReferences(t *testing.T) {
	t.Parallel()
	f := newDecideFixture(t, Config{})
	law := []byte("The Leave Act.\nLeave is granted to an employee with twelve months of service\non request.\n")
	res, err := authoring.Publish(context.Background(), f.store, authoring.PublishRequest{
		TenantID: "acme", Filename: "leave.rules", Source: leaveRules("12"), Public: true,
		Sources: map[string][]byte{"law": law}, Actor: "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	r := f.do(t, http.MethodGet, rulesetPath(res.RulesetID, "/explain"), nil, nil)
	sum := sha256.Sum256(law)
	digest := "sha256:" + hex.EncodeToString(sum[:])
	for _, c := range field(t, r, "criteria").([]any) {
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
	f := newDecideFixture(t, Config{})
	pub := f.publish(t, "acme", "acme/leave", leaveRules("12"), true)
	private := f.publish(t, "acme", "acme/secret", leaveRules("24"), false)
	explainer := f.key(t, "acme", []auth.Scope{auth.ScopeRulesetsExplain}, time.Time{})
	post := func(ref, key, body string) response {
		return f.do(t, http.MethodPost, rulesetPath(ref, "/explain-failure"), withKey(key), strings.NewReader(body))
	}

	r := post(pub.RulesetID, "", `{"field_values": {"employment.months": 6, "employment.kind": "staff"}, "expected_outcome": "eligible"}`)
	if r.status != http.StatusOK || field(t, r, "actual_outcome") != "not_eligible" || field(t, r, "ruleset_id") != pub.RulesetID {
		t.Fatalf("explain-failure = %d %s", r.status, r.raw)
	}
	reasons := field(t, r, "reasons").(map[string]any)
	tenure, ok := reasons["tenure"].(map[string]any)
	if len(reasons) != 1 || !ok {
		t.Fatalf("reasons = %v, want tenure alone", reasons)
	}
	wantFacts := jsonValue(t, `[{"field": "employment.months", "value": 6}]`)
	if tenure["status"] != "not_satisfied" || tenure["needed_status"] != "satisfied" || tenure["mechanism"] != "threshold" ||
		!reflect.DeepEqual(tenure["facts"], wantFacts) || len(tenure["source_references"].([]any)) != 1 {
		t.Errorf("tenure reason = %v", tenure)
	}

	// Both criteria of the all group fail; either one alone already rules
	// eligible out, so a minimal core names exactly one of them, each with
	// its own mechanism.
	r = post(pub.RulesetID, "", `{"field_values": {"employment.months": 6, "employment.kind": "contractor"}, "expected_outcome": "eligible"}`)
	reasons = field(t, r, "reasons").(map[string]any)
	wantMechanism := map[string]string{"tenure": "threshold", "staff": "enum_mismatch"}
	if len(reasons) != 1 {
		t.Errorf("two failing criteria of an all group: %s", r.raw)
	}
	for id, reason := range reasons {
		if got := reason.(map[string]any)["mechanism"]; got != wantMechanism[id] {
			t.Errorf("reason %s: mechanism %v, want %q", id, got, wantMechanism[id])
		}
	}

	r = post(pub.RulesetID, "", `{"field_values": {"employment.months": 13, "employment.kind": "staff"}, "expected_outcome": "eligible"}`)
	if r.status != http.StatusOK || len(field(t, r, "reasons").(map[string]any)) != 0 || field(t, r, "actual_outcome") != "eligible" {
		t.Errorf("already eligible: %d %s", r.status, r.raw)
	}

	r = post(pub.RulesetID, "", `{"field_values": {"employment.months": "six"}, "expected_outcome": "eligible"}`)
	// The unreadable answer is reported, and the criterion it feeds is
	// explained as unanswered.
	if errs, _ := field(t, r, "field_errors").([]any); r.status != http.StatusOK || len(errs) != 1 ||
		field(t, r, "actual_outcome") != "undetermined" {
		t.Errorf("field error: %d %s", r.status, r.raw)
	} else if reason, _ := field(t, r, "reasons").(map[string]any)["tenure"].(map[string]any); reason["mechanism"] != "missing_answer" {
		t.Errorf("field error: want tenure explained as a missing answer: %s", r.raw)
	}

	// Answers that convert but overflow in the rules' arithmetic are field
	// errors too, with nothing to explain.
	overflow := f.publish(t, "acme", "acme/overflow", []byte(strings.NewReplacer(
		`ruleset "acme/big"`, `ruleset "acme/overflow"`, "x.n >= 9007199254740993", "x.n * 1000000000 > 10").Replace(bigIntRules)), true)
	r = post(overflow.RulesetID, "", `{"field_values": {"x.n": 999999999999999999}, "expected_outcome": "eligible"}`)
	if errs, _ := field(t, r, "field_errors").([]any); r.status != http.StatusOK || len(errs) != 1 ||
		field(t, r, "actual_outcome") != "undetermined" || len(field(t, r, "reasons").(map[string]any)) != 0 {
		t.Errorf("overflow: %d %s", r.status, r.raw)
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
		if r.status != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.name, r.status, r.raw, tc.status)
		}
		if tc.status == http.StatusUnprocessableEntity {
			if _, isList := field(t, r, "detail").([]any); !isList {
				t.Errorf("%s: detail is not a validation list: %s", tc.name, r.raw)
			}
		}
	}
}

// A stored record whose source no longer compiles to its digest is the
// spec's 422 ruleset_record_corrupt, never a 500 or a wrong answer.
func TestCorruptStoredRuleset(t *testing.T) {
	t.Parallel()
	f := newDecideFixture(t, Config{})
	res := f.publish(t, "acme", "acme/leave", leaveRules("12"), true)
	owner := f.key(t, "acme", []auth.Scope{auth.ScopeRulesetsRead, auth.ScopeRulesetsExplain, auth.ScopeRulesetsSource}, time.Time{})
	ctx := context.Background()
	for _, source := range []string{string(leaveRules("13")), "not rules at all"} {
		if _, err := f.store.Pool().Exec(ctx, `UPDATE rulesets SET source_text = $1 WHERE id = $2`, source, res.RulesetID); err != nil {
			t.Fatal(err)
		}
		f.server.catalog.compiled.Purge()
		// Every read refuses it, the source export too: its text would be
		// labelled with a digest it no longer has.
		for _, read := range []string{"/schema", "/explain", "/graph", "/source"} {
			r := f.do(t, http.MethodGet, rulesetPath(res.RulesetID, read), withKey(owner), nil)
			if r.status != http.StatusUnprocessableEntity || field(t, r, "detail").(map[string]any)["reason_code"] != "ruleset_record_corrupt" {
				t.Errorf("corrupt record (%.20q) %s = %d %s", source, read, r.status, r.raw)
			}
		}
	}
}
