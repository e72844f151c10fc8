package rulebooks

import (
	"context"
	"errors"
	"net/url"

	"github.com/eligo/eligo/api"
	"github.com/eligo/eligo/api/resource"
	"github.com/eligo/eligo/catalog"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/engine/present"
	"github.com/eligo/eligo/rulebook"
	"github.com/eligo/eligo/store"
)

// releaseInput names a rulebook and, optionally, a release of it.
type releaseInput struct {
	RulebookID string `path:"rulebook_id" maxLength:"300" doc:"A rulebook id (rb_...) or its slug, with each / sent as %2F."`
	ReleaseID  string `query:"release_id" maxLength:"100" doc:"A release UUID or exact two-word label; default the current release, else the live composition."`
}

// prepared resolves and composes what a diff compares: a draft with no
// sections is 422 rulebook_empty.
func (h *handler) prepared(ctx context.Context, ref, release string) (*catalog.PreparedRulebook, error) {
	p, _, err := h.readable(ctx, ref, release)
	if err == nil && p == nil {
		err = api.LookupFailed(ctx, catalog.ErrRulebookEmpty, "Release", release)
	}
	return p, err
}

// readable resolves and composes what a read (schema, explain, graph)
// reads. For a draft with no sections it returns a nil composition and
// the rulebook, which the reads answer as an empty one (docs/api.md#rulebooks).
func (h *handler) readable(ctx context.Context, ref, release string) (*catalog.PreparedRulebook, store.Rulebook, error) {
	rb, err := h.catalog.Rulebook(ctx, api.ViewerOf(ctx), ref)
	if err != nil {
		return nil, store.Rulebook{}, api.LookupFailed(ctx, err, "Rulebook", ref)
	}
	p, err := h.catalog.PrepareRulebook(ctx, rb, release)
	switch {
	case errors.Is(err, catalog.ErrRulebookEmpty):
		return nil, rb, nil
	case err != nil:
		return nil, rb, api.LookupFailed(ctx, err, "Release", release)
	}
	return p, rb, nil
}

type schemaOutput struct {
	Body rulebookSchema
}

// rulebookSchema is schemaOutput's body, published as RulebookSchema.
type rulebookSchema struct {
	RulebookID    string                 `json:"rulebook_id"`
	Sections      []string               `json:"sections" nullable:"false" doc:"The section ids, in letter order."`
	SectionNames  map[string]*string     `json:"section_names" doc:"Each section's name by section id; null where the release did not capture it."`
	Fields        []resource.SchemaField `json:"fields" nullable:"false" doc:"Every field of the composition, a shared field once, with the overlay applied."`
	RobotHints    map[string]*string     `json:"robot_hints" nullable:"true" doc:"Beat to guidance, or null."`
	EngineVersion string                 `json:"engine_version"`
	Release       *resource.Release      `json:"release" doc:"The release read, or null for the live composition."`
}

func (h *handler) schema(ctx context.Context, in *releaseInput) (*schemaOutput, error) {
	p, rb, err := h.readable(ctx, in.RulebookID, in.ReleaseID)
	if err != nil {
		return nil, err
	}
	out := &schemaOutput{}
	b := &out.Body
	b.RulebookID, b.EngineVersion = rb.ID, engine.Version
	if p == nil {
		b.Sections, b.SectionNames, b.Fields = []string{}, map[string]*string{}, []resource.SchemaField{}
		return out, nil
	}
	b.RobotHints = p.Content.RobotHints
	b.Release = resource.ReleaseOf(p.Release)
	b.Fields = resource.SchemaFields(p.Composed.Rules.Fields)
	b.Sections, b.SectionNames = make([]string, len(p.Content.Sections)), map[string]*string{}
	for i, s := range p.Content.Sections {
		b.Sections[i] = s.SectionID
		b.SectionNames[s.SectionID] = s.Name
	}
	return out, nil
}

