package api

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/authoring"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/store"
)

// This file is the rulesets resource: the catalogue, the per-ruleset reads
// (schema, explain, graph, source) and the two writes (visibility,
// archive). Every {ruleset_id} is a slug (with "/" sent as %2F) or a
// concrete ruleset_id, resolved by resolveRuleset (catalog.go).

// Catalogue paging and the two headers of GET /rulesets.
const (
	defaultPageSize      = 50
	headerSkippedInvalid = "X-Skipped-Invalid-Records"
	headerNextCursor     = "X-Next-Cursor"
	rulesetSourceFormat  = "eligo-rules"
	rulesetIDParamDoc    = "A slug (send each `/` as `%2F`, e.g. `us%2Fsnap-income`) or a concrete ruleset_id such as `snap_income:20260115-3f2a9c0d1e4b`."
)

// rulesetSummary is one catalogue entry, and the body of the two writes.
type rulesetSummary struct {
	RulesetID      string    `json:"ruleset_id" doc:"Concrete, immutable id: <section_id>:<yyyymmdd>-<hash>."`
	Slug           string    `json:"slug" doc:"The slug the ruleset is published under."`
	Name           string    `json:"name"`
	SectionID      string    `json:"section_id"`
	Description    string    `json:"description"`
	RuleCount      int       `json:"rule_count" doc:"Number of criteria."`
	RulesetVersion string    `json:"ruleset_version" doc:"v<N>, the cut's number under its slug."`
	ContentDigest  string    `json:"content_digest" doc:"sha256:<hex> of the compiled content."`
	Visibility     string    `json:"visibility" enum:"public,private"`
	Status         string    `json:"status" enum:"active,archived"`
	CreatedAt      time.Time `json:"created_at" doc:"When this content was first published under the slug."`
	UpdatedAt      time.Time `json:"updated_at"`
}

