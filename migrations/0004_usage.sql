-- Metering counters: one row per subject (an API key, "key:<id>", or an
-- anonymous client address, "ip:<addr>"), operation class and UTC hour. A
-- rolling window is the sum of consecutive hours; the primary key is the
-- index that sum and the /usage totals read.
CREATE TABLE usage_buckets (
    subject text        NOT NULL,
    class   text        NOT NULL,
    hour    timestamptz NOT NULL CHECK (date_trunc('hour', hour AT TIME ZONE 'UTC') = hour AT TIME ZONE 'UTC'),
    count   bigint      NOT NULL CHECK (count >= 0),
    PRIMARY KEY (subject, class, hour)
);

-- Housekeeping deletes buckets older than the longest reported window.
CREATE INDEX usage_buckets_hour_idx ON usage_buckets (hour);
