package store_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// projectStore is a store on a fresh database.
func projectStore(t *testing.T) (context.Context, *store.Store) {
	t.Helper()
	return context.Background(), store.New(storetest.New(t))
}

// testSource is a valid source of content: digest, text and signature filled in.
func testSource(name string, content []byte) store.ProjectSource {
	sum := sha256.Sum256(content)
	return store.ProjectSource{
		Filename: name, MediaType: "text/plain", Title: "Title " + name, Licence: "CC-BY-4.0",
		Content: content, ContentDigest: "sha256:" + hex.EncodeToString(sum[:]),
		Text: strings.ReplaceAll(strings.ToValidUTF8(string(content), "?"), "\x00", ""), Signature: []byte{0, 1, 2, byte(len(content))},
		EstimatedTokens: len(content) / 4,
	}
}

// newProject creates a project of tenant with sources named after their contents.
func newProject(t *testing.T, ctx context.Context, st *store.Store, tenant string, contents ...string) (store.Project, []store.ProjectSource) {
	t.Helper()
	var sources []store.ProjectSource
	for i, c := range contents {
		sources = append(sources, testSource(fmt.Sprintf("s%d.txt", i), []byte(c)))
	}
	p, added, err := st.CreateProject(ctx, store.Project{TenantID: tenant, Name: "Leave", SectionID: "leave"}, sources)
	if err != nil {
		t.Fatalf("create project of %s: %v", tenant, err)
	}
	return p, added
}

// sourceIDs lists the ids of the project's sources in position order.
func sourceIDs(t *testing.T, ctx context.Context, st *store.Store, tenant, projectID string) []string {
	t.Helper()
	srcs, err := st.ProjectSources(ctx, tenant, projectID, false)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, s := range srcs {
		ids = append(ids, s.ID)
	}
	return ids
}

// concurrently runs fn(0) to fn(n-1) at once and returns their errors.
func concurrently(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = fn(i) })
	}
	wg.Wait()
	return errs
}

func TestCreateProjectAndProjectOf(t *testing.T) {
	t.Parallel()
	ctx, st := projectStore(t)
	p, added, err := st.CreateProject(ctx, store.Project{
		TenantID: "acme", Name: "Leave", SectionID: "leave",
		TestCases: json.RawMessage(`[{"name": "t1"}]`), Contract: json.RawMessage(`{"contract_version": 1}`), // jsonb's form
	}, []store.ProjectSource{testSource("a.txt", []byte("alpha")), testSource("b.txt", []byte("beta"))})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.ID, "prj_") || p.TenantID != "acme" || p.Name != "Leave" || p.SectionID != "leave" ||
		string(p.TestCases) != `[{"name": "t1"}]` || string(p.Contract) != `{"contract_version": 1}` ||
		string(p.SourceQuestions) != `[]` || p.DraftText != nil || p.DraftOrigin != "" || p.DraftInputs != nil {
		t.Fatalf("created %+v", p)
	}
	if len(added) != 2 || added[0].Position != 0 || added[1].Position != 1 || added[0].ProjectID != p.ID ||
		added[1].Size != 4 || added[0].Status != "active" || !strings.HasPrefix(added[0].ID, "src_") {
		t.Fatalf("sources %+v", added)
	}
	if got := sourceIDs(t, ctx, st, "acme", p.ID); !slices.Equal(got, []string{added[0].ID, added[1].ID}) {
		t.Fatalf("stored sources %v", got)
	}

	bare, _ := newProject(t, ctx, st, "acme")
	if bare.Contract != nil || string(bare.TestCases) != `[]` {
		t.Fatalf("project without contract or tests: contract %q, tests %q", bare.Contract, bare.TestCases)
	}

	for _, tc := range []struct {
		name, tenant, id string
		wantErr          error
	}{
		{"owner", "acme", p.ID, nil},
		{"another tenant", "beta", p.ID, store.ErrNotFound},
		{"unknown id", "acme", store.NewProjectID(), store.ErrNotFound},
	} {
		got, err := st.ProjectOf(ctx, tc.tenant, tc.id)
		if !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.wantErr)
			continue
		}
		if err == nil && !reflect.DeepEqual(got, p) {
			t.Errorf("%s: read %+v, want %+v", tc.name, got, p)
		}
	}

	// A source the table refuses (bad digest) rolls the project back too.
	bad := testSource("bad.txt", []byte("x"))
	bad.ContentDigest = "md5:00"
	failed := store.Project{ID: store.NewProjectID(), TenantID: "acme", Name: "Broken", SectionID: "leave"}
	if _, _, err := st.CreateProject(ctx, failed, []store.ProjectSource{testSource("ok.txt", []byte("ok")), bad}); err == nil {
		t.Fatal("a source with a bad digest was stored")
	}
	if _, err := st.ProjectOf(ctx, "acme", failed.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("project of a failed create: %v", err)
	}
}

