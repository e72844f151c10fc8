// Package answerlogging is the answer logging setting of the HTTP
// interface: a tenant's opt-in, per slug of one of its rulesets or
// rulebooks, to keep the answers of the decisions its own keys make under
// it (fields dropped and masked, for a number of days), which a project
// can then read back as a caseload (docs/decision-records.md#answer-logging).
// The setting sits beside the slug's other writes: PUT, GET and DELETE
// /rulesets/{ruleset_id}/answer-logging and /rulebooks/{rulebook_id}/answer-logging.
package answerlogging

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/store"
)

// The bounds of a setting (docs/limits.md#answer-logging).
const (
	// MaxRetentionDays is the longest answers are kept, as for an
	// uploaded caseload (90 days): a caseload made from the log is kept
	// no longer than one uploaded.
	MaxRetentionDays = 90
	// MaxFieldsNamed bounds each of dropped and masked; a ruleset
	// declares far fewer top-level fields.
	MaxFieldsNamed = 500
)

// Deps are the services the setting's operations call.
type Deps struct {
	// Catalog resolves the tenant's own slugs, their fields in force, and
	// drops its cached copy of a setting this process wrote.
	Catalog *catalog.Catalog
	// Store keeps the settings.
	Store *store.Store
}

type handler struct {
	catalog *catalog.Catalog
	store   *store.Store
}

// kindOps is what differs between a ruleset's setting and a rulebook's.
type kindOps struct {
	kind, noun, param, tag string
	class                  api.Class
	read, write            auth.Scope
	// resolve is the slug of ref, which must be the tenant's own, and the
	// top-level fields a decision under it answers now.
	resolve func(ctx context.Context, h *handler, tenantID, ref string) (slug string, fields func() ([]engine.Field, error), err error)
}

var kinds = []kindOps{
	{kind: store.KindRuleset, noun: "Ruleset", param: "ruleset_id", tag: "Rulesets", class: api.ClassRulesets,
		read: auth.ScopeRulesetsRead, write: auth.ScopeRulesetsWrite,
		resolve: func(ctx context.Context, h *handler, tenantID, ref string) (string, func() ([]engine.Field, error), error) {
			row, err := h.catalog.Owned(ctx, tenantID, ref)
			if err != nil {
				return "", nil, err
			}
			return row.Slug, func() ([]engine.Field, error) {
				rs, err := h.catalog.Load(ctx, row)
				if err != nil {
					return nil, err
				}
				return rs.Rules.Fields, nil
			}, nil
		}},
	{kind: store.KindRulebook, noun: "Rulebook", param: "rulebook_id", tag: "Rulebooks", class: api.ClassRulebooks,
		read: auth.ScopeRulebooksRead, write: auth.ScopeRulebooksWrite,
		resolve: func(ctx context.Context, h *handler, tenantID, ref string) (string, func() ([]engine.Field, error), error) {
			rb, err := h.catalog.OwnedRulebook(ctx, tenantID, ref)
			if err != nil {
				return "", nil, err
			}
			return rb.Slug, func() ([]engine.Field, error) {
				book, err := h.catalog.PrepareRulebook(ctx, rb, "")
				if err != nil {
					return nil, err
				}
				return book.Ruleset.Rules.Fields, nil
			}, nil
		}},
}

const settingDoc = "Answer logging keeps, for each decision a key of the slug's own tenant makes under it, the request's `field_values` with the `dropped` fields left out and the `masked` fields' answers replaced by the string `" + store.MaskedAnswer + "`, for `retention_days` days; decisions by anonymous callers and other tenants' keys are never kept. " +
	"A project reads them back as a caseload (POST /projects/{project_id}/caseloads/from-log). Off by default, when a decision record keeps only the inputs hash. " +
	"Only the slug's tenant sees or changes its setting; anyone else gets 404. Other processes of the service see a change within a few seconds. See docs/decision-records.md#answer-logging."

// Register adds the setting's operations to s.
func Register(s *api.Server, deps Deps) {
	h := &handler{catalog: deps.Catalog, store: deps.Store}
	register[rulesetRef, rulesetPut](s, h, kinds[0])
	register[rulebookRef, rulebookPut](s, h, kinds[1])
}

