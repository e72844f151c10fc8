package projects

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/authoring"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/solver/verify"
)

// registerStudio adds the operations an editor of the draft needs beside
// the draft itself, none of which changes the project: the canonical
// layout of a text, the language server's diagnostics and completions of
// a text as it is typed, the draft's symbols, the draft against a published
// cut, and the cases the solver suggests for it.
func registerStudio(s *api.Server, h *handler, op func(id, method, path, summary, description string, scopes []auth.Scope) api.Route) {
	read := []auth.Scope{auth.ScopeProjectsRead}

	format := op("format-project-draft", http.MethodPost, "/projects/{project_id}/draft/format", "Format a rules text",
		"Prints `rules` (a .rules text for this project, saved or not; nothing is stored) in the canonical layout `eligo fmt` prints, comments kept, "+
			"with `changed` saying whether it differs from the text sent. A text that does not parse is 422 `rules_do_not_parse` with `compile_errors` "+
			"(`file:line:column: message`, one per error, as a draft's `compile_errors`); a text that parses but does not compile is formatted all the same.", read)
	format.Refusals = []api.Refusal{{Status: http.StatusUnprocessableEntity, ReasonCode: authoring.ReasonRulesUnparsable,
		Meaning: "the text does not parse, so it has no canonical form (`compile_errors`)."}}
	api.Register(s, format, h.format)

	check := op("check-project-draft", http.MethodPost, "/projects/{project_id}/draft/check", "Check a rules text as you type",
		"Checks `rules` (a .rules text for this project, saved or not; nothing is stored) as `eligo lsp` checks an open document, with the language server's own code: "+
			"`diagnostics` are its compile errors and warnings, each at its `range` (zero-based `line` and `character` in UTF-16 code units, as the Language Server Protocol counts, `end` exclusive), "+
			"with a draft that authors another section than the project's as one more error (`code` `section`), and `compiles` says whether none is an error. "+
			"It is what a code editor shows while the author types, before saving; GET .../draft answers for the saved draft and adds what needs the project's sources and tests (reference problems, quotes, tests). "+
			"The text is bounded as a draft is (1 MiB, and the compiler's limits, which answer as a compile error). "+editorChecksDoc, read)
	check.Class, check.Refusals = api.ClassUnmetered, []api.Refusal{editorChecksRefusal}
	api.Register(s, check, h.check)

	complete := op("complete-project-draft", http.MethodPost, "/projects/{project_id}/draft/complete", "Complete a rules text at a place",
		"What `eligo lsp` proposes at `position` (zero-based `line` and `character` in UTF-16 code units) of `rules`, a .rules text for this project, saved or not (nothing is stored), with the language server's own code: "+
			"the declared sources after `cite` (or a note's `source`), each `label`led with the id the rules say and `detail`ed with its title; an enum field's quoted values where it is compared or listed; group ids in the outcome; "+
			"else the declared fields, the language's functions and its keywords. `insert_text` is what replaces the word at the position. "+
			"Asked per place rather than as one vocabulary, so that what is proposed depends on the place as in every editor the language server serves. A position past the text's end is its end. "+editorChecksDoc, read)
	complete.Class, complete.Refusals = api.ClassUnmetered, []api.Refusal{editorChecksRefusal}
	api.Register(s, complete, h.complete)

	symbols := op("get-project-draft-symbols", http.MethodGet, "/projects/{project_id}/draft/symbols", "List the draft's symbols",
		"What a code editor completes the saved draft from: the declared `fields` (id, type, question, enum values), `sources`, `groups` and `criteria` (with their group), "+
			"each with the line it is declared on, and the rules language's `functions` and `keywords`. They are read from the parsed text, so a draft that does not compile still has them; "+
			"`complete` is false when the draft has syntax errors, after which the parser skips to the next declaration (one it skipped is missing). 409 `no_draft` before the first draft.", read)
	symbols.Refusals = []api.Refusal{{Status: http.StatusConflict, ReasonCode: authoring.ReasonNoDraft, Meaning: "the project has no draft yet."}}
	api.Register(s, symbols, h.symbols)

	diff := op("diff-project-draft", http.MethodGet, "/projects/{project_id}/draft/diff", "Whom the draft would affect",
		"Compares the saved draft with a published cut over every possible applicant, with the solver, as GET /rulesets/{ruleset_id}/diff compares two versions (the draft is the new one): "+
			"for each kind of outcome change an applicant it happens to (`witness`), the criteria whose status differs for them and their quotes on both sides, or `equivalent: true`; fields added, removed or redeclared in `field_changes`. "+
			"`against` names the cut: a slug (send each `/` as `%2F`) or a concrete ruleset_id the caller may see; a slug resolves to its cut in force on `decision_date`, as /decide resolves it. "+
			"Without `against`, the cut in force under the slug the draft publishes to (its `ruleset` header, the slug publish-project takes by default). "+
			"`against`, `against_slug` and `against_version` say which cut was compared with. `decision_date` (YYYY-MM-DD, default today) fixes decision_date() and the cut in force. "+
			"A named `against` the caller cannot see is 404; with no `against`, a draft that declares no slug, or a slug with no cut the caller may see, is 422 `nothing_published`.",
		[]auth.Scope{auth.ScopeProjectsRead, auth.ScopeRulesetsRead})
	diff.NotFound = "project or ruleset"
	diff.Refusals = []api.Refusal{
		{Status: http.StatusConflict, ReasonCode: authoring.ReasonNoDraft, Meaning: "the project has no draft yet."},
		{Status: http.StatusUnprocessableEntity, ReasonCode: authoring.ReasonDraftInvalid, Meaning: "the draft does not compile, or authors another section (`compile_errors`, as GET .../draft reports them)."},
		{Status: http.StatusUnprocessableEntity, ReasonCode: api.ReasonNothingPublished, Meaning: "no `against` was given and there is nothing to compare with: the draft declares no `ruleset` slug, or no cut under it is visible to the caller."},
		api.RefusalRecordCorrupt,
		api.RefusalDiffUndecided,
	}
	api.Register(s, diff, h.diff)

	suggest := op("suggest-project-cases", http.MethodPost, "/projects/{project_id}/suggest-cases", "Suggest test cases",
		"The test cases the solver proposes for what the project's tests leave untested in the saved draft, as `eligo test --suggest` prints them: per criterion, satisfied, not satisfied (and as the only alternative of an `any` group), "+
			"and each comparison with a constant at the constant, just below and just above. Each suggestion names its `goal`; a `reachable` one carries `case`, in the shape set-project-tests takes a test case "+
			"(named after the goal, `expected_outcome` what the draft decides, `expectations.criteria` pinning the criteria it is about; send it in `test_cases` to add it, after checking the outcome against the law), "+
			"`also_covers` (later goals it meets too) and `kills`, the mutants of the draft that survive the current tests and this case would kill; an unreachable goal (no answer set meets it) has `case` null. "+
			"The top-level `candidates`, `planned` and `done` count the search's goals; `mutation_score` is the current tests' score (`total`, `killed`, `score`, `survivors`, with its own `complete`) and `killed_with_suggestions` and `score_with_suggestions` the score with every reachable suggestion added. "+
			fmt.Sprintf("`decision_date` (YYYY-MM-DD, default today) dates the cases of a draft that reads decision_date(). The search, the score and weighing the survivors against the suggestions share a budget of %s and wait for the tenant's share of the solver slots within it; ", authoring.SuggestBudget)+
			"when any of them stops early the answer holds what was decided, with top-level `complete: false` and `incomplete` saying which stopped and why (`deadline_exceeded`, `canceled` or `solver_undecided`), never an error. "+
			"409 `no_draft` before the first draft; a draft that does not compile is 422 `draft_does_not_compile`.", read)
	suggest.Refusals = []api.Refusal{
		{Status: http.StatusConflict, ReasonCode: authoring.ReasonNoDraft, Meaning: "the project has no draft yet."},
		{Status: http.StatusUnprocessableEntity, ReasonCode: authoring.ReasonDraftInvalid, Meaning: "the draft does not compile, or authors another section (`compile_errors`, as GET .../draft reports them)."},
	}
	api.Register(s, suggest, h.suggest)
}

