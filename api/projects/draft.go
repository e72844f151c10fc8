package projects

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/authoring"
	"github.com/eligo/eligo/authoring/review"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver/verify"
	"github.com/eligo/eligo/store"
)

// draftResponse is a worked-out draft on the wire.
type draftResponse struct {
	ProjectID         string                     `json:"project_id"`
	Origin            string                     `json:"origin" enum:"hand,generation"`
	UpdatedAt         time.Time                  `json:"updated_at"`
	Rules             string                     `json:"rules" doc:"The draft's .rules text."`
	Compiles          bool                       `json:"compiles"`
	CompileErrors     []string                   `json:"compile_errors" nullable:"false" doc:"file:line:column: message, one per error."`
	ContentDigest     *string                    `json:"content_digest" doc:"The compiled draft's digest; null when it does not compile."`
	Acceptance        authoring.Acceptance       `json:"acceptance"`
	ReferenceProblems []string                   `json:"reference_problems" nullable:"false" doc:"Declared sources that do not bind to a project source, or are unlicensed, private or mismatched."`
	ProvenanceReport  authoring.ProvenanceReport `json:"provenance_report"`
	SourceCheck       authoring.SourceCheck      `json:"source_check"`
	SourceQuestions   []authoring.SourceQuestion `json:"source_questions" nullable:"false"`
}

// SchemaName is the name of draftResponse's schema in the published API document,
// where the Go name would not say what it is.
func (draftResponse) SchemaName() string { return "Draft" }

func draftOut(w authoring.Workup) draftResponse {
	p := w.Project
	o := draftResponse{ProjectID: p.ID, Origin: p.DraftOrigin, Rules: *p.DraftText, Compiles: w.Rules != nil,
		CompileErrors: []string{}, Acceptance: w.Acceptance, ReferenceProblems: w.ReferenceProblems,
		ProvenanceReport: w.Provenance, SourceCheck: w.SourceCheck, SourceQuestions: w.Questions}
	if p.DraftUpdatedAt != nil {
		o.UpdatedAt = *p.DraftUpdatedAt
	}
	for _, e := range w.CompileErrors {
		o.CompileErrors = append(o.CompileErrors, e.Error())
	}
	if w.Rules != nil {
		d := w.Rules.ContentDigest()
		o.ContentDigest = &d
	}
	if o.SourceQuestions == nil {
		o.SourceQuestions = []authoring.SourceQuestion{}
	}
	return o
}

type putDraftInput struct {
	ProjectID string `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
	Body      draftUpdateRequest
}

// draftUpdateRequest is putDraftInput's body, published as DraftUpdateRequest.
type draftUpdateRequest struct {
	Rules           string                     `json:"rules" minLength:"1" maxLength:"1048576" doc:"The .rules text."`
	SourceQuestions []authoring.SourceQuestion `json:"source_questions,omitempty" maxItems:"100"`
}

type draftOutput struct {
	Body draftResponse
}

func (h *handler) putDraft(ctx context.Context, in *putDraftInput) (*draftOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	w, err := h.drafts.PutDraft(ctx, tenant, in.ProjectID, authoring.DraftRequest{Rules: in.Body.Rules, SourceQuestions: in.Body.SourceQuestions})
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	return &draftOutput{Body: draftOut(w)}, nil
}

func (h *handler) getDraft(ctx context.Context, in *projectInput) (*draftOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	w, err := h.drafts.Draft(ctx, tenant, in.ProjectID, nil)
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	return &draftOutput{Body: draftOut(w)}, nil
}

type publishInput struct {
	ProjectID string          `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
	Body      *publishRequest `required:"false"`
}

// publishRequest is publishInput's body, published as PublishRequest.
type publishRequest struct {
	Name          string                            `json:"name,omitempty" maxLength:"200" doc:"Display name; default the draft's name header."`
	Slug          string                            `json:"slug,omitempty" maxLength:"200" doc:"Slug to publish under; default the draft's ruleset header."`
	ForceUnsafe   bool                              `json:"force_unsafe,omitempty" doc:"Publish despite failing tests or contract checks; audited as publish_force_bypass."`
	Visibility    string                            `json:"visibility,omitempty" enum:"public,private" doc:"Who may use the new version: public (anonymous callers too) or private (the tenant only). Default: the visibility of the version the slug points at now; private for a new slug."`
	SourceTargets map[string]authoring.SourceTarget `json:"source_targets,omitempty" doc:"Declared source id to the project source it cites and how."`
}