// register adds k's three operations; R and P are its path's inputs,
// which differ only by the name of the path parameter.
func register[R any, P any, RP interface {
	*R
	referenced
}, PP interface {
	*P
	referenced
	request() settingRequest
}](s *api.Server, h *handler, k kindOps) {
	path := "/" + strings.ToLower(k.tag) + "/{" + k.param + "}/answer-logging"
	op := func(id, method, summary, description string, scope auth.Scope) api.Route {
		return api.Route{OperationID: id, Method: method, Path: path, Summary: summary, Description: description + " " + settingDoc,
			Tags: []string{k.tag}, Access: api.Keyed, Scopes: []auth.Scope{scope}, Class: k.class, NotFound: k.kind}
	}
	put := op("put-"+k.kind+"-answer-logging", http.MethodPut, "Turn answer logging on",
		fmt.Sprintf("Writes the %s's answer logging setting, as a new `setting_version`. The slug of the %s named (a slug, or a concrete id whose slug is meant) is the one logged. "+
			"`dropped` and `masked` name top-level fields of the %s in force (the fields its schema lists that are not a person's), at most %d each; a field named in both is dropped. "+
			"An unknown field is refused with 422, naming it. `retention_days` is 1 to %d.", k.kind, k.kind, k.kind, MaxFieldsNamed, MaxRetentionDays), k.write)
	api.Register(s, put, func(ctx context.Context, in *P) (*settingOutput, error) {
		return h.put(ctx, k, PP(in).reference(), PP(in).request())
	})
	api.Register(s, op("get-"+k.kind+"-answer-logging", http.MethodGet, "Read the answer logging setting",
		fmt.Sprintf("The %s's answer logging setting; 404 when it is off.", k.kind), k.read),
		func(ctx context.Context, in *R) (*settingOutput, error) { return h.get(ctx, k, RP(in).reference()) })
	del := op("delete-"+k.kind+"-answer-logging", http.MethodDelete, "Turn answer logging off",
		fmt.Sprintf("Turns the %s's answer logging off (404 when it was off). The answers already kept stay until their retention ends.", k.kind), k.write)
	del.DefaultStatus = http.StatusNoContent
	api.Register(s, del, func(ctx context.Context, in *R) (*struct{}, error) { return nil, h.delete(ctx, k, RP(in).reference()) })
}

// referenced is an input naming a ruleset or rulebook in its path.
type referenced interface{ reference() string }

type rulesetRef struct {
	Ref string `path:"ruleset_id" maxLength:"300" doc:"A slug of the tenant's own (send each / as %2F), or a concrete ruleset_id whose slug is meant."`
}

func (r *rulesetRef) reference() string { return r.Ref }

type rulebookRef struct {
	Ref string `path:"rulebook_id" maxLength:"300" doc:"A slug of the tenant's own (send each / as %2F), or a rulebook id."`
}

func (r *rulebookRef) reference() string { return r.Ref }

type rulesetPut struct {
	Ref  string `path:"ruleset_id" maxLength:"300" doc:"A slug of the tenant's own (send each / as %2F), or a concrete ruleset_id whose slug is meant."`
	Body settingRequest
}

func (p *rulesetPut) reference() string { return p.Ref }

func (p *rulesetPut) request() settingRequest { return p.Body }

type rulebookPut struct {
	Ref  string `path:"rulebook_id" maxLength:"300" doc:"A slug of the tenant's own (send each / as %2F), or a rulebook id."`
	Body settingRequest
}

func (p *rulebookPut) reference() string { return p.Ref }

func (p *rulebookPut) request() settingRequest { return p.Body }

// Setting is the answer logging setting of a slug on the wire.
type Setting struct {
	Slug           string    `json:"slug" doc:"The slug whose decisions' answers are kept."`
	SettingVersion int64     `json:"setting_version" doc:"Names this setting as written: new on every PUT, and carried by each decision kept under it (answers_logged.setting_version on the decision)."`
	Dropped        []string  `json:"dropped" nullable:"false" doc:"Fields left out of the answers kept, sorted."`
	Masked         []string  `json:"masked" nullable:"false" doc:"Fields whose answers are kept as the string [masked], sorted."`
	RetentionDays  int       `json:"retention_days" doc:"Days a decision's answers are kept after it."`
	UpdatedAt      time.Time `json:"updated_at"`
}

// SchemaName is the name of Setting's schema in the published API
// document, where the Go name would not say what it is.
func (Setting) SchemaName() string { return "AnswerLogging" }

// settingRequest is PUT's body.
type settingRequest struct {
	Dropped       []string `json:"dropped,omitempty" maxItems:"500" doc:"Fields to leave out of the answers kept."`
	Masked        []string `json:"masked,omitempty" maxItems:"500" doc:"Fields whose answers are kept as the string [masked]: what the field was answered, not the answer."`
	RetentionDays int      `json:"retention_days" minimum:"1" maximum:"90" doc:"Days a decision's answers are kept after it, 1 to 90."`
}