// sectionExplanation is one section of GET /rulebooks/{id}/explain.
type sectionExplanation struct {
	Letter        string                      `json:"letter"`
	SectionID     string                      `json:"section_id"`
	RulesetID     string                      `json:"ruleset_id" doc:"The member cut explained."`
	Slug          string                      `json:"slug"`
	Name          string                      `json:"name"`
	ContentDigest string                      `json:"content_digest"`
	Groups        []resource.ExplainGroup     `json:"groups" nullable:"false"`
	Criteria      []resource.ExplainCriterion `json:"criteria" nullable:"false"`
}

type explainOutput struct {
	Body rulebookExplanation
}

// rulebookExplanation is explainOutput's body, published as RulebookExplanation.
type rulebookExplanation struct {
	RulebookID      string               `json:"rulebook_id"`
	Slug            string               `json:"slug"`
	Name            string               `json:"name"`
	ContentIdentity string               `json:"content_identity" doc:"The content identity of what is explained; empty for a draft with no sections."`
	OutcomeLogic    *rulebook.Node       `json:"outcome_logic" doc:"The outcome tree over the section letters; null for a draft with no sections."`
	Sections        []sectionExplanation `json:"sections" nullable:"false"`
	Release         *resource.Release    `json:"release"`
}

func (h *handler) explain(ctx context.Context, in *releaseInput) (*explainOutput, error) {
	p, rb, err := h.readable(ctx, in.RulebookID, in.ReleaseID)
	if err != nil {
		return nil, err
	}
	out := &explainOutput{}
	b := &out.Body
	b.RulebookID, b.Slug, b.Name, b.Sections = rb.ID, rb.Slug, rb.Name, []sectionExplanation{}
	if p == nil {
		return out, nil
	}
	b.ContentIdentity = p.Identity
	b.OutcomeLogic, b.Release = p.Composed.Outcome, resource.ReleaseOf(p.Release)
	for i, m := range p.Members {
		s := sectionExplanation{Letter: rulebook.Letter(i), SectionID: m.SectionID, RulesetID: m.ID, Slug: m.Slug,
			Name: m.Name, ContentDigest: m.ContentDigest}
		s.Groups, s.Criteria = resource.Explain(m, false)
		b.Sections = append(b.Sections, s)
	}
	return out, nil
}

type graphOutput struct {
	Body rulebookGraph
}

// rulebookGraph is graphOutput's body, published as RulebookGraph.
type rulebookGraph struct {
	RulebookID string         `json:"rulebook_id"`
	Slug       string         `json:"slug"`
	Name       string         `json:"name"`
	Graph      resource.Graph `json:"graph" doc:"nodes[] (ids prefixed with the section's slug), edges[], sections[] (the section slugs) and stats (shared_fields counts fields shared by sections)."`
	Mermaid    string         `json:"mermaid"`
}

func (h *handler) graph(ctx context.Context, in *releaseInput) (*graphOutput, error) {
	p, rb, err := h.readable(ctx, in.RulebookID, in.ReleaseID)
	if err != nil {
		return nil, err
	}
	g := &present.Graph{Nodes: []present.GraphNode{}, Edges: []present.GraphEdge{}, Sections: []string{}}
	if p != nil {
		g = p.Composed.Graph(nil, nil)
	}
	out := &graphOutput{}
	out.Body.RulebookID, out.Body.Slug, out.Body.Name = rb.ID, rb.Slug, rb.Name
	out.Body.Graph, out.Body.Mermaid = resource.Graph{Graph: g}, g.Mermaid()
	return out, nil
}

type graphBySlugInput struct {
	Namespace string `path:"namespace" maxLength:"100"`
	Name      string `path:"name" maxLength:"200"`
	ReleaseID string `query:"release_id" maxLength:"100" doc:"A release UUID or exact two-word label."`
}

func (h *handler) graphBySlug(ctx context.Context, in *graphBySlugInput) (*graphOutput, error) {
	slug, err := url.PathUnescape(in.Namespace + "/" + in.Name)
	if err != nil {
		slug = in.Namespace + "/" + in.Name
	}
	return h.graph(ctx, &releaseInput{RulebookID: slug, ReleaseID: in.ReleaseID})
}
