-- Impact runs of rulebooks (docs/impact.md#rulebook-candidates): the
-- candidate is a release of one of the tenant's rulebooks, or that release
-- with one section's member replaced by another cut of the section, and the
-- baseline is the release in force when the run was started. Such a run
-- names no ruleset of its own: baseline_ruleset_id is empty, and neither
-- candidate_ruleset_id nor candidate_draft is set.
CREATE TABLE impact_run_rulebooks (
    run_id               text PRIMARY KEY REFERENCES impact_runs (id) ON DELETE CASCADE,
    rulebook_id          text NOT NULL,
    baseline_release_id  text NOT NULL,
    candidate_release_id text NOT NULL,
    section_id           text,
    section_ruleset_id   text,
    CHECK ((section_id IS NULL) = (section_ruleset_id IS NULL))
);

ALTER TABLE impact_runs DROP CONSTRAINT impact_runs_check;
ALTER TABLE impact_runs ADD CONSTRAINT impact_runs_candidate_check CHECK (candidate_ruleset_id IS NULL OR candidate_draft IS NULL);
