package authoring

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// newDraftWorkspace is a Workspace over a fresh database with one project of
// tenant acme, authoring section grant.
func newDraftWorkspace(t testing.TB) (Workspace, store.Project) {
	t.Helper()
	st := store.New(storetest.New(t))
	cat := catalog.New(st, catalog.Config{})
	t.Cleanup(cat.Close)
	s, err := New(st, publish.New(st, cat, publish.Config{}), Config{})
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := s.Projects.Create(context.Background(), "acme", CreateRequest{Name: "Grant", SectionID: "grant"})
	if err != nil {
		t.Fatal(err)
	}
	return s, p
}

// grantDraft is a draft of section grant with n criteria.
func grantDraft(n int) string {
	var b strings.Builder
	b.WriteString("section grant\nsource act \"Act\" url \"https://example.org/act\" licence \"public-domain\"\nfield a.age int\n" +
		"group g all \"G\" {\n")
	for i := range n {
		fmt.Fprintf(&b, "  criterion c%d \"C%d\" {\n    a.age >= %d\n    cite act \"the words\"\n  }\n", i, i, i)
	}
	return b.String() + "}\n"
}

// Reading a stored draft again gives the very compile the first read made
// (the same ruleset, the same errors), not a new one: a draft is compiled
// once per content. A new text is compiled afresh.
func TestDraftCompiledOncePerContent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, p := newDraftWorkspace(t)
	for _, tc := range []struct {
		name, rules string
		compiles    bool
	}{
		{"compiles", grantDraft(3), true},
		{"does not compile", strings.Repeat("2 * ", 300) + "a.x", false},
	} {
		put, err := s.Drafts.PutDraft(ctx, "acme", p.ID, DraftRequest{Rules: tc.rules})
		if err != nil {
			t.Fatal(err)
		}
		for read := range 2 {
			w, err := s.Drafts.Draft(ctx, "acme", p.ID, nil)
			if err != nil {
				t.Fatal(err)
			}
			if (w.Rules != nil) != tc.compiles {
				t.Fatalf("%s: compiles = %v, errors %v", tc.name, w.Rules != nil, w.CompileErrors)
			}
			if tc.compiles && w.Rules != put.Rules {
				t.Errorf("%s: read %d compiled the stored draft again", tc.name, read+1)
			}
			if !tc.compiles && (len(w.CompileErrors) == 0 || w.CompileErrors[0] != put.CompileErrors[0]) {
				t.Errorf("%s: read %d compiled the stored draft again", tc.name, read+1)
			}
		}
	}
	changed, err := s.Drafts.PutDraft(ctx, "acme", p.ID, DraftRequest{Rules: grantDraft(4)})
	if err != nil {
		t.Fatal(err)
	}
	if changed.Rules == nil || changed.Rules.NumCriteria() != 4 {
		t.Fatalf("a changed draft was not compiled afresh: %v", changed.CompileErrors)
	}
}

// The cache keeps at most its size, dropping the least recently read.
func TestDraftCacheBounded(t *testing.T) {
	t.Parallel()
	c := newDraftCache(2)
	compile := func(n int) compiledDraft {
		d, err := c.compile(grantDraft(n))
		if err != nil || d.rules == nil {
			t.Fatalf("compile: %v %v", err, d.errs)
		}
		return d
	}
	one, two := compile(1), compile(2)
	if compile(1).rules != one.rules {
		t.Error("a cached draft was compiled again")
	}
	compile(3) // drops 2, the least recently read
	if c.order.Len() != 2 || len(c.byKey) != 2 {
		t.Errorf("the cache holds %d entries (%d keys), want 2", c.order.Len(), len(c.byKey))
	}
	if compile(1).rules != one.rules {
		t.Error("the most recently read draft was dropped")
	}
	if compile(2).rules == two.rules {
		t.Error("the least recently read draft was kept past the cache's size")
	}
}

// BenchmarkDraftRead reads a stored draft of 1,000 criteria (the engine's
// limit) the way GET draft does.
func BenchmarkDraftRead(b *testing.B) {
	ctx := context.Background()
	s, p := newDraftWorkspace(b)
	if _, err := s.Drafts.PutDraft(ctx, "acme", p.ID, DraftRequest{Rules: grantDraft(1000)}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		w, err := s.Drafts.Draft(ctx, "acme", p.ID, nil)
		if err != nil || w.Rules == nil {
			b.Fatalf("%v %v", err, w.CompileErrors)
		}
	}
}