func summaryOf(r store.Ruleset) rulesetSummary {
	return rulesetSummary{
		RulesetID: r.ID, Slug: r.Slug, Name: r.Name, SectionID: r.SectionID, Description: r.Description,
		RuleCount: r.RuleCount, RulesetVersion: r.VersionLabel(), ContentDigest: r.ContentDigest,
		Visibility: r.Visibility, Status: r.Status, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
}

type rulesetRefInput struct {
	RulesetID string `path:"ruleset_id" maxLength:"300" doc:"A slug (send each / as %2F) or a concrete ruleset_id."`
}

func (s *Server) registerRulesets() {
	Register(s, Route{
		OperationID: "list-rulesets", Method: http.MethodGet, Path: "/rulesets",
		Summary: "List rulesets",
		Description: "The catalogue: a bare JSON array of the active rulesets slugs point at, ordered by slug. " +
			"Anonymous callers see public rulesets of every tenant; a key also sees its tenant's private ones.\n\n" +
			"Filter with `q` (case-insensitive text in the slug, name or description) and `namespace` (slugs equal to it or under it: " +
			"`us` keeps `us/snap-income`).\n\n" +
			"Paging: the `" + headerNextCursor + "` response header carries an opaque cursor while more entries may follow; send it back as " +
			"`cursor` with the same filters for the next page. The header is absent on the last page. A page may be shorter than `limit` " +
			"and still not be the last: never infer the end of the list from a short page. The cursor is keyset-based (it encodes the last " +
			"slug returned), so it stays valid while rulesets are published or archived.\n\n" +
			"The `" + headerSkippedInvalid + "` header counts stored records on this page that could not be summarised and were skipped; `0` is normal.",
		Tags: []string{"Rulesets"}, Access: Open, Scopes: []auth.Scope{auth.ScopeRulesetsRead}, Class: ClassRulesets,
	}, s.listRulesets)

	Register(s, Route{
		OperationID: "get-ruleset-schema", Method: http.MethodGet, Path: "/rulesets/{ruleset_id}/schema",
		Summary:     "Get a ruleset's fields",
		Description: "The fields a decision on this ruleset reads, with their types, questions, weights, enum values and notes. " + rulesetIDParamDoc,
		Tags:        []string{"Rulesets"}, Access: Open, Scopes: []auth.Scope{auth.ScopeRulesetsRead}, Class: ClassRulesets,
	}, s.rulesetSchema)

	Register(s, Route{
		OperationID: "explain-ruleset", Method: http.MethodGet, Path: "/rulesets/{ruleset_id}/explain",
		Summary: "Describe a ruleset's rules",
		Description: "Every criterion in plain language, with its condition, the fields it reads and its `source_references[]`, " +
			"grouped as the ruleset groups them. References were verified when the ruleset was published; nothing is fetched at read time. " +
			"References to project artefacts (schema_version 2) are left out for anonymous callers. " + rulesetIDParamDoc,
		Tags: []string{"Rulesets"}, Access: Open, Scopes: []auth.Scope{auth.ScopeRulesetsExplain}, Class: ClassRulesets,
	}, s.explainRuleset)

	Register(s, Route{
		OperationID: "get-ruleset-graph", Method: http.MethodGet, Path: "/rulesets/{ruleset_id}/graph",
		Summary: "Get a ruleset's graph",
		Description: "Fields, criteria, groups and the outcome as nodes and edges, with a Mermaid flowchart. Every `overlay` is null here; " +
			"/decide with `include_graph_overlay` returns the same graph coloured by one decision. " + rulesetIDParamDoc,
		Tags: []string{"Rulesets"}, Access: Open, Scopes: []auth.Scope{auth.ScopeRulesetsRead}, Class: ClassRulesets,
	}, s.rulesetGraph)

	Register(s, Route{
		OperationID: "get-ruleset-source", Method: http.MethodGet, Path: "/rulesets/{ruleset_id}/source",
		Summary: "Export a ruleset's rules text",
		Description: "The .rules text exactly as published (format `" + rulesetSourceFormat + "`, see the rules language reference). " +
			"Available for the tenant's own rulesets and for public ones. " + rulesetIDParamDoc,
		Tags: []string{"Rulesets"}, Access: Keyed, Scopes: []auth.Scope{auth.ScopeRulesetsSource}, Class: ClassRulesets,
	}, s.rulesetSource)

	Register(s, Route{
		OperationID: "set-ruleset-visibility", Method: http.MethodPatch, Path: "/rulesets/{ruleset_id}/visibility",
		Summary: "Make a ruleset public or private",
		Description: "Sets the visibility of one cut: a concrete ruleset_id, or the cut a slug points at now. `public` rulesets serve " +
			"anonymous callers; `private` ones only the tenant's keys. Only the owning tenant may change it; anyone else gets 404. " +
			"A ruleset citing project artefacts cannot be made public (422 `artefact_reference_public_visibility_forbidden`). " +
			"Other processes of the service see the change within a few seconds.",
		Tags: []string{"Rulesets"}, Access: Keyed, Scopes: []auth.Scope{auth.ScopeRulesetsWrite}, Class: ClassRulesets,
	}, s.setRulesetVisibility)

	Register(s, Route{
		OperationID: "archive-ruleset", Method: http.MethodPost, Path: "/rulesets/{ruleset_id}/archive",
		Summary: "Archive a ruleset",
		Description: "Archives one cut (a concrete ruleset_id, or the cut a slug points at now). An archived ruleset leaves the catalogue " +
			"and its slug no longer resolves; its concrete ruleset_id still does, so recorded decisions can be replayed. " +
			"Publishing the same content again makes it active. Archiving twice is harmless. Only the owning tenant may archive; " +
			"anyone else gets 404.",
		Tags: []string{"Rulesets"}, Access: Keyed, Scopes: []auth.Scope{auth.ScopeRulesetsWrite}, Class: ClassRulesets,
		RowOnly: true,
	}, s.archiveRuleset)

	s.registerExplainFailure()
}

type listRulesetsInput struct {
	Q         string `query:"q" maxLength:"200" doc:"Case-insensitive text to find in the slug, name or description."`
	Namespace string `query:"namespace" maxLength:"200" doc:"Keep slugs equal to this or under it, e.g. us or us/federal."`
	Limit     int    `query:"limit" minimum:"1" maximum:"100" default:"50" doc:"Page size."`
	Cursor    string `query:"cursor" maxLength:"400" doc:"The X-Next-Cursor header of the previous page."`
}

type listRulesetsOutput struct {
	SkippedInvalid int    `header:"X-Skipped-Invalid-Records" doc:"Stored records skipped on this page because they could not be summarised; 0 is normal."`
	NextCursor     string `header:"X-Next-Cursor" doc:"Cursor of the next page; absent on the last page."`
	Body           rulesetList
}

// rulesetList is the catalogue page: always a JSON array, empty when
// nothing matches, never null.
type rulesetList []rulesetSummary

// TransformSchema marks the array non-nullable: huma makes arrays nullable
// by default, and a top-level body has no field tag to say otherwise.
func (rulesetList) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	s.Nullable = false
	return s
}

