-- Law over time. A cut may declare the period its rules hold for (the
-- `effective <from> [until <until>]` header, carried in its compiled IR as
-- the "effective" member); publish records it here so that a slug resolves
-- to the cut in force on a decision date with one indexed query. NULL
-- effective_from means the cut declares no period and holds for every
-- date, as every cut did before this migration; cuts stored before it that
-- already carry a period in their IR get it copied.
ALTER TABLE rulesets
    ADD COLUMN effective_from date,
    ADD COLUMN effective_until date,
    ADD CONSTRAINT rulesets_effective_period_check CHECK (
        (effective_from IS NULL AND effective_until IS NULL) OR
        (effective_from IS NOT NULL AND (effective_until IS NULL OR effective_until >= effective_from)));

UPDATE rulesets
SET effective_from = (compiled_ir -> 'effective' ->> 'from')::date,
    effective_until = (compiled_ir -> 'effective' ->> 'until')::date
WHERE compiled_ir ? 'effective';

CREATE INDEX rulesets_slug_effective_idx ON rulesets (slug, effective_from);

-- The date a decision was made as of (the request's decision_date, else
-- the day of the call, UTC): with the inputs hash and the content digest,
-- what a replay compares. NULL on decisions recorded before this
-- migration, which were made as of the day of decided_at.
ALTER TABLE decisions ADD COLUMN decision_date date;
