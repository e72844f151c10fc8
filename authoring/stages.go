package authoring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/syntax"
)

// The generation pipeline as tables of named stages, as publish's gates
// are: planStages run when a generation is asked for (PlanGeneration), so
// a prompt over budget is refused before anything is queued; roundStages
// run once per round when it is worked (RunGeneration). A new stage is one
// row; its name is what the status reports and what a failure names.

// planning is a generation being planned: the project it was asked for
// and the plan the stages fill in.
type planning struct {
	tenantID, projectID string
	plan                *Plan
}

// planStage is one named stage of planning. run returns a *RefusedError
// to refuse the generation (its reason code says why), or another error
// when the stage could not be run at all, which the runner wraps with the
// stage's name.
type planStage struct {
	name string
	run  func(*Generation, context.Context, *planning) error
}

// planStages are the stages of planning a generation, in order.
var planStages = [...]planStage{
	{StageAssemble, (*Generation).assembleStage},
	{StageCount, (*Generation).countStage},
}

// assembleStage reads what the prompt is made of (the project, its
// active sources, guidance, tests and contract and, to refine, the seed
// ruleset) and assembles the messages. The active sources' stored token
// estimates are checked before their texts are read: sources over the
// model's budget by their estimates alone are refused here.
func (s *Generation) assembleStage(ctx context.Context, pl *planning) error {
	plan, req := pl.plan, pl.plan.req
	p, err := s.store.ProjectOf(ctx, pl.tenantID, pl.projectID)
	if err != nil {
		return err
	}
	sources, err := s.activeSources(ctx, pl.tenantID, pl.projectID, req.Model, "The project has no active source to generate from; upload one or mark one active.")
	if err != nil {
		return err
	}
	guidance, err := s.store.ListGuidance(ctx, pl.tenantID, pl.projectID)
	if err != nil {
		return err
	}
	plan.project, plan.sources = p, sources
	if err := json.Unmarshal(p.TestCases, &plan.cases); err != nil {
		return fmt.Errorf("read tests: %w", err)
	}
	if len(p.Contract) > 0 {
		plan.contract = &Contract{}
		if err := json.Unmarshal(p.Contract, plan.contract); err != nil {
			return fmt.Errorf("read contract: %w", err)
		}
	}
	seedText := ""
	if req.Mode == ModeRefine {
		if seedText, plan.seed, err = s.seed(ctx, pl.tenantID, p, req.SeedRulesetID); err != nil {
			return err
		}
	}
	plan.messages = assemble(p, sources, guidance, plan.cases, seedText)
	plan.inputs = authoringInputs(sources, guidance, req)
	return nil
}

// countStage counts the assembled prompt exactly with the model's
// tokenizer, refusing it (token_budget_exceeded) as soon as the count
// passes the model's budget.
func (s *Generation) countStage(ctx context.Context, pl *planning) error {
	n, err := countPrompt(pl.plan.req.Model, pl.plan.messages, pl.plan.sources)
	if err != nil {
		return err
	}
	pl.plan.PromptTokens = n
	return nil
}

// generation is a planned generation being worked: the plan, the caller's
// model and key, the conversation so far, the best draft, the result the
// rounds fill in, and the round in progress with the one before it.
type generation struct {
	plan     *Plan
	model    llm.Model
	key      llm.Key
	progress func(Progress)
	messages []llm.Message
	// best is the draft kept so far: it compiled with verified quotes and
	// broke no test an earlier kept draft passed. nil until one is kept.
	best *candidate
	res  GenerationResult
	// round is the round in progress; last is the round before it, which
	// the repair stage describes to the model.
	round, last attempt
}

// attempt is one round: its record, the model's reply, the draft the
// stages make of it, and what the stage that ended it found wrong.
type attempt struct {
	rec   Round
	reply string
	draft *candidate
	// feedback tells the model why a round that ended before the tests
	// was not kept; empty for a round that reached them, whose failing
	// tests the repair stage describes.
	feedback string
	// broke are the tests that passed with the best draft and fail with
	// this round's, which was therefore not kept.
	broke []string
}