func TestListProjectsKeyset(t *testing.T) {
	t.Parallel()
	ctx, st := projectStore(t)
	var want []string
	for i := range 5 {
		p, _ := newProject(t, ctx, st, "acme")
		want = append(want, p.ID)
		if i%2 == 0 {
			newProject(t, ctx, st, "beta")
		}
	}
	for _, limit := range []int{1, 2, 5, 10} {
		var got []string
		page := store.ProjectPage{Limit: limit}
		for range 10 {
			rows, err := st.ListProjects(ctx, "acme", page)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) > limit {
				t.Fatalf("limit %d: page of %d", limit, len(rows))
			}
			for _, r := range rows {
				got = append(got, r.ID)
			}
			if len(rows) == 0 {
				break
			}
			last := rows[len(rows)-1]
			page.AfterCreated, page.AfterID = last.CreatedAt, last.ID
		}
		if !slices.Equal(got, want) {
			t.Errorf("limit %d: listed %v, want %v", limit, got, want)
		}
	}
}

func TestUpdateProject(t *testing.T) {
	t.Parallel()
	ctx, st := projectStore(t)
	errRefused := errors.New("refused")
	draft := "section leave\n"
	at := time.Date(2026, 2, 1, 12, 0, 0, 0, time.Local) // as pgx reads it back
	for _, tc := range []struct {
		name, tenant string
		edit         func(*store.Project) error
		wantErr      error
	}{
		{"edits are written", "acme", func(p *store.Project) error {
			p.Name, p.TestCases, p.Contract = "Renamed", json.RawMessage(`[{"n": 1}]`), json.RawMessage(`{"contract_version": 1}`)
			p.DraftText, p.DraftOrigin, p.DraftUpdatedAt = &draft, "generation", &at
			p.DraftInputs, p.SourceQuestions = json.RawMessage(`{"model": "m"}`), json.RawMessage(`["why?"]`)
			return nil
		}, nil},
		{"an error from fn writes nothing", "acme", func(p *store.Project) error {
			p.Name, p.TestCases, p.DraftText = "Renamed", json.RawMessage(`[{"n": 1}]`), &draft
			return errRefused
		}, errRefused},
		{"another tenant", "beta", func(p *store.Project) error {
			t.Error("fn called for another tenant's project")
			return nil
		}, store.ErrNotFound},
	} {
		p, _ := newProject(t, ctx, st, "acme")
		want := p // the project as a successful fn leaves it
		returned, err := st.UpdateProject(ctx, tc.tenant, p.ID, func(q *store.Project) error {
			err := tc.edit(q)
			if err == nil {
				want = *q
			}
			return err
		})
		if !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.wantErr)
		}
		stored, serr := st.ProjectOf(ctx, "acme", p.ID)
		if serr != nil {
			t.Fatal(serr)
		}
		if want.UpdatedAt = stored.UpdatedAt; !reflect.DeepEqual(stored, want) {
			t.Errorf("%s: stored\n%+v, want\n%+v", tc.name, stored, want)
		}
		if err == nil && (!reflect.DeepEqual(returned, stored) || !stored.UpdatedAt.After(p.UpdatedAt)) {
			t.Errorf("%s: returned\n%+v, stored\n%+v", tc.name, returned, stored)
		}
	}
}

