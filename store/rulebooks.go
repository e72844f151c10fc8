package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Rulebook statuses, spelled as stored and on the wire.
const (
	RulebookDraft    = "draft"
	RulebookActive   = "active"
	RulebookArchived = "archived"
)

// Reference pin modes, spelled as stored and on the wire.
const (
	PinLatestActive = "latest_active"
	PinPinned       = "pinned"
)

// ErrNoLabel is returned by WriteRulebook when the label allocator found no
// free label for a new release.
var ErrNoLabel = errors.New("no release label left")

// Rulebook is a rulebook's draft: what its next release freezes, with the
// head and the state the publish path keeps.
type Rulebook struct {
	// ID is the immutable rulebook_id, "rb_" and 16 URL-safe characters.
	ID string
	// TenantID owns the rulebook.
	TenantID string
	// Slug is the globally unique slug.
	Slug string
	// Name, Domain and Description are the rulebook's texts.
	Name, Domain, Description string
	// OutcomeLogic is the outcome tree's JSON; nil means all sections and-ed.
	OutcomeLogic json.RawMessage
	// RobotHints is the beat-to-text map's JSON; nil when none were given.
	RobotHints json.RawMessage
	// FieldOverlay is the field vocabulary overlay's JSON, an object.
	FieldOverlay json.RawMessage
	// SectionFacts is the section facts' JSON, a list of {"field",
	// "section"} objects; empty or [] for none.
	SectionFacts json.RawMessage
	// Visibility is VisibilityPublic or VisibilityPrivate.
	Visibility string
	// Status is RulebookDraft, RulebookActive or RulebookArchived.
	Status string
	// Pinned is set by the first promotion: every reference then names an
	// exact cut, and a floating one is refused.
	Pinned bool
	// CurrentReleaseID is the head release's UUID; empty before the first
	// release.
	CurrentReleaseID string
	// PublicationPending is set when the draft changed but its release
	// could not be published; the next activate or edit publishes it.
	PublicationPending bool
	// Refs are the references, lettered A, B, C... in order.
	Refs []RulebookRef
	// CreatedAt and UpdatedAt are when the rulebook was created and when
	// its draft or state last changed.
	CreatedAt, UpdatedAt time.Time
	// NamespaceVerified is set when an operator verified the slug's
	// namespace for the rulebook's tenant (`eligo namespaces verify`).
	NamespaceVerified bool
	// ExposesArtefacts is set, on a public rulebook read by RulebookByRef,
	// when a member of its draft or of any release cites project
	// artefacts: a leak made before publish refused it, which readers
	// other than its tenant must not be served (see
	// RulebooksExposingArtefacts). Always false on a private rulebook and
	// in lists.
	ExposesArtefacts bool
}

// RulebookRef is one member reference of a rulebook.
type RulebookRef struct {
	// SectionID names the section: the tenant's published rulesets with
	// this section id.
	SectionID string
	// PinMode is PinLatestActive (floating) or PinPinned.
	PinMode string
	// LiveRulesetID is the section's live cut in this rulebook.
	LiveRulesetID string
}

// Release is an immutable, labelled publication of a rulebook.
type Release struct {
	// ID is the release's UUID.
	ID string
	// RulebookID is the rulebook it belongs to.
	RulebookID string
	// Version counts the rulebook's releases from 1.
	Version int
	// Label is the permanent two-word label, unique within the rulebook.
	Label string
	// Title is the rulebook's name when the release was published.
	Title string
	// ContentIdentity is the digest of Content's meaning
	// (rulebook.ContentIdentity).
	ContentIdentity string
	// Content is the frozen content's JSON.
	Content json.RawMessage
	// PublishedAt is when the release was published.
	PublishedAt time.Time
}

// NewRulebookID draws a rulebook id: "rb_" and 16 URL-safe characters (96
// random bits).
func NewRulebookID() string { return "rb_" + randomToken() }

// IsRulebookID reports whether ref is a rulebook id rather than a slug.
func IsRulebookID(ref string) bool { return strings.HasPrefix(ref, "rb_") }

