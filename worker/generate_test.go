package worker

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"

	"github.com/eligo/eligo/authoring"
	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/store/storetest"
)

// newGenerator is a Generator over a fresh database, with a project of
// tenant acme, and a queued generation of it owned by queue.
func newGenerator(t *testing.T) (*Generator, *store.Store, store.Project) {
	t.Helper()
	st := store.New(storetest.New(t))
	cat := catalog.New(st, catalog.Config{})
	t.Cleanup(cat.Close)
	work, err := authoring.New(st, publish.New(st, cat, publish.Config{}), authoring.Config{})
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := st.CreateProject(context.Background(), store.Project{TenantID: "acme", Name: "Grant", SectionID: "grant",
		TestCases: json.RawMessage(`[]`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return NewGenerator(st, work.Generation, llm.NewOpenAI(llm.OpenAIConfig{BaseURL: "http://127.0.0.1:1/v1"}), llm.DefaultModels(), nil), st, p
}

func queued(t *testing.T, st *store.Store, p store.Project, queue string) store.Generation {
	t.Helper()
	g, err := st.StartGeneration(context.Background(), store.Generation{ProjectID: p.ID, TenantID: p.TenantID, Mode: "fresh",
		Model: "gpt-4.1", OwnerQueue: queue}, func(context.Context, pgx.Tx) (int64, error) { return 1, nil })
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A job whose key this process does not hold (it was accepted elsewhere,
// or this process restarted) fails at once as provider_key_unavailable,
// retryable, and never calls a model.
func TestWorkWithoutKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	gen, st, p := newGenerator(t)
	g := queued(t, st, p, gen.Queue())
	w := rivertest.NewWorker(t, riverpgxv5.New(st.Pool()), &river.Config{}, river.Worker[GenerateArgs](&GenerateWorker{gen: gen}))
	tx, err := st.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	res, err := w.Work(ctx, t, tx, GenerateArgs{GenerationID: g.ID}, nil)
	if err != nil || res.EventKind != river.EventKindJobCompleted {
		t.Fatalf("work: %v, %+v", err, res)
	}
	after, err := st.GenerationByID(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after.State != store.GenerationFailed || after.ErrorReason != ReasonKeyUnavailable || !after.ErrorRetryable || after.ReleasedAt == nil {
		t.Fatalf("after the work: %+v", after)
	}
}

// A job that was cancelled before its worker started does nothing, even
// with its key at hand.
func TestWorkAfterCancel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	gen, st, p := newGenerator(t)
	g := queued(t, st, p, gen.Queue())
	gen.keys.put(g.ID, llm.NewKey("sk-test"))
	if _, _, err := gen.Cancel(ctx, p.TenantID, p.ID, g.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := gen.keys.take(g.ID); ok {
		t.Fatal("the cancel left the key in the keyring")
	}
	w := rivertest.NewWorker(t, riverpgxv5.New(st.Pool()), &river.Config{}, river.Worker[GenerateArgs](&GenerateWorker{gen: gen}))
	tx, err := st.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := w.Work(ctx, t, tx, GenerateArgs{GenerationID: g.ID}, nil); err != nil {
		t.Fatal(err)
	}
	after, _ := st.GenerationByID(ctx, g.ID)
	if after.Outcome != ReasonCancelled || after.ErrorReason != ReasonCancelled {
		t.Fatalf("a cancelled generation was changed by its worker: %+v", after)
	}
}

// The heartbeat sweep fails the generations of a process that has gone
// quiet (its keys died with it) and leaves a live process's alone.
func TestSweepOrphans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	gen, st, p := newGenerator(t)
	dead := queued(t, st, p, "generate_deadbeefdeadbeef")
	gen.beat(ctx)
	after, _ := st.GenerationByID(ctx, dead.ID)
	if after.State != store.GenerationFailed || after.ErrorReason != ReasonKeyUnavailable || !after.ErrorRetryable {
		t.Fatalf("an orphan after the sweep: %+v", after)
	}
	other, _, err := st.CreateProject(ctx, store.Project{TenantID: "acme", Name: "Other", SectionID: "other", TestCases: json.RawMessage(`[]`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.HeartbeatOwner(ctx, "generate_alive"); err != nil {
		t.Fatal(err)
	}
	alive := queued(t, st, other, "generate_alive")
	mine := queued(t, st, p, gen.Queue())
	gen.beat(ctx)
	for _, g := range []store.Generation{alive, mine} {
		if after, _ := st.GenerationByID(ctx, g.ID); after.State != store.GenerationQueued {
			t.Fatalf("a live process's generation was swept: %+v", after)
		}
	}
	// A process that stops forgets its queue: its generations are swept
	// at once by the others.
	if err := st.ForgetOwner(ctx, "generate_alive"); err != nil {
		t.Fatal(err)
	}
	gen.beat(ctx)
	if after, _ := st.GenerationByID(ctx, alive.ID); after.ErrorReason != ReasonKeyUnavailable {
		t.Fatalf("a stopped process's generation: %+v", after)
	}
}