func (s *Server) listRulesets(ctx context.Context, in *listRulesetsInput) (*listRulesetsOutput, error) {
	if in.Namespace != "" && !authoring.ValidSlug(in.Namespace) {
		return nil, ValidationFailed(ValidationItem{Type: "string_pattern_mismatch", Loc: []any{"query", "namespace"},
			Msg: "String should be a slug or slug prefix such as us or us/federal", Input: in.Namespace})
	}
	after, err := decodeCursor(in.Cursor)
	if err != nil {
		return nil, ValidationFailed(ValidationItem{Type: "value_error", Loc: []any{"query", "cursor"},
			Msg: "Value error, not a cursor this service issued", Input: in.Cursor})
	}
	limit := in.Limit
	if limit == 0 {
		limit = defaultPageSize
	}
	p, _ := auth.PrincipalFrom(ctx)
	// One row more than the page tells whether another page follows.
	rows, err := s.store.ListRulesets(ctx, store.RulesetQuery{
		ViewerTenant: p.TenantID, Namespace: in.Namespace, Text: in.Q, AfterSlug: after, Limit: limit + 1,
	})
	if err != nil {
		return nil, err
	}
	out := &listRulesetsOutput{Body: make(rulesetList, 0, min(len(rows), limit))}
	if len(rows) > limit {
		rows = rows[:limit]
		out.NextCursor = encodeCursor(rows[len(rows)-1].Slug)
	}
	for _, r := range rows {
		if !summarisable(r) {
			out.SkippedInvalid++
			continue
		}
		out.Body = append(out.Body, summaryOf(r))
	}
	return out, nil
}

// summarisable reports whether a stored row can be shown: the schema's
// checks make this hold for every row written by this version, so a false
// here means a record damaged or written by hand.
func summarisable(r store.Ruleset) bool {
	return authoring.ValidSlug(r.Slug) && r.Version >= 1 && len(r.ContentDigest) == len("sha256:")+64 &&
		(r.Visibility == store.VisibilityPublic || r.Visibility == store.VisibilityPrivate)
}

// encodeCursor makes the opaque cursor that resumes the catalogue after
// slug: base64url of "slug:" + slug.
func encodeCursor(slug string) string {
	return base64.RawURLEncoding.EncodeToString([]byte("slug:" + slug))
}

func decodeCursor(cursor string) (string, error) {
	if cursor == "" {
		return "", nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return "", err
	}
	slug, ok := strings.CutPrefix(string(raw), "slug:")
	if !ok || !authoring.ValidSlug(slug) {
		return "", errors.New("malformed cursor")
	}
	return slug, nil
}

// schemaField is a Field of the spec.
type schemaField struct {
	FieldID     string        `json:"field_id" doc:"Dotted <group>.<name>."`
	FieldType   string        `json:"field_type" enum:"int,decimal,bool,enum,date" doc:"The type answers must have."`
	Description string        `json:"description" doc:"What the field records, in plain language."`
	Question    string        `json:"question,omitempty" doc:"Text to ask the applicant; absent when the ruleset gives none."`
	Weight      int           `json:"weight" doc:"Question-ordering hint; higher means ask later."`
	EnumValues  []string      `json:"enum_values" nullable:"true" doc:"Allowed values of an enum field, else null."`
	Notes       []engine.Note `json:"notes" nullable:"false" doc:"Notes the ruleset attaches to the field; empty when none."`
	XUIWidget   string        `json:"x_ui_widget,omitempty" enum:"free_text" doc:"A rendering hint for forms; absent when the ruleset gives none."`
}

type rulesetSchemaOutput struct {
	Body struct {
		RulesetID      string        `json:"ruleset_id" doc:"Concrete ruleset_id the fields belong to."`
		Slug           string        `json:"slug" doc:"The slug the ruleset is published under."`
		Name           string        `json:"name" doc:"The ruleset's name."`
		RulesetVersion string        `json:"ruleset_version" doc:"v<N>, the cut's number under its slug."`
		ContentDigest  string        `json:"content_digest" doc:"sha256:<hex> of the compiled content."`
		Fields         []schemaField `json:"fields" nullable:"false" doc:"Every field the ruleset declares, in declaration order."`
		EngineVersion  string        `json:"engine_version" doc:"<product>-core@<semver> of the engine that serves decisions."`
	}
}