// SchemaName is the name of settingRequest's schema in the published API
// document, where the Go name would not say what it is.
func (settingRequest) SchemaName() string { return "AnswerLoggingRequest" }

type settingOutput struct {
	Body Setting
}

func settingOf(a store.AnswerLogging) Setting {
	return Setting{Slug: a.Slug, SettingVersion: a.Version, Dropped: a.Dropped, Masked: a.Masked, RetentionDays: a.RetentionDays, UpdatedAt: a.UpdatedAt}
}

// tenant is the caller's tenant (the operations are keyed).
func tenant(ctx context.Context) string {
	p, _ := auth.PrincipalFrom(ctx)
	return p.TenantID
}

func (h *handler) put(ctx context.Context, k kindOps, ref string, req settingRequest) (*settingOutput, error) {
	tenantID := tenant(ctx)
	slug, fields, err := k.resolve(ctx, h, tenantID, ref)
	if err != nil {
		return nil, api.LookupFailed(ctx, err, k.noun, ref)
	}
	if len(req.Dropped)+len(req.Masked) > 0 {
		declared, err := fields()
		if err != nil {
			return nil, api.LookupFailed(ctx, err, k.noun, ref)
		}
		if err := checkFields(k.kind, slug, declared, req); err != nil {
			return nil, err
		}
	}
	dropped := dedupe(req.Dropped)
	masked := slices.DeleteFunc(dedupe(req.Masked), func(f string) bool { return slices.Contains(dropped, f) })
	a, err := h.store.PutAnswerLogging(ctx, store.AnswerLogging{TenantID: tenantID, Kind: k.kind, Slug: slug,
		Dropped: dropped, Masked: masked, RetentionDays: req.RetentionDays})
	if err != nil {
		return nil, api.LookupFailed(ctx, err, k.noun, ref)
	}
	h.catalog.InvalidateAnswerLogging(tenantID, k.kind+":"+slug)
	return &settingOutput{Body: settingOf(a)}, nil
}

// checkFields refuses, naming them, the fields of req that are not
// top-level fields of declared.
func checkFields(kind, slug string, declared []engine.Field, req settingRequest) error {
	known := map[string]bool{}
	for _, f := range declared {
		if f.Member == nil {
			known[f.ID] = true
		}
	}
	var items []api.ValidationItem
	for _, list := range []struct {
		name   string
		fields []string
	}{{"dropped", req.Dropped}, {"masked", req.Masked}} {
		for i, f := range list.fields {
			if !known[f] {
				items = append(items, api.ValidationItem{Type: "unknown_field", Loc: []any{"body", list.name, i},
					Msg: fmt.Sprintf("%s is not a field of the %s %s in force (a person's fields are dropped or masked with their list)", f, kind, slug), Input: f})
			}
		}
	}
	if len(items) > 0 {
		return api.ValidationFailed(items...)
	}
	return nil
}

func dedupe(list []string) []string {
	out := slices.Clone(list)
	slices.Sort(out)
	return slices.Compact(out)
}

func (h *handler) get(ctx context.Context, k kindOps, ref string) (*settingOutput, error) {
	tenantID := tenant(ctx)
	slug, _, err := k.resolve(ctx, h, tenantID, ref)
	if err != nil {
		return nil, api.LookupFailed(ctx, err, k.noun, ref)
	}
	a, err := h.store.AnswerLoggingOf(ctx, tenantID, k.kind, slug)
	if errors.Is(err, store.ErrNotFound) {
		return nil, api.NotFound(fmt.Sprintf("Answer logging is off for %s %q.", k.kind, slug))
	}
	if err != nil {
		return nil, api.LookupFailed(ctx, err, k.noun, ref)
	}
	return &settingOutput{Body: settingOf(a)}, nil
}

func (h *handler) delete(ctx context.Context, k kindOps, ref string) error {
	tenantID := tenant(ctx)
	slug, _, err := k.resolve(ctx, h, tenantID, ref)
	if err != nil {
		return api.LookupFailed(ctx, err, k.noun, ref)
	}
	err = h.store.DeleteAnswerLogging(ctx, tenantID, k.kind, slug)
	if errors.Is(err, store.ErrNotFound) {
		return api.NotFound(fmt.Sprintf("Answer logging is off for %s %q.", k.kind, slug))
	}
	if err != nil {
		return api.LookupFailed(ctx, err, k.noun, ref)
	}
	h.catalog.InvalidateAnswerLogging(tenantID, k.kind+":"+slug)
	return nil
}
