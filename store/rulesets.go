package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrSlugConflict is returned by PublishRuleset when the slug belongs to
// another tenant. Slugs are global; only their owner may move them.
var ErrSlugConflict = errors.New("slug held by another tenant")

// Ruleset visibilities and statuses, spelled as stored and as on the wire.
const (
	VisibilityPublic  = "public"
	VisibilityPrivate = "private"
	StatusActive      = "active"
	StatusArchived    = "archived"
)

// Cut is one stored content cut without its source text and IR, which
// only the publish path, the source export and the catalog's loader read
// (RulesetContent, RulesetSource).
type Cut struct {
	// ID is the concrete, immutable ruleset_id (see RulesetID).
	ID string
	// TenantID is the tenant that published the cut and owns its slug.
	TenantID string
	// Slug is the slug the cut was published under. The slug pointer may
	// since have moved to a newer cut.
	Slug string
	// Version is the cut's number under its slug; the wire shows "v<N>".
	Version int
	// SectionID is the source's `section <id>` header; it opens the
	// ruleset_id.
	SectionID string
	// Name is the display name: the publisher's override, else the
	// source's `name` header (itself defaulting to the section id).
	Name string
	// Description is the source's `description` header; may be empty.
	Description string
	// RuleCount is the number of criteria, shown in the catalogue.
	RuleCount int
	// ContentDigest is "sha256:" + hex SHA-256 of the canonical compiled
	// IR (engine.Ruleset.ContentDigest): equal digests mean the same rules,
	// whatever the formatting of the source.
	ContentDigest string
	// IRVersion is the compiled IR format the stored IR is written in
	// (engine.IRVersion when it was cut).
	IRVersion int
	// EngineVersion is the engine build that compiled the cut, e.g.
	// eligo-core@0.31.0; decisions report the engine that runs them.
	EngineVersion string
	// Visibility is VisibilityPublic or VisibilityPrivate.
	Visibility string
	// Status is StatusActive or StatusArchived.
	Status string
	// SourceChecks are the publish-time verifications of the cited
	// sources, by source id; empty when none were verified.
	SourceChecks map[string]SourceCheck
	// CreatedAt is when the cut was first published.
	CreatedAt time.Time
	// UpdatedAt is when the cut last changed: a republish that reused
	// it, or a visibility or status change.
	UpdatedAt time.Time
	// NamespaceVerified is set when an operator verified the slug's
	// namespace for the cut's tenant (`eligo namespaces verify`), so
	// callers can tell an agency's content from anybody's claim.
	NamespaceVerified bool
}

// SourceCheck records that every quote citing one source was found in a
// text: the digest of that text's bytes and when it was checked.
type SourceCheck struct {
	// ContentDigest is "sha256:" + hex SHA-256 of the source text's bytes
	// as checked, so a later reader can tell whether it has the same text.
	ContentDigest string `json:"content_digest"`
	// VerifiedAt is when the quotes were checked (UTC).
	VerifiedAt time.Time `json:"verified_at"`
	// ArtefactProjectID and ArtefactSourceID name the project source a v2
	// (artefact) reference was verified against; empty for v1.
	ArtefactProjectID string `json:"artefact_project_id,omitempty"`
	ArtefactSourceID  string `json:"artefact_source_id,omitempty"`
	// QuotePages maps a quote to the PDF page it was found on, for the
	// reference's #page=N deep link; nil for text and HTML sources.
	QuotePages map[string]int `json:"quote_pages,omitempty"`
}

// VersionLabel is the wire spelling of Version: "v<N>".
func (r Cut) VersionLabel() string { return fmt.Sprintf("v%d", r.Version) }

// RulesetID builds the concrete ruleset_id of a cut:
// <section_id>:<yyyymmdd>-<hash>, where the date is the UTC day of the first
// publish and hash is the first 12 hex digits of
// SHA-256(slug + "\n" + content_digest). The slug is part of the hash so
// that identical content published the same day under two slugs (by two
// tenants, say) gets two ids; within one slug the id is a function of the
// content and the day it was first cut.
func RulesetID(sectionID string, published time.Time, slug, contentDigest string) string {
	sum := sha256.Sum256([]byte(slug + "\n" + contentDigest))
	return sectionID + ":" + published.UTC().Format("20060102") + "-" + hex.EncodeToString(sum[:])[:12]
}

