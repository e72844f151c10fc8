package projects

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/authoring"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine/value"
	"github.com/eligo/eligo/impact"
	"github.com/eligo/eligo/store"
	"github.com/eligo/eligo/worker"
)

// The reason codes of impact runs.
const (
	ReasonImpactLimit             = "tenant_impact_limit"
	ReasonImpactWorkerUnavailable = "impact_worker_unavailable"
	ReasonImpactNotActive         = "impact_run_not_active"
)

// DefaultImpactExamples is how many example references a run keeps per
// transition unless asked otherwise.
const DefaultImpactExamples = 5

// impactListLimit is how many runs the list shows, newest first.
const impactListLimit = 50

var impactIDPattern = regexp.MustCompile(`^imp_[A-Za-z0-9_-]{16}$`)

// impactDoc says who sees what in a run's answer; the operations that
// answer with a run carry it.
func impactDoc(small int64) string {
	return fmt.Sprintf("Privacy: only the tenant that owns the project sees its runs (another tenant gets 404); a run's report carries counts, never answers. "+
		"Every count of the report from 1 to %d is shown as `{\"count\": null, \"fewer_than\": %d}` instead of its value (an exact count has `fewer_than` null; zero is shown as 0: a count of no one identifies no one). "+
		"What identifies a case (the transitions' `examples`, the references the file gave, and the line numbers of bad rows, unread answers and undecided cases) is shown only to a key carrying `caseloads:read`; for any other key those lists are empty. "+
		"docs/impact.md#who-sees-what.", small-1, small)
}

func registerImpact(s *api.Server, h *handler, op func(id, method, path, summary, description string, scopes []auth.Scope) api.Route) {
	read := []auth.Scope{auth.ScopeProjectsRead}
	write := []auth.Scope{auth.ScopeProjectsWrite}
	cfg := worker.ImpactConfig{}
	if h.impact != nil {
		cfg = h.impact.Config()
	}
	small := max(cfg.SmallCount, worker.MinSmallCount)
	active := max(cfg.MaxActiveRuns, worker.DefaultImpactActiveRuns)
	timeout := cfg.RunTimeout
	if timeout <= 0 {
		timeout = worker.DefaultImpactRunTimeout
	}

	start := op("start-impact-run", http.MethodPost, "/projects/{project_id}/impact", "Start an impact run",
		fmt.Sprintf("Decides every case of one of the project's caseloads on a baseline and a candidate ruleset, in the background, and counts what changed (docs/impact.md). "+
			"`candidate` names a published version of the tenant's ruleset by `slug` and `version` (v<N>); omitted, the candidate is the project's draft as it is now (it must compile). "+
			"`candidate` may instead name one of the tenant's rulebooks: `rulebook` with `release_id` (a release), or with `section_id` and `ruleset_id` (the release in force, or `release_id`, with that section's member replaced by that cut of the section, as promoting it would); the baseline is then the rulebook's release in force (leave `baseline` out; 422 `%s` when it has none), and the proposal must compose (docs/impact.md#rulebook-candidates). "+
			"`baseline` names a version by `slug` and `version`; without `version` it is the cut in force on `decision_date` under `slug`, and without `slug` under the candidate's slug (422 `%s` when nothing is published there). "+
			"Each case is decided as of its own `decision_date`, else as of the run's `decision_date` (default today). `examples` (0 to 100, default %d) is how many references each transition keeps. "+
			"The answer is 202 with the run queued; GET .../impact/{run_id} follows its `progress` (rows done of the caseload's rows) to its end, and POST .../cancel stops it within a second, keeping the report of what it decided, marked `partial`. "+
			"A run is cut into parts at row boundaries, each a background job any server takes, and the parts' reports are merged in file order into the run's; each part takes a CPU slot of its server's heavy-work gate, within its tenant's share, for as long as it decides. A run is stopped %s after it starts (the report so far kept, `partial`). "+
			"A tenant may have %d runs queued or running at once: another start is 429 `%s` with `Retry-After`. ",
			api.ReasonNothingPublished, api.ReasonNothingPublished, DefaultImpactExamples, timeout, active, ReasonImpactLimit)+impactDoc(small), write)
	start.DefaultStatus = http.StatusAccepted
	start.Refusals = []api.Refusal{
		{Status: http.StatusTooManyRequests, ReasonCode: ReasonImpactLimit, Meaning: fmt.Sprintf(
			"the tenant already has %d impact runs queued or running, the most it may; `Retry-After: %d`.", active, int(worker.ImpactRetryAfter.Seconds()))},
		{Status: http.StatusUnprocessableEntity, ReasonCode: api.ReasonNothingPublished, Meaning: "there is no published cut to take as the baseline (name one), or the candidate's rulebook has no release in force (activate it)."},
		{Status: http.StatusConflict, ReasonCode: authoring.ReasonNoDraft, Meaning: "the candidate is the draft and the project has none."},
		{Status: http.StatusUnprocessableEntity, ReasonCode: authoring.ReasonDraftInvalid, Meaning: "the candidate is the draft and it does not compile."},
		{Status: http.StatusConflict, ReasonCode: ReasonImpactWorkerUnavailable, Meaning: "this server runs no impact worker."},
		api.RefusalRecordCorrupt,
	}
	api.Register(s, start, h.startImpact)

	api.Register(s, op("list-impact-runs", http.MethodGet, "/projects/{project_id}/impact", "List impact runs",
		fmt.Sprintf("The project's %d newest runs, newest first, each as GET .../impact/{run_id} gives it but without its `report`. ", impactListLimit)+impactDoc(small), read), h.listImpact)

	api.Register(s, op("get-impact-run", http.MethodGet, "/projects/{project_id}/impact/{run_id}", "Get an impact run",
		"The run's state (queued, running, succeeded, failed, cancelled), its progress and, once it has ended, its report: `partial` is true when the report covers only the rows decided before a cancel or the time limit. "+
			"A failed run says why in `error` (a CSV header the rulesets cannot read, the server). "+impactDoc(small), read), h.getImpact)

	cancel := op("cancel-impact-run", http.MethodPost, "/projects/{project_id}/impact/{run_id}/cancel", "Cancel an impact run",
		"Ends a queued or running run as `cancelled`. A running run stops within a second and leaves the report of the cases it decided, `partial`; "+
			"until it has, `report` is absent. Cancelling a cancelled run answers it again; a run that ended otherwise is 409 `"+ReasonImpactNotActive+"`. "+impactDoc(small), write)
	cancel.Refusals = []api.Refusal{{Status: http.StatusConflict, ReasonCode: ReasonImpactNotActive, Meaning: "the run has already succeeded or failed."}}
	api.Register(s, cancel, h.cancelImpact)
}