type formatInput struct {
	ProjectID string `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
	Body      draftFormatRequest
}

// draftFormatRequest is the text to format.
type draftFormatRequest struct {
	Rules string `json:"rules" minLength:"1" maxLength:"1048576" doc:"The .rules text to format."`
}

type formatOutput struct {
	Body authoring.FormattedRules
}

func (h *handler) format(ctx context.Context, in *formatInput) (*formatOutput, error) {
	f, err := onText(ctx, in.ProjectID, nil, func(tenant string) (authoring.FormattedRules, error) {
		return h.drafts.Format(ctx, tenant, in.ProjectID, in.Body.Rules)
	})
	return &formatOutput{Body: f}, err
}

// onText runs work on a rules text of the caller's project: the caller's
// tenant, then pace when it is set (the editor's checks), then work, whose
// error is the project's refusal (404 for another tenant's).
func onText[T any](ctx context.Context, projectID string, pace func(tenant string) error, work func(tenant string) (T, error)) (T, error) {
	var zero T
	tenant, err := tenantFor(projectID, ctx)
	if err != nil {
		return zero, err
	}
	if pace != nil {
		if err := pace(tenant); err != nil {
			return zero, err
		}
	}
	out, err := work(tenant)
	if err != nil {
		return zero, failed(ctx, err, "Project", projectID)
	}
	return out, nil
}

type checkInput struct {
	ProjectID string `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
	Body      draftCheckRequest
}