// IsConcreteRulesetID reports whether ref is a concrete ruleset_id rather
// than a slug: slugs never contain a colon, ids always do.
func IsConcreteRulesetID(ref string) bool { return strings.Contains(ref, ":") }

// RulesetCut is what PublishRuleset stores.
type RulesetCut struct {
	// TenantID is the publishing tenant; it is created if new, and must
	// own Slug if the slug exists (else ErrSlugConflict) and its namespace
	// unless it already holds the slug (else ErrNamespaceOwned).
	TenantID string
	// Slug is the slug to publish under.
	Slug string
	// SectionID is the source's section header; it opens the ruleset_id.
	SectionID string
	// Name is the display name.
	Name string
	// Description is the description header; may be empty.
	Description string
	// RuleCount is the number of criteria, for the catalogue.
	RuleCount int
	// ContentDigest is the compiled IR's digest
	// (engine.Ruleset.ContentDigest); a cut under Slug with the same
	// digest is reused rather than a new version added.
	ContentDigest string
	// SourceText is the .rules text as published (the source export).
	SourceText string
	// SourceDigest is "sha256:" + hex SHA-256 of SourceText, checked by
	// the source export.
	SourceDigest string
	// CompiledIR is the JSON of the compiled ruleset: the content that is
	// loaded and evaluated, whose RFC 8785 form ContentDigest hashes.
	CompiledIR []byte
	// IRVersion is the compiled IR format CompiledIR is written in.
	IRVersion int
	// EngineVersion is the engine build that compiled it.
	EngineVersion string
	// TestCases is the JSON array of the test cases the cut was published
	// with (a promotion runs them again); nil stores [].
	TestCases json.RawMessage
	// Visibility is VisibilityPublic or VisibilityPrivate; it is applied to
	// a reused cut too.
	Visibility string
	// SourceChecks are the verifications made for this publish. On a
	// reused cut they replace the stored ones unless empty.
	SourceChecks map[string]SourceCheck
	// PublishedAt dates a new cut's id; zero means now.
	PublishedAt time.Time
	// NamespaceCaps bounds the namespaces the tenant may own when this
	// publish claims the slug's namespace (ErrNamespaceLimit); the zero
	// value caps nothing.
	NamespaceCaps NamespaceCaps
	// Audit are events written in the publish transaction, after the cut
	// (for example publish_force_bypass); their details gain the
	// ruleset_id, slug and version.
	Audit []Audit
	// Provenance records, in the same transaction, the project sources
	// the cut's quotes were verified against (a publish from an authoring
	// project); a recorded source can no longer be deleted.
	Provenance []Provenance
}

// Provenance is one source a published cut declares, bound to the project
// source its quotes were verified against.
type Provenance struct {
	// ProjectID and SourceID name the project source.
	ProjectID, SourceID string
	// RulesSourceID is the source id the rules declare.
	RulesSourceID string
	// TargetKind is "url" (a v1 reference) or "artefact" (v2).
	TargetKind string
	// ContentDigest is the digest of the text the quotes were found in.
	ContentDigest string
}

// Audit is one audit event to write inside another operation's transaction.
type Audit struct {
	// Kind names the event, e.g. publish_force_bypass.
	Kind string
	// Detail is the event's JSON object before the transaction adds its
	// own keys.
	Detail map[string]any
}

// PublishedRuleset is the result of PublishRuleset.
type PublishedRuleset struct {
	// Ruleset is the cut the slug now points at, new or reused.
	Ruleset Cut
	// Reused is true when the slug already had a cut with this content
	// digest: no row was added and the version did not change.
	Reused bool
	// PreviousID is the cut the slug pointed at before, empty for a new
	// slug.
	PreviousID string
}

const rulesetColumns = `r.id, r.tenant_id, r.slug, r.version, r.section_id, r.name, r.description,
r.rule_count, r.content_digest, r.ir_version, r.engine_version, r.visibility, r.status, r.source_checks,
r.created_at, r.updated_at, namespace_verified(r.tenant_id, r.slug)`