func (s *Server) rulesetSchema(ctx context.Context, in *rulesetRefInput) (*rulesetSchemaOutput, error) {
	rr, err := s.resolveRuleset(ctx, in.RulesetID)
	if err != nil {
		return nil, err
	}
	out := &rulesetSchemaOutput{}
	b := &out.Body
	b.RulesetID, b.Slug, b.Name, b.RulesetVersion, b.ContentDigest = rr.ID, rr.Slug, rr.Name, rr.Label, rr.ContentDigest
	b.EngineVersion = engine.Version
	b.Fields = make([]schemaField, len(rr.Rules.Fields))
	for i, f := range rr.Rules.Fields {
		notes := f.Notes
		if notes == nil {
			notes = []engine.Note{}
		}
		b.Fields[i] = schemaField{FieldID: f.ID, FieldType: f.Type.String(), Description: f.Description, Question: f.Question,
			Weight: f.Weight, EnumValues: f.EnumValues, Notes: notes, XUIWidget: f.Widget}
	}
	return out, nil
}

// sourceReference is the spec's SourceReference.
type sourceReference struct {
	Source        string    `json:"source" doc:"Id of the source declared in the ruleset."`
	Title         string    `json:"title"`
	Quote         quote     `json:"quote"`
	URL           string    `json:"url" doc:"Address of the cited text (v1) or an artefact locator (v2)."`
	ContentDigest string    `json:"content_digest,omitempty" doc:"Digest of the bytes the quote was verified against."`
	VerifiedAt    time.Time `json:"verified_at,omitzero" doc:"When the quote was verified."`
	DeepLink      string    `json:"deep_link" doc:"URL with a #:~:text= fragment of the quote."`
	Licence       string    `json:"licence"`
	SchemaVersion int       `json:"schema_version" enum:"1,2"`
	Snapshot      string    `json:"snapshot,omitempty" doc:"Equal to content_digest; keys the retained copy of the text."`
	TargetKind    string    `json:"target_kind,omitempty" enum:"artefact"`
}

type quote struct {
	Exact string `json:"exact" doc:"The verbatim quote."`
}

// sourceReferences converts the engine's references of one criterion to the
// spec's SourceReference, adding what the publish path verified
// (content_digest, verified_at and snapshot) and leaving v2 (artefact)
// references out for anonymous callers (the caller in ctx).
func (rr *resolvedRuleset) sourceReferences(ctx context.Context, refs []engine.SourceReference) []sourceReference {
	_, keyed := auth.PrincipalFrom(ctx)
	return rr.sourceReferencesFor(refs, keyed)
}

// sourceReferencesFor is sourceReferences for a keyed or an anonymous
// caller. It is the one conversion behind every place references reach the
// wire: GET /explain, explain-failure and /decide's explanation, which
// encodes both variants when the decision is made.
func (rr *resolvedRuleset) sourceReferencesFor(refs []engine.SourceReference, keyed bool) []sourceReference {
	out := make([]sourceReference, 0, len(refs))
	for _, r := range refs {
		if r.TargetKind == "artefact" && !keyed {
			continue
		}
		ref := sourceReference{Source: r.Source, Title: r.Title, Quote: quote{Exact: r.Quote.Exact}, URL: r.URL,
			DeepLink: r.DeepLink, Licence: r.Licence, SchemaVersion: r.SchemaVersion, TargetKind: r.TargetKind}
		if check, ok := rr.SourceChecks[r.Source]; ok {
			ref.ContentDigest, ref.VerifiedAt = check.ContentDigest, check.VerifiedAt
			if r.TargetKind == "" {
				ref.Snapshot = check.ContentDigest
			}
		}
		out = append(out, ref)
	}
	return out
}