const rulebookColumns = `b.id, b.tenant_id, b.slug, b.name, b.domain, b.description, b.outcome_logic, b.robot_hints,
b.field_overlay, b.section_facts, b.visibility, b.status, b.pinned, coalesce(b.current_release_id::text, ''), b.publication_pending,
b.created_at, b.updated_at, namespace_verified(b.tenant_id, b.slug)`

func scanRulebook(row pgx.Row) (Rulebook, error) {
	var b Rulebook
	err := row.Scan(&b.ID, &b.TenantID, &b.Slug, &b.Name, &b.Domain, &b.Description, &b.OutcomeLogic, &b.RobotHints,
		&b.FieldOverlay, &b.SectionFacts, &b.Visibility, &b.Status, &b.Pinned, &b.CurrentReleaseID, &b.PublicationPending,
		&b.CreatedAt, &b.UpdatedAt, &b.NamespaceVerified)
	return b, err
}

const (
	sqlRulebookByID   = `SELECT ` + rulebookColumns + ` FROM rulebooks b WHERE b.id = $1`
	sqlRulebookBySlug = `SELECT ` + rulebookColumns + ` FROM rulebooks b WHERE b.slug = $1`
	sqlRulebookRefs   = `SELECT section_id, pin_mode, live_ruleset_id FROM rulebook_refs WHERE rulebook_id = $1 ORDER BY position`
	// Public rulebooks only: a handful of index lookups and the members'
	// IR sources, read again at most once per reference cache period.
	sqlExposesArtefacts = `SELECT EXISTS (SELECT 1 FROM rulebook_artefact_members WHERE rulebook_id = $1)`
)

// RulebookByRef finds a rulebook by id or slug, whatever its tenant,
// visibility or status, with its references: the caller decides who may
// see it. ErrNotFound when nothing matches.
func (s *Store) RulebookByRef(ctx context.Context, ref string) (Rulebook, error) {
	return rulebookByRef(ctx, s.pool, ref, "")
}

// queryer is what a read needs: the pool or a transaction.
type queryer interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func rulebookByRef(ctx context.Context, q queryer, ref, suffix string) (Rulebook, error) {
	query := sqlRulebookBySlug
	if IsRulebookID(ref) {
		query = sqlRulebookByID
	}
	b, err := scanRulebook(q.QueryRow(ctx, query+suffix, ref))
	if errors.Is(err, pgx.ErrNoRows) {
		return Rulebook{}, ErrNotFound
	}
	if err != nil {
		return Rulebook{}, fmt.Errorf("rulebook %q: %w", ref, err)
	}
	rows, err := q.Query(ctx, sqlRulebookRefs, b.ID)
	if err != nil {
		return Rulebook{}, fmt.Errorf("rulebook %q refs: %w", ref, err)
	}
	b.Refs, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (RulebookRef, error) {
		var r RulebookRef
		return r, row.Scan(&r.SectionID, &r.PinMode, &r.LiveRulesetID)
	})
	if err != nil {
		return Rulebook{}, fmt.Errorf("rulebook %q refs: %w", ref, err)
	}
	if b.Visibility == VisibilityPublic {
		if err := q.QueryRow(ctx, sqlExposesArtefacts, b.ID).Scan(&b.ExposesArtefacts); err != nil {
			return Rulebook{}, fmt.Errorf("rulebook %q artefact members: %w", ref, err)
		}
	}
	return b, nil
}

// RulebookQuery selects a page of rulebooks, ordered by slug.
type RulebookQuery struct {
	// Tenant lists that tenant's rulebooks, whatever their state; empty
	// lists the public catalogue: every tenant's public, active rulebooks.
	Tenant string
	// AfterSlug starts the page after this slug; empty starts at the
	// beginning.
	AfterSlug string
	// Limit is the page size.
	Limit int
}

const sqlListRulebooks = `
SELECT ` + rulebookColumns + ` FROM rulebooks b
WHERE (CASE WHEN $1 = '' THEN b.visibility = 'public' AND b.status = 'active' ELSE b.tenant_id = $1 END)
  AND b.slug > $2
ORDER BY b.slug
LIMIT $3`