// stop ends the round at the current stage, not kept: note goes in the
// round's record, feedback to the model in the next round.
func (a *attempt) stop(note, feedback string) (bool, error) {
	a.rec.Note, a.feedback = note, feedback
	return false, nil
}

// roundStage is one named stage of a round. run returns true to go on to
// the next stage, false to end the round there (the stage has said why,
// through attempt.stop), or an error that ends the generation, which the
// runner names by the stage.
type roundStage struct {
	name string
	run  func(*Generation, context.Context, *generation) (bool, error)
	// reportsDone makes the status name the stage once it has run rather
	// than as it starts: the test stage's count of passing tests is known
	// only then.
	reportsDone bool
}

// roundStages are the stages of a round, in order. Every round after the
// first starts with repairRound instead of the call.
var roundStages = [...]roundStage{
	{StageCall, (*Generation).callStage, false},
	{StageExtract, (*Generation).extractStage, false},
	{StageCompile, (*Generation).compileStage, false},
	{StageVerifyQuotes, (*Generation).verifyQuotesStage, false},
	{StageTest, (*Generation).testStage, true},
}

// repairRound is the first stage of a repair round: the call, with the
// last round's failures told to the model first.
var repairRound = roundStage{StageRepair, (*Generation).repairStage, false}

// runRound runs round n's stages in order until one ends the round,
// reporting each to the status.
func (s *Generation) runRound(ctx context.Context, g *generation, n int) error {
	stages := roundStages
	if n > 1 {
		stages[0] = repairRound
	}
	g.last, g.round = g.round, attempt{rec: Round{Round: n}}
	for _, st := range stages {
		g.round.rec.Stage = st.name
		if !st.reportsDone {
			g.report(st.name)
		}
		next, err := st.run(s, ctx, g)
		if err != nil {
			return named(st.name, err)
		}
		if st.reportsDone {
			g.report(st.name)
		}
		if !next {
			break
		}
	}
	return nil
}

// report tells the status that stage is running.
func (g *generation) report(stage string) {
	if g.progress != nil {
		g.progress(Progress{Stage: stage, Round: g.round.rec.Round, TestsPassing: g.passing(stage),
			TestsTotal: len(g.plan.cases), TokensUsed: g.res.TokensUsed})
	}
}

// passing is the count of passing tests the status shows during stage:
// while the model is called, the best draft's, the one being repaired;
// after, this round's draft's, 0 until it is tested.
func (g *generation) passing(stage string) int {
	if stage != StageCall && stage != StageRepair {
		return g.round.rec.TestsPassing
	}
	if g.best == nil {
		return 0
	}
	return g.best.acc.TestsPassing
}

// named attributes a stage's error to the stage: a generation failure is
// named by it, a refusal keeps its reason code, and anything else is
// wrapped with the stage's name.
func named(stage string, err error) error {
	var failed *GenerationError
	var refused *RefusedError
	switch {
	case errors.As(err, &failed):
		failed.Stage = stage
		return err
	case errors.As(err, &refused):
		return err
	}
	return fmt.Errorf("generation stage %s: %w", stage, err)
}

// callStage sends the conversation to the model with the caller's key and
// adds the reply to it.
func (s *Generation) callStage(ctx context.Context, g *generation) (bool, error) {
	reply, err := g.model.Complete(ctx, g.key, llm.Request{Model: g.plan.req.Model.Name, Messages: g.messages})
	if err != nil {
		return false, providerFailure(err)
	}
	tokens := reply.PromptTokens + reply.CompletionTokens
	g.res.TokensUsed += tokens
	g.round.rec.Tokens, g.round.reply = tokens, reply.Content
	g.messages = append(g.messages, llm.Message{Role: "assistant", Content: reply.Content})
	return true, nil
}

