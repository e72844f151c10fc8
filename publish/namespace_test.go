package publish_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
)

// The reserved namespaces: the default list (and a configured one) refuses
// every tenant but the one an operator assigned the namespace to, for
// ruleset publishes and rulebook drafts alike; an empty list reserves none.
func TestReservedNamespaces(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _ := newStore(t)
	publishAs := func(p *publish.Publisher, tenant, slug string) error {
		_, err := p.Ruleset(ctx, publish.RulesetRequest{TenantID: tenant, Filename: "l.rules", Source: rules("12"), Slug: slug, Actor: "test"})
		return err
	}
	def := newPublisher(st, publish.Config{})
	if err := publishAs(def, "agency", "agency/leave"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.TransferNamespace(ctx, "hmrc", "agency", "operator", false); err != nil {
		t.Fatal(err)
	}
	name := "Book"
	for _, tc := range []struct {
		name     string
		reserved []string
		tenant   string
		slug     string
		want     error
	}{
		{"default list", nil, "squatter", "usa/benefit", publish.ErrReservedNamespace},
		{"default list, nested", nil, "squatter", "medicaid/ny/adult", publish.ErrReservedNamespace},
		{"a prefix of a reserved name is free", nil, "squatter", "usable/leave", nil},
		{"assigned to another tenant", nil, "squatter", "hmrc/leave", publish.ErrReservedNamespace},
		{"assigned by an operator", nil, "agency", "hmrc/leave", nil},
		{"the service's prefix", nil, "agency", "eligo/leave", publish.ErrReservedNamespace},
		{"configured list", []string{"city"}, "squatter", "city/leave", publish.ErrReservedNamespace},
		{"off the configured list", []string{"city"}, "squatter", "usa/leave", nil},
		{"empty list", []string{}, "other", "uk/leave", nil},
	} {
		p := newPublisher(st, publish.Config{ReservedNamespaces: tc.reserved})
		err := publishAs(p, tc.tenant, tc.slug)
		var refused *publish.RefusedError
		switch {
		case tc.want == nil && err != nil:
			t.Errorf("%s: publish %s: %v", tc.name, tc.slug, err)
		case tc.want != nil && (!errors.Is(err, tc.want) || !errors.As(err, &refused) || refused.Stage != "slug"):
			t.Errorf("%s: publish %s: %v, want %v at stage slug", tc.name, tc.slug, err, tc.want)
		}
		if tc.want == nil {
			continue
		}
		_, err = p.CreateRulebook(ctx, tc.tenant, publish.RulebookDraft{Slug: tc.slug + "-book", Name: &name})
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: rulebook draft %s-book: %v, want %v", tc.name, tc.slug, err, tc.want)
		}
	}
}

// The per-tier cap: a publish that would claim one namespace too many is
// refused with ErrNamespaceLimit, saying the figures, for a ruleset and
// for a rulebook's first release; a draft under a new namespace claims
// nothing and so is not refused.
func TestNamespaceLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, _ := newStore(t)
	p := newPublisher(st, publish.Config{NamespaceLimits: map[string]int{"free": 1}})
	if _, err := p.Ruleset(ctx, publish.RulesetRequest{TenantID: "acme", Filename: "t.rules", Source: sectionRules("tenure", 12),
		Slug: "acme/tenure", Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	_, err := p.Ruleset(ctx, publish.RulesetRequest{TenantID: "acme", Filename: "t.rules", Source: sectionRules("tenure", 13),
		Slug: "second/tenure", Actor: "test"})
	var refused *publish.RefusedError
	if !errors.Is(err, publish.ErrNamespaceLimit) || !errors.As(err, &refused) || refused.Stage != "store" ||
		!strings.Contains(refused.Message, `"second"`) || !strings.Contains(refused.Message, "owns 1, while its free tier allows 1") {
		t.Fatalf("a second namespace past a cap of 1: %v", err)
	}
	name := "Book"
	refs := []publish.RefRequest{{SectionID: "tenure", PinMode: store.PinLatestActive}}
	rb, err := p.CreateRulebook(ctx, "acme", publish.RulebookDraft{Slug: "third/book", Name: &name, Refs: &refs})
	if err != nil {
		t.Fatalf("a draft claims nothing, so the cap does not refuse it: %v", err)
	}
	if _, err := p.Activate(ctx, "acme", rb.ID, "test"); !errors.Is(err, publish.ErrNamespaceLimit) {
		t.Fatalf("the draft's first release past the cap: %v, want ErrNamespaceLimit", err)
	}
	if got, _ := st.RulebookByRef(ctx, rb.ID); got.CurrentReleaseID != "" || got.PublicationPending {
		t.Fatalf("a refused activation left %+v", got)
	}
	if _, err := st.NamespaceOwner(ctx, "third"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a refused activation claimed its namespace: %v", err)
	}
}
