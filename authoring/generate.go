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
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/store"
)

// The generation pipeline's stages, in order: the rows of planStages and
// roundStages (stages.go). A stage's name is what the status reports
// while it runs (progress.stage on the wire) and what a failure names
// (GenerationError.Stage); a queued generation shows assemble, the
// stored default, until its first round reports call.
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

// Generation is the workspace's generation job: it plans a generation
// (refusing a prompt over the model's budget before any model call), runs
// its rounds with the caller's model and key, keeps the best draft as the
// project's draft and reviews it, and runs discoveries. It works drafts
// out through Drafts and reviews them through Reviews.
type Generation struct {
	store   generationStore
	drafts  *Drafts
	reviews *Reviews
	cfg     Config
}

// generationStore is what Generation reads and writes of the store.
type generationStore interface {
	ProjectOf(ctx context.Context, tenantID, id string) (store.Project, error)
	ProjectSources(ctx context.Context, tenantID, projectID string, withText bool) ([]store.ProjectSource, error)
	ListGuidance(ctx context.Context, tenantID, projectID string) ([]store.Guidance, error)
	RulesetByRef(ctx context.Context, ref string) (store.Cut, error)
	LatestActiveCut(ctx context.Context, tenantID, sectionID string) (store.Cut, error)
	RulesetSource(ctx context.Context, id string) (text, digest string, err error)
	UpdateProject(ctx context.Context, tenantID, id string, fn func(*store.Project) error) (store.Project, error)
	ActiveGenerations(ctx context.Context, tenantID string) (int, error)
}

// Limits reports the limits in force, for documentation and responses.
func (s *Generation) Limits() Config { return s.cfg }

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
	// Stage is the stage that failed: call or repair for a provider
	// failure, the last round's last stage for no_valid_draft.
	Stage string
	// Reason is the reason_code callers branch on.
	Reason string
	// Retryable says whether starting the generation again may succeed.
	Retryable bool
	// Message says what happened, in a sentence.
	Message string
}

// Error names the stage, the reason and the message.
func (e *GenerationError) Error() string { return e.Stage + ": " + e.Reason + ": " + e.Message }

// PlanGeneration runs the planning stages of a generation (planStages:
// assemble, then count) and returns the prompt ready to send; a prompt
// over the model's budget is refused (422 token_budget_exceeded) before
// any model call. The stored token estimates of the active sources are
// checked first, so a project whose sources alone are over the budget is
// refused before any text is read or assembled, and the count stops as
// soon as it passes the budget.
func (s *Generation) PlanGeneration(ctx context.Context, tenantID, projectID string, req GenerateRequest) (*Plan, error) {
	pl := &planning{tenantID: tenantID, projectID: projectID, plan: &Plan{req: req}}
	for _, st := range planStages {
		if err := st.run(s, ctx, pl); err != nil {
			return nil, named(st.name, err)
		}
	}
	return pl.plan, nil
}

// seed is refine's starting ruleset: the tenant's seed_ruleset_id, or the
// section's newest active cut.
func (s *Generation) seed(ctx context.Context, tenantID string, p store.Project, ref string) (string, *engine.Ruleset, error) {
	var cut store.Cut
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

// candidate is one round's draft: its text and questions (from extract),
// its compiled rules (from compile) and, once tested, its acceptance.
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

// RunGeneration runs a planned generation with the caller's key: rounds
// of the stages in roundStages (call, extract, compile, verify_quotes,
// test; a repair round starts with repair instead of call), at most the
// plan's repair rounds after the first, until a draft passes every test.
// A round is kept only when every test that passed still passes. The
// best draft is stored as the project's draft, failing or not; judge it
// by Accepted. A failure names the stage it happened in.
func (s *Generation) RunGeneration(ctx context.Context, plan *Plan, model llm.Model, key llm.Key, progress func(Progress)) (GenerationResult, error) {
	rounds := plan.req.RepairRounds
	if rounds <= 0 {
		rounds = DefaultRepairRounds
	}
	g := &generation{plan: plan, model: model, key: key, progress: progress, messages: slices.Clone(plan.messages),
		res: GenerationResult{TestsTotal: len(plan.cases), Rounds: []Round{}}}
	for n := 1; n <= rounds+1 && (g.best == nil || !g.best.acc.Accepted); n++ {
		started := time.Now()
		if err := s.runRound(ctx, g, n); err != nil {
			return g.res, err
		}
		g.round.rec.Seconds = time.Since(started).Seconds()
		g.res.Rounds = append(g.res.Rounds, g.round.rec)
	}
	if g.best == nil {
		last := g.res.Rounds[len(g.res.Rounds)-1]
		return g.res, &GenerationError{Stage: last.Stage, Reason: ReasonNoValidDraft, Retryable: true,
			Message: fmt.Sprintf("no round of %d gave rules that compile with verified quotes; the last: %s", len(g.res.Rounds), last.Note)}
	}
	return s.keep(ctx, plan, g.best, g.res)
}

// failures are a candidate's failing tests with the solver's minimal
// reasons and the trace of each. Each explanation waits for a slot of
// gate (the tenant's share), as explain-failure on a request does, within
// its 5 s; one that cannot finish leaves its test without reasons.
func failures(ctx context.Context, c *candidate, gate *bound.Gate) []failure {
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
					opts := solver.ExplainOptions{Timeout: 5 * time.Second, Gate: gate}
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
func (s *Generation) keep(ctx context.Context, plan *Plan, best *candidate, res GenerationResult) (GenerationResult, error) {
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
	w, err := s.drafts.workUp(p, plan.sources, nil)
	if err != nil {
		return res, err
	}
	rep, err := s.reviews.review(ctx, w, review.Options{})
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