// Every append made under UpdateProject's row lock lands.
func TestUpdateProjectSerialises(t *testing.T) {
	t.Parallel()
	ctx, st := projectStore(t)
	p, _ := newProject(t, ctx, st, "acme")
	const n = 10
	for _, err := range concurrently(n, func(i int) error {
		_, err := st.UpdateProject(ctx, "acme", p.ID, func(p *store.Project) error {
			var cases []map[string]int
			if err := json.Unmarshal(p.TestCases, &cases); err != nil {
				return err
			}
			b, err := json.Marshal(append(cases, map[string]int{"n": i}))
			p.TestCases = b
			return err
		})
		return err
	}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	stored, err := st.ProjectOf(ctx, "acme", p.ID)
	if err != nil {
		t.Fatal(err)
	}
	var cases []map[string]int
	if err := json.Unmarshal(stored.TestCases, &cases); err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, c := range cases {
		seen[c["n"]] = true
	}
	if len(cases) != n || len(seen) != n {
		t.Fatalf("test cases %s, want %d distinct", stored.TestCases, n)
	}
}

func TestAddSources(t *testing.T) {
	t.Parallel()
	ctx, st := projectStore(t)
	four := func(contents ...string) []store.ProjectSource { // each content is 4 bytes
		var out []store.ProjectSource
		for _, c := range contents {
			out = append(out, testSource(c+".txt", []byte(c)))
		}
		return out
	}
	for _, tc := range []struct {
		name, tenant string
		sources      []store.ProjectSource
		limits       store.SourceLimits
		wantErr      error
		positions    []int
	}{
		{"positions continue, at both limits", "acme", four("cccc", "dddd"), store.SourceLimits{MaxCount: 4, MaxBytes: 16}, nil, []int{2, 3}},
		{"one past the count", "acme", four("cccc", "dddd"), store.SourceLimits{MaxCount: 3, MaxBytes: 100}, store.ErrSourceLimit, nil},
		{"one byte past the size", "acme", four("cccc"), store.SourceLimits{MaxCount: 10, MaxBytes: 11}, store.ErrSourceLimit, nil},
		{"another tenant", "beta", four("cccc"), store.SourceLimits{MaxCount: 10, MaxBytes: 100}, store.ErrNotFound, nil},
	} {
		p, first := newProject(t, ctx, st, "acme", "aaaa", "bbbb")
		added, err := st.AddSources(ctx, tc.tenant, p.ID, tc.sources, tc.limits)
		if !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.wantErr)
			continue
		}
		want := []string{first[0].ID, first[1].ID}
		var positions []int
		for _, a := range added {
			positions = append(positions, a.Position)
			want = append(want, a.ID)
		}
		if !slices.Equal(positions, tc.positions) {
			t.Errorf("%s: positions %v, want %v", tc.name, positions, tc.positions)
		}
		if got := sourceIDs(t, ctx, st, "acme", p.ID); !slices.Equal(got, want) {
			t.Errorf("%s: stored %v, want %v", tc.name, got, want)
		}
	}
}