// draftCheckRequest is the text to check.
type draftCheckRequest struct {
	Rules string `json:"rules" maxLength:"1048576" doc:"The .rules text to check, as the editor holds it."`
}

type checkOutput struct {
	Body authoring.DraftCheck
}

// editorChecksDoc says how checks and completions are counted.
const editorChecksDoc = "Sent as an author types, it is not counted against the daily `projects` budget (typing would spend it and leave no room to save); " +
	"instead a tenant's checks and completions together are bounded to 60 at once, refilled at one a second (429 `editor_checks_limited` with `Retry-After`)."

// paced takes one of the tenant's editor checks, or answers the refusal.
func (h *handler) paced(tenant string) error {
	if wait := h.checks.Take(tenant, h.clock.Now()); wait > 0 {
		return api.TooFrequent(api.ReasonEditorChecksLimited,
			"This project's tenant sent its editor checks and completions faster than one a second for a while; this one was not run.",
			"Wait the Retry-After seconds. A code editor checks when typing pauses; a script should check a saved draft with GET .../draft.", wait)
	}
	return nil
}

func (h *handler) check(ctx context.Context, in *checkInput) (*checkOutput, error) {
	c, err := onText(ctx, in.ProjectID, h.paced, func(tenant string) (authoring.DraftCheck, error) {
		return h.drafts.Check(ctx, tenant, in.ProjectID, in.Body.Rules)
	})
	return &checkOutput{Body: c}, err
}

