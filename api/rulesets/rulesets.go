// Package rulesets is the rulesets resource of the HTTP interface: the
// catalogue, the per-ruleset reads (schema, explain, graph, source,
// explain-failure) and the two writes (visibility, archive). Every
// {ruleset_id} is a slug (with "/" sent as %2F) or a concrete ruleset_id,
// resolved by the catalog for the caller; writes go through publish.
package rulesets

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/present"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/store"
)

// The two headers of GET /rulesets.
const (
	headerSkippedInvalid = "X-Skipped-Invalid-Records"
	headerNextCursor     = "X-Next-Cursor"
	rulesetSourceFormat  = "eligo-rules"
	rulesetIDParamDoc    = "A slug (send each `/` as `%2F`, e.g. `us%2Fsnap-income`) or a concrete ruleset_id such as `snap_income:20260115-3f2a9c0d1e4b`."
)

// rulesetSummary is one catalogue entry, and the body of the two writes.
type rulesetSummary struct {
	RulesetID         string    `json:"ruleset_id" doc:"Concrete, immutable id: <section_id>:<yyyymmdd>-<hash>."`
	Slug              string    `json:"slug" doc:"The slug the ruleset is published under."`
	Name              string    `json:"name"`
	SectionID         string    `json:"section_id"`
	Description       string    `json:"description"`
	RuleCount         int       `json:"rule_count" doc:"Number of criteria."`
	RulesetVersion    string    `json:"ruleset_version" doc:"v<N>, the cut's number under its slug."`
	ContentDigest     string    `json:"content_digest" doc:"sha256:<hex> of the compiled content."`
	Visibility        string    `json:"visibility" enum:"public,private" enumName:"Visibility" enumDoc:"Who can see a ruleset or rulebook: public (anyone) or private (its tenant)."`
	Status            string    `json:"status" enum:"active,archived" enumName:"RulesetStatus"`
	NamespaceVerified bool      `json:"namespace_verified" doc:"True when an operator verified the slug's namespace as belonging to this publisher (the body it names). Public content with false here is not vouched for: anybody may have published it."`
	CreatedAt         time.Time `json:"created_at" doc:"When this content was first published under the slug."`
	UpdatedAt         time.Time `json:"updated_at"`
}