type explainCriterion struct {
	CriterionID      string            `json:"criterion_id" doc:"The criterion's declared id."`
	Group            string            `json:"group" doc:"Id of the group the criterion belongs to."`
	Title            string            `json:"title" doc:"The criterion's declared title."`
	Description      string            `json:"description" doc:"The condition in plain language."`
	Expression       string            `json:"expression" doc:"The condition in the rules language; empty for a discretionary criterion."`
	Discretionary    bool              `json:"discretionary" doc:"An official decides it; a decision leaves it pending."`
	Fields           []string          `json:"fields" nullable:"false" doc:"Field ids the condition reads."`
	SourceReferences []sourceReference `json:"source_references" nullable:"false" doc:"The law the criterion cites; artefact (v2) references are left out for anonymous callers."`
}

type explainGroup struct {
	Group       string   `json:"group" doc:"The group's declared id."`
	Title       string   `json:"title" doc:"The group's declared title."`
	Kind        string   `json:"kind" enum:"all,any" doc:"all: every criterion must hold; any: one alternative suffices."`
	CriterionID []string `json:"criterion_ids" nullable:"false" doc:"The group's criteria, in declaration order."`
}

type explainRulesetOutput struct {
	Body struct {
		RulesetID      string             `json:"ruleset_id" doc:"Concrete ruleset_id described."`
		Slug           string             `json:"slug" doc:"The slug the ruleset is published under."`
		Name           string             `json:"name" doc:"The ruleset's name."`
		Description    string             `json:"description" doc:"The ruleset's description."`
		RulesetVersion string             `json:"ruleset_version" doc:"v<N>, the cut's number under its slug."`
		ContentDigest  string             `json:"content_digest" doc:"sha256:<hex> of the compiled content."`
		Groups         []explainGroup     `json:"groups" nullable:"false" doc:"The ruleset's groups in declaration order."`
		Criteria       []explainCriterion `json:"criteria" nullable:"false" doc:"Every criterion, in group then declaration order."`
	}
}

func (s *Server) explainRuleset(ctx context.Context, in *rulesetRefInput) (*explainRulesetOutput, error) {
	rr, err := s.resolveRuleset(ctx, in.RulesetID)
	if err != nil {
		return nil, err
	}
	r := rr.Rules
	out := &explainRulesetOutput{}
	b := &out.Body
	b.RulesetID, b.Slug, b.Name, b.Description = rr.ID, rr.Slug, rr.Name, rr.Description
	b.RulesetVersion, b.ContentDigest = rr.Label, rr.ContentDigest
	b.Groups = make([]explainGroup, len(r.Groups))
	b.Criteria = make([]explainCriterion, 0, r.NumCriteria())
	// i counts criteria in group then declaration order, the order of
	// Ruleset.References.
	i := 0
	for gi, g := range r.Groups {
		eg := explainGroup{Group: g.ID, Title: g.Title, Kind: string(g.Kind), CriterionID: make([]string, len(g.Criteria))}
		for ci := range g.Criteria {
			c := &g.Criteria[ci]
			eg.CriterionID[ci] = c.ID
			fields := c.Fields
			if fields == nil {
				fields = []string{}
			}
			b.Criteria = append(b.Criteria, explainCriterion{
				CriterionID: c.ID, Group: g.ID, Title: c.Title, Description: r.CriterionSentence(c),
				Expression: c.Text, Discretionary: c.Discretionary, Fields: fields,
				SourceReferences: rr.sourceReferences(ctx, r.References(i)),
			})
			i++
		}
		b.Groups[gi] = eg
	}
	return out, nil
}

type rulesetGraphOutput struct {
	Body struct {
		RulesetID string    `json:"ruleset_id" doc:"Concrete ruleset_id the graph is drawn from."`
		Slug      string    `json:"slug" doc:"The slug the ruleset is published under."`
		Name      string    `json:"name" doc:"The ruleset's name."`
		Graph     graphJSON `json:"graph" doc:"nodes[], edges[], sections[] and stats; every overlay is null."`
		Mermaid   string    `json:"mermaid" doc:"The graph as Mermaid flowchart text."`
	}
}

func (s *Server) rulesetGraph(ctx context.Context, in *rulesetRefInput) (*rulesetGraphOutput, error) {
	rr, err := s.resolveRuleset(ctx, in.RulesetID)
	if err != nil {
		return nil, err
	}
	g := rr.Rules.Graph(rr.Slug, nil, nil)
	out := &rulesetGraphOutput{}
	out.Body.RulesetID, out.Body.Slug, out.Body.Name = rr.ID, rr.Slug, rr.Name
	out.Body.Graph, out.Body.Mermaid = graphJSON{g}, g.Mermaid()
	return out, nil
}