type completeInput struct {
	ProjectID string `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
	Body      draftCompleteRequest
}

// draftCompleteRequest is the text and the place to complete at.
type draftCompleteRequest struct {
	Rules    string                 `json:"rules" maxLength:"1048576" doc:"The .rules text, as the editor holds it."`
	Position authoring.TextPosition `json:"position" doc:"Where the cursor is."`
}

type completeOutput struct {
	Body authoring.DraftCompletions
}

func (h *handler) complete(ctx context.Context, in *completeInput) (*completeOutput, error) {
	c, err := onText(ctx, in.ProjectID, h.paced, func(tenant string) (authoring.DraftCompletions, error) {
		return h.drafts.Complete(ctx, tenant, in.ProjectID, in.Body.Rules, in.Body.Position)
	})
	return &completeOutput{Body: c}, err
}

type symbolsOutput struct {
	Body authoring.DraftSymbols
}

func (h *handler) symbols(ctx context.Context, in *projectInput) (*symbolsOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	sym, err := h.drafts.Symbols(ctx, tenant, in.ProjectID)
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	return &symbolsOutput{Body: sym}, nil
}

type draftDiffInput struct {
	ProjectID    string `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
	Against      string `query:"against" maxLength:"300" doc:"The published cut to compare with: a slug or a concrete ruleset_id; default the cut in force under the draft's ruleset slug."`
	DecisionDate string `query:"decision_date" pattern:"^[0-9]{4}-[0-9]{2}-[0-9]{2}$" doc:"What decision_date() reads and which cut of a slug is in force, YYYY-MM-DD; default today."`
}

// draftDiff is what the draft changes against a published cut.
type draftDiff struct {
	ProjectID      string `json:"project_id"`
	Against        string `json:"against" doc:"The concrete ruleset_id of the cut compared with."`
	AgainstSlug    string `json:"against_slug" doc:"The slug that cut is published under."`
	AgainstVersion string `json:"against_version" doc:"The cut's v<N> under its slug."`
	verify.SemanticDiff
}

type draftDiffOutput struct {
	Body draftDiff
}

func (h *handler) diff(ctx context.Context, in *draftDiffInput) (*draftDiffOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	date, err := resource.DateParam("query", "decision_date", in.DecisionDate, h.clock.Now())
	if err != nil {
		return nil, err
	}
	w, err := h.drafts.Draft(ctx, tenant, in.ProjectID, nil)
	if err == nil {
		err = w.Compiled()
	}
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	cut, err := h.publishedCut(ctx, in.Against, w.Rules.Slug, date)
	if err != nil {
		return nil, err
	}
	d, err := verify.Diff(ctx, cut.Rules, w.Rules, verify.DiffOptions{DecisionDate: date, Gate: h.gate.For(api.Caller(ctx))})
	if err != nil {
		return nil, api.DiffUndecided(ctx, err, "project", in.ProjectID, "against", cut.ID)
	}
	return &draftDiffOutput{Body: draftDiff{ProjectID: in.ProjectID, Against: cut.ID, AgainstSlug: cut.Slug, AgainstVersion: cut.Label, SemanticDiff: d}}, nil
}

// publishedCut is the cut a draft is compared with on date: the one
// against names (404 when the caller cannot see it), else the one in force
// under the draft's slug (422 nothing_published when there is none).
func (h *handler) publishedCut(ctx context.Context, against, slug string, date int64) (*catalog.PreparedRuleset, error) {
	viewer := api.ViewerOf(ctx)
	if against != "" {
		cut, err := h.catalog.RulesetOn(ctx, viewer, against, date)
		if err != nil {
			return nil, api.LookupFailed(ctx, err, "Ruleset", against)
		}
		return cut, nil
	}
	nothing := func(why string) error {
		return api.NewProblem(http.StatusUnprocessableEntity, "unprocessable_entity", api.ReasonNothingPublished,
			"There is no published cut to compare the draft with: "+why+"; name one in against.")
	}
	if slug == "" {
		return nil, nothing("the draft declares no ruleset slug")
	}
	cut, err := h.catalog.RulesetOn(ctx, viewer, slug, date)
	if errors.Is(err, catalog.ErrNotFound) {
		return nil, nothing(fmt.Sprintf("nothing you may see is published under %q", slug))
	}
	if err != nil {
		return nil, api.LookupFailed(ctx, err, "Ruleset", slug)
	}
	return cut, nil
}

