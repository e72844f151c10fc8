package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/hashicorp/golang-lru/v2/expirable"
	"golang.org/x/sync/singleflight"

	"github.com/eligo/eligo/auth"
	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/solver"
	"github.com/eligo/eligo/store"
)

// This file resolves a ruleset reference (a slug or a concrete ruleset_id)
// to a compiled ruleset, for /decide and the ruleset reads. It is the hot
// path of every decision, so both of its steps are cached:
//
//   - reference → stored cut (metadata only: id, slug, version, digest,
//     visibility, status, tenant): an expirable LRU with a short TTL
//     (refTTL). A republish in another process moves a slug's pointer in the
//     database; this process sees it when the entry expires, at most refTTL
//     later. Writes made through this process (visibility, archive) drop
//     the entries at once. A concrete id always names the same content, so
//     only its visibility and status can go stale, for the same bound.
//   - content digest → *engine.Ruleset: a size-bounded LRU (no TTL: a
//     digest names immutable content). A miss reads the source text once and
//     compiles it; concurrent misses on one digest share one compile.
//
// Visibility is judged after the cache, per caller, so a cached entry never
// leaks a private ruleset to another tenant.

// Catalog cache sizes and the pointer TTL.
const (
	refTTL          = 2 * time.Second
	refCacheSize    = 4096
	compileCacheLen = 512
	// explainerCacheLen bounds the rulesets whose prepared explain-failure
	// solver state is kept, explainerIdle the idle states kept per ruleset:
	// a prepared state holds a Z3 context, so both stay small.
	explainerCacheLen = 32
	explainerIdle     = 2
)

// resolvedRuleset is a ruleset the caller may see, ready to evaluate.
type resolvedRuleset struct {
	// Ruleset is the stored cut the reference named: ids, slug, version,
	// digest, visibility, publish-time source checks; use
	// sourceReferences to put the checks on the wire.
	store.Ruleset
	// Label is the cut's "v<N>", formatted once for every envelope.
	Label string
	// Rules is the compiled, immutable ruleset; shared, never modify it.
	Rules *engine.Ruleset
}

// catalog holds the two caches. One per Server.
type catalog struct {
	store    *store.Store
	refs     *expirable.LRU[string, store.Ruleset]
	compiled *lru.Cache[string, *engine.Ruleset]
	compiles singleflight.Group
	// explainers keeps a solver.Explainer per content digest; eviction
	// closes it.
	explainers *lru.Cache[string, *solver.Explainer]
}

// newCatalog builds the caches; ttl bounds how stale a pointer may be.
func newCatalog(st *store.Store, ttl time.Duration) *catalog {
	compiled, err := lru.New[string, *engine.Ruleset](compileCacheLen)
	if err != nil {
		// Only a non-positive size fails, and the size is a constant.
		panic(err)
	}
	explainers, err := lru.NewWithEvict(explainerCacheLen, func(_ string, e *solver.Explainer) { e.Close() })
	if err != nil {
		panic(err)
	}
	return &catalog{
		store:      st,
		refs:       expirable.NewLRU[string, store.Ruleset](refCacheSize, nil, ttl),
		compiled:   compiled,
		explainers: explainers,
	}
}

// explainer returns the explain-failure solver of rr's content, prepared
// once and reused while it stays among the recently used.
func (c *catalog) explainer(rr *resolvedRuleset) *solver.Explainer {
	if e, ok := c.explainers.Get(rr.ContentDigest); ok {
		return e
	}
	e := solver.NewExplainer(rr.Rules, explainerIdle)
	if prev, found, _ := c.explainers.PeekOrAdd(rr.ContentDigest, e); found {
		e.Close()
		return prev
	}
	return e
}

// errRulesetNotFound is the spec's 404 for a ruleset the caller cannot see:
// a plain string detail, identical whether the ruleset is missing, private
// to another tenant or private to an anonymous caller.
func errRulesetNotFound(ref string) *Error {
	return NotFound(fmt.Sprintf("Ruleset %q not found.", ref))
}

// resolveRuleset turns ref (a slug, which may contain '/', or a concrete
// ruleset_id) into the compiled ruleset it names, for the caller in ctx:
// anonymous callers see public rulesets only; a principal (see
// auth.PrincipalFrom) also sees its tenant's private ones. A slug pointing
// at an archived cut is not found; a concrete id of an archived cut still
// resolves, so that decisions can be replayed. Errors are API errors ready
// to return: the 404 above, or an opaque 500 whose cause is logged.
func (s *Server) resolveRuleset(ctx context.Context, ref string) (*resolvedRuleset, error) {
	row, err := s.visibleRuleset(ctx, ref)
	if err != nil {
		return nil, err
	}
	compiled, err := s.compileStored(ctx, row)
	if err != nil {
		return nil, err
	}
	return &resolvedRuleset{Ruleset: row, Label: row.VersionLabel(), Rules: compiled}, nil
}

