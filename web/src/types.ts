// The shapes the console reads from the open surface of Eligo's API
// (/api/v1/public). Only the members the console uses are declared; the
// API may add others, which the console ignores.

/** A field of a ruleset's schema: one question the applicant may answer. */
export interface Field {
  field_id: string;
  /** int, decimal, bool, enum or date. */
  field_type: string;
  description?: string;
  question?: string;
  weight: number;
  enum_values: string[] | null;
  notes?: FieldNote[] | null;
  /** A rendering override; free_text asks for a plain text input. */
  x_ui_widget?: string;
  /** The field's short name for people ("Hours worked in the last 12 months"), when the ruleset gives one. */
  label?: string;
  /** What an int or decimal answer counts ("months", "USD"), when the ruleset gives it. */
  unit?: string;
  /** How an enum field's values read to people, by value. */
  value_labels?: Record<string, string> | null;
}

/** A note on a field: why it is asked, or its legal background. */
export interface FieldNote {
  note_text: string;
  source?: string;
  metadata?: { type?: string; section?: string };
}

/** GET /rulesets/{id}/schema (a rulebook's schema is read into the same shape). */
export interface Schema {
  ruleset_id: string;
  slug: string;
  name: string;
  ruleset_version?: string;
  content_digest?: string;
  fields: Field[];
  engine_version?: string;
  /** A rulebook's sections, in letter order, with their names (absent for a ruleset). */
  sections?: { id: string; name: string }[];
}

/** GET /rulebooks/{id}/schema: the composition's fields, its sections and the release read. */
export interface RulebookSchema {
  rulebook_id: string;
  sections: string[];
  section_names: Record<string, string | null> | null;
  fields: Field[];
  engine_version?: string;
  release: Release | null;
}

/** A rulebook's release: its id, permanent label and version. */
export interface Release {
  release_id: string;
  label: string;
  version: number;
}

/** One entry of GET /rulebooks/ (and GET /rulebooks/{id}). */
export interface RulebookSummary {
  rulebook_id: string;
  slug: string;
  name: string;
  description: string;
  visibility?: string;
  status?: string;
}

/** One criterion of GET /rulesets/{id}/explain: the condition in plain language and in the rules language. */
export interface CriterionText {
  criterion_id: string;
  title: string;
  description: string;
  expression: string;
}

/** GET /rulesets/{id}/explain, the members the console reads. */
export interface RulesetExplain {
  criteria: CriterionText[];
}

/** GET /rulebooks/{id}/explain, the members the console reads. */
export interface RulebookExplain {
  sections: { section_id: string; name: string; criteria: CriterionText[] }[];
}

/** One section's own decision in a rulebook decision. */
export interface SectionResult {
  letter: string;
  section_id: string;
  decision: Outcome;
}

/** One entry of GET /rulesets. */
export interface RulesetSummary {
  ruleset_id: string;
  slug: string;
  name: string;
  description: string;
  rule_count: number;
  ruleset_version: string;
  content_digest: string;
}

/** A question the planner names: next_question and optimal_path items. */
export interface Question {
  field_id: string;
  question?: string;
  weight?: number;
}

/** An answer that could not be applied. */
export interface FieldError {
  field: string;
  value?: unknown;
  type?: string;
  message: string;
}

/** A cited passage of law, verified when the ruleset was published. */
export interface SourceReference {
  source?: string;
  title?: string;
  quote?: { exact?: string };
  url?: string;
  deep_link?: string;
  licence?: string;
  verified_at?: string;
  content_digest?: string;
  schema_version?: number;
}

/** An answer a criterion rests on. */
export interface Fact {
  field: string;
  value: unknown;
}

/** satisfied, not_satisfied or pending. */
export type Status = 'satisfied' | 'not_satisfied' | 'pending';

/** One criterion of the explanation. */
export interface CriterionExplanation {
  criterion_id: string;
  title: string;
  status: Status;
  supporting_facts: Fact[];
  source_references?: SourceReference[] | null;
}

/** One group of the explanation. */
export interface GroupExplanation {
  group: string;
  title?: string;
  kind?: string;
  status: Status;
  criteria: CriterionExplanation[];
}

/** The explanation member of a decision. */
export interface Explanation {
  decision: string;
  groups: GroupExplanation[];
  unused_facts?: string[] | null;
}

/** A node's state in one evaluation. */
export interface Overlay {
  status: Status;
  supporting_facts: Fact[];
}

/** A node of the ruleset's graph. */
export interface GraphNode {
  id: string;
  type: 'field' | 'criterion' | 'group' | 'outcome';
  label: string;
  overlay: Overlay | null;
}

/** The ruleset's graph: nodes and edges. */
export interface Graph {
  nodes: GraphNode[];
}

/** GET /rulesets/{id}/graph. */
export interface GraphResponse {
  ruleset_id: string;
  slug: string;
  name: string;
  graph: Graph;
  mermaid: string;
}

/** eligible, not_eligible or undetermined. */
export type Outcome = 'eligible' | 'not_eligible' | 'undetermined';

/** POST /decide's answer. */
export interface Decision {
  decision: Outcome;
  slug: string;
  /** Ruleset decisions: the concrete ruleset that ran. */
  ruleset_id?: string;
  /** Rulebook decisions: the rulebook's id, the release evaluated and each section's decision. */
  rulebook_id?: string;
  release?: Release | null;
  section_results?: SectionResult[];
  ruleset_version: string;
  content_digest: string;
  engine_version: string;
  decision_id: string;
  inputs_hash: string;
  decision_time: string;
  /** The date the rules were applied as of (YYYY-MM-DD); absent from servers that predate it. */
  decision_date?: string;
  missing_fields: string[];
  next_question: Question | null;
  optimal_path: Question[];
  field_errors: FieldError[];
  explanation?: Explanation;
  graph_overlay?: Graph;
  /** Notes on the request that did not stop it (a plan that could not be made, a date outside the rules' period). */
  warnings?: Warning[] | null;
}

/** A rules' effective period, both ends inclusive (YYYY-MM-DD); until is absent when open-ended. */
export interface Period {
  from: string;
  until?: string;
}

/** A note on a request that did not stop it; outside_effective_period carries the period the rules cover. */
export interface Warning {
  code: string;
  message: string;
  period?: Period;
}

/** One reason of explain-failure: a criterion that stands in the way. */
export interface FailureReason {
  criterion_id: string;
  title: string;
  group: string;
  status: Status;
  needed_status: Status;
  /** threshold, enum_mismatch, missing_answer, presence_default or discretionary. */
  mechanism: string;
  /** The criterion in the rules language: for specialists only. */
  condition?: string;
  facts: Fact[];
  missing_fields: string[];
  source_references: SourceReference[] | null;
}

/** POST /rulesets/{id}/explain-failure. */
export interface FailureExplanation {
  expected_outcome: Outcome;
  actual_outcome: Outcome;
  reasons: Record<string, FailureReason>;
  /** The fewest settled criteria whose status must change: one for a failed `any` group, however many alternatives are reasons; pending ones are not counted. */
  changes_needed: number;
  /** Criterion ids of one smallest change, in declaration order. */
  changes: string[];
  field_errors: FieldError[];
  warnings?: Warning[] | null;
}