// rulesetPick names a published version of a ruleset.
type rulesetPick struct {
	Slug    string `json:"slug,omitempty" maxLength:"300" doc:"The ruleset's slug."`
	Version string `json:"version,omitempty" maxLength:"20" pattern:"^v?[0-9]+$" doc:"The version under the slug, v<N> (or N)."`
}

// impactRequest asks for an impact run.
type impactRequest struct {
	CaseloadID   string           `json:"caseload_id" maxLength:"100" doc:"The caseload to decide, cld_ and 16 URL-safe characters."`
	Candidate    *impactCandidate `json:"candidate,omitempty" doc:"A published version of the tenant's ruleset (slug and version, both required), or one of the tenant's rulebooks (rulebook, with release_id, or section_id and ruleset_id, or all three); omitted, the project's draft."`
	Baseline     *rulesetPick     `json:"baseline,omitempty" doc:"The rules in force: a version of slug, or without version the cut in force on decision_date; slug defaults to the candidate's."`
	DecisionDate string           `json:"decision_date,omitempty" pattern:"^[0-9]{4}-[0-9]{2}-[0-9]{2}$" doc:"The date a case without its own decision_date is decided as of, and the baseline in force is taken on; YYYY-MM-DD, default today."`
	Examples     *int             `json:"examples,omitempty" minimum:"0" maximum:"100" doc:"References kept per transition, 0 to 100; default 5."`
}

