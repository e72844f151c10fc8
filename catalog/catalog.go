package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/hashicorp/golang-lru/v2/expirable"
	"golang.org/x/sync/singleflight"

	"github.com/eligo/eligo/engine"
	"github.com/eligo/eligo/metrics"
	"github.com/eligo/eligo/rulebook"
	"github.com/eligo/eligo/solver"
	"github.com/eligo/eligo/solver/plan"
	"github.com/eligo/eligo/store"
)

// DefaultRefTTL is how long a resolved reference is reused when
// Config.RefTTL is zero: the bound on how stale a slug pointer moved by
// another process may be should its notification be lost (normally the
// notification drops the entry within milliseconds). While the database
// cannot be reached, a reference resolved within store.OutageWindow is
// served as it was last read (see "PostgreSQL down" in
// docs/decision-records.md#where-a-record-is-durable-the-modes-and-what-each-survives).
const DefaultRefTTL = 2 * time.Second

// Cache sizes. A loaded ruleset is tens of kilobytes; a prepared explainer
// holds a Z3 context, so its cache and idle pool stay small.
const (
	refCacheSize      = 4096
	loadedCacheSize   = 512
	composedCacheSize = 256
	explainerCacheLen = 32
	explainerIdle     = 2
)

// Config tunes a Catalog; the zero value is the production setting.
type Config struct {
	// RefTTL bounds how long a resolved reference is reused; zero means
	// DefaultRefTTL.
	RefTTL time.Duration
	// Metrics counts cache lookups and invalidations; nil counts nothing.
	Metrics *metrics.Metrics
	// Planner works out next questions and shortest paths for the
	// prepared rulesets (PreparedRuleset.Plan). The composition root
	// builds it and closes it after the catalog; nil plans nothing
	// (ErrNoPlanner), for a catalog that only resolves and publishes.
	Planner *plan.Planner
}

// ErrNoPlanner is PreparedRuleset.Plan's error in a catalog built without
// a Config.Planner.
var ErrNoPlanner = errors.New("catalog: no planner: Config.Planner is not set")

// Viewer is who a read is for. The zero Viewer is an anonymous caller,
// who sees public content only; a tenant also sees its own private
// content.
type Viewer struct {
	// TenantID is the tenant whose private objects the viewer may see;
	// empty for an anonymous viewer.
	TenantID string
}

// Anonymous reports whether v is the anonymous viewer, to whom artefact
// (v2) source references are never shown.
func (v Viewer) Anonymous() bool { return v.TenantID == "" }

// mayView reports whether v may see row at all.
func (v Viewer) mayView(row store.Cut) bool {
	return row.Visibility == store.VisibilityPublic || (v.TenantID != "" && v.TenantID == row.TenantID)
}

// Catalog resolves references to prepared rulesets through its caches.
// Build one per process with New; it is safe for concurrent use. Close it
// to free the solver state it holds.
type Catalog struct {
	store *store.Store
	// refs caches reference (slug or id) -> stored cut; a zero cut is a
	// remembered miss. Through an outage it serves what it read within
	// store.OutageWindow.
	refs   *store.RowCache[store.Cut]
	loaded *lru.Cache[string, *engine.Ruleset]
	loads  singleflight.Group
	// explainers keeps a solver.Explainer per content digest; eviction
	// closes it.
	explainers *lru.Cache[string, *solver.Explainer]
	// planner works out next questions and shortest paths, with its
	// caches of way models and plans by content digest (Config.Planner;
	// nil plans nothing).
	planner *plan.Planner
	// composed keeps rulebook compositions by content identity and names.
	composed *lru.Cache[string, *rulebook.Composed]
	// rulebooks caches reference -> stored rulebook, like refs.
	rulebooks *store.RowCache[store.Rulebook]
	// releases caches (rulebook id, release id or label) -> the release
	// row, and prepared the composed content by release id: releases are
	// immutable, so neither expires.
	releases *lru.Cache[string, store.Release]
	prepared *lru.Cache[string, *preparedRelease]
	// inForce caches RulesetsInForce's answer (the active cuts under a
	// slug in force on a date, newest first) for RulesetOn, keyed by
	// slug and date (inForcePrefix), like refs: a cut's invalidation drops
	// the entries of its slug.
	inForce *store.RowCache[[]store.Cut]
	// metrics counts lookups and invalidations for operators.
	metrics *metrics.Metrics
	// suggestions remembers, per viewer, the slugs a not-found answer
	// may propose (see suggest.go).
	suggestions *expirable.LRU[string, []string]
	// answerLogging caches the answer logging setting of (tenant, kind,
	// slug), off (the zero setting) included, like refs: /decide reads it
	// on every keyed decision (answerlogging.go).
	answerLogging *store.RowCache[store.AnswerLogging]
}

