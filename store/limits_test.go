package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/eligo/eligo/store"
	"github.com/jackc/pgx/v5"
)

// noJob enqueues nothing: the generations stay queued.
func noJob(context.Context, pgx.Tx) (int64, error) { return 1, nil }

// The tenant's generations under way are counted across its projects, in
// the transaction that records a start, so concurrent starts stop at the
// cap exactly; a project's own active generation is still reported as
// that, and another tenant is not counted.
func TestStartGenerationWithinTenantLimit(t *testing.T) {
	t.Parallel()
	ctx, st := projectStore(t)
	var projects []store.Project
	for range 6 {
		p, _ := newProject(t, ctx, st, "acme")
		projects = append(projects, p)
	}
	start := func(p store.Project) error {
		_, err := st.StartGenerationWithin(ctx, store.Generation{ProjectID: p.ID, TenantID: p.TenantID, Mode: "fresh", Model: "m", OwnerQueue: "q"}, 2, noJob)
		return err
	}
	var wg sync.WaitGroup
	errs := make([]error, len(projects))
	for i, p := range projects {
		wg.Go(func() { errs[i] = start(p) })
	}
	wg.Wait()
	started := 0
	for _, err := range errs {
		switch {
		case err == nil:
			started++
		case !errors.Is(err, store.ErrGenerationLimit):
			t.Fatalf("a start past the cap: %v, want ErrGenerationLimit", err)
		}
	}
	if started != 2 {
		t.Fatalf("%d generations started concurrently under a cap of 2", started)
	}
	if n, err := st.ActiveGenerations(ctx, "acme"); n != 2 || err != nil {
		t.Fatalf("ActiveGenerations = %d, %v", n, err)
	}
	for i, err := range errs {
		if err == nil {
			if again := start(projects[i]); !errors.Is(again, store.ErrGenerationActive) {
				t.Errorf("the same project again: %v, want ErrGenerationActive", again)
			}
			break
		}
	}
	other, _ := newProject(t, ctx, st, "beta")
	if err := start(other); err != nil {
		t.Fatalf("another tenant: %v", err)
	}
}
