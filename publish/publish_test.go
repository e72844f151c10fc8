package publish_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// leaveRules is a small ruleset; threshold is substituted to make changed
// content.
const leaveRules = `ruleset "acme/leave"
section leave
name "Leave"

source law "Leave Act" url "https://example.org/leave" licence "public-domain"

field employment.months int weight 1
  question "How many months have you worked here?"

group service all "Service" {
  criterion tenure "Twelve months" {
    employment.months >= THRESHOLD
    cite law "twelve months"
  }
}
`

// artefactRules cite a project file, so they may never be public.
var artefactRules = []byte(`section files
source memo "Internal memo" artefact "project:p1/source:s1" licence "proprietary"
field a.n int
group g all "G" {
  criterion c "C" {
    a.n > 1
    cite memo "more than one"
  }
}
`)

func rules(threshold string) []byte {
	return []byte(strings.Replace(leaveRules, "THRESHOLD", threshold, 1))
}

func leaveCases(t *testing.T) []engine.Case {
	t.Helper()
	var cases []engine.Case
	err := json.Unmarshal([]byte(`[
	  {"name": "13 months", "field_values": {"employment.months": 13}, "expected_outcome": "eligible"},
	  {"name": "11 months", "field_values": {"employment.months": 11}, "expected_outcome": "not_eligible"}
	]`), &cases)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

var rulesetIDPattern = regexp.MustCompile(`^leave:[0-9]{8}-[0-9a-f]{12}$`)

func newStore(t *testing.T) (*store.Store, *pgxpool.Pool) {
	t.Helper()
	pool := storetest.New(t)
	return store.New(pool), pool
}

// newPublisher is a publisher over st with its own catalog.
func newPublisher(st *store.Store, cfg publish.Config) *publish.Publisher {
	return publish.New(st, catalog.New(st, catalog.Config{}), cfg)
}

func TestPublishVersionsReuseAndPointer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _ := newStore(t)
	req := publish.RulesetRequest{TenantID: "acme", Filename: "leave.rules", Source: rules("12"), Cases: leaveCases(t), Actor: "test"}

	first, err := newPublisher(st, publish.Config{}).Ruleset(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !rulesetIDPattern.MatchString(first.RulesetID) || first.Version != "v1" || first.Reused || first.Slug != "acme/leave" {
		t.Fatalf("first publish = %+v", first)
	}
	if first.TestsPassing != 2 || first.TestsTotal != 2 || first.Visibility != store.VisibilityPrivate {
		t.Fatalf("first publish = %+v", first)
	}

	// A comment and different layout compile to the same content.
	reformatted := req
	reformatted.Source = append([]byte("# same rules, new comment\n"), rules("12")...)
	again, err := newPublisher(st, publish.Config{}).Ruleset(ctx, reformatted)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Reused || again.RulesetID != first.RulesetID || again.Version != "v1" || again.ContentDigest != first.ContentDigest {
		t.Fatalf("identical republish = %+v, want reuse of %s", again, first.RulesetID)
	}

	changed := req
	changed.Source = rules("13")
	second, err := newPublisher(st, publish.Config{}).Ruleset(ctx, changed)
	if err != nil {
		t.Fatal(err)
	}
	if second.Reused || second.Version != "v2" || second.RulesetID == first.RulesetID || second.PreviousID != first.RulesetID {
		t.Fatalf("changed publish = %+v", second)
	}
	assertPointer(t, st, "acme/leave", second.RulesetID)
	// The new version says whom it affects: 12 months no longer qualify.
	if d := second.DiffAgainstPrevious; d == nil || d.Equivalent || d.Changes[0].Kind != "eligible_to_not_eligible" {
		t.Fatalf("diff against the previous cut: %+v", d)
	}
	if first.DiffAgainstPrevious != nil || len(first.Findings) != 0 {
		t.Fatalf("a first publish has no previous cut and these rules no findings: %+v", first)
	}
	// Static analysis findings are warnings in the result, never refusals.
	never := req
	never.Slug, never.Cases, never.Source = "acme/never", nil, []byte(strings.Replace(string(rules("12")), "employment.months >= 12", "employment.months >= 12 and employment.months < 12", 1))
	nevers, err := newPublisher(st, publish.Config{}).Ruleset(ctx, never)
	if err != nil || len(nevers.Findings) == 0 || nevers.Findings[0].Kind != "criterion_never_satisfied" || nevers.Findings[0].Criterion != "tenure" {
		t.Fatalf("findings: %+v, %v", nevers.Findings, err)
	}

	// Going back to the first content reuses its cut and moves the pointer back.
	back, err := newPublisher(st, publish.Config{}).Ruleset(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Reused || back.RulesetID != first.RulesetID || back.Version != "v1" {
		t.Fatalf("republish of v1 content = %+v", back)
	}
	assertPointer(t, st, "acme/leave", first.RulesetID)

	// The next changed content takes v3, not v2 again.
	third := req
	third.Source = rules("12.5")
	res, err := newPublisher(st, publish.Config{}).Ruleset(ctx, third)
	if err != nil {
		t.Fatal(err)
	}
	if res.Version != "v3" {
		t.Fatalf("third content got %s, want v3", res.Version)
	}

	// An explicit slug and name override the file's.
	other := req
	other.Slug, other.Name, other.Visibility = "acme/other-leave", "Other leave", store.VisibilityPublic
	res, err = newPublisher(st, publish.Config{}).Ruleset(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	row, err := st.RulesetByRef(ctx, "acme/other-leave")
	if err != nil {
		t.Fatal(err)
	}
	if row.ID != res.RulesetID || row.ID == first.RulesetID || row.Name != "Other leave" || row.Visibility != store.VisibilityPublic || row.Version != 1 {
		t.Fatalf("other slug row = %+v", row)
	}
}

func assertPointer(t *testing.T, st *store.Store, slug, want string) {
	t.Helper()
	row, err := st.RulesetByRef(context.Background(), slug)
	if err != nil {
		t.Fatal(err)
	}
	if row.ID != want {
		t.Fatalf("slug %s points at %s, want %s", slug, row.ID, want)
	}
}

func TestPublishRefusalsLeaveOnlyAnAuditEvent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, pool := newStore(t)
	if _, err := newPublisher(st, publish.Config{}).Ruleset(ctx, publish.RulesetRequest{TenantID: "owner", Filename: "l.rules", Source: rules("12")}); err != nil {
		t.Fatal(err)
	}
	failing := leaveCases(t)
	failing[0].ExpectedOutcome = "not_eligible"

	tests := []struct {
		name     string
		reserved string
		req      publish.RulesetRequest
		want     error
		stage    string
	}{
		{"another tenant's slug", "", publish.RulesetRequest{Source: rules("12")}, publish.ErrNamespaceOwned, "store"},
		{"another tenant's namespace", "", publish.RulesetRequest{Source: rules("12"), Slug: "acme/free"}, publish.ErrNamespaceOwned, "store"},
		{"bad slug format", "", publish.RulesetRequest{Source: rules("12"), Slug: "Acme/Leave"}, publish.ErrInvalidSlug, "slug"},
		{"trailing slash", "", publish.RulesetRequest{Source: rules("12"), Slug: "acme/"}, publish.ErrInvalidSlug, "slug"},
		{"reserved namespace", "", publish.RulesetRequest{Source: rules("12"), Slug: "eligo/leave"}, publish.ErrReservedNamespace, "slug"},
		{"configured reserved namespace", "gov", publish.RulesetRequest{Source: rules("12"), Slug: "gov/leave"}, publish.ErrReservedNamespace, "slug"},
		{"compile error", "", publish.RulesetRequest{Source: []byte("section leave\nfield x int\n")}, publish.ErrCompile, "compile"},
		{"artefact made public", "", publish.RulesetRequest{Source: artefactRules, Slug: "newcomer/files", Visibility: store.VisibilityPublic}, publish.ErrArtefactPublic, "artefact_visibility"},
		{"unverified quote", "", publish.RulesetRequest{Source: rules("12"), Slug: "newcomer/leave", Sources: map[string][]byte{"law": []byte("nothing cited here")}}, publish.ErrSourceUnverified, "quotes"},
		{"failing test", "", publish.RulesetRequest{Source: rules("12"), Slug: "newcomer/leave", Cases: failing}, publish.ErrTestsFailed, "tests"},
	}
	for _, tc := range tests {
		req := tc.req
		req.TenantID, req.Filename = "newcomer", "leave.rules"
		_, err := newPublisher(st, publish.Config{ReservedNamespace: tc.reserved}).Ruleset(ctx, req)
		var refused *publish.RefusedError
		if !errors.Is(err, tc.want) || !errors.As(err, &refused) {
			t.Errorf("%s: error %v, want %v as a RefusedError", tc.name, err, tc.want)
			continue
		}
		if refused.Stage != tc.stage {
			t.Errorf("%s: refused at stage %q, want %q", tc.name, refused.Stage, tc.stage)
		}
	}

	// Nothing of the refused publishes exists: no tenant, no ruleset, no slug.
	var tenants, rulesets, slugs, refusals int
	for q, dst := range map[string]*int{
		`SELECT count(*) FROM tenants WHERE id = 'newcomer'`:                                                     &tenants,
		`SELECT count(*) FROM rulesets WHERE tenant_id <> 'owner'`:                                               &rulesets,
		`SELECT count(*) FROM ruleset_slugs WHERE tenant_id <> 'owner'`:                                          &slugs,
		`SELECT count(*) FROM audit_events WHERE kind = 'publish_refused' AND detail->>'tenant_id' = 'newcomer'`: &refusals,
	} {
		if err := pool.QueryRow(ctx, q).Scan(dst); err != nil {
			t.Fatal(err)
		}
	}
	if tenants != 0 || rulesets != 0 || slugs != 0 {
		t.Fatalf("refused publishes left tenants=%d rulesets=%d slugs=%d", tenants, rulesets, slugs)
	}
	if refusals != len(tests) {
		t.Fatalf("%d publish_refused events, want %d", refusals, len(tests))
	}
	// Each refusal's audit event names the stage that refused.
	var stages []string
	if err := pool.QueryRow(ctx, `SELECT array_agg(detail->>'stage' ORDER BY id) FROM audit_events
		WHERE kind = 'publish_refused' AND detail->>'tenant_id' = 'newcomer'`).Scan(&stages); err != nil {
		t.Fatal(err)
	}
	for i, tc := range tests {
		if stages[i] != tc.stage {
			t.Errorf("audit event %d names stage %q, want %q", i, stages[i], tc.stage)
		}
	}
	assertPointer(t, st, "acme/leave", mustRef(t, st, "acme/leave"))
}

func mustRef(t *testing.T, st *store.Store, ref string) string {
	t.Helper()
	row, err := st.RulesetByRef(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if row.TenantID != "owner" {
		t.Fatalf("%s belongs to %s after refused publishes", ref, row.TenantID)
	}
	return row.ID
}

func TestForceUnsafePublishesAndAudits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _ := newStore(t)
	cases := leaveCases(t)
	cases[1].ExpectedOutcome = "eligible"
	res, err := newPublisher(st, publish.Config{}).Ruleset(ctx, publish.RulesetRequest{
		TenantID: "acme", Filename: "leave.rules", Source: rules("12"), Cases: cases, ForceUnsafe: true, Actor: "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.TestsPassing != 1 || res.TestsTotal != 2 || len(res.Failures) != 1 || res.Failures[0].Name != "11 months" {
		t.Fatalf("forced publish = %+v", res)
	}
	events, err := st.AuditEvents(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	kinds := make([]string, len(events))
	var bypass map[string]any
	for i, e := range events {
		kinds[i] = e.Kind
		if e.Kind == "publish_force_bypass" {
			if err := json.Unmarshal(e.Detail, &bypass); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !slices.Equal(kinds, []string{"ruleset_published", "publish_force_bypass"}) {
		t.Fatalf("audit kinds %v", kinds)
	}
	if bypass["ruleset_id"] != res.RulesetID || !slices.Equal(toStrings(bypass["failing_cases"]), []string{"11 months"}) {
		t.Fatalf("bypass detail %v", bypass)
	}
}

func toStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, len(list))
	for i, s := range list {
		out[i], _ = s.(string)
	}
	return out
}

func TestPublishVerifiesSources(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _ := newStore(t)
	lawText := []byte("Section 1.\nAn employee with twelve\n   months of service may take leave.\n")
	tests := []struct {
		name     string
		sources  map[string][]byte
		problems []string
	}{
		{"quote found across line breaks", map[string][]byte{"law": lawText}, nil},
		{"quote missing", map[string][]byte{"law": []byte("An employee with six months of service.")},
			[]string{`criterion tenure: the quote "twelve months" does not appear in the text of source law`}},
		{"source without text", map[string][]byte{"other": lawText},
			[]string{"source law: no text was supplied to verify its quotes against"}},
		{"case differs", map[string][]byte{"law": []byte("TWELVE MONTHS")},
			[]string{`criterion tenure: the quote "twelve months" does not appear in the text of source law`}},
	}
	r, _, err := engine.Compile("leave.rules", rules("12"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 15, 10, 0, 0, 0, time.UTC)
	for _, tc := range tests {
		checks, problems := publish.VerifySources(r, tc.sources, now)
		if !slices.Equal(problems, tc.problems) {
			t.Errorf("%s: problems %q, want %q", tc.name, problems, tc.problems)
		}
		if tc.problems == nil {
			sum := sha256.Sum256(lawText)
			want := store.SourceCheck{ContentDigest: "sha256:" + hex.EncodeToString(sum[:]), VerifiedAt: now}
			if len(checks) != 1 || !reflect.DeepEqual(checks["law"], want) {
				t.Errorf("%s: checks %+v, want law: %+v", tc.name, checks, want)
			}
		}
	}

	_, err = newPublisher(st, publish.Config{}).Ruleset(ctx, publish.RulesetRequest{TenantID: "acme", Filename: "leave.rules", Source: rules("12"),
		Sources: tests[1].sources})
	var refused *publish.RefusedError
	if !errors.Is(err, publish.ErrSourceUnverified) || !errors.As(err, &refused) || len(refused.Problems) != 1 {
		t.Fatalf("publish with a missing quote: %v", err)
	}
	if _, err := st.RulesetByRef(ctx, "acme/leave"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("refused publish stored a ruleset: %v", err)
	}
	res, err := newPublisher(st, publish.Config{}).Ruleset(ctx, publish.RulesetRequest{TenantID: "acme", Filename: "leave.rules", Source: rules("12"),
		Sources: tests[0].sources})
	if err != nil || res.VerifiedSources != 1 {
		t.Fatalf("verified publish = %+v, %v", res, err)
	}
	row, err := st.RulesetByRef(ctx, res.RulesetID)
	if err != nil || row.SourceChecks["law"].ContentDigest == "" || row.SourceChecks["law"].VerifiedAt.IsZero() {
		t.Fatalf("stored checks = %+v, %v", row.SourceChecks, err)
	}
}

// A new version keeps the visibility of the cut its slug points at unless
// the request names one: a public programme stays public through new
// versions, a new slug starts private, and public visibility kept for
// rules citing project artefacts is refused, saying so.
func TestPublishVisibilityFollowsTheSlug(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _ := newStore(t)
	p := newPublisher(st, publish.Config{})
	artefacts := append([]byte("ruleset \"acme/leave\"\n"), artefactRules...)
	steps := []struct {
		name       string
		source     []byte
		visibility string
		makePublic bool // make the published cut public afterwards
		want, from string
		refused    string // part of the refusal's message; "" for none
	}{
		{"first version of a new slug", rules("10"), publish.VisibilityKeep, true, store.VisibilityPrivate, publish.VisibilityNewSlug, ""},
		{"next version of a public slug", rules("11"), publish.VisibilityKeep, false, store.VisibilityPublic, publish.VisibilityKept, ""},
		{"artefacts under a public slug", artefacts, publish.VisibilityKeep, false, "", "", "keeps its visibility"},
		{"artefacts asked private", artefacts, store.VisibilityPrivate, false, store.VisibilityPrivate, publish.VisibilityRequested, ""},
		{"next version of a private slug", rules("12"), publish.VisibilityKeep, false, store.VisibilityPrivate, publish.VisibilityKept, ""},
		{"asked public", rules("13"), store.VisibilityPublic, false, store.VisibilityPublic, publish.VisibilityRequested, ""},
	}
	for _, s := range steps {
		res, err := p.Ruleset(ctx, publish.RulesetRequest{TenantID: "acme", Filename: "leave.rules", Source: s.source, Visibility: s.visibility, Actor: "test"})
		if s.refused != "" {
			var refused *publish.RefusedError
			if !errors.Is(err, publish.ErrArtefactPublic) || !errors.As(err, &refused) || !strings.Contains(refused.Message, s.refused) {
				t.Fatalf("%s: %v, want an artefact refusal saying %q", s.name, err, s.refused)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		row, err := st.RulesetByRef(ctx, res.RulesetID)
		if err != nil {
			t.Fatal(err)
		}
		if res.Visibility != s.want || row.Visibility != s.want || res.VisibilityFrom != s.from {
			t.Fatalf("%s: visibility %q (stored %q) from %q, want %q from %q", s.name, res.Visibility, row.Visibility, res.VisibilityFrom, s.want, s.from)
		}
		if s.makePublic {
			if _, err := p.SetVisibility(ctx, "acme", res.RulesetID, store.VisibilityPublic); err != nil {
				t.Fatal(err)
			}
		}
	}
}
