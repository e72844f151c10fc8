// Command eligo-evalgen is the generation benchmark behind `make
// eval-generation`: for each casebank ruleset folder it creates an
// authoring project from the folder's source text (one source per
// declared source, uploaded with its url and licence) and its cases, runs
// a fresh generation with a real provider, and prints, per folder, the
// share of tests passing after each round, the quotes verified, the rounds
// used, the tokens and the seconds, as a Markdown table for
// docs/authoring.md#generation-with-your-model.
//
// The provider key comes from ELIGO_EVAL_PROVIDER_KEY and the API from
// ELIGO_MODEL_BASE_URL (any OpenAI-compatible server); the model from
// ELIGO_EVAL_MODEL within ELIGO_MODELS. Without a key it says so and exits
// 0: it never runs in CI, where its test drives the same harness with the
// scripted model instead.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/eligo/eligo/api/wiring"
	"github.com/eligo/eligo/authoring"
	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/folder"
	"github.com/eligo/eligo/migrations"
	"github.com/eligo/eligo/store"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "eligo-evalgen:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	key := llm.NewKey(os.Getenv("ELIGO_EVAL_PROVIDER_KEY"))
	if key.Empty() {
		fmt.Fprintln(out, "eval-generation skipped: set ELIGO_EVAL_PROVIDER_KEY (and ELIGO_MODEL_BASE_URL for a provider other than OpenAI) to measure generation against a real model.")
		return nil
	}
	models := llm.DefaultModels()
	if spec := os.Getenv("ELIGO_MODELS"); spec != "" {
		var err error
		if models, err = llm.ParseModels(spec); err != nil {
			return err
		}
	}
	info := models.Default()
	if name := os.Getenv("ELIGO_EVAL_MODEL"); name != "" {
		var ok bool
		if info, ok = models.Lookup(name); !ok {
			return fmt.Errorf("model %q is not in the table %v", name, models.Names())
		}
	}
	pool, err := store.Open(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		return err
	}
	defer pool.Close()
	st := store.New(pool)
	if _, err := store.Migrate(ctx, pool, migrations.FS); err != nil {
		return err
	}
	folders, err := folder.Discover("casebank")
	if err != nil {
		return err
	}
	return evaluate(ctx, st, wiring.Generation{BaseURL: os.Getenv("ELIGO_MODEL_BASE_URL"), Models: models}, key, info, folders, out)
}

// evaluate generates each folder's ruleset with the services `eligo
// serve` builds (wiring.NewServices), calling the model at gen.BaseURL,
// and writes the table.
func evaluate(ctx context.Context, st *store.Store, gen wiring.Generation, key llm.Key, info llm.ModelInfo, folders []string, out io.Writer) error {
	sv, err := wiring.NewServices(st, wiring.Config{Generation: gen})
	if err != nil {
		return err
	}
	defer func() { _ = sv.Close(context.WithoutCancel(ctx)) }()
	work, model := sv.Authoring, sv.Model
	fmt.Fprintf(out, "Generation with %s, %d repair rounds at most.\n\n", info.Name, authoring.DefaultRepairRounds)
	fmt.Fprintln(out, "| folder | tests | passing after each round | quotes verified | rounds | tokens | seconds |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|")
	for _, dir := range folders {
		row, err := evaluateFolder(ctx, work, st, model, key, info, dir)
		if err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		fmt.Fprintln(out, row)
	}
	return nil
}

// evaluateFolder runs one folder's generation and formats its row.
func evaluateFolder(ctx context.Context, work authoring.Workspace, st *store.Store, model llm.Model, key llm.Key, info llm.ModelInfo, dir string) (string, error) {
	f, err := folder.Load(ctx, dir)
	if err != nil {
		return "", err
	}
	rules, _, err := engine.Compile(f.RulesPath, f.Rules)
	if err != nil {
		return "", err
	}
	const tenant = "eval-generation"
	p, _, err := work.Projects.Create(ctx, tenant, authoring.CreateRequest{Name: f.Name, SectionID: rules.SectionID, TestCases: f.Cases})
	if err != nil {
		return "", err
	}
	sections := folder.SourceSections(f.Source)
	var uploads []authoring.Upload
	for _, src := range rules.Sources {
		text, ok := sections[src.ID]
		if !ok {
			text = string(f.Source)
		}
		uploads = append(uploads, authoring.Upload{Filename: src.ID + ".txt", Content: []byte(text), URL: src.URL, Title: src.Title, Licence: src.Licence})
	}
	if _, err := work.Projects.AddSources(ctx, tenant, p.ID, uploads); err != nil {
		return "", err
	}
	plan, err := work.Generation.PlanGeneration(ctx, tenant, p.ID, authoring.GenerateRequest{Mode: authoring.ModeFresh, Model: info})
	if err != nil {
		return "", err
	}
	res, err := work.Generation.RunGeneration(ctx, plan, model, key, nil)
	var failed *authoring.GenerationError
	if err != nil && !errors.As(err, &failed) {
		return "", err
	}
	var shares []string
	verified, total, seconds := 0, 0, 0.0
	for _, r := range res.Rounds {
		shares = append(shares, fmt.Sprintf("%d%%", 100*r.TestsPassing/max(1, len(f.Cases))))
		verified, total, seconds = r.QuotesVerified, r.QuotesTotal, seconds+r.Seconds
	}
	if failed != nil {
		shares = append(shares, "failed: "+failed.Reason)
	}
	return fmt.Sprintf("| %s | %d | %s | %d/%d | %d | %d | %.1f |", f.Name, len(f.Cases), strings.Join(shares, " → "),
		verified, total, len(res.Rounds), res.TokensUsed, seconds), nil
}