type suggestInput struct {
	ProjectID string               `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
	Body      *suggestCasesRequest `required:"false"`
}

// suggestCasesRequest tunes a suggestion run.
type suggestCasesRequest struct {
	DecisionDate string `json:"decision_date,omitempty" pattern:"^[0-9]{4}-[0-9]{2}-[0-9]{2}$" doc:"The date the suggested cases of a draft that reads decision_date() are decided as of and carry; YYYY-MM-DD, default today. A draft that does not read it gets cases without a date, found as of the first day of its effective period, the day its tests are decided as of."`
}

// suggestedCases are the cases the solver suggests for the draft.
type suggestedCases struct {
	ProjectID   string          `json:"project_id"`
	Suggestions []suggestedCase `json:"suggestions" nullable:"false"`
	// Progress says how far the search for the goals' cases got.
	bound.Progress
	MutationScore mutationScoreWithSuggestions `json:"mutation_score" doc:"The current tests' mutation score, and the score with every reachable suggestion added."`
}

// suggestedCase is one goal and the case that meets it.
type suggestedCase struct {
	Goal       string          `json:"goal" doc:"What the case exercises, e.g. criterion tenure satisfied."`
	Reachable  bool            `json:"reachable" doc:"False when no answer set meets the goal: no case can cover it."`
	Case       *wireCase       `json:"case" doc:"The case in set-project-tests' test_cases shape; null when the goal is unreachable."`
	AlsoCovers []string        `json:"also_covers" nullable:"false" doc:"Later goals this case meets too, which get no case of their own."`
	Kills      []verify.Mutant `json:"kills" nullable:"false" doc:"The mutants surviving the current tests that this case kills."`
}

// mutationScoreWithSuggestions is a mutation score with the suggestions' effect.
type mutationScoreWithSuggestions struct {
	Total                 int             `json:"total" doc:"Mutants scored (decided, less those proved to change nothing)."`
	Killed                int             `json:"killed" doc:"Mutants some current test kills."`
	Score                 float64         `json:"score" doc:"killed / total (1 with no mutant); 0 when the run did not finish."`
	Survivors             []verify.Mutant `json:"survivors" nullable:"false" doc:"The scored mutants no current test kills."`
	KilledWithSuggestions int             `json:"killed_with_suggestions" doc:"Mutants killed with every reachable suggestion added to the tests (of the survivors weighed before the budget ran out, when the top-level complete is false)."`
	ScoreWithSuggestions  float64         `json:"score_with_suggestions" doc:"killed_with_suggestions / total (1 with no mutant); 0 when the score or the weighing of the survivors against the suggestions did not finish."`
	bound.Progress
}

type suggestOutput struct {
	Body suggestedCases
}

func (h *handler) suggest(ctx context.Context, in *suggestInput) (*suggestOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	var raw string
	if in.Body != nil {
		raw = in.Body.DecisionDate
	}
	date, err := resource.DateParam("body", "decision_date", raw, h.clock.Now())
	if err != nil {
		return nil, err
	}
	found, err := h.drafts.SuggestCases(ctx, tenant, in.ProjectID, value.FormatDate(date))
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	m := found.Mutation
	out := suggestedCases{ProjectID: in.ProjectID, Suggestions: make([]suggestedCase, len(found.Suggestions)), Progress: found.Progress,
		MutationScore: mutationScoreWithSuggestions{Total: m.Total, Killed: m.Killed, Score: m.Score, Survivors: m.Survivors,
			KilledWithSuggestions: found.KilledWithSuggestions, Progress: m.Progress}}
	switch {
	case !m.Complete || !found.Kills.Complete:
	case m.Total == 0:
		out.MutationScore.ScoreWithSuggestions = 1
	default:
		out.MutationScore.ScoreWithSuggestions = float64(found.KilledWithSuggestions) / float64(m.Total)
	}
	for i, sg := range found.Suggestions {
		o := suggestedCase{Goal: sg.Goal, Reachable: sg.Reachable, AlsoCovers: sg.AlsoCovers, Kills: sg.Kills}
		if sg.Reachable {
			c := wireCaseOf(sg.Case)
			o.Case = &c
		}
		out.Suggestions[i] = o
	}
	return &suggestOutput{Body: out}, nil
}
