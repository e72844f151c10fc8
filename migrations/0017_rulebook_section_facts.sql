-- Section facts: a rulebook may bind a bool field of one section to another
-- section's outcome (docs/language.md#rulebooks). The draft keeps them as a
-- JSON list of {"field": ..., "section": ...}; existing rulebooks have none.
-- A release keeps them in its frozen content, left out when there are none,
-- so every release published before this column existed reads as it did.
ALTER TABLE rulebooks ADD COLUMN section_facts jsonb NOT NULL DEFAULT '[]';