// New builds a catalog over st.
func New(st *store.Store, cfg Config) *Catalog {
	if cfg.RefTTL <= 0 {
		cfg.RefTTL = DefaultRefTTL
	}
	loaded, err := lru.New[string, *engine.Ruleset](loadedCacheSize)
	if err != nil {
		// Only a non-positive size fails, and the size is a constant.
		panic(err)
	}
	explainers, err := lru.NewWithEvict(explainerCacheLen, func(_ string, e *solver.Explainer) { e.Close() })
	if err != nil {
		panic(err)
	}
	composed, err := lru.New[string, *rulebook.Composed](composedCacheSize)
	if err != nil {
		panic(err)
	}
	releases, err := lru.New[string, store.Release](composedCacheSize * 4)
	if err != nil {
		panic(err)
	}
	prepared, err := lru.New[string, *preparedRelease](composedCacheSize)
	if err != nil {
		panic(err)
	}
	return &Catalog{
		metrics:     cfg.Metrics,
		suggestions: newSuggestionCache(),
		planner:     cfg.Planner,
		rulebooks:   store.NewRowCache[store.Rulebook](refCacheSize, cfg.RefTTL),
		releases:    releases,
		prepared:    prepared,
		composed:    composed,
		store:       st,
		refs:        store.NewRowCache[store.Cut](refCacheSize, cfg.RefTTL),
		inForce:     store.NewRowCache[[]store.Cut](refCacheSize, cfg.RefTTL),
		loaded:      loaded,
		explainers:  explainers,

		answerLogging: store.NewRowCache[store.AnswerLogging](refCacheSize, cfg.RefTTL),
	}
}

// Close frees the prepared explainers' solver state (the planner's is
// its builder's to free). The catalog must not be used afterwards.
func (c *Catalog) Close() {
	c.explainers.Purge()
}

// Ruleset resolves ref (a slug, which may contain '/', or a concrete
// ruleset_id) for v and loads it: ErrNotFound when v may not see it (see
// Row), ErrCorrupt when its stored content cannot be served.
func (c *Catalog) Ruleset(ctx context.Context, v Viewer, ref string) (*PreparedRuleset, error) {
	row, err := c.Row(ctx, v, ref)
	if err != nil {
		return nil, err
	}
	return c.Load(ctx, row)
}

// Row is the stored cut ref names when v may see it, without loading its
// content: anonymous viewers see public cuts, a tenant also its own
// private ones; a slug pointing at an archived cut is not found, while the
// concrete id of an archived cut still resolves, so that decisions can be
// replayed. Anything else is ErrNotFound.
func (c *Catalog) Row(ctx context.Context, v Viewer, ref string) (store.Cut, error) {
	row, err := c.lookup(ctx, ref)
	if errors.Is(err, store.ErrNotFound) {
		return store.Cut{}, c.notFoundFor(kindRuleset, v, ref)
	}
	if err != nil {
		return store.Cut{}, fmt.Errorf("resolve ruleset %q: %w", ref, err)
	}
	if !v.mayView(row) || (row.Status == store.StatusArchived && !store.IsConcreteRulesetID(ref)) {
		return store.Cut{}, c.notFoundFor(kindRuleset, v, ref)
	}
	return row, nil
}

// Owned is the cut ref names now, archived or not, when it belongs to
// tenantID; otherwise ErrNotFound, as for an unknown ruleset. It reads the
// database, not the reference cache, so a write acts on the cut the slug
// points at now.
func (c *Catalog) Owned(ctx context.Context, tenantID, ref string) (store.Cut, error) {
	if !lookable(ref) {
		return store.Cut{}, c.notFoundFor(kindRuleset, Viewer{TenantID: tenantID}, ref)
	}
	row, err := c.store.RulesetByRef(ctx, ref)
	if errors.Is(err, store.ErrNotFound) || (err == nil && row.TenantID != tenantID) {
		return store.Cut{}, c.notFoundFor(kindRuleset, Viewer{TenantID: tenantID}, ref)
	}
	if err != nil {
		return store.Cut{}, fmt.Errorf("resolve ruleset %q: %w", ref, err)
	}
	return row, nil
}

// Forget drops the cached references to a cut this process just changed,
// so its next read sees the change at once (other processes drop theirs
// when the write's notification reaches them: InvalidateRuleset).
func (c *Catalog) Forget(row store.Cut) {
	c.InvalidateRuleset(row.ID, row.Slug)
}

// InvalidateRuleset drops the cached resolutions of the cut id and of
// slug: called for every cut whose visibility, status or slug pointer
// changed, in any process (store.InvalidationChannel), so the next read
// resolves it afresh.
func (c *Catalog) InvalidateRuleset(id, slug string) {
	c.metrics.Invalidated()
	c.refs.Remove(id, slug)
	c.inForce.RemoveMatching(func(key string) bool { return slug == "" || strings.HasPrefix(key, inForcePrefix(slug)) })
}

// InvalidateRulebook drops the cached resolutions of the rulebook id and
// of slug, as InvalidateRuleset does for a cut. Releases and their
// compositions are immutable and stay.
func (c *Catalog) InvalidateRulebook(id, slug string) {
	c.metrics.Invalidated()
	c.rulebooks.Remove(id, slug)
}