type rulesetSourceOutput struct {
	Body struct {
		RulesetID      string `json:"ruleset_id"`
		Slug           string `json:"slug"`
		RulesetVersion string `json:"ruleset_version"`
		ContentDigest  string `json:"content_digest"`
		Format         string `json:"format" enum:"eligo-rules"`
		Source         string `json:"source" doc:"The .rules text as published."`
	}
}

func (s *Server) rulesetSource(ctx context.Context, in *rulesetRefInput) (*rulesetSourceOutput, error) {
	row, err := s.visibleRuleset(ctx, in.RulesetID)
	if err != nil {
		return nil, err
	}
	text, err := s.store.RulesetSource(ctx, row.ID)
	if err != nil {
		return nil, err
	}
	// The export is labelled with the row's digest, so it must be the
	// text that digest names, as every other read checks.
	if _, err := compileSource(row, text); err != nil {
		return nil, rulesetCorrupt(ctx, row, err)
	}
	out := &rulesetSourceOutput{}
	b := &out.Body
	b.RulesetID, b.Slug, b.RulesetVersion, b.ContentDigest = row.ID, row.Slug, row.VersionLabel(), row.ContentDigest
	b.Format, b.Source = rulesetSourceFormat, text
	return out, nil
}

type setVisibilityInput struct {
	RulesetID string `path:"ruleset_id" maxLength:"300" doc:"A slug (send each / as %2F) or a concrete ruleset_id."`
	Body      struct {
		Visibility string `json:"visibility" enum:"public,private"`
	}
}

type rulesetOutput struct {
	Body rulesetSummary
}

func (s *Server) setRulesetVisibility(ctx context.Context, in *setVisibilityInput) (*rulesetOutput, error) {
	row, err := s.ownRuleset(ctx, in.RulesetID)
	if err != nil {
		return nil, err
	}
	if in.Body.Visibility == store.VisibilityPublic {
		compiled, err := s.compileStored(ctx, row)
		if err != nil {
			return nil, err
		}
		if authoring.CitesArtefacts(compiled) {
			return nil, NewProblem(http.StatusUnprocessableEntity, "unprocessable_entity", "artefact_reference_public_visibility_forbidden",
				"This ruleset cites project artefacts, which are never shown publicly; it cannot be made public.")
		}
	}
	p, _ := auth.PrincipalFrom(ctx)
	updated, err := s.store.SetRulesetVisibility(ctx, p.TenantID, row.ID, in.Body.Visibility)
	return s.afterWrite(in.RulesetID, row, updated, err)
}

func (s *Server) archiveRuleset(ctx context.Context, in *rulesetRefInput) (*rulesetOutput, error) {
	row, err := s.ownRuleset(ctx, in.RulesetID)
	if err != nil {
		return nil, err
	}
	p, _ := auth.PrincipalFrom(ctx)
	updated, err := s.store.ArchiveRuleset(ctx, p.TenantID, row.ID)
	return s.afterWrite(in.RulesetID, row, updated, err)
}

// ownRuleset is the cut ref names now, archived or not, when it belongs to
// the caller's tenant; otherwise the same 404 as an unknown ruleset. It
// reads the database, not the pointer cache, so a write acts on the cut the
// slug points at now.
func (s *Server) ownRuleset(ctx context.Context, ref string) (store.Ruleset, error) {
	row, err := s.store.RulesetByRef(ctx, ref)
	if errors.Is(err, store.ErrNotFound) {
		return store.Ruleset{}, errRulesetNotFound(ref)
	}
	if err != nil {
		return store.Ruleset{}, err
	}
	if p, _ := auth.PrincipalFrom(ctx); p.TenantID != row.TenantID {
		return store.Ruleset{}, errRulesetNotFound(ref)
	}
	return row, nil
}

// afterWrite drops this process's cached pointers to the changed cut and
// shapes the answer of a write.
func (s *Server) afterWrite(ref string, before, updated store.Ruleset, err error) (*rulesetOutput, error) {
	s.catalog.forget(before)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errRulesetNotFound(ref)
	}
	if err != nil {
		return nil, err
	}
	return &rulesetOutput{Body: summaryOf(updated)}, nil
}