// compileStored is the compiled ruleset of a stored cut the caller may
// act on, from the compile cache when there. A record that no longer
// compiles to its digest is the spec's 422 ruleset_record_corrupt (the
// cause is logged), never a 500 or a wrong answer.
func (s *Server) compileStored(ctx context.Context, row store.Ruleset) (*engine.Ruleset, error) {
	compiled, err := s.catalog.compile(ctx, row)
	if err != nil {
		return nil, rulesetCorrupt(ctx, row, err)
	}
	return compiled, nil
}

// rulesetCorrupt logs why a stored cut could not be loaded and returns the
// spec's 422 ruleset_record_corrupt.
func rulesetCorrupt(ctx context.Context, row store.Ruleset, err error) *Error {
	logFrom(ctx).ErrorContext(ctx, "compile stored ruleset", "ruleset_id", row.ID, "error", err)
	return NewProblem(http.StatusUnprocessableEntity, "unprocessable_entity", "ruleset_record_corrupt",
		"The stored ruleset could not be loaded. Republish it.")
}

// visibleRuleset is the stored cut ref names when the caller in ctx may see
// it, under the rules of resolveRuleset, without compiling it.
func (s *Server) visibleRuleset(ctx context.Context, ref string) (store.Ruleset, error) {
	row, err := s.catalog.lookup(ctx, ref)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		logFrom(ctx).ErrorContext(ctx, "resolve ruleset", "ref", ref, "error", err)
		return store.Ruleset{}, Internal()
	}
	if err != nil || !visibleTo(ctx, row) {
		// Nothing this caller may see. A key presented but unusable earns
		// its own 401/403 (spec, Authentication 2 and 6), whether or not
		// ref exists, so the answer tells no tenant about another's
		// objects; otherwise the answer is the plain 404.
		if refusal := presentedKeyRefusal(ctx); refusal != nil {
			return store.Ruleset{}, refusal
		}
		return store.Ruleset{}, errRulesetNotFound(ref)
	}
	if row.Status == store.StatusArchived && !store.IsConcreteRulesetID(ref) {
		return store.Ruleset{}, errRulesetNotFound(ref)
	}
	return row, nil
}

// visibleTo reports whether the caller in ctx may see row at all.
func visibleTo(ctx context.Context, row store.Ruleset) bool {
	if row.Visibility == store.VisibilityPublic {
		return true
	}
	p, ok := auth.PrincipalFrom(ctx)
	return ok && p.TenantID == row.TenantID
}

// lookup returns the stored cut ref names, from the cache when fresh.
func (c *catalog) lookup(ctx context.Context, ref string) (store.Ruleset, error) {
	if row, ok := c.refs.Get(ref); ok {
		return row, nil
	}
	row, err := c.store.RulesetByRef(ctx, ref)
	if err != nil {
		return store.Ruleset{}, err
	}
	c.refs.Add(ref, row)
	return row, nil
}

// forget drops the cached pointers of a cut this process just changed.
func (c *catalog) forget(row store.Ruleset) {
	c.refs.Remove(row.ID)
	c.refs.Remove(row.Slug)
}

// compile returns the compiled ruleset of row's content digest, compiling
// the stored source on the first use. The compiled digest must equal the
// stored one: a mismatch means the record or the engine changed under it.
func (c *catalog) compile(ctx context.Context, row store.Ruleset) (*engine.Ruleset, error) {
	if r, ok := c.compiled.Get(row.ContentDigest); ok {
		return r, nil
	}
	// The compile is shared by every caller waiting on this digest, so one
	// caller's cancellation must not fail the others.
	shared := context.WithoutCancel(ctx)
	v, err, _ := c.compiles.Do(row.ContentDigest, func() (any, error) {
		src, err := c.store.RulesetSource(shared, row.ID)
		if err != nil {
			return nil, err
		}
		r, err := compileSource(row, src)
		if err != nil {
			return nil, err
		}
		c.compiled.Add(row.ContentDigest, r)
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*engine.Ruleset), nil
}

// compileSource compiles a stored cut's source text and checks that it is
// the content the row's digest names: a row whose text no longer compiles
// to its digest is corrupt, and nothing of it may be served.
func compileSource(row store.Ruleset, src string) (*engine.Ruleset, error) {
	r, _, err := engine.Compile(row.Slug+".rules", []byte(src))
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", row.ID, err)
	}
	if r.ContentDigest() != row.ContentDigest {
		return nil, fmt.Errorf("compile %s: digest %s, stored %s", row.ID, r.ContentDigest(), row.ContentDigest)
	}
	return r, nil
}