type startImpactInput struct {
	ProjectID string `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
	Body      impactRequest
}

// SmallCount is a count as a report shows it: exact, or, below the
// threshold, only that it is below it.
type SmallCount struct {
	Count     *int64 `json:"count" nullable:"true" doc:"The count; null when it is from 1 to fewer_than - 1."`
	FewerThan *int64 `json:"fewer_than" nullable:"true" doc:"Set (to the threshold, 10 unless the server raised it) when the count is below it and not zero; null when count is exact."`
}

// impactTransition counts the cases that went from one outcome to another.
type impactTransition struct {
	From string `json:"from" enum:"eligible,not_eligible,undetermined" doc:"The baseline's outcome."`
	To   string `json:"to" enum:"eligible,not_eligible,undetermined" doc:"The candidate's outcome."`
	SmallCount
	Examples []string `json:"examples" nullable:"false" doc:"References of the first cases that did, in file order (line N for a case without one); empty unless the key carries caseloads:read."`
}

// impactItem counts the cases a criterion or named value changed in.
type impactItem struct {
	ID     string `json:"id"`
	Output *bool  `json:"output,omitempty" doc:"For a named value: whether it is an output value of both rulesets."`
	SmallCount
}

// impactReason counts the rows or cases one reason applies to.
type impactReason struct {
	Reason string `json:"reason" doc:"What is wrong, in a sentence that names no answer."`
	SmallCount
	Lines []int64 `json:"lines" nullable:"false" doc:"The first line numbers (at most 10); empty unless the key carries caseloads:read."`
}

// impactReport is a run's report as the caller may see it.
type impactReport struct {
	Baseline      impact.RulesetInfo `json:"baseline"`
	Candidate     impact.RulesetInfo `json:"candidate"`
	Cases         SmallCount         `json:"cases" doc:"Rows decided (bad rows are not cases)."`
	Changed       SmallCount         `json:"changed" doc:"Cases whose outcome differs."`
	Transitions   []impactTransition `json:"transitions" nullable:"false" doc:"Cases by baseline and candidate outcome, unchanged ones included, in the order eligible, not_eligible, undetermined."`
	Criteria      []impactItem       `json:"criteria" nullable:"false" doc:"Criteria both rulesets declare whose status differed, most often first."`
	Values        []impactItem       `json:"values" nullable:"false" doc:"Named values both declare whose figure differed, most often first."`
	BadRows       []impactReason     `json:"bad_rows" nullable:"false" doc:"Rows that could not be read, by reason."`
	UnreadAnswers []impactReason     `json:"unread_answers" nullable:"false" doc:"Answers to fields a ruleset does not declare, by ruleset and field."`
	Undecided     []impactReason     `json:"undecided" nullable:"false" doc:"Cases a ruleset decided undetermined for a reason other than its criteria."`
}

// SchemaName is the name of impactReport's schema in the published API
// document, where the Go name would not say what it is.
func (impactReport) SchemaName() string { return "ImpactReport" }

// impactProgress is how far a run has got.
type impactProgress struct {
	RowsDone  int64 `json:"rows_done" doc:"Rows of the caseload read so far."`
	RowsTotal int64 `json:"rows_total" doc:"The caseload's rows."`
	CasesDone int64 `json:"cases_done" doc:"Rows decided so far."`
}

// ImpactRunResponse is a run on the wire.
type ImpactRunResponse struct {
	RunID              string          `json:"run_id" doc:"imp_ and 16 URL-safe characters."`
	ProjectID          string          `json:"project_id"`
	CaseloadID         string          `json:"caseload_id"`
	State              string          `json:"state" enum:"queued,running,succeeded,failed,cancelled"`
	BaselineRulesetID  string          `json:"baseline_ruleset_id" doc:"The concrete ruleset_id of the baseline; empty for a run of a rulebook."`
	CandidateRulesetID *string         `json:"candidate_ruleset_id" nullable:"true" doc:"The concrete ruleset_id of the candidate; null when it is the project's draft or a rulebook."`
	Rulebook           *impactRulebook `json:"rulebook" doc:"What a run of a rulebook compares (then baseline_ruleset_id is empty); null for a run of rulesets."`
	DecisionDate       string          `json:"decision_date" doc:"The date a case without its own is decided as of."`
	Examples           int             `json:"examples"`
	Progress           impactProgress  `json:"progress"`
	Partial            bool            `json:"partial" doc:"True when the report covers only the rows decided before the run was stopped."`
	Error              string          `json:"error" doc:"Why a failed run failed; empty otherwise."`
	Report             *impactReport   `json:"report,omitempty" doc:"The report, once the run has ended with one; absent before, and in lists."`
	CreatedAt          time.Time       `json:"created_at"`
	StartedAt          *time.Time      `json:"started_at" nullable:"true"`
	FinishedAt         *time.Time      `json:"finished_at" nullable:"true"`
}

// SchemaName is the name of ImpactRunResponse's schema in the published
// API document, where the Go name would not say what it is.
func (ImpactRunResponse) SchemaName() string { return "ImpactRun" }

type impactOutput struct {
	Body ImpactRunResponse
}

// shown is n as a caller sees it: exact when 0 or at least small.
func shown(n, small int64) SmallCount {
	if n > 0 && n < small {
		return SmallCount{FewerThan: &small}
	}
	return SmallCount{Count: &n}
}

// reportOut is rep as the caller may see it: small counts hidden, and
// references and line numbers only for a key with caseloads:read.
func reportOut(ctx context.Context, rep *impact.Report, small int64) *impactReport {
	sees := seesCases(ctx)
	out := &impactReport{Baseline: rep.Baseline, Candidate: rep.Candidate, Cases: shown(rep.Cases, small), Changed: shown(rep.Changed, small),
		Transitions: []impactTransition{}, Criteria: []impactItem{}, Values: []impactItem{}}
	for _, t := range rep.Transitions {
		ex := []string{}
		if sees && t.Examples != nil {
			ex = t.Examples
		}
		out.Transitions = append(out.Transitions, impactTransition{From: t.From.String(), To: t.To.String(), SmallCount: shown(t.Count, small), Examples: ex})
	}
	for _, c := range rep.Criteria {
		out.Criteria = append(out.Criteria, impactItem{ID: c.ID, SmallCount: shown(c.Count, small)})
	}
	for _, v := range rep.Values {
		output := v.Output
		out.Values = append(out.Values, impactItem{ID: v.ID, Output: &output, SmallCount: shown(v.Count, small)})
	}
	reasons := func(in []impact.Reason) []impactReason {
		list := make([]impactReason, 0, len(in))
		for _, r := range in {
			list = append(list, impactReason{Reason: r.Reason, SmallCount: shown(r.Count, small), Lines: linesFor(ctx, r.Lines)})
		}
		return list
	}
	out.BadRows, out.UnreadAnswers, out.Undecided = reasons(rep.BadRows), reasons(rep.UnreadAnswers), reasons(rep.Undecided)
	return out
}

// runOut is run on the wire; withReport adds its report.
func (h *handler) runOut(ctx context.Context, run store.ImpactRun, withReport bool) (ImpactRunResponse, error) {
	out := ImpactRunResponse{RunID: run.ID, ProjectID: run.ProjectID, CaseloadID: run.CaseloadID, State: run.State,
		BaselineRulesetID: run.BaselineRulesetID, DecisionDate: run.DecisionDate.Format(time.DateOnly), Examples: run.Examples,
		Progress: impactProgress{RowsDone: run.RowsDone, RowsTotal: run.RowsTotal, CasesDone: run.CasesDone},
		Partial:  run.Partial, Error: run.ErrorMessage, CreatedAt: run.CreatedAt, StartedAt: run.StartedAt, FinishedAt: run.FinishedAt,
		Rulebook: rulebookOut(run.Rulebook)}
	if run.CandidateRulesetID != "" {
		id := run.CandidateRulesetID
		out.CandidateRulesetID = &id
	}
	if withReport && len(run.Report) > 0 {
		var rep impact.Report
		if err := json.Unmarshal(run.Report, &rep); err != nil {
			return out, fmt.Errorf("read the report of %s: %w", run.ID, err)
		}
		out.Report = reportOut(ctx, &rep, h.smallCount())
	}
	return out, nil
}

// smallCount is the threshold below which counts are hidden.
func (h *handler) smallCount() int64 {
	if h.impact == nil {
		return worker.MinSmallCount
	}
	return h.impact.Config().SmallCount
}

// parseVersion reads v<N> or N.
func parseVersion(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(s, "v"))
	return n, err == nil && n > 0
}

// versionOf loads a named version for the caller: 404 when there is none
// it may see.
func (h *handler) versionOf(ctx context.Context, pick rulesetPick, loc string) (*catalog.PreparedRuleset, error) {
	n, ok := parseVersion(pick.Version)
	if !ok || pick.Slug == "" {
		return nil, api.ValidationFailed(api.ValidationItem{Type: "missing", Loc: []any{"body", loc},
			Msg: "Field required: a version is named by slug and version (v<N>)", Input: pick})
	}
	rs, err := h.catalog.Version(ctx, api.ViewerOf(ctx), pick.Slug, n)
	if err != nil {
		return nil, api.LookupFailed(ctx, err, "Ruleset", fmt.Sprintf("%s v%d", pick.Slug, n))
	}
	return rs, nil
}

func (h *handler) startImpact(ctx context.Context, in *startImpactInput) (*impactOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	req := in.Body
	date, err := resource.DateParam("body", "decision_date", req.DecisionDate, h.clock.Now())
	if err != nil {
		return nil, err
	}
	run := store.ImpactRun{ProjectID: in.ProjectID, TenantID: tenant, CaseloadID: req.CaseloadID, Examples: DefaultImpactExamples}
	if req.Examples != nil {
		run.Examples = *req.Examples
	}
	y, m, d := value.Civil(date)
	run.DecisionDate = time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if !caseloadIDPattern.MatchString(req.CaseloadID) {
		return nil, api.NotFound(fmt.Sprintf("Caseload %q not found.", req.CaseloadID))
	}
	if _, err := h.store.CaseloadOf(ctx, tenant, in.ProjectID, req.CaseloadID); err != nil {
		if _, perr := h.projects.Project(ctx, tenant, in.ProjectID); perr != nil {
			return nil, failed(ctx, perr, "Project", in.ProjectID)
		}
		return nil, failed(ctx, err, "Caseload", req.CaseloadID)
	}
	if req.Candidate != nil && req.Candidate.Rulebook != "" {
		if err := h.rulebookRun(ctx, tenant, req, &run); err != nil {
			return nil, err
		}
		return h.started(ctx, run)
	}
	// The candidate: a version of the tenant's own, or the draft.
	var slug string
	if req.Candidate != nil {
		cand, err := h.versionOf(ctx, req.Candidate.version(), "candidate")
		if err != nil {
			return nil, err
		}
		if cand.TenantID != tenant {
			return nil, api.NotFound(fmt.Sprintf("Ruleset %q not found.", fmt.Sprintf("%s %s", req.Candidate.Slug, req.Candidate.Version)))
		}
		run.CandidateRulesetID, slug = cand.ID, cand.Slug
	} else {
		w, err := h.drafts.Draft(ctx, tenant, in.ProjectID, nil)
		if err == nil {
			err = w.Compiled()
		}
		if err != nil {
			return nil, failed(ctx, err, "Project", in.ProjectID)
		}
		run.CandidateDraft, slug = *w.Project.DraftText, w.Rules.Slug
	}
	// The baseline: a named version, or the cut in force.
	var base *catalog.PreparedRuleset
	pick := rulesetPick{}
	if req.Baseline != nil {
		pick = *req.Baseline
	}
	if pick.Slug == "" {
		pick.Slug = slug
	}
	if pick.Version != "" {
		base, err = h.versionOf(ctx, pick, "baseline")
	} else {
		base, err = h.publishedCut(ctx, "", pick.Slug, date)
	}
	if err != nil {
		return nil, err
	}
	run.BaselineRulesetID = base.ID
	return h.started(ctx, run)
}

// started starts run and answers with it.
func (h *handler) started(ctx context.Context, run store.ImpactRun) (*impactOutput, error) {
	started, err := h.startRun(ctx, run)
	if err != nil {
		return nil, err
	}
	started.Rulebook = run.Rulebook
	out, err := h.runOut(ctx, started, false)
	if err != nil {
		return nil, failed(ctx, err, "Impact run", started.ID)
	}
	return &impactOutput{Body: out}, nil
}

// startRun starts run, mapping the runner's refusals.
func (h *handler) startRun(ctx context.Context, run store.ImpactRun) (store.ImpactRun, error) {
	var started store.ImpactRun
	err := worker.ErrImpactWorkerUnavailable
	if h.impact != nil {
		started, err = h.impact.Start(ctx, run)
	}
	switch {
	case errors.Is(err, store.ErrImpactLimit):
		cfg := h.impact.Config()
		err = &authoring.RefusedError{Kind: authoring.TooMany, Reason: ReasonImpactLimit, RetryAfter: worker.ImpactRetryAfter,
			Message: fmt.Sprintf("A tenant may have at most %d impact runs queued or running at once; wait for one to end (GET /projects/{id}/impact) and start again after %d seconds.",
				cfg.MaxActiveRuns, int(worker.ImpactRetryAfter.Seconds()))}
	case errors.Is(err, worker.ErrImpactWorkerUnavailable):
		err = &authoring.RefusedError{Kind: authoring.Conflict, Reason: ReasonImpactWorkerUnavailable, Message: "This server runs no impact worker."}
	}
	if err != nil {
		return started, failed(ctx, err, "Caseload", run.CaseloadID)
	}
	return started, nil
}

type impactListResponse struct {
	Runs []ImpactRunResponse `json:"runs" nullable:"false"`
}

// SchemaName is the name of impactListResponse's schema in the published
// API document, where the Go name would not say what it is.
func (impactListResponse) SchemaName() string { return "ImpactRunList" }

type impactListOutput struct {
	Body impactListResponse
}

func (h *handler) listImpact(ctx context.Context, in *projectInput) (*impactListOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	if _, err := h.projects.Project(ctx, tenant, in.ProjectID); err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	runs, err := h.store.ImpactRuns(ctx, tenant, in.ProjectID, impactListLimit)
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	if err := h.withRulebooks(ctx, runs); err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	out := impactListResponse{Runs: []ImpactRunResponse{}}
	for _, run := range runs {
		o, err := h.runOut(ctx, run, false)
		if err != nil {
			return nil, failed(ctx, err, "Impact run", run.ID)
		}
		out.Runs = append(out.Runs, o)
	}
	return &impactListOutput{Body: out}, nil
}

type impactRunInput struct {
	ProjectID string `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
	RunID     string `path:"run_id" maxLength:"100" doc:"The run id, imp_ and 16 URL-safe characters."`
}

