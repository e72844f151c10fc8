package store_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/eligo/eligo/migrations"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// A public rulebook composing a cut that cites project artefacts, made
// before publish refused it, is found by the check every start runs.
func TestRulebooksExposingArtefacts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storetest.New(t)
	st := store.New(pool)
	internal := cut("acme", "acme/internal", 1, store.VisibilityPrivate)
	internal.CompiledIR = []byte(`{"sources":[{"id":"law","url":"https://example.org/law"},{"id":"memo","artefact":"project:p1/source:s1"}]}`)
	open := cut("acme", "acme/open", 2, store.VisibilityPublic)
	open.CompiledIR = []byte(`{"sources":[{"id":"law","url":"https://example.org/law"}]}`)
	var ids []string
	for _, c := range []store.RulesetCut{internal, open} {
		res, err := st.PublishRuleset(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Ruleset.ID)
	}
	book := func(slug string, refs ...string) store.Rulebook {
		t.Helper()
		b := newBook("acme", slug)
		for _, id := range refs {
			b.Refs = append(b.Refs, store.RulebookRef{SectionID: "leave", PinMode: store.PinPinned, LiveRulesetID: id})
		}
		rb, err := st.CreateRulebook(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		// Public, as the store lets a write make it: the publish path is
		// what refuses it now.
		rb.Visibility = store.VisibilityPublic
		if _, err := st.WriteRulebook(ctx, store.RulebookWrite{TenantID: "acme", RulebookID: rb.ID, Draft: &rb}); err != nil {
			t.Fatal(err)
		}
		return rb
	}
	leak := book("acme/leaky", ids[0])
	book("acme/clean", ids[1])

	want := []store.ArtefactExposure{{RulebookID: leak.ID, TenantID: "acme", Slug: "acme/leaky", RulesetIDs: []string{ids[0]}}}
	got, err := st.RulebooksExposingArtefacts(ctx)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("exposures: %+v, %v; want %+v", got, err, want)
	}
	res, err := store.Migrate(ctx, pool, migrations.FS)
	if err != nil || !reflect.DeepEqual(res.ArtefactExposures, want) {
		t.Fatalf("migrate reports %+v, %v; want %+v", res.ArtefactExposures, err, want)
	}
	if members, err := st.RulebookArtefactMembers(ctx, leak.ID, ids[1:]); err != nil || len(members) != 0 {
		t.Fatalf("a draft of the clean cut, no release: %v, %v", members, err)
	}
	if members, err := st.RulebookArtefactMembers(ctx, leak.ID, ids); err != nil || !reflect.DeepEqual(members, ids[:1]) {
		t.Fatalf("a draft with the artefact cut: %v, %v", members, err)
	}
}

// BenchmarkRulebookByRef reads a rulebook with two members and ten
// releases, private and public: a public one also asks whether a member
// of its draft or of any release cites artefacts (what a /decide of
// another tenant pays once per reference cache period).
func BenchmarkRulebookByRef(b *testing.B) {
	ctx := context.Background()
	pool := storetest.New(b)
	st := store.New(pool)
	var refs []store.RulebookRef
	for i, slug := range []string{"acme/a", "acme/b"} {
		c := cut("acme", slug, i, store.VisibilityPrivate)
		c.CompiledIR = []byte(`{"sources":[{"id":"law","url":"https://example.org/law"}]}`)
		res, err := st.PublishRuleset(ctx, c)
		if err != nil {
			b.Fatal(err)
		}
		refs = append(refs, store.RulebookRef{SectionID: slug[len("acme/"):], PinMode: store.PinPinned, LiveRulesetID: res.Ruleset.ID})
	}
	for _, visibility := range []string{store.VisibilityPrivate, store.VisibilityPublic} {
		rb, err := st.CreateRulebook(ctx, store.Rulebook{ID: store.NewRulebookID(), TenantID: "acme", Slug: "acme/" + visibility,
			Name: "Book", Status: store.RulebookDraft, Refs: refs[:1]})
		if err != nil {
			b.Fatal(err)
		}
		rb.Visibility, rb.Refs = visibility, refs
		for n := range 10 {
			content := fmt.Sprintf(`{"n":%d,"sections":[{"ruleset_id":%q},{"ruleset_id":%q}]}`, n, refs[0].LiveRulesetID, refs[1].LiveRulesetID)
			if _, err := st.WriteRulebook(ctx, store.RulebookWrite{TenantID: "acme", RulebookID: rb.ID, Draft: &rb,
				Release: &store.ReleaseDraft{Title: "Book", ContentIdentity: fmt.Sprintf("sha256:%064x", n), Content: []byte(content),
					AllocateLabel: func(func(string) bool) (string, error) { return fmt.Sprintf("label-%c", 'a'+n), nil }}}); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(visibility, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := st.RulebookByRef(ctx, rb.ID); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
