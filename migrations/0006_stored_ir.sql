-- The stored IR is the content. A cut's compiled_ir is what the catalog
-- loads and evaluates (never re-parsing source_text), checked against
-- content_digest on every load. These columns say how to read it and
-- where its text came from:
--   ir_version     the version of the compiled IR format compiled_ir is
--                  written in; the engine reads every version it ever wrote
--                  and refuses one it does not know, naming it.
--   engine_version the engine build that compiled the cut, for the record.
--   source_digest  "sha256:" + hex SHA-256 of source_text as published, so
--                  the source export can tell a tampered text without
--                  recompiling it (today's compiler may rightly give other
--                  IR for old text).
-- Every cut stored before this migration was written by eligo-core@0.31.0
-- in IR version 1.
ALTER TABLE rulesets
    ADD COLUMN ir_version integer NOT NULL DEFAULT 1 CHECK (ir_version >= 1),
    ADD COLUMN engine_version text NOT NULL DEFAULT 'eligo-core@0.31.0' CHECK (engine_version <> ''),
    ADD COLUMN source_digest text;

UPDATE rulesets SET source_digest = 'sha256:' || encode(sha256(convert_to(source_text, 'UTF8')), 'hex');

ALTER TABLE rulesets
    ALTER COLUMN ir_version DROP DEFAULT,
    ALTER COLUMN engine_version DROP DEFAULT,
    ALTER COLUMN source_digest SET NOT NULL,
    ADD CONSTRAINT rulesets_source_digest_check CHECK (source_digest ~ '^sha256:[0-9a-f]{64}$');
