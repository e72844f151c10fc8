package catalog

import (
	"context"
	"errors"
	"strings"

	"github.com/eligo/eligo/store"
)

// AnswerLogging is the answer logging setting of the tenant's slug of kind
// (store.KindRuleset or store.KindRulebook), the zero setting when logging
// is off: what /decide reads on every keyed decision, so it is cached
// (misses too) for the reference TTL and dropped when a write's
// notification arrives (InvalidateAnswerLogging), with no database round
// trip per decision. Through an outage the setting read within
// store.OutageWindow answers; an error means neither the database nor a
// recent copy could say.
func (c *Catalog) AnswerLogging(ctx context.Context, tenantID, kind, slug string) (store.AnswerLogging, error) {
	a, _, err := c.answerLogging.Read(ctx, answerLoggingKey(tenantID, kind, slug), func(ctx context.Context) (store.AnswerLogging, error) {
		a, err := c.store.AnswerLoggingOf(ctx, tenantID, kind, slug)
		if errors.Is(err, store.ErrNotFound) {
			return store.AnswerLogging{}, nil
		}
		return a, err
	})
	return a, err
}

// InvalidateAnswerLogging drops the cached setting an invalidation of kind
// store.InvalidateAnswerLogging names (tenant, "<kind>:<slug>"), in any
// process, so the next decision under the slug reads it afresh.
func (c *Catalog) InvalidateAnswerLogging(tenantID, kindSlug string) {
	c.metrics.Invalidated()
	kind, slug, _ := strings.Cut(kindSlug, ":")
	c.answerLogging.Remove(answerLoggingKey(tenantID, kind, slug))
}

// answerLoggingKey is the cache key of a setting; NUL separates the parts,
// which none of them holds.
func answerLoggingKey(tenantID, kind, slug string) string {
	return tenantID + "\x00" + kind + "\x00" + slug
}