const sqlRefsOf = `SELECT rulebook_id, section_id, pin_mode, live_ruleset_id FROM rulebook_refs
WHERE rulebook_id = ANY($1) ORDER BY rulebook_id, position`

// ListRulebooks returns one page of rulebooks for q with their references,
// in two queries whatever the page size.
func (s *Store) ListRulebooks(ctx context.Context, q RulebookQuery) ([]Rulebook, error) {
	rows, err := s.pool.Query(ctx, sqlListRulebooks, q.Tenant, q.AfterSlug, q.Limit)
	if err != nil {
		return nil, fmt.Errorf("list rulebooks: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Rulebook, error) { return scanRulebook(row) })
	if err != nil {
		return nil, fmt.Errorf("list rulebooks: %w", err)
	}
	at := make(map[string]int, len(list))
	ids := make([]string, len(list))
	for i, b := range list {
		at[b.ID], ids[i] = i, b.ID
	}
	rows, err = s.pool.Query(ctx, sqlRefsOf, ids)
	if err != nil {
		return nil, fmt.Errorf("list rulebook references: %w", err)
	}
	var id string
	var r RulebookRef
	if _, err := pgx.ForEachRow(rows, []any{&id, &r.SectionID, &r.PinMode, &r.LiveRulesetID}, func() error {
		list[at[id]].Refs = append(list[at[id]].Refs, r)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("list rulebook references: %w", err)
	}
	return list, nil
}

const (
	sqlInsertRulebook = `
INSERT INTO rulebooks AS b (id, tenant_id, slug, name, domain, description, outcome_logic, robot_hints, field_overlay, section_facts)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
RETURNING ` + rulebookColumns

	sqlInsertRef = `
INSERT INTO rulebook_refs (rulebook_id, position, section_id, pin_mode, live_ruleset_id) VALUES ($1, $2, $3, $4, $5)`
)

// CreateRulebook stores a new draft with its references and a
// rulebook_created audit event, in one transaction; the tenant is created
// when new. A draft claims no namespace (its first release does, see
// WriteRulebook), but one owned by another tenant is ErrNamespaceOwned,
// whether or not the slug exists. A slug already taken is ErrSlugConflict. It notifies every
// process (see InvalidationChannel), whose caches may remember that the
// slug named nothing.
func (s *Store) CreateRulebook(ctx context.Context, b Rulebook) (Rulebook, error) {
	var out Rulebook
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sqlEnsureTenant, b.TenantID); err != nil {
			return fmt.Errorf("ensure tenant: %w", err)
		}
		// The namespace first: under another tenant's namespace the answer
		// is the same whether or not the slug is taken.
		if err := checkNamespaceFree(ctx, tx, b.TenantID, b.Slug); err != nil {
			return err
		}
		var err error
		out, err = scanRulebook(tx.QueryRow(ctx, sqlInsertRulebook, b.ID, b.TenantID, b.Slug, b.Name, b.Domain, b.Description,
			nullJSON(b.OutcomeLogic), nullJSON(b.RobotHints), objectJSON(b.FieldOverlay), listJSON(b.SectionFacts)))
		if isUniqueViolation(err, "rulebooks_slug_key") {
			return ErrSlugConflict
		}
		if err != nil {
			return fmt.Errorf("insert rulebook: %w", err)
		}
		if err := insertRefs(ctx, tx, out.ID, b.Refs); err != nil {
			return err
		}
		out.Refs = b.Refs
		if err := notify(ctx, tx, Invalidation{Kind: InvalidateRulebook, ID: out.ID, Slug: out.Slug}); err != nil {
			return err
		}
		return insertAuditEvent(ctx, tx, b.TenantID, "rulebook_created", map[string]any{"rulebook_id": out.ID, "slug": out.Slug})
	})
	if err != nil {
		return Rulebook{}, fmt.Errorf("create rulebook %q: %w", b.Slug, err)
	}
	return out, nil
}

