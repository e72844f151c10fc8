package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// A cut that cites project artefacts (v2 references to uploaded project
// files) carries quotes and project and source ids that are confidential
// to its tenant. Such a cut is never public, and neither is a rulebook
// that composes it: its explain and /decide explanations would show them
// to other tenants. The SQL function ruleset_cites_artefacts and the view
// rulebook_artefact_members (migration 0011) say which cuts and rulebooks
// those are.

const sqlRulebookArtefactMembers = `
SELECT r.id FROM rulesets r
WHERE ruleset_cites_artefacts(r.compiled_ir)
  AND (r.id = ANY($2::text[]) OR r.id IN (
      SELECT s.section ->> 'ruleset_id'
      FROM rulebook_releases rel CROSS JOIN LATERAL jsonb_array_elements(rel.content -> 'sections') AS s(section)
      WHERE rel.rulebook_id = $1))
ORDER BY r.id`

// RulebookArtefactMembers lists the cuts citing project artefacts among
// members (the cuts a draft about to be written composes) and the members
// of every release rulebook id has published: what making the rulebook
// public would expose, since any release stays readable by its id. Empty
// when nothing would.
func (s *Store) RulebookArtefactMembers(ctx context.Context, id string, members []string) ([]string, error) {
	if members == nil {
		members = []string{}
	}
	rows, err := s.pool.Query(ctx, sqlRulebookArtefactMembers, id, members)
	if err != nil {
		return nil, fmt.Errorf("artefact members of rulebook %s: %w", id, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("artefact members of rulebook %s: %w", id, err)
	}
	return ids, nil
}

// ArtefactExposure is a public rulebook that composes cuts citing project
// artefacts: a leak made before publish refused it, for an operator to
// close by making the rulebook private (or its tenant by replacing the
// members and creating a new rulebook, since releases stay readable).
type ArtefactExposure struct {
	// RulebookID, TenantID and Slug name the rulebook.
	RulebookID, TenantID, Slug string
	// RulesetIDs are the member cuts, of its draft or of any release,
	// that cite artefacts.
	RulesetIDs []string
}

const sqlRulebooksExposingArtefacts = `
SELECT rulebook_id, tenant_id, slug, array_agg(DISTINCT ruleset_id ORDER BY ruleset_id)
FROM rulebook_artefact_members
WHERE visibility = 'public'
GROUP BY rulebook_id, tenant_id, slug
ORDER BY slug`

// RulebooksExposingArtefacts lists every public rulebook with a member
// (of its draft or of any release) citing project artefacts. It is empty
// on a database where publish has always refused them; Migrate runs it at
// every start and logs what it finds.
func (s *Store) RulebooksExposingArtefacts(ctx context.Context) ([]ArtefactExposure, error) {
	rows, err := s.pool.Query(ctx, sqlRulebooksExposingArtefacts)
	if err != nil {
		return nil, fmt.Errorf("public rulebooks citing artefacts: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ArtefactExposure, error) {
		var e ArtefactExposure
		return e, row.Scan(&e.RulebookID, &e.TenantID, &e.Slug, &e.RulesetIDs)
	})
	if err != nil {
		return nil, fmt.Errorf("public rulebooks citing artefacts: %w", err)
	}
	return out, nil
}