// runTenant is tenantFor for a run path.
func runTenant(ctx context.Context, projectID, runID string) (string, error) {
	tenant, err := tenantFor(projectID, ctx)
	if err == nil && !impactIDPattern.MatchString(runID) {
		err = api.NotFound(fmt.Sprintf("Impact run %q not found.", runID))
	}
	return tenant, err
}

func (h *handler) getImpact(ctx context.Context, in *impactRunInput) (*impactOutput, error) {
	tenant, err := runTenant(ctx, in.ProjectID, in.RunID)
	if err != nil {
		return nil, err
	}
	run, err := h.store.ImpactRunOf(ctx, tenant, in.ProjectID, in.RunID)
	return h.runAnswer(ctx, in.RunID, run, err)
}

// runAnswer answers with run id and its report, or with err's refusal.
func (h *handler) runAnswer(ctx context.Context, id string, run store.ImpactRun, err error) (*impactOutput, error) {
	if err == nil {
		runs := []store.ImpactRun{run}
		err = h.withRulebooks(ctx, runs)
		run = runs[0]
	}
	if err != nil {
		return nil, failed(ctx, err, "Impact run", id)
	}
	out, err := h.runOut(ctx, run, true)
	if err != nil {
		return nil, failed(ctx, err, "Impact run", id)
	}
	return &impactOutput{Body: out}, nil
}

func (h *handler) cancelImpact(ctx context.Context, in *impactRunInput) (*impactOutput, error) {
	tenant, err := runTenant(ctx, in.ProjectID, in.RunID)
	if err != nil {
		return nil, err
	}
	run, err := h.store.CancelImpactRun(ctx, tenant, in.ProjectID, in.RunID)
	if errors.Is(err, store.ErrNotFound) {
		// Not active, or not the tenant's: read it to tell which.
		run, err = h.store.ImpactRunOf(ctx, tenant, in.ProjectID, in.RunID)
		if err == nil && run.State != store.ImpactCancelled {
			err = &authoring.RefusedError{Kind: authoring.Conflict, Reason: ReasonImpactNotActive,
				Message: fmt.Sprintf("Impact run %s is not active (it %s); there is nothing to cancel.", in.RunID, run.State)}
		}
	}
	return h.runAnswer(ctx, in.RunID, run, err)
}