// claimForRelease claims the namespace of rulebook cur, about to publish
// a release: content is published under it. A rulebook that published
// before keeps publishing under a namespace another tenant now owns, as a
// ruleset slug does (see PublishRuleset); its first release is refused
// there with ErrNamespaceOwned.
func claimForRelease(ctx context.Context, tx pgx.Tx, cur Rulebook, caps NamespaceCaps) error {
	owner, err := claimNamespace(ctx, tx, cur.TenantID, cur.Slug, caps)
	if err != nil {
		return err
	}
	if owner != cur.TenantID && cur.CurrentReleaseID == "" {
		return ErrNamespaceOwned
	}
	return nil
}

func insertRefs(ctx context.Context, tx pgx.Tx, id string, refs []RulebookRef) error {
	for i, r := range refs {
		if _, err := tx.Exec(ctx, sqlInsertRef, id, i, r.SectionID, r.PinMode, r.LiveRulesetID); err != nil {
			return fmt.Errorf("insert reference %s: %w", r.SectionID, err)
		}
	}
	return nil
}

// nullJSON passes raw JSON to PostgreSQL, nil as SQL NULL.
func nullJSON(raw json.RawMessage) any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return string(raw)
}

// objectJSON passes a JSON object, nil as {}.
func objectJSON(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	return string(raw)
}

// listJSON passes a JSON list, nil as [].
func listJSON(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "[]"
	}
	return string(raw)
}

// RulebookWrite is one change to a rulebook, made in one transaction by
// WriteRulebook: any of a new draft, a release, cuts to archive, and audit
// events.
type RulebookWrite struct {
	// TenantID must own the rulebook (else ErrNotFound).
	TenantID string
	// RulebookID names the rulebook.
	RulebookID string
	// Check, when set, sees the rulebook as it is under the transaction's
	// row lock and may refuse the write (its error is returned as is).
	Check func(Rulebook) error
	// Draft, when set, replaces the draft: texts, outcome, hints, overlay,
	// visibility, status, pinned and references (the head, publication
	// flag and timestamps are ignored).
	Draft *Rulebook
	// Release, when set, publishes a release of the draft (see
	// ReleaseDraft) and makes it the head. The first release of a
	// rulebook claims its slug's namespace within NamespaceCaps
	// (ErrNamespaceLimit), and is ErrNamespaceOwned under another
	// tenant's.
	Release *ReleaseDraft
	// NamespaceCaps bounds the namespaces the tenant may own when the
	// release claims one; the zero value caps nothing.
	NamespaceCaps NamespaceCaps
	// PublicationPending sets the flag when Release is nil; a published
	// release always clears it.
	PublicationPending bool
	// ArchiveRulesets are cuts of the tenant to archive (a promotion's
	// prior live cut).
	ArchiveRulesets []string
	// PublicizeRulesets are cuts of the tenant to make public (a
	// promotion's candidate taking the public visibility of the live cut
	// it replaces); each writes a ruleset_visibility_changed event.
	PublicizeRulesets []string
	// Audit are events written with the change; their details gain the
	// rulebook_id.
	Audit []Audit
}

// ReleaseDraft is the release a write publishes.
type ReleaseDraft struct {
	// Title is the release's title.
	Title string
	// ContentIdentity identifies Content's meaning; a release of the
	// rulebook with the same identity is reused instead.
	ContentIdentity string
	// Content is the frozen content's JSON.
	Content json.RawMessage
	// AllocateLabel picks a new release's label given which are taken
	// (rulebook.AllocateLabel); an error is returned as is.
	AllocateLabel func(taken func(string) bool) (string, error)
	// Fail, when set, is called just before the release is inserted and
	// its error aborts the write: the seam through which tests make the
	// last publication step fail.
	Fail func() error
}

// RulebookWritten is what WriteRulebook did.
type RulebookWritten struct {
	// Rulebook is the rulebook after the write, with its references.
	Rulebook Rulebook
	// Release is the head after the write; nil when the write published
	// none.
	Release *Release
	// Reused is set when the release existed already with this content.
	Reused bool
}

