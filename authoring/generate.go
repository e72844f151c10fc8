package authoring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/eligo/eligo/authoring/llm"
	"github.com/eligo/eligo/authoring/review"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver"
	"github.com/eligo/eligo/store"
)

// The generation pipeline's stages, in order. A stage's name is what the
// status reports while it runs and what a failure names.
const (
	StageAssemble     = "assemble"
	StageCount        = "count"
	StageCall         = "call"
	StageExtract      = "extract"
	StageCompile      = "compile"
	StageVerifyQuotes = "verify_quotes"
	StageTest         = "test"
	StageRepair       = "repair"
)

// Generation modes.
const (
	ModeFresh  = "fresh"
	ModeRefine = "refine"
)

// DefaultRepairRounds bounds the rounds after the first call.
const DefaultRepairRounds = 3

// Reason codes of generation.
const (
	// ReasonTokenBudget: the prompt counts more tokens than the model's
	// budget (422, before any model call).
	ReasonTokenBudget = "token_budget_exceeded"
	// ReasonNoValidDraft: no round gave rules that compile with verified
	// quotes; nothing was kept.
	ReasonNoValidDraft = "no_valid_draft"
	// ReasonNoSeed: refine found no ruleset to start from.
	ReasonNoSeed = "seed_not_found"
	// ReasonNoSources: the project has no active source to generate from.
	ReasonNoSources = "no_active_sources"
	// ReasonModelReplyInvalid: the model's reply to a discovery request
	// (sections or fields of the sources) was not the JSON asked for
	// (retryable).
	ReasonModelReplyInvalid = "model_reply_invalid"
)

// GenerateRequest is one generation.
type GenerateRequest struct {
	// Mode is fresh or refine.
	Mode string
	// SeedRulesetID is refine's starting ruleset; empty for the section's
	// active ruleset.
	SeedRulesetID string
	// Model is the model to call.
	Model llm.ModelInfo
	// RepairRounds bounds the rounds after the first; 0 takes the default.
	RepairRounds int
}

// Plan is a generation assembled and counted, ready to run.
type Plan struct {
	req      GenerateRequest
	project  store.Project
	sources  []store.ProjectSource
	cases    []engine.Case
	contract *Contract
	seed     *engine.Ruleset
	messages []llm.Message
	// PromptTokens is the exact count of the first prompt.
	PromptTokens int
	inputs       json.RawMessage
}

// TestsTotal counts the tests the generation runs.
func (p *Plan) TestsTotal() int { return len(p.cases) }

// Progress is what a running generation reports after each stage.
type Progress struct {
	Stage        string `json:"stage"`
	Round        int    `json:"round"`
	TestsPassing int    `json:"tests_passing"`
	TestsTotal   int    `json:"tests_total"`
	TokensUsed   int    `json:"tokens_used"`
}

// Round is what one round did.
type Round struct {
	// Round counts from 1 (the first call).
	Round int `json:"round"`
	// Stage is the last stage the round reached.
	Stage string `json:"stage"`
	// Kept is true when the round's draft became the best so far.
	Kept bool `json:"kept"`
	// TestsPassing is the round's count, when it reached the tests.
	TestsPassing int `json:"tests_passing"`
	// QuotesVerified and QuotesTotal count the round's citations found in
	// their sources, when it compiled.
	QuotesVerified int `json:"quotes_verified"`
	QuotesTotal    int `json:"quotes_total"`
	// Tokens and Seconds are what the round's model call cost.
	Tokens  int     `json:"tokens"`
	Seconds float64 `json:"seconds"`
	// Note says why the round was not kept, or what it fixed.
	Note string `json:"note"`
}

// GenerationResult is what a finished generation kept.
type GenerationResult struct {
	// RulesetID names the kept draft: <section>:draft-<12 hex of its
	// content digest>, stable for identical content; publishing gives the
	// cut its dated id.
	RulesetID    string           `json:"ruleset_id"`
	Accepted     bool             `json:"accepted"`
	TestsPassing int              `json:"tests_passing"`
	TestsTotal   int              `json:"tests_total"`
	Failures     []TestResult     `json:"failures"`
	Provenance   ProvenanceReport `json:"provenance_report"`
	SourceCheck  SourceCheck      `json:"source_check"`
	Questions    []SourceQuestion `json:"source_questions"`
	ReviewHint   *review.Hint     `json:"review_hint"`
	Rounds       []Round          `json:"rounds"`
	// ChangedCriteria are, for refine, the criteria added, removed or
	// changed against the seed.
	ChangedCriteria []string `json:"changed_criteria"`
	TokensUsed      int      `json:"tokens_used"`
}

