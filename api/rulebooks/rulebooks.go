// Package rulebooks is the rulebooks resource of the HTTP interface: the
// catalogue, the draft (create, read, edit, field overlay), the reads of a
// release or the live composition (schema, explain, graph), the release
// history, and the lifecycle (activate, archive, visibility,
// promote-to-live). Every
// {rulebook_id} is a rulebook id (rb_...) or its slug with "/" sent as %2F.
// Reads resolve through the catalog; writes go through publish.
package rulebooks

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/clock"
	"github.com/eligo/eligo/publish"
	"github.com/eligo/eligo/rulebook"
	"github.com/eligo/eligo/solver/bound"
	"github.com/eligo/eligo/store"
)

// Deps are the services the resource calls.
type Deps struct {
	// Catalog resolves rulebooks and their releases for the caller.
	Catalog *catalog.Catalog
	// Publisher writes drafts and releases.
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

const (
	notFound      = "rulebook"
	rulebookIDDoc = "A rulebook id (rb_...) or its slug, with each `/` sent as `%2F`."
)

// Register adds the rulebook operations to s.
func Register(s *api.Server, deps Deps) {
	h := &handler{server: s, catalog: deps.Catalog, publisher: deps.Publisher, clock: clock.Or(deps.Clock), gate: deps.Gate}
	read := []auth.Scope{auth.ScopeRulebooksRead}
	write := []auth.Scope{auth.ScopeRulebooksWrite}
	member := api.Refusal{Status: http.StatusUnprocessableEntity, ReasonCode: api.ReasonReleaseMemberUnresolved,
		Meaning: "a member of the composition is missing, not live, archived or does not load; the draft is unchanged."}
	artefactPublic := api.Refusal{Status: http.StatusUnprocessableEntity, ReasonCode: api.ReasonArtefactPublicVisibility,
		Meaning: "the rulebook is public and a member of its draft, or of a release it published, cites project artefacts, which are never public; nothing was written."}
	namespaceLimit := api.Refusal{Status: http.StatusUnprocessableEntity, ReasonCode: api.ReasonNamespaceLimit, Meaning: namespaceLimitMeaning}
	releaseRefusals := []api.Refusal{member,
		{Status: http.StatusUnprocessableEntity, ReasonCode: api.ReasonRulebookReleaseMissing, Meaning: "the head names a release this server does not hold; the latest is never served instead."},
		{Status: http.StatusUnprocessableEntity, ReasonCode: api.ReasonRulebookReleaseCorrupt, Meaning: "the release's frozen content fails its identity check."}}
	publishing := []api.Refusal{member,
		{Status: http.StatusUnprocessableEntity, ReasonCode: api.ReasonReleaseLabelAllocationFailed, Meaning: "no two-word label is left for a new release of this rulebook."},
		{Status: http.StatusUnprocessableEntity, ReasonCode: api.ReasonReleasePublicationFailed, Meaning: "the last publication step failed; the draft is kept and the next activate or edit publishes it."},
		{Status: http.StatusConflict, ReasonCode: reasonArchived, Meaning: "the rulebook is archived; activate it before editing."},
		{Status: http.StatusConflict, ReasonCode: reasonChanged, Meaning: "the rulebook changed while the request was worked out; nothing was written; read it again and retry."},
		artefactPublic,
		{Status: http.StatusForbidden, ReasonCode: api.ReasonNamespaceOwned, Meaning: "the rulebook's first release would claim its namespace, which another tenant now owns; nothing was written."},
		{Status: http.StatusForbidden, ReasonCode: api.ReasonReservedNamespace, Meaning: "the slug is under a reserved namespace an operator has not assigned to the caller's tenant; nothing was written."},
		namespaceLimit}
	op := func(id, method, path, summary, description string, access api.Access, scopes []auth.Scope) api.Route {
		return api.Route{OperationID: id, Method: method, Path: path, Summary: summary, Description: description,
			Tags: []string{"Rulebooks"}, Access: access, Scopes: scopes, Class: api.ClassRulebooks, NotFound: notFound}
	}

	list := op("list-rulebooks", http.MethodGet, "/rulebooks/", "List rulebooks",
		"Anonymous callers get the cross-tenant public catalogue: every rulebook that is `public` and `active`. A key with `rulebooks:read` gets its tenant's rulebooks in every state. A bare JSON array ordered by slug; `X-Next-Cursor` carries the cursor of the next page while more may follow.", api.Open, read)
	list.NotFound = ""
	api.Register(s, list, h.list)

	create := op("create-rulebook", http.MethodPost, "/rulebooks/", "Create a rulebook",
		"Creates a draft. An empty draft (no `ruleset_refs`) may be created. "+api.NamespaceDoc+" "+outcomeDoc+" "+refsDoc+" "+hintsDoc, api.Keyed, write)
	create.NotFound, create.DefaultStatus, create.Idempotent = "", http.StatusCreated, true
	create.Refusals = []api.Refusal{member,
		{Status: http.StatusUnprocessableEntity, ReasonCode: api.ReasonInvalidSlugFormat, Meaning: "the slug breaks the pattern."},
		{Status: http.StatusForbidden, ReasonCode: api.ReasonReservedNamespace, Meaning: reservedMeaning},
		{Status: http.StatusForbidden, ReasonCode: api.ReasonNamespaceOwned, Meaning: namespaceOwnedMeaning},
		{Status: http.StatusConflict, ReasonCode: api.ReasonSlugConflict, Meaning: "the slug is taken (under a namespace of the caller's own)."}}
	api.Register(s, create, h.create)

	api.Register(s, op("get-rulebook", http.MethodGet, "/rulebooks/{rulebook_id}", "Get a rulebook",
		"The draft with its references (each with its letter and live cut) and the current release. "+rulebookIDDoc, api.Keyed, read), h.get)

	edit := op("update-rulebook", http.MethodPatch, "/rulebooks/{rulebook_id}", "Edit a rulebook",
		"Changes any of name, domain, description, `ruleset_refs`, `outcome_logic` and `robot_hints` (null clears the latter two). "+
			"On a published family every member is resolved and the members composed first; a member that cannot be used is 422 `release_member_unresolved` and the draft is unchanged. "+
			"An edit of a published family publishes a release at once (identical content reuses its release). "+
			"After a promotion the family is pinned: every reference must be `pinned` with an exact `ruleset_id` (a floating one is 422 `composition_pinned`). "+outcomeDoc+" "+refsDoc+" "+rulebookIDDoc, api.Keyed, write)
	edit.Refusals = slices.Concat(publishing, []api.Refusal{{Status: http.StatusUnprocessableEntity, ReasonCode: api.ReasonCompositionPinned,
		Meaning: "a floating reference in a family a promotion has pinned."}})
	api.Register(s, edit, h.update)

	fields := op("set-rulebook-fields", http.MethodPost, "/rulebooks/{rulebook_id}/fields", "Set the field vocabulary overlay",
		"Sets the question, description, weight or notes of fields of the composition, per field id, applied in the schema, the planner (next_question, optimal_path) and the graph. "+
			"Each field given replaces that field's overlay entry; fields not given keep theirs; `null` for a field removes its entry. A field id no section declares is 422. "+
			"On a published family it publishes a release like any edit. "+rulebookIDDoc, api.Keyed, write)
	fields.Refusals = publishing
	api.Register(s, fields, h.setFields)

	schema := op("get-rulebook-schema", http.MethodGet, "/rulebooks/{rulebook_id}/schema", "Get a rulebook's fields",
		"Every field of the composition (a field shared by sections once), with the field overlay applied; the sections and their names; the robot hints; the engine version; the release read. "+releaseDoc+" "+rulebookIDDoc, api.Keyed, read)
	schema.Refusals = releaseRefusals
	api.Register(s, schema, h.schema)

	explain := op("explain-rulebook", http.MethodGet, "/rulebooks/{rulebook_id}/explain", "Describe a rulebook's rules",
		"Each section's explanation, as GET /rulesets/{ruleset_id}/explain gives it for the member cut, in letter order, with the outcome tree. "+releaseDoc+" "+rulebookIDDoc, api.Keyed, read)
	explain.Refusals = releaseRefusals
	api.Register(s, explain, h.explain)

	graph := op("get-rulebook-graph", http.MethodGet, "/rulebooks/{rulebook_id}/graph", "Get a rulebook's graph",
		"The composed graph: node ids prefixed with their section's slug, `graph.sections` the section slugs, `stats.shared_fields` the fields shared by sections. "+releaseDoc+" "+rulebookIDDoc, api.Keyed, read)
	graph.Refusals = releaseRefusals
	api.Register(s, graph, h.graph)
	registerDiff(s, h, releaseRefusals)
	registerReleases(s, h)
	bySlug := graph
	bySlug.OperationID, bySlug.Path = "get-rulebook-graph-by-slug", "/rulebooks/{namespace}/{name}/graph"
	bySlug.Description = "The same graph, for a two-part slug written as a path: `/rulebooks/acme/benefits/graph`. " + releaseDoc
	api.Register(s, bySlug, h.graphBySlug)

	activate := op("activate-rulebook", http.MethodPost, "/rulebooks/{rulebook_id}/activate", "Activate a rulebook",
		"Publishes the draft as an immutable release and makes it current; idempotent: content already released reuses that release and its label. Every member must resolve. An archived rulebook becomes active again. The first release claims the slug's namespace. "+api.NamespaceDoc+" "+rulebookIDDoc, api.Keyed, write)
	activate.Refusals = slices.Concat(publishing[:3], publishing[4:])
	api.Register(s, activate, h.activate)

	api.Register(s, op("archive-rulebook", http.MethodPost, "/rulebooks/{rulebook_id}/archive", "Archive a rulebook",
		"Archives the rulebook: it leaves the public catalogue and refuses edits until activated again. Its releases still serve decisions by release_id, and its current release still answers /decide. Archiving twice is harmless. "+rulebookIDDoc, api.Keyed, write), h.archive)

	setVisibility := op("set-rulebook-visibility", http.MethodPatch, "/rulebooks/{rulebook_id}/visibility", "Make a rulebook public or private",
		"`public` rulebooks are listed in the anonymous catalogue when active, and other tenants' keys may read and evaluate them; `private` ones only the owner's keys. A public rulebook shows its members' rules through its explain and graph. "+
			"So a rulebook with a member citing project artefacts, in its draft or in any release it published (releases stay readable by id), cannot be made public (422 `artefact_reference_public_visibility_forbidden`, as for a ruleset); nor can an edit, activation or promotion of a public rulebook bring such a member in. "+rulebookIDDoc, api.Keyed, write)
	setVisibility.Refusals = []api.Refusal{artefactPublic,
		{Status: http.StatusConflict, ReasonCode: reasonChanged, Meaning: "the rulebook changed while the request was worked out; nothing was written; read it again and retry."}}
	api.Register(s, setVisibility, h.visibility)

	promote := op("promote-ruleset-to-live", http.MethodPost, "/rulebooks/{rulebook_id}/rulesets/{name}/promote-to-live", "Promote a section's candidate to live",
		promoteDoc+" "+rulebookIDDoc, api.Keyed, write)
	promote.Refusals = slices.Concat(publishing, []api.Refusal{
		{Status: http.StatusUnprocessableEntity, ReasonCode: api.ReasonNonConservativePresenceOp, Meaning: "the presence-polarity gate found an unanswered-field default that can be more favourable than an answer; `field`, `criterion` and `witness` name the first, `findings` lists all."},
		{Status: http.StatusUnprocessableEntity, ReasonCode: publish.StageCandidateTests, Meaning: "a stored test case of the candidate fails (`failures` lists them)."},
		{Status: http.StatusUnprocessableEntity, ReasonCode: publish.StageCandidateLoads, Meaning: "the candidate's stored content does not load."},
		{Status: http.StatusUnprocessableEntity, ReasonCode: publish.StageComposition, Meaning: "the members do not compose with the candidate in place (a shared field's type differs)."},
		{Status: http.StatusUnprocessableEntity, ReasonCode: publish.StagePresencePolarity, Meaning: fmt.Sprintf("the presence-polarity gate could not be decided within its %s budget (waiting for a solver slot included); nothing was promoted; retry later.", publish.PolarityBudget)},
		{Status: http.StatusForbidden, ReasonCode: reasonForceForbidden, Meaning: "`force_unsafe` was sent by a key that is not internal."}})
	api.Register(s, promote, h.promote)
}

const (
	reasonArchived       = "rulebook_archived"
	reasonChanged        = "rulebook_changed"
	reasonForceForbidden = "force_unsafe_forbidden"
	outcomeDoc           = "`outcome_logic` is an expression tree over the section letters (A, B, C... in `ruleset_refs` order): a leaf `{\"section\": \"A\"}`, a node `{\"op\": \"and\" | \"or\", \"args\": [two or more nodes]}` or `{\"op\": \"not\", \"args\": [one node]}`. A string, also inside an `{\"expr\": ...}` wrapper, a letter with no section or a malformed node is 422 with the validation list. Absent or null: every section and-ed."
	refsDoc              = "Each reference names a `section_id` of the tenant's published rulesets and a `pin_mode`: `latest_active` (the default; floating: the section's newest active cut when the reference is added becomes its live cut, and cuts published later are candidates, `testing` in the rulebook, changing nothing until promoted) or `pinned` with an exact `ruleset_id`. A field id used by two sections is one shared field: the same type and enum values, or the composition is refused (422)."
	hintsDoc             = "`robot_hints` is null or a map over the active beats `general_context`, `preamble`, `session_start`, `postamble`, `session_end`, `stuck` and the reserved `persona`, `conversational_style`, `section_transition`; another key is 422 listing the allowed set."
	releaseDoc           = "`release_id` (a release UUID or exact label) reads that release's frozen content; without it the current release, or the live composition before the first release (`release` null); a draft with no sections reads as an empty composition (no sections, fields, criteria or nodes), not an error."
	promoteDoc           = "Makes `ruleset_id`, a cut of section `{name}`, the section's live cut, after the go-live gates, named as refusals name them: `candidate_loads`, `candidate_tests` (its stored test cases pass), `composition` (the members compose with it in place) and the presence-polarity gate on the composed rulebook (422 `non_conservative_presence_op`). Then, in one transaction: the candidate becomes live, every reference is pinned to its live cut (the family is pinned from now on), the prior live cut of the section is archived, and a release is cut. `presence_polarity_advisories` is null normally; it lists the findings let through by `force_unsafe` (internal keys only, audited as `promote_force_bypass_presence_polarity`) or, for a rulebook under the reserved namespace, by advice rather than refusal."
)

// namespaceOwnedMeaning is the namespace_owned refusal as create documents it.
const namespaceOwnedMeaning = "the slug's namespace belongs to another tenant; answered whether or not the slug exists."

// reservedMeaning is the reserved_namespace refusal of a slug.
const reservedMeaning = "the slug is under the service's prefix, or under a reserved namespace (a government, agency or programme name) an operator has not assigned to the caller's tenant."

// namespaceLimitMeaning is the tenant_namespace_limit refusal.
const namespaceLimitMeaning = "publishing would claim a new namespace and the tenant owns as many as its tier allows; nothing was written."

// rulebookRefRequest is one reference as a request states it.
type rulebookRefRequest struct {
	SectionID string `json:"section_id" minLength:"1" maxLength:"200" doc:"A section id of the tenant's published rulesets."`
	PinMode   string `json:"pin_mode,omitempty" enum:"latest_active,pinned" enumName:"PinMode" doc:"latest_active (the default) or pinned."`
	RulesetID string `json:"ruleset_id,omitempty" maxLength:"300" doc:"pinned: the exact cut."`
}

// rulebookRef is one reference as the rulebook shows it.
type rulebookRef struct {
	Letter    string `json:"letter" doc:"A, B, C... in order."`
	SectionID string `json:"section_id"`
	PinMode   string `json:"pin_mode" enum:"latest_active,pinned"`
	RulesetID string `json:"ruleset_id" doc:"The section's live cut in this rulebook."`
}

// rulebookResponse is a rulebook on the wire.
type rulebookResponse struct {
	RulebookID         string                           `json:"rulebook_id" doc:"Immutable id, rb_ and 16 URL-safe characters."`
	Slug               string                           `json:"slug"`
	Name               string                           `json:"name"`
	Domain             string                           `json:"domain"`
	Description        string                           `json:"description"`
	RulesetRefs        []rulebookRef                    `json:"ruleset_refs" nullable:"false"`
	OutcomeLogic       *rulebook.Node                   `json:"outcome_logic" doc:"The outcome tree; null means every section and-ed."`
	RobotHints         map[string]*string               `json:"robot_hints" nullable:"true" doc:"Beat to guidance, or null."`
	Fields             map[string]rulebook.FieldOverlay `json:"fields" nullable:"false" doc:"The field vocabulary overlay."`
	SectionFacts       []rulebook.SectionFact           `json:"section_facts" nullable:"false" doc:"Bool fields bound to sections' outcomes; empty for none."`
	Visibility         string                           `json:"visibility" enum:"public,private"`
	Status             string                           `json:"status" enum:"draft,active,archived"`
	Pinned             bool                             `json:"pinned" doc:"Set by the first promotion: every reference names an exact cut."`
	PublicationPending bool                             `json:"publication_pending" doc:"The draft changed but its release could not be published; the next activate or edit publishes it."`
	Release            *resource.Release                `json:"release" doc:"The current release, or null before the first."`
	NamespaceVerified  bool                             `json:"namespace_verified" doc:"True when an operator verified the slug's namespace as belonging to this publisher (the body it names). Public content with false here is not vouched for: anybody may have published it."`
	CreatedAt          time.Time                        `json:"created_at"`
	UpdatedAt          time.Time                        `json:"updated_at"`
}

// SchemaName is the name of rulebookResponse's schema in the published API document,
// where the Go name would not say what it is.
func (rulebookResponse) SchemaName() string { return "Rulebook" }

// out shows rb, with release as its current release when known, else the
// head read from the store.
func (h *handler) out(ctx context.Context, rb store.Rulebook, release *store.Release) (*rulebookResponse, error) {
	o := &rulebookResponse{RulebookID: rb.ID, Slug: rb.Slug, Name: rb.Name, Domain: rb.Domain, Description: rb.Description,
		RulesetRefs: make([]rulebookRef, len(rb.Refs)), Fields: map[string]rulebook.FieldOverlay{}, SectionFacts: []rulebook.SectionFact{}, Visibility: rb.Visibility,
		Status: rb.Status, Pinned: rb.Pinned, PublicationPending: rb.PublicationPending, NamespaceVerified: rb.NamespaceVerified,
		CreatedAt: rb.CreatedAt, UpdatedAt: rb.UpdatedAt}
	for i, r := range rb.Refs {
		o.RulesetRefs[i] = rulebookRef{Letter: rulebook.Letter(i), SectionID: r.SectionID, PinMode: r.PinMode, RulesetID: r.LiveRulesetID}
	}
	for _, part := range []struct {
		raw json.RawMessage
		dst any
	}{{rb.OutcomeLogic, &o.OutcomeLogic}, {rb.RobotHints, &o.RobotHints}, {rb.FieldOverlay, &o.Fields}, {rb.SectionFacts, &o.SectionFacts}} {
		if len(part.raw) > 0 {
			if err := json.Unmarshal(part.raw, part.dst); err != nil {
				return nil, err
			}
		}
	}
	if release == nil {
		var err error
		if release, err = h.catalog.CurrentRelease(ctx, rb); err != nil {
			return nil, err
		}
	}
	o.Release = resource.ReleaseOf(release)
	return o, nil
}

type rulebookRefInput struct {
	RulebookID string `path:"rulebook_id" maxLength:"300" doc:"A rulebook id (rb_...) or its slug, with each / sent as %2F."`
}

type rulebookOutput struct {
	Body *rulebookResponse
}

func (h *handler) get(ctx context.Context, in *rulebookRefInput) (*rulebookOutput, error) {
	rb, err := h.catalog.Rulebook(ctx, api.ViewerOf(ctx), in.RulebookID)
	if err != nil {
		return nil, api.LookupFailed(ctx, err, "Rulebook", in.RulebookID)
	}
	o, err := h.out(ctx, rb, nil)
	return &rulebookOutput{Body: o}, err
}

type listInput struct {
	resource.PageQuery
}

type listOutput struct {
	resource.NextPage
	Body resource.List[*rulebookResponse]
}

func (h *handler) list(ctx context.Context, in *listInput) (*listOutput, error) {
	rows, next, err := resource.ListPage(in.PageQuery, resource.SlugCursor, func(rb store.Rulebook) string { return rb.Slug },
		func(after string, limit int) ([]store.Rulebook, error) {
			return h.catalog.ListRulebooks(ctx, api.ViewerOf(ctx), after, limit)
		})
	if err != nil {
		return nil, err
	}
	out := &listOutput{NextPage: resource.NextPage{NextCursor: next}, Body: make(resource.List[*rulebookResponse], 0, len(rows))}
	for _, rb := range rows {
		o, err := h.out(ctx, rb, nil)
		if err != nil {
			return nil, err
		}
		out.Body = append(out.Body, o)
	}
	return out, nil
}

// createRulebookRequest is POST /rulebooks/'s body.
type createRulebookRequest struct {
	Name         string                 `json:"name" minLength:"1" maxLength:"200"`
	Domain       string                 `json:"domain,omitempty" maxLength:"200"`
	Slug         string                 `json:"slug" minLength:"1" maxLength:"200" doc:"<namespace>/<name>[/<name>...], globally unique."`
	Description  string                 `json:"description,omitempty" maxLength:"4000"`
	RulesetRefs  []rulebookRefRequest   `json:"ruleset_refs,omitempty" maxItems:"26"`
	OutcomeLogic json.RawMessage        `json:"outcome_logic,omitempty" doc:"The outcome tree, or null for every section and-ed."`
	RobotHints   json.RawMessage        `json:"robot_hints,omitempty" doc:"Beat to guidance, or null."`
	SectionFacts []rulebook.SectionFact `json:"section_facts,omitempty" maxItems:"256" doc:"Bool fields bound to sections' outcomes: each field is then not asked but reads its section's decision (eligible true, not eligible false, undetermined unknown)."`
}

type createInput struct {
	Body createRulebookRequest
}

func (h *handler) create(ctx context.Context, in *createInput) (*rulebookOutput, error) {
	p, _ := auth.PrincipalFrom(ctx)
	b := in.Body
	d := publish.RulebookDraft{Slug: b.Slug, Name: &b.Name, Domain: &b.Domain, Description: &b.Description, Actor: p.KeyPrefix}
	refs, err := readRefs(b.RulesetRefs)
	if err != nil {
		return nil, err
	}
	d.Refs = &refs
	if len(b.OutcomeLogic) > 0 {
		if err := readOutcome(&d, b.OutcomeLogic, len(refs)); err != nil {
			return nil, err
		}
	}
	if len(b.RobotHints) > 0 {
		if err := readHints(&d, b.RobotHints); err != nil {
			return nil, err
		}
	}
	if len(b.SectionFacts) > 0 {
		if err := readFacts(&d, b.SectionFacts, len(refs)); err != nil {
			return nil, err
		}
	}
	rb, err := h.publisher.CreateRulebook(ctx, p.TenantID, d)
	if err != nil {
		return nil, refusal(ctx, err, b.Slug)
	}
	o, err := h.out(ctx, rb, nil)
	return &rulebookOutput{Body: o}, err
}

// updateRulebookRequest is PATCH /rulebooks/{id}'s body: members absent are unchanged.
type updateRulebookRequest struct {
	Name         *string                 `json:"name,omitempty" minLength:"1" maxLength:"200"`
	Title        *string                 `json:"title,omitempty" minLength:"1" maxLength:"200" doc:"A synonym of name."`
	Domain       *string                 `json:"domain,omitempty" maxLength:"200"`
	Description  *string                 `json:"description,omitempty" maxLength:"4000"`
	RulesetRefs  *[]rulebookRefRequest   `json:"ruleset_refs,omitempty" maxItems:"26"`
	OutcomeLogic json.RawMessage         `json:"outcome_logic,omitempty" doc:"The outcome tree; null restores every section and-ed."`
	RobotHints   json.RawMessage         `json:"robot_hints,omitempty" doc:"Beat to guidance; null clears them."`
	SectionFacts *[]rulebook.SectionFact `json:"section_facts,omitempty" maxItems:"256" doc:"Replaces the section facts; [] removes them."`
}

type patchInput struct {
	RulebookID string `path:"rulebook_id" maxLength:"300"`
	Body       updateRulebookRequest
}

func (h *handler) update(ctx context.Context, in *patchInput) (*rulebookOutput, error) {
	p, _ := auth.PrincipalFrom(ctx)
	rb, err := h.catalog.OwnedRulebook(ctx, p.TenantID, in.RulebookID)
	if err != nil {
		return nil, api.LookupFailed(ctx, err, "Rulebook", in.RulebookID)
	}
	b := in.Body
	name := b.Name
	if name == nil {
		name = b.Title
	}
	d := publish.RulebookDraft{Name: name, Domain: b.Domain, Description: b.Description, Actor: p.KeyPrefix}
	sections := len(rb.Refs)
	if b.RulesetRefs != nil {
		refs, err := readRefs(*b.RulesetRefs)
		if err != nil {
			return nil, err
		}
		d.Refs, sections = &refs, len(refs)
	}
	if len(b.OutcomeLogic) > 0 {
		if err := readOutcome(&d, b.OutcomeLogic, sections); err != nil {
			return nil, err
		}
	}
	if len(b.RobotHints) > 0 {
		if err := readHints(&d, b.RobotHints); err != nil {
			return nil, err
		}
	}
	if b.SectionFacts != nil {
		if err := readFacts(&d, *b.SectionFacts, sections); err != nil {
			return nil, err
		}
	}
	res, err := h.publisher.UpdateRulebook(ctx, p.TenantID, rb.ID, d)
	if err != nil {
		return nil, refusal(ctx, err, in.RulebookID)
	}
	o, err := h.out(ctx, res.Rulebook, res.Release)
	return &rulebookOutput{Body: o}, err
}

type fieldsInput struct {
	RulebookID string `path:"rulebook_id" maxLength:"300"`
	Body       rulebookFieldsRequest
}

// rulebookFieldsRequest is fieldsInput's body, published as RulebookFieldsRequest.
type rulebookFieldsRequest struct {
	Fields map[string]*rulebook.FieldOverlay `json:"fields" doc:"Per field id: the question, description, weight (0 to 1000000) or notes to show instead of the first declaring section's; null removes the field's entry."`
}

func (h *handler) setFields(ctx context.Context, in *fieldsInput) (*rulebookOutput, error) {
	p, _ := auth.PrincipalFrom(ctx)
	rb, err := h.catalog.OwnedRulebook(ctx, p.TenantID, in.RulebookID)
	if err != nil {
		return nil, api.LookupFailed(ctx, err, "Rulebook", in.RulebookID)
	}
	overlay := map[string]rulebook.FieldOverlay{}
	if len(rb.FieldOverlay) > 0 {
		if err := json.Unmarshal(rb.FieldOverlay, &overlay); err != nil {
			return nil, err
		}
	}
	for id, o := range in.Body.Fields {
		if o == nil {
			delete(overlay, id)
		} else {
			overlay[id] = *o
		}
	}
	res, err := h.publisher.UpdateRulebook(ctx, p.TenantID, rb.ID, publish.RulebookDraft{Overlay: overlay, Actor: p.KeyPrefix})
	if err != nil {
		return nil, refusal(ctx, err, in.RulebookID)
	}
	o, err := h.out(ctx, res.Rulebook, res.Release)
	return &rulebookOutput{Body: o}, err
}

// readRefs checks the references' shape: a pinned one names its cut.
func readRefs(in []rulebookRefRequest) ([]publish.RefRequest, error) {
	refs := make([]publish.RefRequest, len(in))
	for i, r := range in {
		mode := r.PinMode
		if mode == "" {
			mode = store.PinLatestActive
		}
		if mode == store.PinPinned && r.RulesetID == "" {
			return nil, api.ValidationFailed(api.ValidationItem{Type: "missing", Loc: []any{"body", "ruleset_refs", i, "ruleset_id"},
				Msg: "Field required: a pinned reference names its exact ruleset_id", Input: r})
		}
		if mode == store.PinLatestActive && r.RulesetID != "" {
			return nil, api.ValidationFailed(api.ValidationItem{Type: "value_error", Loc: []any{"body", "ruleset_refs", i, "ruleset_id"},
				Msg: "Value error, a latest_active reference names no ruleset_id; use pin_mode pinned for an exact cut", Input: r.RulesetID})
		}
		refs[i] = publish.RefRequest{SectionID: r.SectionID, PinMode: mode, RulesetID: r.RulesetID}
	}
	return refs, nil
}

// readOutcome reads outcome_logic (null: the default) into d.
func readOutcome(d *publish.RulebookDraft, raw json.RawMessage, sections int) error {
	d.SetOutcome = true
	tree, problems := rulebook.ParseOutcomeTree(raw, sections)
	if len(problems) > 0 {
		return problemsFailed(problems)
	}
	d.Outcome = tree
	return nil
}

// readFacts checks section_facts against a rulebook of sections sections
// and sets them on d; the members check the rest when they compose.
func readFacts(d *publish.RulebookDraft, facts []rulebook.SectionFact, sections int) error {
	if problems := rulebook.CheckFacts(facts, sections); len(problems) > 0 {
		return problemsFailed(problems)
	}
	d.Facts, d.SetFacts = facts, true
	return nil
}

// readHints reads robot_hints (null: none) into d.
func readHints(d *publish.RulebookDraft, raw json.RawMessage) error {
	d.SetHints = true
	if string(raw) == "null" {
		return nil
	}
	var hints map[string]*string
	if err := json.Unmarshal(raw, &hints); err != nil || hints == nil {
		var input any
		_ = json.Unmarshal(raw, &input)
		return api.ValidationFailed(api.ValidationItem{Type: "dict_type", Loc: []any{"body", "robot_hints"},
			Msg: "Input should be null or an object of beat names to strings", Input: input})
	}
	if problems := rulebook.CheckHints(hints); len(problems) > 0 {
		return problemsFailed(problems)
	}
	d.Hints = hints
	return nil
}

// problemsFailed is the 422 validation list of rulebook problems, located
// under body.
func problemsFailed(problems []rulebook.Problem) error {
	items := make([]api.ValidationItem, len(problems))
	for i, p := range problems {
		items[i] = api.ValidationItem{Type: p.Type, Loc: append([]any{"body"}, p.Loc...), Msg: p.Msg, Input: p.Input}
	}
	return api.ValidationFailed(items...)
}
