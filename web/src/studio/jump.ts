// Where the rules editor opens when another screen sends the author to a
// criterion (the source view's "cited by" links): the line the criterion
// is declared on, from the draft's symbols or else from the text, or the
// line of its cite of a given quote.

import { ruleString } from './rulestext.js';
import type { DraftSymbols } from './types.js';

/**
 * criterionLine is the 1-based line of rules to open at for criterion (or
 * a named value or table of that name): its
 * cite of quote when quote is given and the criterion cites it, else its
 * declaration (symbols' line when they know it). 0 when the criterion is
 * not in the text.
 */
export function criterionLine(rules: string, criterion: string, quote?: string, symbols?: DraftSymbols | null): number {
  const lines = rules.split('\n');
  const declared = new RegExp(`^\\s*(criterion|value|table)\\s+${criterion.replace(/[^a-z0-9_]/g, '')}\\b`);
  let at = symbols?.criteria.find((c) => c.id === criterion)?.line ?? 0;
  if (!at || !declared.test(lines[at - 1] ?? '')) at = lines.findIndex((l) => declared.test(l)) + 1;
  if (!at || quote === undefined) return at;
  const literal = ruleString(quote);
  for (let i = at; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (/^\s*(criterion|group|outcome|value|table)\b/.test(line)) break;
    if (/^\s*cite\b/.test(line) && line.includes(literal)) return i + 1;
  }
  return at;
}

/** lineParam reads a ?line= parameter: a positive whole number, or 0. */
export function lineParam(value: string | undefined): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : 0;
}
