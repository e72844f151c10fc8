// What the editor completes: the draft's declared field ids (with their
// type and question), its source, group and criterion ids, and the rules
// language's functions and keywords (engine/GRAMMAR.md).
//
// The symbols are read from the text in the editor, so they follow every
// keystroke. This is the one place to plug in the API's own symbols for
// the draft, once the draft answer carries them: symbolsFromDraft should
// then prefer those (they come from the compiler) and fall back to
// readSymbols for text not yet saved.

/** One completion: the text inserted, what kind of thing it is, and a short detail. */
export interface SymbolInfo {
  label: string;
  kind: 'field' | 'source' | 'group' | 'criterion' | 'function' | 'keyword';
  detail?: string;
}

/** The language's calls (engine/GRAMMAR.md, "Calls"), with what each gives. */
export const functions: ReadonlyArray<readonly [string, string]> = [
  ['min', 'the smallest of numbers'],
  ['max', 'the largest of numbers'],
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
];

/** The language's keywords and type names. */
export const keywords: readonly string[] = [
  'ruleset', 'section', 'name', 'description', 'effective', 'until', 'source', 'url', 'artefact', 'licence',
  'field', 'question', 'note', 'why', 'legal_background', 'widget', 'free_text', 'weight',
  'group', 'all', 'any', 'criterion', 'cite', 'discretionary', 'outcome',
  'and', 'or', 'not', 'in', 'true', 'false', 'int', 'decimal', 'bool', 'date', 'enum',
];

/** readSymbols finds the declarations in a rules text. */
export function readSymbols(rules: string): SymbolInfo[] {
  const out: SymbolInfo[] = [];
  const lines = rules.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    let m = /^\s*field\s+([a-z][a-z0-9_]*\.[a-z][a-z0-9_]*)\s+(int|decimal|bool|date|enum)\b/.exec(line);
    if (m?.[1]) {
      const question = /^\s*question\s+"((?:[^"\\]|\\.)*)"/.exec(lines[i + 1] ?? '');
      out.push({ label: m[1], kind: 'field', detail: question?.[1] ? `${m[2]}: ${question[1]}` : m[2] });
      continue;
    }
    m = /^\s*source\s+([a-z][a-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"/.exec(line);
    if (m?.[1]) {
      out.push({ label: m[1], kind: 'source', detail: m[2] });
      continue;
    }
    m = /^\s*group\s+([a-z][a-z0-9_]*)\s+(?:all|any)\s+"((?:[^"\\]|\\.)*)"/.exec(line);
    if (m?.[1]) {
      out.push({ label: m[1], kind: 'group', detail: m[2] });
      continue;
    }
    m = /^\s*criterion\s+([a-z][a-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"/.exec(line);
    if (m?.[1]) out.push({ label: m[1], kind: 'criterion', detail: m[2] });
  }
  return out;
}

/** allSymbols is what the editor offers for rules: the declarations, then the functions and keywords. */
export function allSymbols(rules: string): SymbolInfo[] {
  return [
    ...readSymbols(rules),
    ...functions.map(([label, detail]): SymbolInfo => ({ label, kind: 'function', detail })),
    ...keywords.map((label): SymbolInfo => ({ label, kind: 'keyword' })),
  ];
}
