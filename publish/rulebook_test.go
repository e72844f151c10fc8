package publish_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/rulebook"
	"github.com/eligo/eligo/store"
)

// sectionRules is a one-criterion section over months.
func sectionRules(id string, threshold int) []byte {
	return fmt.Appendf(nil, `section %s
source law "Leave Act" url "https://example.org/leave" licence "public-domain"
field employment.months int weight 1
group service all "Service" {
  criterion tenure "Enough months" {
    employment.months >= %d
    cite law "twelve months"
  }
}
`, id, threshold)
}

// activeRulebook publishes two sections and an active rulebook over them.
func activeRulebook(t *testing.T, p *publish.Publisher, st *store.Store) store.Rulebook {
	t.Helper()
	ctx := context.Background()
	for i, id := range []string{"tenure", "service"} {
		if _, err := p.Ruleset(ctx, publish.RulesetRequest{TenantID: "acme", Filename: id + ".rules", Source: sectionRules(id, 12+i),
			Slug: "acme/" + id, Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	name := "Leave"
	refs := []publish.RefRequest{{SectionID: "tenure", PinMode: store.PinLatestActive}, {SectionID: "service", PinMode: store.PinLatestActive}}
	rb, err := p.CreateRulebook(ctx, "acme", publish.RulebookDraft{Slug: "acme/leave-book", Name: &name, Refs: &refs})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Activate(ctx, "acme", rb.ID, "test"); err != nil {
		t.Fatal(err)
	}
	rb, err = st.RulebookByRef(ctx, rb.ID)
	if err != nil {
		t.Fatal(err)
	}
	return rb
}

// TestFailedPublicationKeepsTheDraft: when the last publication step of
// an edit fails, the edit is kept (flagged pending), the head is
// unchanged, and the next activate publishes it.
func TestFailedPublicationKeepsTheDraft(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _ := newStore(t)
	p := newPublisher(st, publish.Config{})
	rb := activeRulebook(t, p, st)
	head := rb.CurrentReleaseID

	p.FailReleases(errors.New("injected fault"))
	or := &rulebook.Node{Op: rulebook.OpOr, Args: []*rulebook.Node{{Section: "A"}, {Section: "B"}}}
	_, err := p.UpdateRulebook(ctx, "acme", rb.ID, publish.RulebookDraft{Outcome: or, SetOutcome: true, Actor: "test"})
	if !errors.Is(err, publish.ErrPublicationFailed) {
		t.Fatalf("edit with a failing publication: %v, want ErrPublicationFailed", err)
	}
	kept, err := st.RulebookByRef(ctx, rb.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !kept.PublicationPending || kept.CurrentReleaseID != head || string(kept.OutcomeLogic) == "" {
		t.Fatalf("after the failure: pending %v, head %s (was %s), outcome %s", kept.PublicationPending, kept.CurrentReleaseID, head, kept.OutcomeLogic)
	}
	if _, err := p.Activate(ctx, "acme", rb.ID, "test"); !errors.Is(err, publish.ErrPublicationFailed) {
		t.Fatalf("activate while the fault lasts: %v", err)
	}

	p.FailReleases(nil)
	res, err := p.Activate(ctx, "acme", rb.ID, "test")
	if err != nil {
		t.Fatal(err)
	}
	if res.Release == nil || res.Release.ID == head || res.Release.Version != 2 || res.Rulebook.PublicationPending {
		t.Fatalf("the next activate did not publish the kept draft: %+v", res)
	}
	cat := catalog.New(st, catalog.Config{})
	defer cat.Close()
	prepared, err := cat.PrepareRulebook(ctx, res.Rulebook, "")
	if err != nil || prepared.Composed.Outcome.Op != rulebook.OpOr {
		t.Fatalf("the current release is not the edited draft: %v", err)
	}
}

// TestReleaseLabelAllocationFailure: when no label is left, the
// publication is refused with ErrLabelAllocation and nothing is released.
func TestReleaseLabelAllocationFailure(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _ := newStore(t)
	p := newPublisher(st, publish.Config{})
	rb := activeRulebook(t, p, st)
	p.AllocateLabelsWith(func(uint64, func(string) bool) (string, error) { return "", rulebook.ErrNoLabel })
	_, err := p.UpdateRulebook(ctx, "acme", rb.ID, publish.RulebookDraft{Outcome: &rulebook.Node{Op: rulebook.OpOr,
		Args: []*rulebook.Node{{Section: "A"}, {Section: "B"}}}, SetOutcome: true})
	if !errors.Is(err, publish.ErrLabelAllocation) {
		t.Fatalf("error %v, want ErrLabelAllocation", err)
	}
	after, _ := st.RulebookByRef(ctx, rb.ID)
	if after.CurrentReleaseID != rb.CurrentReleaseID {
		t.Fatal("a release was published without a label")
	}
}

// TestConcurrentEditIsRefused: a write worked out from a rulebook that has
// changed since is refused and writes nothing, so two concurrent edits can
// never publish a release of a draft that is no longer the stored one.
func TestConcurrentEditIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _ := newStore(t)
	p := newPublisher(st, publish.Config{})
	stale := activeRulebook(t, p, st)
	renamed := "Leave, renamed"
	if _, err := p.UpdateRulebook(ctx, "acme", stale.ID, publish.RulebookDraft{Name: &renamed}); err != nil {
		t.Fatal(err)
	}
	draft := stale
	draft.Name = "Lost update"
	if _, err := p.WriteFrom(ctx, stale, store.RulebookWrite{TenantID: "acme", RulebookID: stale.ID, Draft: &draft}); !errors.Is(err, publish.ErrConcurrentEdit) {
		t.Fatalf("stale write: %v, want ErrConcurrentEdit", err)
	}
	now, err := st.RulebookByRef(ctx, stale.ID)
	if err != nil || now.Name != renamed {
		t.Fatalf("after the refused write: %q, %v", now.Name, err)
	}
}
