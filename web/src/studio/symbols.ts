// The rules language's functions and keywords
// (engine/syntax/GRAMMAR.md), which the editor's highlighting tells apart
// (ruleslang.ts). What the editor completes comes from the language server
// through the API (completion.ts), never from these lists.

/** The language's calls (engine/syntax/GRAMMAR.md, "Calls"), with what each gives. */
export const functions: ReadonlyArray<readonly [string, string]> = [
  ['min', 'the smallest of numbers'],
  ['max', 'the largest of numbers'],
  ['floor', 'a number rounded down'],
  ['ceil', 'a number rounded up'],
  ['round', 'a number rounded to the nearest'],
  ['abs', 'a number without its sign'],
  ['years_between', 'whole years from one date to another'],
  ['months_between', 'whole months from one date to another'],
  ['days_between', 'days from one date to another'],
  ['add_days', 'a date some days later'],
  ['add_months', 'a date some months later'],
  ['add_years', 'a date some years later'],
  ['decision_date', 'the date the decision is made'],
  ['present', 'whether a field was answered'],
  ['absent', 'whether a field was left unanswered'],
  ['date', 'a date constant, date("YYYY-MM-DD")'],
  ['count', 'how many members of a list meet a condition'],
  ['sum', 'the total of a member field over a list'],
  ['any', 'whether at least one member meets a condition'],
  ['all', 'whether every member meets a condition'],
];

/** The language's keywords and type names. */
export const keywords: readonly string[] = [
  'ruleset', 'section', 'name', 'description', 'effective', 'until', 'source', 'url', 'artefact', 'licence', 'license',
  'field', 'question', 'note', 'why', 'legal_background', 'widget', 'free_text', 'weight', 'label', 'unit', 'range', 'option',
  'value', 'table', 'keys', 'period', 'output', 'list', 'up', 'to', 'noun', 'where',
  'group', 'all', 'any', 'criterion', 'cite', 'discretionary', 'outcome',
  'and', 'or', 'not', 'in', 'true', 'false', 'int', 'decimal', 'bool', 'date', 'enum',
];
