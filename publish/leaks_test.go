package publish_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
)

// artefactSection is sectionRules citing a project file instead of a law.
func artefactSection(id string, threshold int) []byte {
	return []byte(strings.Replace(string(sectionRules(id, threshold)),
		`source law "Leave Act" url "https://example.org/leave" licence "public-domain"`,
		`source law "Internal memo" artefact "project:p1/source:s1" licence "proprietary"`, 1))
}

// A rulebook composing a ruleset that cites project artefacts is never
// public: not made public, not edited, activated or promoted into such a
// member while public, and not made public while any release it published
// has one. Making it private always works.
func TestArtefactMembersKeepRulebooksPrivate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _ := newStore(t)
	p := newPublisher(st, publish.Config{})
	for slug, src := range map[string][]byte{"acme/memo": artefactSection("memo", 12), "acme/tenure": sectionRules("tenure", 12)} {
		if _, err := p.Ruleset(ctx, publish.RulesetRequest{TenantID: "acme", Filename: "r.rules", Source: src, Slug: slug}); err != nil {
			t.Fatal(err)
		}
	}
	refused := func(what string, err error) {
		t.Helper()
		var r *publish.RefusedError
		if !errors.Is(err, publish.ErrArtefactPublic) || !errors.As(err, &r) || !strings.Contains(r.Message, "citing project artefacts (") {
			t.Fatalf("%s: %v, want ErrArtefactPublic naming the member", what, err)
		}
	}
	create := func(slug string, sections ...string) store.Rulebook {
		t.Helper()
		refs := make([]publish.RefRequest, len(sections))
		for i, s := range sections {
			refs[i] = publish.RefRequest{SectionID: s, PinMode: store.PinLatestActive}
		}
		rb, err := p.CreateRulebook(ctx, "acme", publish.RulebookDraft{Slug: slug, Refs: &refs})
		if err != nil {
			t.Fatal(err)
		}
		return rb
	}
	refsOf := func(sections ...string) *[]publish.RefRequest {
		refs := make([]publish.RefRequest, len(sections))
		for i, s := range sections {
			refs[i] = publish.RefRequest{SectionID: s, PinMode: store.PinLatestActive}
		}
		return &refs
	}

	// Made public with the member in its draft.
	withMemo := create("acme/with-memo", "memo", "tenure")
	_, err := p.SetRulebookVisibility(ctx, "acme", withMemo.ID, store.VisibilityPublic, "test")
	refused("make public", err)

	// A public rulebook does not take the member in, by edit or promotion.
	open := create("acme/open", "tenure")
	if _, err := p.Activate(ctx, "acme", open.ID, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.SetRulebookVisibility(ctx, "acme", open.ID, store.VisibilityPublic, "test"); err != nil {
		t.Fatalf("a clean rulebook made public: %v", err)
	}
	_, err = p.UpdateRulebook(ctx, "acme", open.ID, publish.RulebookDraft{Refs: refsOf("tenure", "memo")})
	refused("edit of a public rulebook", err)
	cut, err := p.Ruleset(ctx, publish.RulesetRequest{TenantID: "acme", Filename: "r.rules", Source: artefactSection("tenure", 13), Slug: "acme/tenure"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Promote(ctx, publish.PromoteRequest{TenantID: "acme", Rulebook: open.ID, Section: "tenure", Candidate: cut.RulesetID, Actor: "test"})
	refused("promotion into a public rulebook", err)
	if after, err := st.RulebookByRef(ctx, open.ID); err != nil || len(after.Refs) != 1 || after.Refs[0].LiveRulesetID == cut.RulesetID {
		t.Fatalf("the refused writes changed the rulebook: %+v, %v", after.Refs, err)
	}

	// A release that had the member keeps the rulebook private, since it
	// stays readable by its id.
	history := create("acme/history", "memo", "tenure")
	if _, err := p.Activate(ctx, "acme", history.ID, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpdateRulebook(ctx, "acme", history.ID, publish.RulebookDraft{Refs: refsOf("tenure")}); err != nil {
		t.Fatal(err)
	}
	_, err = p.SetRulebookVisibility(ctx, "acme", history.ID, store.VisibilityPublic, "test")
	refused("make public after an earlier release", err)

	// A rulebook made public before the rule can always be made private.
	leaky := create("acme/leaky", "memo")
	leaky.Visibility = store.VisibilityPublic
	if _, err := st.WriteRulebook(ctx, store.RulebookWrite{TenantID: "acme", RulebookID: leaky.ID, Draft: &leaky}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Activate(ctx, "acme", leaky.ID, "test"); !errors.Is(err, publish.ErrArtefactPublic) {
		t.Fatalf("activating the legacy public rulebook: %v", err)
	}
	if rb, err := p.SetRulebookVisibility(ctx, "acme", leaky.ID, store.VisibilityPrivate, "test"); err != nil || rb.Visibility != store.VisibilityPrivate {
		t.Fatalf("making it private: %v", err)
	}
}

// Another tenant's namespace is refused the same way whether or not the
// slug exists, for rulebooks and rulesets; the message names no slug.
func TestNamespaceRefusalRevealsNoSlug(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _ := newStore(t)
	p := newPublisher(st, publish.Config{})
	if _, err := p.Ruleset(ctx, publish.RulesetRequest{TenantID: "acme", Filename: "r.rules", Source: sectionRules("tenure", 12), Slug: "acme/tenure"}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.CreateRulebook(ctx, "acme", publish.RulebookDraft{Slug: "acme/secret-book"}); err != nil {
		t.Fatal(err)
	}
	var messages []string
	for _, slug := range []string{"acme/secret-book", "acme/no-such-book"} {
		_, err := p.CreateRulebook(ctx, "beta", publish.RulebookDraft{Slug: slug})
		var r *publish.RefusedError
		if !errors.Is(err, publish.ErrNamespaceOwned) || !errors.As(err, &r) {
			t.Fatalf("beta creates %s: %v, want ErrNamespaceOwned", slug, err)
		}
		messages = append(messages, r.Message)
	}
	for _, slug := range []string{"acme/tenure", "acme/no-such-ruleset"} {
		_, err := p.Ruleset(ctx, publish.RulesetRequest{TenantID: "beta", Filename: "r.rules", Source: sectionRules("tenure", 14), Slug: slug})
		var r *publish.RefusedError
		if !errors.Is(err, publish.ErrNamespaceOwned) || !errors.As(err, &r) {
			t.Fatalf("beta publishes %s: %v, want ErrNamespaceOwned", slug, err)
		}
		messages = append(messages, r.Message)
	}
	for _, m := range messages {
		if m != messages[0] || strings.Contains(m, "secret") || strings.Contains(m, "tenure") {
			t.Fatalf("refusals differ or name a slug: %q", messages)
		}
	}
}
