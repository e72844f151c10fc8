package catalog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/store"
)

// A reference that is not found may be a slip of the keyboard: the 404
// says which slug was probably meant (docs/api.md#errors). Only what the
// viewer may see is ever proposed (public content, and the viewer's own
// tenant's), so a suggestion never names another tenant's private
// object; and every not-found answer computes its suggestion the same way
// over the same candidates, whether or not an invisible object exists
// under the reference, so neither the suggestion nor the time it takes
// tells anything about such an object.

// Suggestion bounds: the candidates are the first slugs of the viewer's
// catalogue, remembered per viewer for suggestionTTL, so a flood of 404s
// costs one listing per viewer per TTL, and a suggestion one edit distance
// per candidate.
const (
	maxSuggestionCandidates = 2000
	suggestionTTL           = 30 * time.Second
	suggestionViewers       = 1024
)

// Kinds of reference a NotFoundError is about.
const (
	kindRuleset  = "ruleset"
	kindRulebook = "rulebook"
)

// NotFoundError is the ErrNotFound of one reference a viewer looked up
// (errors.Is(err, ErrNotFound) holds). Suggest proposes what was meant.
type NotFoundError struct {
	// Ref is the reference as given.
	Ref     string
	kind    string
	viewer  Viewer
	catalog *Catalog
}

// Error says what was not found.
func (e *NotFoundError) Error() string { return fmt.Sprintf("%s %q: %v", e.kind, e.Ref, ErrNotFound) }

// Is makes the error ErrNotFound.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// Suggest is the slug of the viewer's catalogue nearest to Ref
// (engine.Nearest), or "" when none is close or the candidates cannot be
// read. It is computed only when a not-found answer is written.
func (e *NotFoundError) Suggest(ctx context.Context) string {
	if e.catalog == nil {
		return ""
	}
	slugs, err := e.catalog.candidates(ctx, e.kind, e.viewer)
	if err != nil {
		return ""
	}
	return engine.Nearest(e.Ref, slugs)
}

// SuggestionFor is what err, a lookup's error, suggests for its
// reference: "" when err is not a NotFoundError or nothing is close.
func SuggestionFor(ctx context.Context, err error) string {
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		return ""
	}
	return nf.Suggest(ctx)
}

// notFoundFor is the NotFoundError of ref of kind looked up by v.
func (c *Catalog) notFoundFor(kind string, v Viewer, ref string) error {
	return &NotFoundError{Ref: ref, kind: kind, viewer: v, catalog: c}
}

// candidates are the slugs of kind v may see, remembered for
// suggestionTTL.
func (c *Catalog) candidates(ctx context.Context, kind string, v Viewer) ([]string, error) {
	key := kind + "\x00" + v.TenantID
	if slugs, ok := c.suggestions.Get(key); ok {
		return slugs, nil
	}
	var slugs []string
	switch kind {
	case kindRuleset:
		rows, err := c.ListRulesets(ctx, v, store.RulesetQuery{Limit: maxSuggestionCandidates})
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			slugs = append(slugs, r.Slug)
		}
	case kindRulebook:
		rows, err := c.ListRulebooks(ctx, v, "", maxSuggestionCandidates)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			slugs = append(slugs, r.Slug)
		}
	}
	c.suggestions.Add(key, slugs)
	return slugs, nil
}

// newSuggestionCache is the per-viewer candidate cache.
func newSuggestionCache() *expirable.LRU[string, []string] {
	return expirable.NewLRU[string, []string](suggestionViewers, nil, suggestionTTL)
}