// Concurrent uploads cannot together pass the count limit.
func TestAddSourcesConcurrentLimit(t *testing.T) {
	t.Parallel()
	ctx, st := projectStore(t)
	p, _ := newProject(t, ctx, st, "acme")
	const n, limit = 6, 3
	refused := 0
	for _, err := range concurrently(n, func(i int) error {
		src := testSource(fmt.Sprintf("f%d.txt", i), []byte(fmt.Sprintf("file %d", i)))
		_, err := st.AddSources(ctx, "acme", p.ID, []store.ProjectSource{src}, store.SourceLimits{MaxCount: limit, MaxBytes: 1 << 20})
		return err
	}) {
		switch {
		case errors.Is(err, store.ErrSourceLimit):
			refused++
		case err != nil:
			t.Fatal(err)
		}
	}
	srcs, err := st.ProjectSources(ctx, "acme", p.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != limit || refused != n-limit || srcs[0].Position != 0 || srcs[limit-1].Position != limit-1 {
		t.Fatalf("%d stored (%+v) and %d refused, want %d and %d", len(srcs), srcs, refused, limit, n-limit)
	}
}

func TestProjectSourcesWithAndWithoutText(t *testing.T) {
	t.Parallel()
	ctx, st := projectStore(t)
	pdf := testSource("act.pdf", []byte("%PDF-1.7 bytes"))
	pdf.MediaType, pdf.Text, pdf.Pages = "application/pdf", strings.Repeat("p", 200), []int{0, 120}
	plain := testSource("note.txt", []byte("a plain note"))
	p, _, err := st.CreateProject(ctx, store.Project{TenantID: "acme", Name: "Leave", SectionID: "leave"}, []store.ProjectSource{pdf, plain})
	if err != nil {
		t.Fatal(err)
	}
	for _, withText := range []bool{false, true} {
		got, err := st.ProjectSources(ctx, "acme", p.ID, withText)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []store.ProjectSource{pdf, plain} {
			if i >= len(got) {
				t.Fatalf("withText %v: %d sources", withText, len(got))
			}
			g := got[i] // all but the bytes, and the text only when asked for
			want.ID, want.ProjectID, want.Position, want.Size, want.Status = g.ID, p.ID, i, len(want.Content), "active"
			want.Content, want.CreatedAt, want.UpdatedAt = nil, g.CreatedAt, g.UpdatedAt
			if !withText {
				want.Text, want.Pages = "", nil
			}
			if !reflect.DeepEqual(g, want) {
				t.Errorf("withText %v: source %d is\n%+v, want\n%+v", withText, i, g, want)
			}
		}
	}
	if got, err := st.ProjectSources(ctx, "beta", p.ID, true); err != nil || len(got) != 0 {
		t.Fatalf("another tenant listed %d sources, %v", len(got), err)
	}
}

func TestSourceRaw(t *testing.T) {
	t.Parallel()
	ctx, st := projectStore(t)
	content := []byte{'%', 0xff, 0xfe, 0x00, 'a', 0xc3, 0x28, '\n'} // not UTF-8
	p, added := newProject(t, ctx, st, "acme", string(content))
	other, _ := newProject(t, ctx, st, "acme")
	id := added[0].ID
	for _, tc := range []struct {
		name, tenant, project, source string
		wantErr                       error
	}{
		{"owner", "acme", p.ID, id, nil},
		{"another tenant", "beta", p.ID, id, store.ErrNotFound},
		{"another project", "acme", other.ID, id, store.ErrNotFound},
		{"unknown source", "acme", p.ID, store.NewSourceID(), store.ErrNotFound},
	} {
		got, err := st.SourceRaw(ctx, tc.tenant, tc.project, tc.source)
		if !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.wantErr)
			continue
		}
		if err == nil && (string(got.Content) != string(content) || got.Size != len(content) || got.ID != id) {
			t.Errorf("%s: read %q (size %d), want %q", tc.name, got.Content, got.Size, content)
		}
	}
}

func TestUpdateSource(t *testing.T) {
	t.Parallel()
	ctx, st := projectStore(t)
	p, srcs := newProject(t, ctx, st, "acme", "old text", "new text")
	_, foreign := newProject(t, ctx, st, "acme", "elsewhere")
	old, replacement := srcs[0].ID, srcs[1].ID
	superseded := []string{"superseded by " + replacement, "active by "}
	for _, tc := range []struct {
		name, tenant, source, status, by string
		wantErr                          error
		want                             []string // "status by superseded_by" of each source of p afterwards
	}{
		{"supersede", "acme", old, "superseded", replacement, nil, superseded},
		{"superseded by another project's source", "acme", replacement, "superseded", foreign[0].ID, store.ErrNotFound, superseded},
		{"another tenant", "beta", replacement, "reference_only", "", store.ErrNotFound, superseded},
		{"clear", "acme", old, "active", "", nil, []string{"active by ", "active by "}},
	} {
		got, err := st.UpdateSource(ctx, tc.tenant, p.ID, tc.source, tc.status, tc.by)
		if !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.wantErr)
		}
		if err == nil && (got.Status != tc.status || got.SupersededBy != tc.by) {
			t.Errorf("%s: returned %s by %q", tc.name, got.Status, got.SupersededBy)
		}
		stored, err := st.ProjectSources(ctx, "acme", p.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		var states []string
		for _, s := range stored {
			states = append(states, s.Status+" by "+s.SupersededBy)
		}
		if !slices.Equal(states, tc.want) {
			t.Errorf("%s: stored %q, want %q", tc.name, states, tc.want)
		}
	}
}

