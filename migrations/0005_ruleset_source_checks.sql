-- What the publish path verified of each cited source: for every source id,
-- the digest of the text its quotes were found in and when. The API adds
-- these to the source references it shows (content_digest, verified_at,
-- snapshot); nothing is fetched at read time. Empty for a cut published
-- without source texts.
ALTER TABLE rulesets ADD COLUMN source_checks jsonb NOT NULL DEFAULT '{}';