// GenerationError is a generation that kept nothing, naming the stage.
type GenerationError struct {
	Stage     string
	Reason    string
	Retryable bool
	Message   string
}

func (e *GenerationError) Error() string { return e.Stage + ": " + e.Reason + ": " + e.Message }

// PlanGeneration assembles the prompt of a generation and counts it with
// the model's tokenizer; a prompt over the model's budget is refused (422
// token_budget_exceeded) before any model call. The stored token estimates
// of the active sources are checked first, so a project whose sources
// alone are over the budget is refused before any text is read or
// assembled, and the count stops as soon as it passes the budget.
func (s *Service) PlanGeneration(ctx context.Context, tenantID, projectID string, req GenerateRequest) (*Plan, error) {
	p, err := s.store.ProjectOf(ctx, tenantID, projectID)
	if err != nil {
		return nil, err
	}
	sources, err := s.activeSources(ctx, tenantID, projectID, req.Model, "The project has no active source to generate from; upload one or mark one active.")
	if err != nil {
		return nil, err
	}
	guidance, err := s.store.ListGuidance(ctx, tenantID, projectID)
	if err != nil {
		return nil, err
	}
	plan := &Plan{req: req, project: p, sources: sources}
	if err := json.Unmarshal(p.TestCases, &plan.cases); err != nil {
		return nil, fmt.Errorf("read tests: %w", err)
	}
	if len(p.Contract) > 0 {
		plan.contract = &Contract{}
		if err := json.Unmarshal(p.Contract, plan.contract); err != nil {
			return nil, fmt.Errorf("read contract: %w", err)
		}
	}
	seedText := ""
	if req.Mode == ModeRefine {
		if seedText, plan.seed, err = s.seed(ctx, tenantID, p, req.SeedRulesetID); err != nil {
			return nil, err
		}
	}
	plan.messages = assemble(p, sources, guidance, plan.cases, seedText)
	if plan.PromptTokens, err = countPrompt(req.Model, plan.messages, sources); err != nil {
		return nil, err
	}
	plan.inputs = authoringInputs(sources, guidance, req)
	return plan, nil
}

// seed is refine's starting ruleset: the tenant's seed_ruleset_id, or the
// section's newest active cut.
func (s *Service) seed(ctx context.Context, tenantID string, p store.Project, ref string) (string, *engine.Ruleset, error) {
	var cut store.Ruleset
	var err error
	if ref != "" {
		cut, err = s.store.RulesetByRef(ctx, ref)
		if err == nil && cut.TenantID != tenantID {
			err = store.ErrNotFound
		}
	} else {
		cut, err = s.store.LatestActiveCut(ctx, tenantID, p.SectionID)
	}
	if errors.Is(err, store.ErrNotFound) {
		return "", nil, &RefusedError{Kind: Unprocessable, Reason: ReasonNoSeed,
			Message: "refine needs a ruleset to start from: publish the section first, or name one of your rulesets in seed_ruleset_id."}
	}
	if err != nil {
		return "", nil, err
	}
	text, _, err := s.store.RulesetSource(ctx, cut.ID)
	if err != nil {
		return "", nil, err
	}
	rules, _, err := engine.Compile("seed.rules", []byte(text))
	if err != nil {
		return "", nil, fmt.Errorf("compile seed %s: %w", cut.ID, err)
	}
	return text, rules, nil
}

// authoringInputs records what a generated draft was made from.
func authoringInputs(sources []store.ProjectSource, guidance []store.Guidance, req GenerateRequest) json.RawMessage {
	in := map[string]any{"model": req.Model.Name, "mode": req.Mode, "guidance_notes": len(guidance)}
	var used []map[string]string
	for _, s := range sources {
		if s.Status == StatusActive {
			used = append(used, map[string]string{"source_id": s.ID, "content_digest": s.ContentDigest})
		}
	}
	in["sources"] = used
	raw, _ := json.Marshal(in) // maps of strings and ints always encode
	return raw
}

// candidate is one round's draft that compiled with verified quotes.
type candidate struct {
	text      string
	rules     *engine.Ruleset
	questions []SourceQuestion
	acc       Acceptance
}

func (c *candidate) passing() []string {
	var names []string
	for _, r := range c.acc.Results {
		if r.Pass {
			names = append(names, r.Name)
		}
	}
	return names
}