// publishResponse is what a project publish answers.
type publishResponse struct {
	RulesetID        string                     `json:"ruleset_id"`
	Slug             string                     `json:"slug"`
	Version          string                     `json:"version" doc:"v<N>."`
	ContentDigest    string                     `json:"content_digest"`
	Reused           bool                       `json:"reused" doc:"The slug already held this exact content; its cut was reused."`
	Visibility       string                     `json:"visibility" enum:"public,private" doc:"Who may use the new version."`
	VisibilityFrom   string                     `json:"visibility_from" enum:"requested,kept,new_slug" doc:"Where visibility came from: the request's visibility, kept from the version the slug pointed at, or the private default of a new slug."`
	TestsPassing     int                        `json:"tests_passing"`
	TestsTotal       int                        `json:"tests_total"`
	Failures         []authoring.TestResult     `json:"failures" nullable:"false" doc:"Failing tests published anyway under force_unsafe."`
	ReviewHint       *review.Hint               `json:"review_hint" doc:"The review's next skill, or null."`
	SourceCheck      authoring.SourceCheck      `json:"source_check"`
	SourceQuestions  []authoring.SourceQuestion `json:"source_questions" nullable:"false"`
	ProvenanceReport authoring.ProvenanceReport `json:"provenance_report"`
	Findings         []verify.Finding           `json:"findings" nullable:"false" doc:"The static analysis's warnings (criteria that can never or always hold, redundant criteria, overlapping alternatives, fields that never matter); they never block."`
	Warnings         []engine.PeriodNotice      `json:"warnings" nullable:"false" doc:"What is out of date about the rules' effective period: period_ended (it ended before today) and period_before_live (it ended before the period of the version live under the slug began); they never block."`
}

// SchemaName is the name of publishResponse's schema in the published API document,
// where the Go name would not say what it is.
func (publishResponse) SchemaName() string { return "PublishResult" }

type publishOutput struct {
	Body publishResponse
}

func (h *handler) publish(ctx context.Context, in *publishInput) (*publishOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	p, _ := auth.PrincipalFrom(ctx)
	req := authoring.PublishRequest{Actor: p.KeyPrefix}
	if b := in.Body; b != nil {
		req.Name, req.Slug, req.ForceUnsafe, req.SourceTargets, req.Visibility = b.Name, b.Slug, b.ForceUnsafe, b.SourceTargets, b.Visibility
	}
	res, err := h.reviews.Publish(ctx, tenant, in.ProjectID, req)
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	w := res.Workup
	o := publishResponse{RulesetID: res.RulesetID, Slug: res.Slug, Version: res.Version, ContentDigest: res.ContentDigest,
		Reused: res.Reused, Visibility: res.Visibility, VisibilityFrom: res.VisibilityFrom, TestsPassing: w.Acceptance.TestsPassing, TestsTotal: w.Acceptance.TestsTotal,
		Failures: w.Acceptance.Failures(), ReviewHint: res.Review.ReviewHint(), SourceCheck: w.SourceCheck,
		SourceQuestions: w.Questions, ProvenanceReport: w.Provenance, Findings: res.Findings, Warnings: res.PeriodNotices}
	if o.Warnings == nil {
		o.Warnings = []engine.PeriodNotice{}
	}
	if o.Findings == nil {
		o.Findings = []verify.Finding{}
	}
	if o.Failures == nil {
		o.Failures = []authoring.TestResult{}
	}
	if o.SourceQuestions == nil {
		o.SourceQuestions = []authoring.SourceQuestion{}
	}
	return &publishOutput{Body: o}, nil
}

// mergeJSON writes the members of two objects as one object (b's members
// after a's); b may be nil.
func mergeJSON(a, b any) ([]byte, error) {
	first, err := json.Marshal(a)
	if err != nil || b == nil {
		return first, err
	}
	second, err := json.Marshal(b)
	if err != nil {
		return nil, err
	}
	if len(second) <= 2 {
		return first, nil
	}
	return append(append(first[:len(first)-1], ','), second[1:]...), nil
}

func unmarshalInto(raw []byte, dst any) error {
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("read stored project: %w", err)
	}
	return nil
}

// projectCursor keys the project list, ordered by creation then id: a
// cursor is base64url of "prj:<created_at RFC 3339 nano>|<id>".
var projectCursor = resource.Cursor[store.ProjectPage]{
	Kind: "prj",
	Encode: func(k store.ProjectPage) string {
		return k.AfterCreated.UTC().Format(time.RFC3339Nano) + "|" + k.AfterID
	},
	Decode: func(key string) (store.ProjectPage, error) {
		at, id, ok := strings.Cut(key, "|")
		if !ok || !projectIDPattern.MatchString(id) {
			return store.ProjectPage{}, fmt.Errorf("malformed cursor")
		}
		t, err := time.Parse(time.RFC3339Nano, at)
		if err != nil {
			return store.ProjectPage{}, err
		}
		return store.ProjectPage{AfterCreated: t, AfterID: id}, nil
	},
}

// keyOfProject is where the project list resumes after p.
func keyOfProject(p store.Project) store.ProjectPage {
	return store.ProjectPage{AfterCreated: p.CreatedAt, AfterID: p.ID}
}
