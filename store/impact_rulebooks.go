package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// ImpactRulebook is what an impact run of a rulebook compares
// (docs/impact.md#rulebook-candidates): its baseline is a release of the
// rulebook, its candidate another (or the same) release, with section
// SectionID's member replaced by cut SectionRulesetID when they are set.
type ImpactRulebook struct {
	// RulebookID is the rulebook's id.
	RulebookID string
	// BaselineReleaseID and CandidateReleaseID are release UUIDs.
	BaselineReleaseID, CandidateReleaseID string
	// SectionID and SectionRulesetID are the replaced section and its
	// proposed cut; both empty for a release as it is.
	SectionID, SectionRulesetID string
}

const (
	sqlInsertImpactRulebook = `
INSERT INTO impact_run_rulebooks (run_id, rulebook_id, baseline_release_id, candidate_release_id, section_id, section_ruleset_id)
VALUES ($1, $2, $3, $4, nullif($5, ''), nullif($6, ''))`

	sqlImpactRulebooks = `
SELECT run_id, rulebook_id, baseline_release_id, candidate_release_id, coalesce(section_id, ''), coalesce(section_ruleset_id, '')
FROM impact_run_rulebooks WHERE run_id = ANY($1)`
)

// insertImpactRulebook records what run id of a rulebook compares, in the
// transaction that records the run.
func insertImpactRulebook(ctx context.Context, tx pgx.Tx, id string, rb ImpactRulebook) error {
	if _, err := tx.Exec(ctx, sqlInsertImpactRulebook, id, rb.RulebookID, rb.BaselineReleaseID, rb.CandidateReleaseID,
		rb.SectionID, rb.SectionRulesetID); err != nil {
		return fmt.Errorf("record the rulebook of impact run %s: %w", id, err)
	}
	return nil
}

// ImpactRulebooks reads what each of the runs ids that is a run of a
// rulebook compares, by run id; a run of rulesets has no entry.
func (s *Store) ImpactRulebooks(ctx context.Context, ids []string) (map[string]ImpactRulebook, error) {
	out := map[string]ImpactRulebook{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, sqlImpactRulebooks, ids)
	if err != nil {
		return nil, fmt.Errorf("read the rulebooks of impact runs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var rb ImpactRulebook
		if err := rows.Scan(&id, &rb.RulebookID, &rb.BaselineReleaseID, &rb.CandidateReleaseID, &rb.SectionID, &rb.SectionRulesetID); err != nil {
			return nil, fmt.Errorf("read the rulebooks of impact runs: %w", err)
		}
		out[id] = rb
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the rulebooks of impact runs: %w", err)
	}
	return out, nil
}