// RunGeneration runs a planned generation with the caller's key: call the
// model, extract, compile, verify quotes, test, and repair for a bounded
// number of rounds, keeping a round only when every test that passed still
// passes. The best draft is stored as the project's draft, failing or not;
// judge it by Accepted.
func (s *Service) RunGeneration(ctx context.Context, plan *Plan, model llm.Model, key llm.Key, progress func(Progress)) (GenerationResult, error) {
	rounds := plan.req.RepairRounds
	if rounds <= 0 {
		rounds = DefaultRepairRounds
	}
	res := GenerationResult{TestsTotal: len(plan.cases), Rounds: []Round{}}
	report := func(stage string, round int, passing int) {
		if progress != nil {
			progress(Progress{Stage: stage, Round: round, TestsPassing: passing, TestsTotal: len(plan.cases), TokensUsed: res.TokensUsed})
		}
	}
	messages := slices.Clone(plan.messages)
	var best *candidate
	stage := StageCall
	for round := 1; round <= rounds+1; round++ {
		passing := 0
		if best != nil {
			passing = best.acc.TestsPassing
		}
		report(stage, round, passing)
		started := time.Now()
		reply, err := model.Complete(ctx, key, llm.Request{Model: plan.req.Model.Name, Messages: messages})
		if err != nil {
			return res, providerFailure(err)
		}
		res.TokensUsed += reply.PromptTokens + reply.CompletionTokens
		messages = append(messages, llm.Message{Role: "assistant", Content: reply.Content})
		r, cand, feedback := s.judge(ctx, plan, reply.Content, best, round, report)
		r.Tokens, r.Seconds = reply.PromptTokens+reply.CompletionTokens, time.Since(started).Seconds()
		if r.Kept {
			best = cand
		}
		res.Rounds = append(res.Rounds, r)
		if best != nil && best.acc.Accepted {
			break
		}
		messages = append(messages, llm.Message{Role: "user", Content: feedback})
		stage = StageRepair
	}
	if best == nil {
		last := res.Rounds[len(res.Rounds)-1]
		return res, &GenerationError{Stage: last.Stage, Reason: ReasonNoValidDraft, Retryable: true,
			Message: fmt.Sprintf("no round of %d gave rules that compile with verified quotes; the last: %s", len(res.Rounds), last.Note)}
	}
	return s.keep(ctx, plan, best, res)
}

// judge takes one reply through extract, compile, verify_quotes and test,
// and says whether it becomes the best draft, with the feedback for the
// next round.
func (s *Service) judge(ctx context.Context, plan *Plan, reply string, best *candidate, round int, report func(string, int, int)) (Round, *candidate, string) {
	r := Round{Round: round, Stage: StageExtract}
	report(StageExtract, round, 0)
	text, questions, ok := extract(reply)
	if !ok {
		r.Note = "the reply held no rules block"
		return r, nil, "Your reply held no rules. Reply with the whole .rules file in one fenced block tagged rules."
	}
	r.Stage = StageCompile
	report(StageCompile, round, 0)
	rules, _, err := engine.Compile("draft.rules", []byte(text))
	if err != nil {
		var list engine.ErrorList
		if !errors.As(err, &list) {
			list = engine.ErrorList{{File: "draft.rules", Pos: engine.Pos{Line: 1, Col: 1}, Msg: err.Error()}}
		}
		r.Note = fmt.Sprintf("%d compile errors, the first: %s", len(list), list[0].Msg)
		return r, nil, compileFeedback(list)
	}
	if rules.SectionID != plan.project.SectionID {
		r.Note = "the rules are for section " + rules.SectionID
		return r, nil, fmt.Sprintf("The file declares section %s; this project authors section %s. Reply with the corrected file.", rules.SectionID, plan.project.SectionID)
	}
	r.Stage = StageVerifyQuotes
	report(StageVerifyQuotes, round, 0)
	bindings, problems := bind(plan.project.ID, rules, plan.sources, nil)
	quotes := checkQuotes(rules, bindings)
	r.QuotesTotal = len(quotes)
	for _, q := range quotes {
		if q.Verified {
			r.QuotesVerified++
		} else {
			problems = append(problems, fmt.Sprintf("criterion %s cites %q, which is not in the text of source %s", q.CriterionID, q.Quote, q.SourceID))
		}
	}
	if len(problems) > 0 {
		r.Note = fmt.Sprintf("%d citations cannot be verified, the first: %s", len(problems), problems[0])
		return r, nil, quoteFeedback(problems)
	}
	r.Stage = StageTest
	cand := &candidate{text: text, rules: rules, questions: questions, acc: accept(rules, plan.cases, plan.contract)}
	r.TestsPassing = cand.acc.TestsPassing
	report(StageTest, round, cand.acc.TestsPassing)
	var broke []string
	if best != nil {
		now := cand.passing()
		for _, name := range best.passing() {
			if !slices.Contains(now, name) {
				broke = append(broke, name)
			}
		}
	}
	if len(broke) > 0 {
		r.Note = "discarded: it broke tests that passed before (" + strings.Join(broke, ", ") + ")"
		return r, nil, testFeedback(failures(ctx, best), broke)
	}
	r.Kept = true
	r.Note = fmt.Sprintf("%d of %d tests pass", cand.acc.TestsPassing, cand.acc.TestsTotal)
	return r, cand, testFeedback(failures(ctx, cand), nil)
}