// InvalidateAll drops every cached resolution of a reference (cuts and
// rulebooks) and every cached answer logging setting, for when changes may have been missed (the invalidation
// listener reconnected). Content cached by digest or release id is
// immutable and stays.
func (c *Catalog) InvalidateAll() {
	c.metrics.Invalidated()
	c.refs.Purge()
	c.rulebooks.Purge()
	c.inForce.Purge()
	c.answerLogging.Purge()
}

// Source is the published .rules text of the cut ref names, for v. The
// text must hash to the digest recorded when it was published, and the
// cut's content must load like on every other read: otherwise ErrCorrupt,
// since an export labelled with the cut's digest must be the text that
// produced it.
func (c *Catalog) Source(ctx context.Context, v Viewer, ref string) (*PreparedRuleset, string, error) {
	rs, err := c.Ruleset(ctx, v, ref)
	if err != nil {
		return nil, "", err
	}
	text, digest, err := c.store.RulesetSource(ctx, rs.ID)
	if err != nil {
		return nil, "", fmt.Errorf("ruleset %s source: %w", rs.ID, err)
	}
	if got := SourceDigest([]byte(text)); got != digest {
		return nil, "", fmt.Errorf("ruleset %s: %w: source text hashes to %s, recorded %s", rs.ID, ErrCorrupt, got, digest)
	}
	return rs, text, nil
}

// SourceDigest is the digest recorded for a cut's source text: "sha256:"
// and the hex SHA-256 of its bytes.
func SourceDigest(text []byte) string {
	sum := sha256.Sum256(text)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Load prepares the content of a stored cut the caller has already
// resolved: from the loaded-content cache when there, else from its stored
// IR. The IR must load and hash to the row's content digest, else
// ErrCorrupt.
func (c *Catalog) Load(ctx context.Context, row store.Cut) (*PreparedRuleset, error) {
	rules, err := c.rules(ctx, row)
	if err != nil {
		return nil, err
	}
	return &PreparedRuleset{Cut: row, Label: row.VersionLabel(), Rules: rules, catalog: c}, nil
}

// lookup returns the stored cut ref names, from the cache when fresh, or
// when the database cannot be reached and ref was resolved within
// store.OutageWindow.
func (c *Catalog) lookup(ctx context.Context, ref string) (store.Cut, error) {
	if !lookable(ref) {
		return store.Cut{}, store.ErrNotFound
	}
	row, hit, err := c.refs.Read(ctx, ref, func(ctx context.Context) (store.Cut, error) {
		row, err := c.store.RulesetByRef(ctx, ref)
		if errors.Is(err, store.ErrNotFound) {
			// Misses are cached like hits, so that a reference that does
			// not exist costs what one private to another tenant costs (a
			// cache hit, then 404): the time of a 404 must not tell whether
			// the object exists. A publish under ref drops the entry
			// (Forget, or the invalidation of another process's publish).
			return store.Cut{}, nil
		}
		return row, err
	})
	c.metrics.CacheLookup(metrics.CacheReferences, hit)
	if err != nil {
		return store.Cut{}, err
	}
	if row.ID == "" { // a remembered miss
		return store.Cut{}, store.ErrNotFound
	}
	return row, nil
}

// rules returns the executable ruleset of row's content digest, loading
// the stored IR on the first use.
func (c *Catalog) rules(ctx context.Context, row store.Cut) (*engine.Ruleset, error) {
	r, ok := c.loaded.Get(row.ContentDigest)
	c.metrics.CacheLookup(metrics.CacheContent, ok)
	if ok {
		return r, nil
	}
	// The load is shared by every caller waiting on this digest, so one
	// caller's cancellation must not fail the others.
	shared := context.WithoutCancel(ctx)
	v, err, _ := c.loads.Do(row.ContentDigest, func() (any, error) {
		content, err := c.store.RulesetContent(shared, row.ID)
		if err != nil {
			return nil, fmt.Errorf("ruleset %s content: %w", row.ID, err)
		}
		r, err := LoadContent(row, content)
		if err != nil {
			return nil, err
		}
		c.loaded.Add(row.ContentDigest, r)
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*engine.Ruleset), nil
}

// LoadContent turns a cut's stored IR into its executable ruleset and
// checks that it is the content the row's digest names. Any failure is
// ErrCorrupt, with the cause: an IR of a version this engine does not
// read, an IR that does not load, or one whose digest differs.
func LoadContent(row store.Cut, content store.RulesetContent) (*engine.Ruleset, error) {
	r, err := engine.LoadIR(content.IRVersion, content.IR)
	if err != nil {
		return nil, fmt.Errorf("ruleset %s: %w: %w", row.ID, ErrCorrupt, err)
	}
	if r.ContentDigest() != row.ContentDigest {
		return nil, fmt.Errorf("ruleset %s: %w: stored IR hashes to %s, recorded %s", row.ID, ErrCorrupt, r.ContentDigest(), row.ContentDigest)
	}
	return r, nil
}
