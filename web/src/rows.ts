// Which rows of a table of limits apply to an applicant. Rules often state
// a limit per household size or place as one condition per row, each
// written "not these applicants, or the limit holds":
// household.region != "alaska" or household.size != 2 or income.gross_monthly <= 2864
// (the plain sentence reads it "if household region is alaska and
// household size is 2, ..."). A row whose guard excludes the applicant is
// met whatever the income, so showing it as "Met" says nothing true about
// them; the decision page leaves such rows out, and says once, for the
// rows it cannot place yet, which answer decides. The shape is the one the
// plain sentences read as a row (engine/present/sentence_forms.go).

import { ordinalToISO } from './answers.js';

/** A guard: one field compared with constants. */
interface Guard {
  field: string;
  op: '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'not in';
  values: (string | number | boolean)[];
}

/** Whether a row applies to the applicant: it does, it is about others, or answers it needs are missing. */
export type RowFit = 'applies' | 'other' | 'unknown';

const fieldPattern = '([A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)*)';
const literalPattern = '("(?:[^"\\\\]|\\\\.)*"|date\\("\\d{4}-\\d{2}-\\d{2}"\\)|-?\\d+(?:\\.\\d+)?|true|false)';
const comparison = new RegExp(`^${fieldPattern}\\s*(==|!=|<=|>=|<|>)\\s*${literalPattern}$`);
const mirroredComparison = new RegExp(`^${literalPattern}\\s*(==|!=|<=|>=|<|>)\\s*${fieldPattern}$`);
const membership = new RegExp(`^${fieldPattern}\\s+(not in|in)\\s*\\[(.*)\\]$`);
const mirror: Record<string, Guard['op']> = { '==': '==', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/** literal reads one constant of the rules language: a string, a date (as YYYY-MM-DD), a number or a bool. */
function literal(text: string): string | number | boolean {
  const t = text.trim();
  if (t === 'true' || t === 'false') return t === 'true';
  const date = /^date\("(\d{4}-\d{2}-\d{2})"\)$/.exec(t);
  if (date) return date[1] ?? '';
  if (t.startsWith('"')) return JSON.parse(t) as string;
  return Number(t);
}

/**
 * splitTop splits text at each separator outside brackets and strings:
 * an expression at its top-level " or ", a list's items at ",".
 */
function splitTop(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') {
      quoted = true;
    } else if (c === '(' || c === '[') {
      depth++;
    } else if (c === ')' || c === ']') {
      depth--;
    } else if (depth === 0 && text.startsWith(separator, i)) {
      parts.push(text.slice(start, i).trim());
      start = i + separator.length;
      i += separator.length - 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts;
}

/** splitOr splits an expression at its top-level `or`s (outside brackets and strings). */
export function splitOr(expression: string): string[] {
  return splitTop(expression, ' or ');
}

/** guard reads one alternative as a guard, or undefined when it is anything else. */
function guard(text: string): Guard | undefined {
  const c = comparison.exec(text);
  if (c) return { field: c[1] ?? '', op: c[2] as Guard['op'], values: [literal(c[3] ?? '')] };
  const m = mirroredComparison.exec(text);
  if (m) return { field: m[3] ?? '', op: mirror[m[2] ?? ''] ?? '==', values: [literal(m[1] ?? '')] };
  const s = membership.exec(text);
  if (s) {
    const items = (s[3] ?? '').trim() ? splitTop(s[3] ?? '', ',') : [];
    if (items.some((v) => !new RegExp(`^${literalPattern}$`).test(v))) return undefined;
    return { field: s[1] ?? '', op: s[2] as Guard['op'], values: items.map(literal) };
  }
  return undefined;
}

/**
 * rowGuards reads a condition as a row of a table: the guards of all its
 * alternatives but the last, when each compares a field with constants and
 * there are two or more of them or one says "is not" (!=, not in); else
 * undefined, for a condition that is no such row.
 */
export function rowGuards(expression: string): Guard[] | undefined {
  const parts = splitOr(expression);
  if (parts.length < 2) return undefined;
  const guards: Guard[] = [];
  for (const p of parts.slice(0, -1)) {
    const g = guard(p);
    if (!g) return undefined;
    guards.push(g);
  }
  if (guards.length < 2 && !guards.some((g) => g.op === '!=' || g.op === 'not in')) return undefined;
  return guards;
}

/** comparable turns an answer into what a guard compares: a date as YYYY-MM-DD (a day number too), else itself. */
function comparable(value: unknown, sample: string | number | boolean): unknown {
  if (typeof sample === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(sample) && typeof value === 'number') return ordinalToISO(value);
  return value;
}

/** holds reports whether the guard holds for the answer value. */
function holds(g: Guard, value: unknown): boolean {
  const first = g.values[0];
  if (first === undefined) return false;
  const v = comparable(value, first);
  switch (g.op) {
    case '==':
      return v === first;
    case '!=':
      return v !== first;
    case 'in':
      return g.values.includes(v as string);
    case 'not in':
      return !g.values.includes(v as string);
  }
  if (typeof v !== typeof first) return false;
  const [a, b] = [v as number | string, first as number | string];
  switch (g.op) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
  }
  return false;
}

/**
 * rowFit says whether the row a condition states (rowGuards) applies to
 * the answers known (value of a field id, undefined when unanswered): any
 * guard that holds makes it a row about other applicants; when none holds
 * and all are answered, it applies; else which row applies is not known
 * yet. undefined for a condition that is no row.
 */
export function rowFit(expression: string, known: (fieldId: string) => unknown): RowFit | undefined {
  const guards = rowGuards(expression);
  if (!guards) return undefined;
  let missing = false;
  for (const g of guards) {
    const v = known(g.field);
    if (v === undefined || v === null) {
      missing = true;
    } else if (holds(g, v)) {
      return 'other';
    }
  }
  return missing ? 'unknown' : 'applies';
}

/** rowFields are the fields a row's guards read, each once, in order: what decides which row applies. */
export function rowFields(expression: string): string[] {
  return [...new Set((rowGuards(expression) ?? []).map((g) => g.field))];
}