func scanRuleset(row pgx.Row) (Cut, error) {
	var r Cut
	err := row.Scan(&r.ID, &r.TenantID, &r.Slug, &r.Version, &r.SectionID, &r.Name, &r.Description,
		&r.RuleCount, &r.ContentDigest, &r.IRVersion, &r.EngineVersion, &r.Visibility, &r.Status, &r.SourceChecks,
		&r.CreatedAt, &r.UpdatedAt, &r.NamespaceVerified)
	return r, err
}

const (
	// Publishes of one slug queue behind each other for the length of
	// their transactions, so version numbers and the pointer never race.
	sqlLockSlug = `SELECT pg_advisory_xact_lock(hashtextextended('ruleset_slug:' || $1, 0))`

	sqlSlugPointer = `SELECT tenant_id, ruleset_id, latest_version FROM ruleset_slugs WHERE slug = $1`

	sqlReuseCut = `
UPDATE rulesets r SET visibility = $3, status = 'active', updated_at = now(),
    source_checks = CASE WHEN $4::jsonb = '{}' THEN r.source_checks ELSE $4::jsonb END
WHERE r.slug = $1 AND r.content_digest = $2
RETURNING ` + rulesetColumns

	// The effective period is read from the compiled IR itself (its
	// "effective" member), so the row can never disagree with the content.
	sqlInsertCut = `
INSERT INTO rulesets AS r (id, tenant_id, slug, version, section_id, name, description, rule_count,
    content_digest, source_text, compiled_ir, visibility, source_checks, ir_version, engine_version, source_digest,
    test_cases, effective_from, effective_until)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
    ($11::jsonb -> 'effective' ->> 'from')::date, ($11::jsonb -> 'effective' ->> 'until')::date)
RETURNING ` + rulesetColumns

	sqlUpsertSlug = `
INSERT INTO ruleset_slugs (slug, tenant_id, ruleset_id, latest_version)
VALUES ($1, $2, $3, $4)
ON CONFLICT (slug) DO UPDATE SET ruleset_id = EXCLUDED.ruleset_id,
    latest_version = GREATEST(ruleset_slugs.latest_version, EXCLUDED.latest_version), updated_at = now()`
)