const (
	sqlLockRulebook   = ` FOR UPDATE`
	sqlUpdateRulebook = `
UPDATE rulebooks b SET name = $2, domain = $3, description = $4, outcome_logic = $5, robot_hints = $6,
    field_overlay = $7, visibility = $8, status = $9, pinned = $10, publication_pending = $11, section_facts = $12, updated_at = now()
WHERE b.id = $1`
	sqlDeleteRefs       = `DELETE FROM rulebook_refs WHERE rulebook_id = $1`
	sqlReleaseColumns   = `id::text, rulebook_id, version, label, title, content_identity, content, published_at`
	sqlReleaseByContent = `SELECT ` + sqlReleaseColumns + ` FROM rulebook_releases WHERE rulebook_id = $1 AND content_identity = $2`
	sqlReleaseLabels    = `SELECT label, coalesce(max(version) OVER (), 0) FROM rulebook_releases WHERE rulebook_id = $1`
	sqlInsertRelease    = `
INSERT INTO rulebook_releases (rulebook_id, version, label, title, content_identity, content)
VALUES ($1, $2, $3, $4, $5, $6)
RETURNING ` + sqlReleaseColumns
	sqlSetHead = `
UPDATE rulebooks SET current_release_id = $2::uuid, status = 'active', publication_pending = false, updated_at = now()
WHERE id = $1`
	sqlArchiveCut   = `UPDATE rulesets SET status = 'archived', updated_at = now() WHERE id = $1 AND tenant_id = $2 AND status <> 'archived' RETURNING slug`
	sqlPublicizeCut = `UPDATE rulesets SET visibility = 'public', updated_at = now() WHERE id = $1 AND tenant_id = $2 AND visibility <> 'public' RETURNING slug`
)

// updateCuts runs query (sqlArchiveCut, sqlPublicizeCut) on each of the
// tenant's cuts ids inside a rulebook write, notifying every process's
// caches of each cut it changed and, when event is set, recording it with
// detail and the cut's id. A cut already so, or not the tenant's, is left
// alone.
func updateCuts(ctx context.Context, tx pgx.Tx, tenantID, query string, ids []string, event string, detail map[string]any) error {
	for _, id := range ids {
		var slug string
		err := tx.QueryRow(ctx, query, id, tenantID).Scan(&slug)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return fmt.Errorf("update cut %s: %w", id, err)
		}
		if err := notify(ctx, tx, Invalidation{Kind: InvalidateRuleset, ID: id, Slug: slug}); err != nil {
			return err
		}
		if event == "" {
			continue
		}
		d := map[string]any{"ruleset_id": id}
		for k, v := range detail {
			d[k] = v
		}
		if err := insertAuditEvent(ctx, tx, tenantID, event, d); err != nil {
			return err
		}
	}
	return nil
}

func scanRelease(row pgx.Row) (Release, error) {
	var r Release
	err := row.Scan(&r.ID, &r.RulebookID, &r.Version, &r.Label, &r.Title, &r.ContentIdentity, &r.Content, &r.PublishedAt)
	return r, err
}