// repairStage tells the model why the last round was not good enough and
// calls it again. For a round that reached the tests, that is each test
// the best draft fails, with the solver's minimal reasons, the criteria's
// quotes and the trace (and, when the round broke tests that passed
// before, which ones); otherwise the stage's own feedback.
func (s *Generation) repairStage(ctx context.Context, g *generation) (bool, error) {
	feedback := g.last.feedback
	if g.last.rec.Stage == StageTest {
		feedback = testFeedback(failures(ctx, g.best, s.cfg.Gate.For(g.plan.project.TenantID)), g.last.broke)
	}
	g.messages = append(g.messages, llm.Message{Role: "user", Content: feedback})
	return s.callStage(ctx, g)
}

// extractStage takes the rules block (and any questions block) out of the
// reply.
func (s *Generation) extractStage(ctx context.Context, g *generation) (bool, error) {
	text, questions, ok := extract(g.round.reply)
	if !ok {
		return g.round.stop("the reply held no rules block",
			"Your reply held no rules. Reply with the whole .rules file in one fenced block tagged rules.")
	}
	g.round.draft = &candidate{text: text, questions: questions}
	return true, nil
}

// compileStage compiles the rules, which must be for the project's
// section; compile errors go back to the model.
func (s *Generation) compileStage(ctx context.Context, g *generation) (bool, error) {
	rules, _, err := engine.Compile("draft.rules", []byte(g.round.draft.text))
	if err != nil {
		var list syntax.ErrorList
		if !errors.As(err, &list) {
			list = syntax.ErrorList{{File: "draft.rules", Pos: syntax.Pos{Line: 1, Col: 1}, Msg: err.Error()}}
		}
		return g.round.stop(fmt.Sprintf("%d compile errors, the first: %s", len(list), list[0].Msg), compileFeedback(list))
	}
	if section := g.plan.project.SectionID; rules.SectionID != section {
		return g.round.stop("the rules are for section "+rules.SectionID,
			fmt.Sprintf("The file declares section %s; this project authors section %s. Reply with the corrected file.", rules.SectionID, section))
	}
	g.round.draft.rules = rules
	return true, nil
}

// verifyQuotesStage binds the rules' sources to the project's and checks
// every quote against its source's text; a source or quote that cannot
// be verified goes back to the model.
func (s *Generation) verifyQuotesStage(ctx context.Context, g *generation) (bool, error) {
	bindings, problems := bind(g.plan.project.ID, g.round.draft.rules, g.plan.sources, nil)
	quotes := checkQuotes(g.round.draft.rules, bindings)
	g.round.rec.QuotesTotal = len(quotes)
	for _, q := range quotes {
		if q.Verified {
			g.round.rec.QuotesVerified++
		} else {
			problems = append(problems, fmt.Sprintf("%s cites %q, which is not in the text of source %s", q.Citer(), q.Quote, q.SourceID))
		}
	}
	if len(problems) > 0 {
		return g.round.stop(fmt.Sprintf("%d citations cannot be verified, the first: %s", len(problems), problems[0]), quoteFeedback(problems))
	}
	return true, nil
}

// testStage runs the project's tests (and contract) on the draft and
// keeps it as the best unless it breaks a test the best draft passes: the
// generation never goes backwards.
func (s *Generation) testStage(ctx context.Context, g *generation) (bool, error) {
	d := g.round.draft
	d.acc = accept(d.rules, g.plan.cases, g.plan.contract)
	g.round.rec.TestsPassing = d.acc.TestsPassing
	if g.best != nil {
		now := d.passing()
		for _, name := range g.best.passing() {
			if !slices.Contains(now, name) {
				g.round.broke = append(g.round.broke, name)
			}
		}
	}
	if len(g.round.broke) > 0 {
		g.round.rec.Note = "discarded: it broke tests that passed before (" + strings.Join(g.round.broke, ", ") + ")"
		return false, nil
	}
	g.round.rec.Kept = true
	g.round.rec.Note = fmt.Sprintf("%d of %d tests pass", d.acc.TestsPassing, d.acc.TestsTotal)
	g.best = d
	return true, nil
}
