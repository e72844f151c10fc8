-- Caseloads kept in chunks, and impact runs split into parts
-- (docs/impact.md#over-http).

-- A caseload's bytes, in chunks of 1 MiB (store.CaseloadChunkBytes) in
-- file order: an upload writes them as it reads the request's body, so it
-- never holds the file whole, and a part of a run reads only the chunks of
-- its byte range.
CREATE TABLE caseload_chunks (
    caseload_id text NOT NULL REFERENCES caseloads (id) ON DELETE CASCADE,
    seq         integer NOT NULL CHECK (seq >= 0),
    content     bytea NOT NULL,
    PRIMARY KEY (caseload_id, seq)
);

INSERT INTO caseload_chunks (caseload_id, seq, content)
SELECT c.id, g.seq::integer, substring(c.content FROM (g.seq * 1048576 + 1)::integer FOR 1048576)
FROM caseloads c CROSS JOIN LATERAL generate_series(0, (c.size - 1) / 1048576) AS g(seq)
WHERE c.size > 0;

ALTER TABLE caseloads DROP COLUMN content;

-- A part of an impact run: a byte range of its caseload that starts and
-- ends at row boundaries (impact.Split), decided by its own River job on
-- the impact queue, so that any worker takes it. Each leaves its partial
-- report; the last to end merges them in seq order (file order) into the
-- run's. A run's progress is the sum of its parts'.
CREATE TABLE impact_run_parts (
    run_id       text NOT NULL REFERENCES impact_runs (id) ON DELETE CASCADE,
    seq          integer NOT NULL CHECK (seq >= 0),
    byte_offset  bigint NOT NULL CHECK (byte_offset >= 0),
    byte_end     bigint NOT NULL CHECK (byte_end >= byte_offset),
    first_line   bigint NOT NULL CHECK (first_line >= 1),
    state        text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'stopped')),
    rows_done    bigint NOT NULL DEFAULT 0,
    cases_done   bigint NOT NULL DEFAULT 0,
    report       jsonb,
    river_job_id bigint,
    PRIMARY KEY (run_id, seq)
);