// WriteRulebook makes w in one transaction, under a lock on the rulebook's
// row, so concurrent writes to one rulebook queue behind each other. A
// rulebook the tenant does not own is ErrNotFound. The transaction also
// notifies every process (see InvalidationChannel) of the rulebook and of
// each cut it archives, so their cached resolutions go when it commits.
func (s *Store) WriteRulebook(ctx context.Context, w RulebookWrite) (RulebookWritten, error) {
	var out RulebookWritten
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		cur, err := rulebookByRef(ctx, tx, w.RulebookID, sqlLockRulebook)
		if err == nil && cur.TenantID != w.TenantID {
			err = ErrNotFound
		}
		if err != nil {
			return err
		}
		if w.Check != nil {
			if err := w.Check(cur); err != nil {
				return err
			}
		}
		d := cur
		if w.Draft != nil {
			d = *w.Draft
		}
		if _, err := tx.Exec(ctx, sqlUpdateRulebook, cur.ID, d.Name, d.Domain, d.Description, nullJSON(d.OutcomeLogic),
			nullJSON(d.RobotHints), objectJSON(d.FieldOverlay), d.Visibility, d.Status, d.Pinned,
			w.PublicationPending && w.Release == nil, listJSON(d.SectionFacts)); err != nil {
			return fmt.Errorf("update draft: %w", err)
		}
		if w.Draft != nil {
			if _, err := tx.Exec(ctx, sqlDeleteRefs, cur.ID); err != nil {
				return fmt.Errorf("replace references: %w", err)
			}
			if err := insertRefs(ctx, tx, cur.ID, d.Refs); err != nil {
				return err
			}
		}
		if err := updateCuts(ctx, tx, w.TenantID, sqlArchiveCut, w.ArchiveRulesets, "", nil); err != nil {
			return err
		}
		if err := updateCuts(ctx, tx, w.TenantID, sqlPublicizeCut, w.PublicizeRulesets, "ruleset_visibility_changed",
			map[string]any{"visibility": VisibilityPublic, "reason": "promoted"}); err != nil {
			return err
		}
		if w.Release != nil {
			if err := claimForRelease(ctx, tx, cur, w.NamespaceCaps); err != nil {
				return err
			}
			rel, reused, err := publishRelease(ctx, tx, cur.ID, w.Release)
			if err != nil {
				return err
			}
			out.Release, out.Reused = &rel, reused
		}
		for _, e := range w.Audit {
			detail := map[string]any{"rulebook_id": cur.ID}
			for k, v := range e.Detail {
				detail[k] = v
			}
			if out.Release != nil {
				detail["release_id"], detail["release_label"] = out.Release.ID, out.Release.Label
			}
			if err := insertAuditEvent(ctx, tx, w.TenantID, e.Kind, detail); err != nil {
				return err
			}
		}
		if err := notify(ctx, tx, Invalidation{Kind: InvalidateRulebook, ID: cur.ID, Slug: cur.Slug}); err != nil {
			return err
		}
		out.Rulebook, err = rulebookByRef(ctx, tx, cur.ID, "")
		return err
	})
	if err != nil {
		return RulebookWritten{}, fmt.Errorf("write rulebook %q: %w", w.RulebookID, err)
	}
	return out, nil
}

// publishRelease reuses the rulebook's release of the same content, or
// inserts the next one with a fresh label, and makes it the head.
func publishRelease(ctx context.Context, tx pgx.Tx, rulebookID string, d *ReleaseDraft) (Release, bool, error) {
	rel, err := scanRelease(tx.QueryRow(ctx, sqlReleaseByContent, rulebookID, d.ContentIdentity))
	reused := err == nil
	switch {
	case reused:
	case !errors.Is(err, pgx.ErrNoRows):
		return Release{}, false, fmt.Errorf("find release: %w", err)
	default:
		taken, latest := map[string]bool{}, 0
		rows, err := tx.Query(ctx, sqlReleaseLabels, rulebookID)
		if err != nil {
			return Release{}, false, fmt.Errorf("release labels: %w", err)
		}
		var label string
		var max int
		if _, err := pgx.ForEachRow(rows, []any{&label, &max}, func() error {
			taken[label], latest = true, max
			return nil
		}); err != nil {
			return Release{}, false, fmt.Errorf("release labels: %w", err)
		}
		label, err = d.AllocateLabel(func(l string) bool { return taken[l] })
		if err != nil {
			return Release{}, false, err
		}
		if d.Fail != nil {
			if err := d.Fail(); err != nil {
				return Release{}, false, err
			}
		}
		rel, err = scanRelease(tx.QueryRow(ctx, sqlInsertRelease, rulebookID, latest+1, label, d.Title, d.ContentIdentity, string(d.Content)))
		if err != nil {
			return Release{}, false, fmt.Errorf("insert release: %w", err)
		}
	}
	if _, err := tx.Exec(ctx, sqlSetHead, rulebookID, rel.ID); err != nil {
		return Release{}, false, fmt.Errorf("set head: %w", err)
	}
	return rel, reused, nil
}

