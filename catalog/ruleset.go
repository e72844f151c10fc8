package catalog

import (
	"context"
	"fmt"
	"time"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver"
	"github.com/eligo/eligo/solver/plan"
	"github.com/eligo/eligo/store"
)

// PreparedRuleset is a published cut ready to evaluate: what a resolved
// reference hands to /decide, the ruleset reads, a worker or the CLI. It
// carries the loaded rules and reaches the solver state prepared for its
// content (Explainer, Plan), kept by the catalog that handed it out, as
// OPA's PrepareForEval keeps a prepared query.
type PreparedRuleset struct {
	// Ruleset is the stored cut the reference named: ids, slug, version,
	// digest, visibility and the publish-time source checks
	// (SourceReferences puts those on the wire).
	store.Cut
	// Label is the cut's "v<N>", formatted once for every envelope.
	Label string
	// Rules is the executable ruleset loaded from the stored IR; shared
	// between callers, never modify it.
	Rules *engine.Ruleset
	// catalog keeps the solver state prepared for Rules.
	catalog *Catalog
}

// Explainer returns the explain-failure solver of the content, prepared
// once and reused while it stays among the recently used.
func (r *PreparedRuleset) Explainer() *solver.Explainer {
	c := r.catalog
	if e, ok := c.explainers.Get(r.ContentDigest); ok {
		return e
	}
	e := solver.NewExplainer(r.Rules, explainerIdle)
	if prev, found, _ := c.explainers.PeekOrAdd(r.ContentDigest, e); found {
		e.Close()
		return prev
	}
	return e
}

// Plan works out the next question and the shortest path to an outcome
// for answers in, whose evaluation is res, within the inquiry ic (see
// plan.Planner.Plan); plans and the model behind them are cached by
// content. It fails with ErrNoPlanner in a catalog built without one.
func (r *PreparedRuleset) Plan(ctx context.Context, in *engine.Inputs, res *engine.Result, ic plan.InquiryContext) (plan.Plan, error) {
	if r.catalog.planner == nil {
		return plan.Plan{}, ErrNoPlanner
	}
	return r.catalog.planner.Plan(ctx, r.Rules, in, res, ic)
}

// SourceReference is a citation on the wire (docs/api.md#source-references): as the engine
// knows it, with what the publish path verified of its source.
type SourceReference struct {
	// Source is the id of the source declared in the ruleset.
	Source string `json:"source" doc:"Id of the source declared in the ruleset."`
	// Title is the declared source's title.
	Title string `json:"title"`
	// Quote holds the verbatim quote.
	Quote Quote `json:"quote"`
	// URL is the cited text's address (v1) or an artefact locator (v2).
	URL string `json:"url" doc:"Address of the cited text (v1) or an artefact locator (v2)."`
	// ContentDigest is the digest of the text the quote was verified
	// against; empty when the cut was published without source texts.
	ContentDigest string `json:"content_digest,omitempty" doc:"Digest of the bytes the quote was verified against."`
	// VerifiedAt is when the quote was verified; zero when unverified.
	VerifiedAt time.Time `json:"verified_at,omitzero" doc:"When the quote was verified."`
	// DeepLink locates the quote in the source text.
	DeepLink string `json:"deep_link" doc:"URL with a #:~:text= fragment of the quote."`
	// Licence is the licence the source is published under; never empty.
	Licence string `json:"licence"`
	// SchemaVersion is 1 for a URL reference, 2 for an artefact.
	SchemaVersion int `json:"schema_version" enum:"1,2"`
	// Snapshot equals ContentDigest on a verified v1 reference: the key of
	// the retained copy of the text.
	Snapshot string `json:"snapshot,omitempty" doc:"Equal to content_digest; keys the retained copy of the text."`
	// TargetKind is "artefact" on a v2 reference, else empty.
	TargetKind string `json:"target_kind,omitempty" enum:"artefact"`
	// ArtefactProjectID and ArtefactSourceID name the uploaded project
	// file a v2 reference cites; empty on v1.
	ArtefactProjectID string `json:"artefact_project_id,omitempty" doc:"v2: the project of the cited file."`
	ArtefactSourceID  string `json:"artefact_source_id,omitempty" doc:"v2: the cited project file."`
}

// Quote is a SourceReference's quote.
type Quote struct {
	// Exact is the verbatim quote, verified after white-space
	// normalisation only.
	Exact string `json:"exact" doc:"The verbatim quote."`
}

// SourceReferences converts the engine's references of one criterion of r
// to the wire's SourceReference (docs/api.md#source-references), adding what the publish path verified
// (content_digest, verified_at, snapshot) and leaving artefact (v2)
// references out for an anonymous viewer, who never sees them. It is the
// one conversion behind every place references reach a caller.
func (r *PreparedRuleset) SourceReferences(refs []engine.SourceReference, anonymous bool) []SourceReference {
	out := make([]SourceReference, 0, len(refs))
	for _, ref := range refs {
		if ref.TargetKind == "artefact" && anonymous {
			continue
		}
		w := SourceReference{Source: ref.Source, Title: ref.Title, Quote: Quote{Exact: ref.Quote.Exact}, URL: ref.URL,
			DeepLink: ref.DeepLink, Licence: ref.Licence, SchemaVersion: ref.SchemaVersion, TargetKind: ref.TargetKind}
		if check, ok := r.SourceChecks[ref.Source]; ok {
			w.ContentDigest, w.VerifiedAt = check.ContentDigest, check.VerifiedAt
			w.ArtefactProjectID, w.ArtefactSourceID = check.ArtefactProjectID, check.ArtefactSourceID
			if ref.TargetKind == "" {
				w.Snapshot = check.ContentDigest
			}
			// A quote found in a PDF links to its page (#page=N,
			// docs/api.md#source-references) rather than to a text fragment.
			if page, ok := check.QuotePages[ref.Quote.Exact]; ok && page > 0 {
				w.DeepLink = fmt.Sprintf("%s#page=%d", ref.URL, page)
			}
		}
		out = append(out, w)
	}
	return out
}

// CitesArtefacts reports whether rules declare an artefact source (a v2
// reference to a project file). Such content is never public: its
// references never reach an anonymous caller.
func CitesArtefacts(rules *engine.Ruleset) bool {
	for _, src := range rules.Sources {
		if src.Artefact != "" {
			return true
		}
	}
	return false
}