// failures are a candidate's failing tests with the solver's minimal
// reasons and the trace of each.
func failures(ctx context.Context, c *candidate) []failure {
	var out []failure
	for i, tr := range c.acc.Results {
		if tr.Pass {
			continue
		}
		f := failure{result: tr}
		cr := c.acc.Outcomes[i]
		if cr.Result != nil {
			if want, ok := engine.ParseOutcome(tr.Expected); ok {
				in, err := c.rules.Convert(c.acc.Cases[i].FieldValues)
				if err == nil {
					opts := solver.ExplainOptions{Timeout: 5 * time.Second}
					if d, err := c.rules.CaseDate(c.acc.Cases[i]); err == nil {
						opts.DecisionDate = d
					}
					if ex, err := solver.ExplainFailure(ctx, c.rules, in, want, opts); err == nil {
						f.reasons = ex.Reasons
					}
				}
			}
			if cr.Result.Trace != nil {
				trace, _ := json.Marshal(cr.Result.Trace)
				f.trace = string(trace)
			}
		}
		out = append(out, f)
	}
	return out
}

// providerFailure turns a model call's error into the generation's.
func providerFailure(err error) error {
	var pe *llm.ProviderError
	if errors.As(err, &pe) {
		return &GenerationError{Stage: StageCall, Reason: pe.Reason, Retryable: pe.Retryable, Message: pe.Message}
	}
	return &GenerationError{Stage: StageCall, Reason: llm.ReasonUnavailable, Retryable: true, Message: "the model could not be called"}
}

// keep stores the best draft as the project's draft and reports it.
func (s *Service) keep(ctx context.Context, plan *Plan, best *candidate, res GenerationResult) (GenerationResult, error) {
	questions, err := json.Marshal(orEmpty(best.questions))
	if err != nil {
		return res, fmt.Errorf("encode questions: %w", err)
	}
	now := s.cfg.Clock.Now().UTC()
	p, err := s.store.UpdateProject(ctx, plan.project.TenantID, plan.project.ID, func(p *store.Project) error {
		p.DraftText, p.DraftOrigin, p.DraftInputs, p.SourceQuestions, p.DraftUpdatedAt = &best.text, "generation", plan.inputs, questions, &now
		return nil
	})
	if err != nil {
		return res, err
	}
	w, err := s.workUp(p, plan.sources, nil)
	if err != nil {
		return res, err
	}
	rep, err := s.review(ctx, w, review.Options{})
	if err != nil {
		return res, err
	}
	digest := strings.TrimPrefix(best.rules.ContentDigest(), "sha256:")
	res.RulesetID = p.SectionID + ":draft-" + digest[:12]
	res.Accepted, res.TestsPassing, res.Failures = w.Acceptance.Accepted, w.Acceptance.TestsPassing, orEmpty(w.Acceptance.Failures())
	res.Provenance, res.SourceCheck, res.Questions, res.ReviewHint = w.Provenance, w.SourceCheck, orEmpty(w.Questions), rep.ReviewHint()
	res.ChangedCriteria = []string{}
	if plan.seed != nil {
		res.ChangedCriteria = changedCriteria(plan.seed, best.rules)
	}
	return res, nil
}

// changedCriteria are the criteria of b added, removed or changed
// (condition, citations or discretion) against a.
func changedCriteria(a, b *engine.Ruleset) []string {
	shape := func(r *engine.Ruleset) map[string]string {
		out := map[string]string{}
		for gi := range r.Groups {
			for _, c := range r.Groups[gi].Criteria {
				cites, _ := json.Marshal(c.Citations)
				out[c.ID] = fmt.Sprintf("%s|%v|%s|%s", r.Groups[gi].ID, c.Discretionary, c.Text, cites)
			}
		}
		return out
	}
	before, after := shape(a), shape(b)
	changed := []string{}
	for id, s := range after {
		if before[id] != s {
			changed = append(changed, id)
		}
	}
	for id := range before {
		if _, ok := after[id]; !ok {
			changed = append(changed, id)
		}
	}
	slices.Sort(changed)
	return changed
}
