package projects

import (
	"context"
	"net/http"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/authoring"
)

// registerStudio adds the operations an editor of the draft needs beside
// the draft itself: the canonical layout of a text, ...
func registerStudio(s *api.Server, h *handler, op func(id, method, path, summary, description string, scopes []auth.Scope) api.Route) {
	read := []auth.Scope{auth.ScopeProjectsRead}

	format := op("format-project-draft", http.MethodPost, "/projects/{project_id}/draft/format", "Format a rules text",
		"Prints `rules` (a .rules text for this project, saved or not; nothing is stored) in the canonical layout `eligo fmt` prints, comments kept, "+
			"with `changed` saying whether it differs from the text sent. A text that does not parse is 422 `rules_do_not_parse` with `compile_errors` "+
			"(`file:line:column: message`, one per error, as a draft's `compile_errors`); a text that parses but does not compile is formatted all the same.", read)
	format.Refusals = []api.Refusal{{Status: http.StatusUnprocessableEntity, ReasonCode: authoring.ReasonRulesUnparsable,
		Meaning: "the text does not parse, so it has no canonical form (`compile_errors`)."}}
	api.Register(s, format, h.format)

	symbols := op("get-project-draft-symbols", http.MethodGet, "/projects/{project_id}/draft/symbols", "List the draft's symbols",
		"What a code editor completes the saved draft from: the declared `fields` (id, type, question, enum values), `sources`, `groups` and `criteria` (with their group), "+
			"each with the line it is declared on, and the rules language's `functions` and `keywords`. They are read from the parsed text, so a draft that does not compile still has them; "+
			"`complete` is false when the draft has syntax errors, after which the parser skips to the next declaration (one it skipped is missing). 409 `no_draft` before the first draft.", read)
	symbols.Refusals = []api.Refusal{{Status: http.StatusConflict, ReasonCode: authoring.ReasonNoDraft, Meaning: "the project has no draft yet."}}
	api.Register(s, symbols, h.symbols)
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
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	f, err := h.authoring.Format(ctx, tenant, in.ProjectID, in.Body.Rules)
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	return &formatOutput{Body: f}, nil
}

type symbolsOutput struct {
	Body authoring.DraftSymbols
}

func (h *handler) symbols(ctx context.Context, in *projectInput) (*symbolsOutput, error) {
	tenant, err := tenantFor(in.ProjectID, ctx)
	if err != nil {
		return nil, err
	}
	sym, err := h.authoring.Symbols(ctx, tenant, in.ProjectID)
	if err != nil {
		return nil, failed(ctx, err, "Project", in.ProjectID)
	}
	return &symbolsOutput{Body: sym}, nil
}