// PublishRuleset stores a cut and points its slug at it, in one
// transaction: the tenant is created when new; the slug's namespace is
// claimed for the tenant when unowned (within c.NamespaceCaps, else
// ErrNamespaceLimit), and one owned by another tenant is
// ErrNamespaceOwned (unless the tenant already holds this very slug); a
// slug held by another tenant is ErrSlugConflict; a cut with the same
// content digest under the slug is reused (its visibility set, its status
// active again) instead of adding a version; otherwise the cut becomes the
// slug's next version. A ruleset_published event and c.Audit are written
// in the same transaction, so a failed publish leaves nothing behind; so
// is the notification that makes every process drop its cached resolution
// of the slug and the cut (see InvalidationChannel).
func (s *Store) PublishRuleset(ctx context.Context, c RulesetCut) (PublishedRuleset, error) {
	var out PublishedRuleset
	checks := c.SourceChecks
	if checks == nil {
		checks = map[string]SourceCheck{}
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sqlEnsureTenant, c.TenantID); err != nil {
			return fmt.Errorf("ensure tenant: %w", err)
		}
		if _, err := tx.Exec(ctx, sqlLockSlug, c.Slug); err != nil {
			return fmt.Errorf("lock slug: %w", err)
		}
		var owner string
		latest := 0
		err := tx.QueryRow(ctx, sqlSlugPointer, c.Slug).Scan(&owner, &out.PreviousID, &latest)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("read slug: %w", err)
		}
		nsOwner, err := claimNamespace(ctx, tx, c.TenantID, c.Slug, c.NamespaceCaps)
		switch {
		case err != nil:
			return err
		case nsOwner != c.TenantID && owner != c.TenantID:
			// Whether or not the slug exists: the answer must not tell.
			// A slug the tenant already holds under another's namespace
			// (from before namespaces were owned) stays its own.
			return ErrNamespaceOwned
		case owner != "" && owner != c.TenantID:
			return ErrSlugConflict
		}

		out.Ruleset, err = scanRuleset(tx.QueryRow(ctx, sqlReuseCut, c.Slug, c.ContentDigest, c.Visibility, checks))
		switch {
		case err == nil:
			out.Reused = true
		case errors.Is(err, pgx.ErrNoRows):
			published := c.PublishedAt
			if published.IsZero() {
				published = time.Now()
			}
			id := RulesetID(c.SectionID, published, c.Slug, c.ContentDigest)
			out.Ruleset, err = scanRuleset(tx.QueryRow(ctx, sqlInsertCut, id, c.TenantID, c.Slug, latest+1,
				c.SectionID, c.Name, c.Description, c.RuleCount, c.ContentDigest, c.SourceText, c.CompiledIR, c.Visibility, checks,
				c.IRVersion, c.EngineVersion, c.SourceDigest, arrayJSON(c.TestCases)))
			if err != nil {
				return fmt.Errorf("insert cut: %w", err)
			}
		default:
			return fmt.Errorf("reuse cut: %w", err)
		}

		if _, err := tx.Exec(ctx, sqlUpsertSlug, c.Slug, c.TenantID, out.Ruleset.ID, out.Ruleset.Version); err != nil {
			return fmt.Errorf("move slug: %w", err)
		}
		if err := notify(ctx, tx, Invalidation{Kind: InvalidateRuleset, ID: out.Ruleset.ID, Slug: c.Slug}); err != nil {
			return err
		}
		for _, p := range c.Provenance {
			if _, err := tx.Exec(ctx, sqlInsertProvenance, out.Ruleset.ID, p.ProjectID, p.RulesSourceID, p.SourceID,
				p.TargetKind, p.ContentDigest); err != nil {
				if isForeignKeyViolation(err) {
					return fmt.Errorf("record provenance of source %s: %w", p.SourceID, ErrNotFound)
				}
				return fmt.Errorf("record provenance: %w", err)
			}
		}
		events := append([]Audit{{Kind: "ruleset_published", Detail: map[string]any{"reused": out.Reused}}}, c.Audit...)
		for _, e := range events {
			detail := map[string]any{
				"ruleset_id": out.Ruleset.ID, "slug": c.Slug, "ruleset_version": out.Ruleset.VersionLabel(),
				"content_digest": c.ContentDigest,
			}
			for k, v := range e.Detail {
				detail[k] = v
			}
			if err := insertAuditEvent(ctx, tx, c.TenantID, e.Kind, detail); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return PublishedRuleset{}, fmt.Errorf("publish ruleset %q for tenant %q: %w", c.Slug, c.TenantID, err)
	}
	return out, nil
}

const (
	sqlRulesetByID = `SELECT ` + rulesetColumns + ` FROM rulesets r WHERE r.id = $1`

	sqlRulesetBySlug = `
SELECT ` + rulesetColumns + ` FROM ruleset_slugs s JOIN rulesets r ON r.id = s.ruleset_id
WHERE s.slug = $1`
)

// RulesetByRef finds a cut by concrete ruleset_id, or the cut a slug points
// at, whatever its tenant, visibility or status: the caller decides who may
// see it. ErrNotFound when nothing matches.
func (s *Store) RulesetByRef(ctx context.Context, ref string) (Cut, error) {
	query := sqlRulesetBySlug
	if IsConcreteRulesetID(ref) {
		query = sqlRulesetByID
	}
	r, err := scanRuleset(s.pool.QueryRow(ctx, query, ref))
	if errors.Is(err, pgx.ErrNoRows) {
		return Cut{}, ErrNotFound
	}
	if err != nil {
		return Cut{}, fmt.Errorf("ruleset %q: %w", ref, err)
	}
	return r, nil
}

const sqlRulesetsInForce = `
SELECT ` + rulesetColumns + ` FROM rulesets r
WHERE r.slug = $1 AND r.status = 'active'
  AND (r.effective_from IS NULL OR r.effective_from <= $2)
  AND (r.effective_until IS NULL OR r.effective_until >= $2)
ORDER BY r.version DESC`

