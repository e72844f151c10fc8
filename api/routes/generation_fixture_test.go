package routes

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/apitest"
	"github.com/eligo/eligo/api/wiring"
	"github.com/eligo/eligo/authoring/llm/llmtest"
	"github.com/eligo/eligo/worker"
)

// newGenerationFixture serves every resource as the binary does, with its
// generator on a live River client and the model reached at the scripted
// server returned: generation and discovery run end to end over real
// sockets, and only the model's answers are made up. The model table is
// the server's default one. A nil Logger discards the logs.
func newGenerationFixture(t testing.TB, cfg api.Config) (*apitest.Fixture, *llmtest.Server) {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	model := llmtest.NewServer(t)
	opts := apitest.Options{Config: wiring.Config{API: cfg, Generation: wiring.Generation{BaseURL: model.URL()}}}
	f := apitest.Start(t, opts, func(s *api.Server, sv apitest.Services) {
		runner, err := worker.New(sv.Store, worker.Config{Logger: cfg.Logger, Generator: sv.Generator, Impact: sv.Impact, GenerationOnly: true, Metrics: sv.Metrics})
		if err != nil {
			t.Fatal(err)
		}
		if err := runner.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := worker.Stop(ctx, runner); err != nil {
				t.Errorf("stop the generation worker: %v", err)
			}
		})
		mountAll(s, sv)
	})
	return f, model
}