func summaryOf(r store.Cut) rulesetSummary {
	return rulesetSummary{
		RulesetID: r.ID, Slug: r.Slug, Name: r.Name, SectionID: r.SectionID, Description: r.Description,
		RuleCount: r.RuleCount, RulesetVersion: r.VersionLabel(), ContentDigest: r.ContentDigest,
		Visibility: r.Visibility, Status: r.Status, NamespaceVerified: r.NamespaceVerified, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
}

type rulesetRefInput struct {
	RulesetID string `path:"ruleset_id" maxLength:"300" doc:"A slug (send each / as %2F) or a concrete ruleset_id."`
}

// Deps are the services the rulesets resource calls.
type Deps struct {
	// Catalog resolves references for the caller.
	Catalog *catalog.Catalog
	// Publisher changes visibility and archives.
	Publisher *publish.Publisher
	// Clock is "today" for a request that names no decision date; nil
	// means the system clock.
	Clock clock.Clock
	// Gate bounds the solver runs of diffs and explanations with every
	// other heavy solver run of the process; nil admits all.
	Gate *bound.Gate
}

// handler holds the resource's services.
type handler struct {
	server    *api.Server
	catalog   *catalog.Catalog
	publisher *publish.Publisher
	clock     clock.Clock
	gate      *bound.Gate
}

// notFound is what a ruleset lookup names in its 404.
const notFound = "ruleset"

// Register adds the rulesets operations to s.
func Register(s *api.Server, deps Deps) {
	h := &handler{server: s, catalog: deps.Catalog, publisher: deps.Publisher, clock: clock.Or(deps.Clock), gate: deps.Gate}
	loads := []api.Refusal{api.RefusalRecordCorrupt}
	api.Register(s, api.Route{
		OperationID: "list-rulesets", Method: http.MethodGet, Path: "/rulesets",
		Summary: "List rulesets",
		Description: "The catalogue: a bare JSON array of the active rulesets slugs point at, ordered by slug. " +
			"Anonymous callers see public rulesets of every tenant; a key also sees its tenant's private ones.\n\n" +
			"Filter with `q` (case-insensitive text in the slug, name or description) and `namespace` (slugs equal to it or under it: " +
			"`us` keeps `us/snap-income`); `own=true` keeps only the caller's tenant's own rulesets, public or private (the sections its rulebooks can compose; none for an anonymous caller).\n\n" +
			"Paging: the `" + headerNextCursor + "` response header carries an opaque cursor while more entries may follow; send it back as " +
			"`cursor` with the same filters for the next page. The header is absent on the last page. A page may be shorter than `limit` " +
			"and still not be the last: never infer the end of the list from a short page. The cursor is keyset-based (it encodes the last " +
			"slug returned), so it stays valid while rulesets are published or archived.\n\n" +
			"The `" + headerSkippedInvalid + "` header counts stored records on this page that could not be summarised and were skipped; `0` is normal.",
		Tags: []string{"Rulesets"}, Access: api.Open, Scopes: []auth.Scope{auth.ScopeRulesetsRead}, Class: api.ClassRulesets,
	}, h.listRulesets)

	api.Register(s, api.Route{
		OperationID: "get-ruleset-schema", Method: http.MethodGet, Path: "/rulesets/{ruleset_id}/schema",
		Summary:     "Get a ruleset's fields",
		Description: "The fields a decision on this ruleset reads, with their types, questions, weights, enum values and notes. " + rulesetIDParamDoc,
		Tags:        []string{"Rulesets"}, Access: api.Open, Scopes: []auth.Scope{auth.ScopeRulesetsRead}, Class: api.ClassRulesets,
		NotFound: notFound, Refusals: loads,
	}, h.rulesetSchema)

	api.Register(s, api.Route{
		OperationID: "explain-ruleset", Method: http.MethodGet, Path: "/rulesets/{ruleset_id}/explain",
		Summary: "Describe a ruleset's rules",
		Description: "Every criterion in plain language, with its condition, the fields it reads and its `source_references[]`, " +
			"grouped as the ruleset groups them. References were verified when the ruleset was published; nothing is fetched at read time. " +
			"References to project artefacts (schema_version 2) are left out for anonymous callers. " + rulesetIDParamDoc,
		Tags: []string{"Rulesets"}, Access: api.Open, Scopes: []auth.Scope{auth.ScopeRulesetsExplain}, Class: api.ClassRulesets,
		NotFound: notFound, Refusals: loads,
	}, h.explainRuleset)

	api.Register(s, api.Route{
		OperationID: "get-ruleset-graph", Method: http.MethodGet, Path: "/rulesets/{ruleset_id}/graph",
		Summary: "Get a ruleset's graph",
		Description: "Fields, criteria, groups and the outcome as nodes and edges, with a Mermaid flowchart. Every `overlay` is null here; " +
			"/decide with `include_graph_overlay` returns the same graph coloured by one decision. " + rulesetIDParamDoc,
		Tags: []string{"Rulesets"}, Access: api.Open, Scopes: []auth.Scope{auth.ScopeRulesetsRead}, Class: api.ClassRulesets,
		NotFound: notFound, Refusals: loads,
	}, h.rulesetGraph)
	registerDiff(s, h, loads)

	api.Register(s, api.Route{
		OperationID: "get-ruleset-source", Method: http.MethodGet, Path: "/rulesets/{ruleset_id}/source",
		Summary: "Export a ruleset's rules text",
		Description: "The .rules text exactly as published (format `" + rulesetSourceFormat + "`, see the rules language reference). " +
			"Available for the tenant's own rulesets and for public ones. " + rulesetIDParamDoc,
		Tags: []string{"Rulesets"}, Access: api.Keyed, Scopes: []auth.Scope{auth.ScopeRulesetsSource}, Class: api.ClassRulesets,
		NotFound: notFound, Refusals: loads,
	}, h.rulesetSource)

	api.Register(s, api.Route{
		OperationID: "set-ruleset-visibility", Method: http.MethodPatch, Path: "/rulesets/{ruleset_id}/visibility",
		Summary: "Make a ruleset public or private",
		Description: "Sets the visibility of one cut: a concrete ruleset_id, or the cut a slug points at now. `public` rulesets serve " +
			"anonymous callers; `private` ones only the tenant's keys. Only the owning tenant may change it; anyone else gets 404. " +
			"A ruleset citing project artefacts cannot be made public (422 `artefact_reference_public_visibility_forbidden`). " +
			"Other processes of the service see the change within a few seconds.",
		Tags: []string{"Rulesets"}, Access: api.Keyed, Scopes: []auth.Scope{auth.ScopeRulesetsWrite}, Class: api.ClassRulesets,
		NotFound: notFound, Refusals: append(loads, api.Refusal{Status: http.StatusUnprocessableEntity,
			ReasonCode: api.ReasonArtefactPublicVisibility, Meaning: "the ruleset cites project artefacts, which are never public."}),
	}, h.setRulesetVisibility)

	api.Register(s, api.Route{
		OperationID: "archive-ruleset", Method: http.MethodPost, Path: "/rulesets/{ruleset_id}/archive",
		Summary: "Archive a ruleset",
		Description: "Archives one cut (a concrete ruleset_id, or the cut a slug points at now). An archived ruleset leaves the catalogue " +
			"and its slug no longer resolves; its concrete ruleset_id still does, so recorded decisions can be replayed. " +
			"Publishing the same content again makes it active. Archiving twice is harmless. Only the owning tenant may archive; " +
			"anyone else gets 404.",
		Tags: []string{"Rulesets"}, Access: api.Keyed, Scopes: []auth.Scope{auth.ScopeRulesetsWrite}, Class: api.ClassRulesets,
		NotFound: notFound,
	}, h.archiveRuleset)

	h.registerExplainFailure()
}

type listRulesetsInput struct {
	Q         string `query:"q" maxLength:"200" doc:"Case-insensitive text to find in the slug, name or description."`
	Namespace string `query:"namespace" maxLength:"200" doc:"Keep slugs equal to this or under it, e.g. us or us/federal."`
	Own       bool   `query:"own" doc:"Keep only the caller's tenant's own rulesets, public or private: the sections its rulebooks can compose. An anonymous caller has none."`
	resource.PageQuery
}

type listRulesetsOutput struct {
	SkippedInvalid int `header:"X-Skipped-Invalid-Records" doc:"Stored records skipped on this page because they could not be summarised; 0 is normal."`
	resource.NextPage
	Body resource.List[rulesetSummary]
}

func (h *handler) listRulesets(ctx context.Context, in *listRulesetsInput) (*listRulesetsOutput, error) {
	if !utf8.ValidString(in.Q) || strings.ContainsRune(in.Q, 0) {
		return nil, api.ValidationFailed(api.ValidationItem{Type: "string_unicode", Loc: []any{"query", "q"},
			Msg: "Input should be a valid string: UTF-8 text without NUL", Input: strings.ToValidUTF8(strings.ReplaceAll(in.Q, "\x00", ""), "\uFFFD")})
	}
	if in.Namespace != "" && !catalog.ValidSlug(in.Namespace) {
		return nil, api.ValidationFailed(api.ValidationItem{Type: "string_pattern_mismatch", Loc: []any{"query", "namespace"},
			Msg: "String should be a slug or slug prefix such as us or us/federal", Input: in.Namespace})
	}
	rows, next, err := resource.ListPage(in.PageQuery, resource.SlugCursor, func(r store.Cut) string { return r.Slug },
		func(after string, limit int) ([]store.Cut, error) {
			return h.catalog.ListRulesets(ctx, api.ViewerOf(ctx), store.RulesetQuery{
				Namespace: in.Namespace, Text: in.Q, AfterSlug: after, Limit: limit, Own: in.Own,
			})
		})
	if err != nil {
		return nil, err
	}
	out := &listRulesetsOutput{NextPage: resource.NextPage{NextCursor: next}, Body: make(resource.List[rulesetSummary], 0, len(rows))}
	for _, r := range rows {
		if !catalog.Listable(r) {
			out.SkippedInvalid++
			continue
		}
		out.Body = append(out.Body, summaryOf(r))
	}
	return out, nil
}

type rulesetSchemaOutput struct {
	Body rulesetSchema
}

// rulesetSchema is rulesetSchemaOutput's body, published as RulesetSchema.
type rulesetSchema struct {
	RulesetID      string                 `json:"ruleset_id" doc:"Concrete ruleset_id the fields belong to."`
	Slug           string                 `json:"slug" doc:"The slug the ruleset is published under."`
	Name           string                 `json:"name" doc:"The ruleset's name."`
	RulesetVersion string                 `json:"ruleset_version" doc:"v<N>, the cut's number under its slug."`
	ContentDigest  string                 `json:"content_digest" doc:"sha256:<hex> of the compiled content."`
	Fields         []resource.SchemaField `json:"fields" nullable:"false" doc:"Every field the ruleset declares, in declaration order."`
	EngineVersion  string                 `json:"engine_version" doc:"<product>-core@<semver> of the engine that serves decisions."`
}

func (h *handler) rulesetSchema(ctx context.Context, in *rulesetRefInput) (*rulesetSchemaOutput, error) {
	rr, err := h.catalog.Ruleset(ctx, api.ViewerOf(ctx), in.RulesetID)
	if err != nil {
		return nil, api.LookupFailed(ctx, err, "Ruleset", in.RulesetID)
	}
	out := &rulesetSchemaOutput{}
	b := &out.Body
	b.RulesetID, b.Slug, b.Name, b.RulesetVersion, b.ContentDigest = rr.ID, rr.Slug, rr.Name, rr.Label, rr.ContentDigest
	b.EngineVersion = engine.Version
	b.Fields = resource.SchemaFields(rr.Rules.Fields)
	return out, nil
}

type explainRulesetOutput struct {
	Body rulesetExplanation
}

// rulesetExplanation is explainRulesetOutput's body, published as RulesetExplanation.
type rulesetExplanation struct {
	RulesetID      string                      `json:"ruleset_id" doc:"Concrete ruleset_id described."`
	Slug           string                      `json:"slug" doc:"The slug the ruleset is published under."`
	Name           string                      `json:"name" doc:"The ruleset's name."`
	Description    string                      `json:"description" doc:"The ruleset's description."`
	RulesetVersion string                      `json:"ruleset_version" doc:"v<N>, the cut's number under its slug."`
	ContentDigest  string                      `json:"content_digest" doc:"sha256:<hex> of the compiled content."`
	Groups         []resource.ExplainGroup     `json:"groups" nullable:"false" doc:"The ruleset's groups in declaration order."`
	Criteria       []resource.ExplainCriterion `json:"criteria" nullable:"false" doc:"Every criterion, in group then declaration order."`
}

func (h *handler) explainRuleset(ctx context.Context, in *rulesetRefInput) (*explainRulesetOutput, error) {
	rr, err := h.catalog.Ruleset(ctx, api.ViewerOf(ctx), in.RulesetID)
	if err != nil {
		return nil, api.LookupFailed(ctx, err, "Ruleset", in.RulesetID)
	}
	out := &explainRulesetOutput{}
	b := &out.Body
	b.RulesetID, b.Slug, b.Name, b.Description = rr.ID, rr.Slug, rr.Name, rr.Description
	b.RulesetVersion, b.ContentDigest = rr.Label, rr.ContentDigest
	b.Groups, b.Criteria = resource.Explain(rr, api.ViewerOf(ctx).Anonymous())
	return out, nil
}

type rulesetGraphOutput struct {
	Body rulesetGraph
}

// rulesetGraph is rulesetGraphOutput's body, published as RulesetGraph.
type rulesetGraph struct {
	RulesetID string         `json:"ruleset_id" doc:"Concrete ruleset_id the graph is drawn from."`
	Slug      string         `json:"slug" doc:"The slug the ruleset is published under."`
	Name      string         `json:"name" doc:"The ruleset's name."`
	Graph     resource.Graph `json:"graph" doc:"nodes[], edges[], sections[] and stats; every overlay is null."`
	Mermaid   string         `json:"mermaid" doc:"The graph as Mermaid flowchart text."`
}

func (h *handler) rulesetGraph(ctx context.Context, in *rulesetRefInput) (*rulesetGraphOutput, error) {
	rr, err := h.catalog.Ruleset(ctx, api.ViewerOf(ctx), in.RulesetID)
	if err != nil {
		return nil, api.LookupFailed(ctx, err, "Ruleset", in.RulesetID)
	}
	g := present.NewGraph(rr.Rules, rr.Slug, nil, nil)
	out := &rulesetGraphOutput{}
	out.Body.RulesetID, out.Body.Slug, out.Body.Name = rr.ID, rr.Slug, rr.Name
	out.Body.Graph, out.Body.Mermaid = resource.Graph{Graph: g}, g.Mermaid()
	return out, nil
}

type rulesetSourceOutput struct {
	Body rulesetSource
}

// rulesetSource is rulesetSourceOutput's body, published as RulesetSource.
type rulesetSource struct {
	RulesetID      string `json:"ruleset_id"`
	Slug           string `json:"slug"`
	RulesetVersion string `json:"ruleset_version"`
	ContentDigest  string `json:"content_digest"`
	Format         string `json:"format" enum:"eligo-rules"`
	Source         string `json:"source" doc:"The .rules text as published."`
}

func (h *handler) rulesetSource(ctx context.Context, in *rulesetRefInput) (*rulesetSourceOutput, error) {
	rr, text, err := h.catalog.Source(ctx, api.ViewerOf(ctx), in.RulesetID)
	if err != nil {
		return nil, api.LookupFailed(ctx, err, "Ruleset", in.RulesetID)
	}
	out := &rulesetSourceOutput{}
	b := &out.Body
	b.RulesetID, b.Slug, b.RulesetVersion, b.ContentDigest = rr.ID, rr.Slug, rr.Label, rr.ContentDigest
	b.Format, b.Source = rulesetSourceFormat, text
	return out, nil
}

type setVisibilityInput struct {
	RulesetID string `path:"ruleset_id" maxLength:"300" doc:"A slug (send each / as %2F) or a concrete ruleset_id."`
	Body      rulesetVisibilityRequest
}

// rulesetVisibilityRequest is setVisibilityInput's body, published as RulesetVisibilityRequest.
type rulesetVisibilityRequest struct {
	Visibility string `json:"visibility" enum:"public,private"`
}

type rulesetOutput struct {
	Body rulesetSummary
}

func (h *handler) setRulesetVisibility(ctx context.Context, in *setVisibilityInput) (*rulesetOutput, error) {
	p, _ := auth.PrincipalFrom(ctx)
	updated, err := h.publisher.SetVisibility(ctx, p.TenantID, in.RulesetID, in.Body.Visibility)
	return written(ctx, in.RulesetID, updated, err)
}

func (h *handler) archiveRuleset(ctx context.Context, in *rulesetRefInput) (*rulesetOutput, error) {
	p, _ := auth.PrincipalFrom(ctx)
	updated, err := h.publisher.Archive(ctx, p.TenantID, in.RulesetID)
	return written(ctx, in.RulesetID, updated, err)
}

// written shapes the answer of a write: the updated summary, or the
// write's refusal.
func written(ctx context.Context, ref string, updated store.Cut, err error) (*rulesetOutput, error) {
	if errors.Is(err, publish.ErrArtefactPublic) {
		return nil, api.NewProblem(http.StatusUnprocessableEntity, "unprocessable_entity", api.ReasonArtefactPublicVisibility,
			"This ruleset cites project artefacts, which are never shown publicly; it cannot be made public.")
	}
	if err != nil {
		return nil, api.LookupFailed(ctx, err, "Ruleset", ref)
	}
	return &rulesetOutput{Body: summaryOf(updated)}, nil
}
