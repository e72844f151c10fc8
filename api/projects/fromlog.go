package projects

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/impact"
	"github.com/eligo/eligo/store"
)

// This file is the caseload made from the decision log: the answers the
// tenant's answer logging kept for one of its slugs
// (docs/decision-records.md#answer-logging), written as a JSON Lines
// caseload and kept through the upload's path (keepCaseload), so that
// impact runs take it like any other.

// errLogTooLarge stops the read of the log once the caseload would pass
// an upload's bounds.
var errLogTooLarge = errors.New("the logged answers pass the caseload's bounds")

func registerCaseloadFromLog(s *api.Server, h *handler, op func(id, method, path, summary, description string, scopes []auth.Scope) api.Route, write []auth.Scope) {
	route := op("make-project-caseload-from-log", http.MethodPost, "/projects/{project_id}/caseloads/from-log", "Make a caseload from the decision log",
		fmt.Sprintf("Writes the answers answer logging kept for one of the tenant's slugs (PUT /rulesets/{ruleset_id}/answer-logging, docs/decision-records.md#answer-logging) "+
			"as a JSON Lines caseload of the project: one line per decision made from `since` up to, not including, `until` (default: every decision logged, up to now) whose answers are still kept, in decision order, "+
			"each `{\"field_values\": <the answers as kept>, \"decision_date\": <its decision date>, \"reference\": <its decision_id>}`. "+
			"A masked answer is the string `%s`, which a run counts under `undecided`. "+
			"The caseload is then kept exactly as an upload is, with the same check, limits (%d bytes and %d rows, 413 `%s`; %d caseloads per project, 413 `%s`) and `retention_days` (1 to %d, default %d), "+
			"except that it is deleted no later than the first of its answers' own retention ends (its `expires_at` says when), and impact runs take it like any caseload. "+
			"The slug must be the tenant's own ruleset's (`kind` ruleset, the default) or rulebook's; any other is 404. "+caseloadDoc,
			store.MaskedAnswer, MaxCaseloadBytes, MaxCaseloadRows, ReasonCaseloadTooLarge, MaxCaseloads, ReasonCaseloadLimit, DefaultCaseloadRetentionDays, DefaultCaseloadRetentionDays), write)
	route.DefaultStatus, route.Refusals, route.Idempotent = http.StatusCreated, caseloadRefusals, true
	api.Register(s, route, h.caseloadFromLog)
}

// fromLogRequest is the body of a caseload made from the log.
type fromLogRequest struct {
	Slug          string    `json:"slug" minLength:"1" maxLength:"200" doc:"The slug whose logged answers make the caseload; a concrete ruleset_id (a rulebook id, for kind rulebook) names its slug."`
	Kind          string    `json:"kind,omitempty" enum:"ruleset,rulebook" doc:"Whether slug is a ruleset's (the default) or a rulebook's."`
	Since         time.Time `json:"since,omitempty" required:"false" doc:"The first decision time read; default the first logged."`
	Until         time.Time `json:"until,omitempty" required:"false" doc:"Decisions from this time on are left out; default none: every decision kept so far."`
	Filename      string    `json:"filename,omitempty" maxLength:"255" doc:"The caseload's name; default <slug with / as _>.log.jsonl."`
	RetentionDays int       `json:"retention_days,omitempty" minimum:"0" maximum:"90" doc:"Days the caseload is kept, 1 to 90; 0 or absent means 90."`
}

// SchemaName is the name of fromLogRequest's schema in the published API
// document, where the Go name would not say what it is.
func (fromLogRequest) SchemaName() string { return "CaseloadFromLogRequest" }

type fromLogInput struct {
	ProjectID string `path:"project_id" maxLength:"100" doc:"The project id, prj_ and 16 URL-safe characters."`
	Body      fromLogRequest
}

// logLine is one line of a caseload made from the log.
type logLine struct {
	FieldValues  json.RawMessage `json:"field_values"`
	DecisionDate string          `json:"decision_date,omitempty"`
	Reference    string          `json:"reference"`
}

func (h *handler) caseloadFromLog(ctx context.Context, in *fromLogInput) (*caseloadOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	if _, err := h.projects.Project(ctx, tenant, in.ProjectID); err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	req := in.Body
	if err := checkFilename(req.Filename, "body", "filename"); err != nil {
		return nil, err
	}
	kind := req.Kind
	if kind == "" {
		kind = store.KindRuleset
	}
	// The answers are kept under the slug: a reference that names it (a
	// concrete ruleset_id, a rulebook id) reads the slug's, as the
	// setting's own operations do.
	slug := ""
	if kind == store.KindRulebook {
		var rb store.Rulebook
		rb, err = h.catalog.OwnedRulebook(ctx, tenant, req.Slug)
		slug = rb.Slug
	} else {
		var row store.Cut
		row, err = h.catalog.Owned(ctx, tenant, req.Slug)
		slug = row.Slug
	}
	if err != nil {
		return nil, api.LookupFailed(ctx, err, kindNoun(kind), req.Slug)
	}
	body, expiresBy, err := h.logFile(ctx, tenant, kind, slug, req.Since, req.Until)
	if errors.Is(err, errLogTooLarge) {
		return nil, failed(ctx, caseloadTooLarge(fmt.Sprintf("The answers logged for %s in that period pass %d bytes or %d rows, the most a caseload holds; ask for a shorter period.",
			slug, MaxCaseloadBytes, MaxCaseloadRows)), "Project", in.ProjectID)
	}
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	filename := req.Filename
	if filename == "" {
		filename = slugFilename(slug) + ".log.jsonl"
	}
	return h.keepCaseload(ctx, tenant, in.ProjectID, filename, impact.JSONLines, req.RetentionDays, expiresBy, bytes.NewReader(body))
}

// logFile is the JSON Lines file of the answers logged for the tenant's
// slug in [since, until), read from the database a row at a time and
// written as it comes: the file is the only copy held, and the read stops
// (errLogTooLarge) as soon as it would pass an upload's bounds. expiresBy
// is when the first of the answers' retention ends (zero for none), the
// latest the caseload may be kept: a copy of the answers must not outlive
// the retention their owner set.
func (h *handler) logFile(ctx context.Context, tenant, kind, slug string, since, until time.Time) (file []byte, expiresBy time.Time, err error) {
	var rows int
	buf := bytes.NewBuffer([]byte{}) // an empty log is an empty file, not none
	err = h.store.LoggedAnswers(ctx, tenant, kind, slug, since, until, func(a store.LoggedAnswer) error {
		if expiresBy.IsZero() || a.ExpiresAt.Before(expiresBy) {
			expiresBy = a.ExpiresAt
		}
		line := logLine{FieldValues: a.Answers, Reference: a.DecisionID}
		if !a.DecisionDate.IsZero() {
			line.DecisionDate = a.DecisionDate.Format(time.DateOnly)
		}
		b, err := json.Marshal(line)
		if err != nil {
			return fmt.Errorf("write the answers of %s: %w", a.DecisionID, err)
		}
		rows++
		if rows > MaxCaseloadRows || buf.Len()+len(b)+1 > MaxCaseloadBytes {
			return errLogTooLarge
		}
		buf.Write(b)
		buf.WriteByte('\n')
		return nil
	})
	return buf.Bytes(), expiresBy, err
}

// kindNoun is what a 404 calls a slug of kind.
func kindNoun(kind string) string {
	if kind == store.KindRulebook {
		return "Rulebook"
	}
	return "Ruleset"
}

// slugFilename is slug as a file name: its slashes as underscores.
func slugFilename(slug string) string {
	return strings.ReplaceAll(slug, "/", "_")
}