func TestDeleteSource(t *testing.T) {
	t.Parallel()
	ctx, st := projectStore(t)
	p, srcs := newProject(t, ctx, st, "acme", "cited text", "free text")
	cited, free := srcs[0], srcs[1]
	c := cut("acme", "acme/leave", 1, store.VisibilityPrivate)
	c.Provenance = []store.Provenance{{ProjectID: p.ID, SourceID: cited.ID, RulesSourceID: "act", TargetKind: "url", ContentDigest: cited.ContentDigest}}
	res, err := st.PublishRuleset(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if ids, err := st.SourceCitations(ctx, cited.ID); err != nil || !slices.Equal(ids, []string{res.Ruleset.ID}) {
		t.Fatalf("citations %v, %v", ids, err)
	}
	if ids, err := st.SourceCitations(ctx, free.ID); err != nil || len(ids) != 0 {
		t.Fatalf("citations of the free source %v, %v", ids, err)
	}
	for _, tc := range []struct {
		name, tenant, source string
		wantErr              error
		remaining            []string
	}{
		{"unknown", "acme", store.NewSourceID(), store.ErrNotFound, []string{cited.ID, free.ID}},
		{"another tenant", "beta", free.ID, store.ErrNotFound, []string{cited.ID, free.ID}},
		{"cited", "acme", cited.ID, store.ErrSourceCited, []string{cited.ID, free.ID}},
		{"not cited", "acme", free.ID, nil, []string{cited.ID}},
		{"already deleted", "acme", free.ID, store.ErrNotFound, []string{cited.ID}},
	} {
		if err := st.DeleteSource(ctx, tc.tenant, p.ID, tc.source); !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.wantErr)
		}
		if got := sourceIDs(t, ctx, st, "acme", p.ID); !slices.Equal(got, tc.remaining) {
			t.Errorf("%s: remaining %v, want %v", tc.name, got, tc.remaining)
		}
	}
}

func TestGuidance(t *testing.T) {
	t.Parallel()
	ctx, st := projectStore(t)
	p, _ := newProject(t, ctx, st, "acme")
	notes := []store.Guidance{
		{Text: "Read dates as ISO 8601", ProcessType: "field_extraction", Adherence: "exact"},
		{Text: "One rule per subsection", ProcessType: "rule_generation"},
		{Text: "Weeks are calendar weeks", ProcessType: "rule_generation", DomainScope: "leave"},
	}
	var added []store.Guidance
	for i, g := range notes {
		got, err := st.AddGuidance(ctx, "acme", p.ID, g)
		if err != nil {
			t.Fatal(err)
		}
		g.Position, g.CreatedAt = i, got.CreatedAt
		if got != g {
			t.Fatalf("added %+v, want %+v", got, g)
		}
		added = append(added, got)
	}
	if list, err := st.ListGuidance(ctx, "acme", p.ID); err != nil || !slices.Equal(list, added) {
		t.Fatalf("listed %+v, %v; want %+v", list, err, added)
	}
	if _, err := st.AddGuidance(ctx, "beta", p.ID, notes[0]); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another tenant added guidance: %v", err)
	}
	if list, err := st.ListGuidance(ctx, "beta", p.ID); err != nil || len(list) != 0 {
		t.Fatalf("another tenant listed %d notes, %v", len(list), err)
	}
}