const sqlReleaseByID = `SELECT ` + sqlReleaseColumns + ` FROM rulebook_releases WHERE id::text = $1 AND rulebook_id = $2`
const sqlReleaseByLabel = `SELECT ` + sqlReleaseColumns + ` FROM rulebook_releases WHERE label = $1 AND rulebook_id = $2`

// ReleaseOf finds rulebookID's release by UUID or exact label. A release of
// another rulebook is ErrNotFound, as is one that does not exist.
func (s *Store) ReleaseOf(ctx context.Context, rulebookID, ref string) (Release, error) {
	query := sqlReleaseByLabel
	if len(ref) == 36 && strings.Count(ref, "-") == 4 {
		query = sqlReleaseByID
	}
	r, err := scanRelease(s.pool.QueryRow(ctx, query, strings.ToLower(ref), rulebookID))
	if errors.Is(err, pgx.ErrNoRows) {
		return Release{}, ErrNotFound
	}
	if err != nil {
		return Release{}, fmt.Errorf("release %q: %w", ref, err)
	}
	return r, nil
}

const sqlLatestActiveCut = `
SELECT ` + rulesetColumns + ` FROM rulesets r
WHERE r.tenant_id = $1 AND r.section_id = $2 AND r.status = 'active'
ORDER BY r.created_at DESC, r.id DESC LIMIT 1`

// LatestActiveCut is tenantID's newest active cut of sectionID: a floating
// reference's first live cut. ErrNotFound when there is none.
func (s *Store) LatestActiveCut(ctx context.Context, tenantID, sectionID string) (Cut, error) {
	r, err := scanRuleset(s.pool.QueryRow(ctx, sqlLatestActiveCut, tenantID, sectionID))
	if errors.Is(err, pgx.ErrNoRows) {
		return Cut{}, ErrNotFound
	}
	if err != nil {
		return Cut{}, fmt.Errorf("latest cut of section %q: %w", sectionID, err)
	}
	return r, nil
}

const sqlRulesetCases = `SELECT test_cases FROM rulesets WHERE id = $1`

// RulesetCases returns the test cases cut id was published with, as JSON
// (an array, empty when it had none). ErrNotFound when there is no such
// cut.
func (s *Store) RulesetCases(ctx context.Context, id string) (json.RawMessage, error) {
	var raw json.RawMessage
	err := s.pool.QueryRow(ctx, sqlRulesetCases, id).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("ruleset %q cases: %w", id, err)
	}
	return raw, nil
}

const sqlReleasesOf = `SELECT ` + sqlReleaseColumns + ` FROM rulebook_releases
WHERE rulebook_id = $1 AND ($2 = 0 OR version < $2)
ORDER BY version DESC
LIMIT $3`

// Releases returns one page of rulebookID's releases, newest first: those
// whose version is below beforeVersion (0 starts at the newest), at most
// limit. Releases never change, so a page read later holds the same rows.
func (s *Store) Releases(ctx context.Context, rulebookID string, beforeVersion, limit int) ([]Release, error) {
	rows, err := s.pool.Query(ctx, sqlReleasesOf, rulebookID, beforeVersion, limit)
	if err != nil {
		return nil, fmt.Errorf("releases of %s: %w", rulebookID, err)
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Release, error) { return scanRelease(row) })
	if err != nil {
		return nil, fmt.Errorf("releases of %s: %w", rulebookID, err)
	}
	return list, nil
}

const sqlCutVersions = `SELECT id, version FROM rulesets WHERE id = ANY($1)`

// CutVersions returns the version under its slug of each cut ids names
// that the store holds, by ruleset id, in one query: a release's frozen
// members name their cuts by id, and people read them by version.
func (s *Store) CutVersions(ctx context.Context, ids []string) (map[string]int, error) {
	out := make(map[string]int, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, sqlCutVersions, ids)
	if err != nil {
		return nil, fmt.Errorf("cut versions: %w", err)
	}
	var id string
	var version int
	if _, err := pgx.ForEachRow(rows, []any{&id, &version}, func() error {
		out[id] = version
		return nil
	}); err != nil {
		return nil, fmt.Errorf("cut versions: %w", err)
	}
	return out, nil
}