// RulesetsInForce lists the active cuts published under slug whose
// effective period covers the calendar date year-month-day (a cut without
// a period covers every date), newest version first, whatever their
// tenant or visibility: the caller decides who may see them. An empty list
// when none does.
func (s *Store) RulesetsInForce(ctx context.Context, slug string, year, month, day int) ([]Cut, error) {
	date := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
	rows, err := s.pool.Query(ctx, sqlRulesetsInForce, slug, date)
	if err != nil {
		return nil, fmt.Errorf("rulesets of %q in force on %s: %w", slug, date.Format(time.DateOnly), err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Cut, error) { return scanRuleset(row) })
	if err != nil {
		return nil, fmt.Errorf("rulesets of %q in force on %s: %w", slug, date.Format(time.DateOnly), err)
	}
	return out, nil
}

const sqlRulesetSource = `SELECT source_text, source_digest FROM rulesets WHERE id = $1`

// RulesetSource returns the published .rules text of cut id and the
// digest recorded for it when it was published. ErrNotFound when there is
// no such cut.
func (s *Store) RulesetSource(ctx context.Context, id string) (text, digest string, err error) {
	err = s.pool.QueryRow(ctx, sqlRulesetSource, id).Scan(&text, &digest)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", ErrNotFound
	}
	if err != nil {
		return "", "", fmt.Errorf("ruleset %q source: %w", id, err)
	}
	return text, digest, nil
}

// RulesetContent is the stored compiled IR of a cut: the content that is
// loaded and evaluated.
type RulesetContent struct {
	// IRVersion is the compiled IR format IR is written in.
	IRVersion int
	// IR is the compiled IR's JSON as PostgreSQL returns it (jsonb: key
	// order and white space are its own; RFC 8785 canonicalisation, which
	// the content digest is taken over, undoes both).
	IR []byte
}

const sqlRulesetContent = `SELECT ir_version, compiled_ir FROM rulesets WHERE id = $1`

// RulesetContent returns the stored compiled IR of cut id. ErrNotFound when
// there is no such cut.
func (s *Store) RulesetContent(ctx context.Context, id string) (RulesetContent, error) {
	var c RulesetContent
	err := s.pool.QueryRow(ctx, sqlRulesetContent, id).Scan(&c.IRVersion, &c.IR)
	if errors.Is(err, pgx.ErrNoRows) {
		return RulesetContent{}, ErrNotFound
	}
	if err != nil {
		return RulesetContent{}, fmt.Errorf("ruleset %q content: %w", id, err)
	}
	return c, nil
}

// RulesetQuery selects a page of the catalogue: the active cuts slugs point
// at, ordered by slug.
type RulesetQuery struct {
	// ViewerTenant sees its own private rulesets besides every public one;
	// empty means an anonymous viewer (public only).
	ViewerTenant string
	// Namespace keeps slugs equal to it or under it ("us" keeps
	// "us/snap-income"); empty keeps all.
	Namespace string
	// Text keeps rulesets whose slug, name or description contains it,
	// ignoring case; empty keeps all.
	Text string
	// AfterSlug starts the page after this slug (keyset paging); empty
	// starts at the beginning.
	AfterSlug string
	// Limit is the page size.
	Limit int
	// Own keeps only ViewerTenant's own rulesets, public or private: the
	// ones its rulebooks can compose. With no ViewerTenant it keeps none.
	Own bool
}

const sqlListRulesets = `
SELECT ` + rulesetColumns + ` FROM ruleset_slugs s JOIN rulesets r ON r.id = s.ruleset_id
WHERE r.status = 'active'
  AND (r.visibility = 'public' OR r.tenant_id = $1)
  AND ($2 = '' OR s.slug = $2 OR starts_with(s.slug, $2 || '/'))
  AND ($3 = '' OR strpos(lower(s.slug || ' ' || r.name || ' ' || r.description), lower($3)) > 0)
  AND s.slug > $4
  AND (NOT $6 OR r.tenant_id = $1)
ORDER BY s.slug
LIMIT $5`

// ListRulesets returns one page of the catalogue for q.
func (s *Store) ListRulesets(ctx context.Context, q RulesetQuery) ([]Cut, error) {
	rows, err := s.pool.Query(ctx, sqlListRulesets, q.ViewerTenant, q.Namespace, q.Text, q.AfterSlug, q.Limit, q.Own)
	if err != nil {
		return nil, fmt.Errorf("list rulesets: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Cut, error) { return scanRuleset(row) })
	if err != nil {
		return nil, fmt.Errorf("list rulesets: %w", err)
	}
	return list, nil
}

const (
	sqlSetRulesetVisibility = `
UPDATE rulesets r SET visibility = $3, updated_at = now()
WHERE r.id = $1 AND r.tenant_id = $2
RETURNING ` + rulesetColumns

	sqlArchiveRuleset = `
UPDATE rulesets r SET status = 'archived', updated_at = CASE WHEN r.status = 'archived' THEN r.updated_at ELSE now() END
WHERE r.id = $1 AND r.tenant_id = $2
RETURNING ` + rulesetColumns
)

// SetRulesetVisibility changes the visibility of tenantID's cut id and
// records a ruleset_visibility_changed event. ErrNotFound when the tenant
// has no such cut.
func (s *Store) SetRulesetVisibility(ctx context.Context, tenantID, id, visibility string) (Cut, error) {
	return s.updateRuleset(ctx, sqlSetRulesetVisibility, "ruleset_visibility_changed", tenantID, id, visibility)
}

// ArchiveRuleset archives tenantID's cut id (idempotently) and records a
// ruleset_archived event. ErrNotFound when the tenant has no such cut.
func (s *Store) ArchiveRuleset(ctx context.Context, tenantID, id string) (Cut, error) {
	return s.updateRuleset(ctx, sqlArchiveRuleset, "ruleset_archived", tenantID, id)
}

// updateRuleset runs one of the single-row updates above with its audit
// event and its notification to every process's caches (see
// InvalidationChannel) in one transaction.
func (s *Store) updateRuleset(ctx context.Context, query, event, tenantID, id string, extra ...any) (Cut, error) {
	var r Cut
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		r, err = scanRuleset(tx.QueryRow(ctx, query, append([]any{id, tenantID}, extra...)...))
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if err := notify(ctx, tx, Invalidation{Kind: InvalidateRuleset, ID: r.ID, Slug: r.Slug}); err != nil {
			return err
		}
		return insertAuditEvent(ctx, tx, tenantID, event, map[string]any{
			"ruleset_id": r.ID, "visibility": r.Visibility, "status": r.Status,
		})
	})
	if err != nil {
		return Cut{}, fmt.Errorf("%s %q: %w", event, id, err)
	}
	return r, nil
}

// RecordPublishRefusal writes the publish_refused audit event of a publish
// that stored nothing. It creates no tenant: for a tenant that does not
// exist yet the event belongs to no tenant, and detail names it under
// tenant_id either way.
func (s *Store) RecordPublishRefusal(ctx context.Context, tenantID string, detail map[string]any) error {
	d := map[string]any{"tenant_id": tenantID}
	for k, v := range detail {
		d[k] = v
	}
	return insertAuditEvent(ctx, s.pool, tenantID, "publish_refused", d)
}

// arrayJSON passes a JSON array, nil as [].
func arrayJSON(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "[]"
	}
	return string(raw)
}

const sqlRulesetVersion = `SELECT ` + rulesetColumns + ` FROM rulesets r WHERE r.slug = $1 AND r.version = $2`

// RulesetVersion finds the cut published as version of slug, whatever its
// tenant, visibility or status: the caller decides who may see it.
// ErrNotFound when there is none.
func (s *Store) RulesetVersion(ctx context.Context, slug string, version int) (Cut, error) {
	r, err := scanRuleset(s.pool.QueryRow(ctx, sqlRulesetVersion, slug, version))
	if errors.Is(err, pgx.ErrNoRows) {
		return Cut{}, ErrNotFound
	}
	if err != nil {
		return Cut{}, fmt.Errorf("ruleset %q v%d: %w", slug, version, err)
	}
	return r, nil
}
