// What is wrong with the rules text, placed in it: the language server's
// diagnostics of the text being typed (draft/check, exact ranges), compile
// errors at the line and column the compiler gives ("draft.rules:3:5:
// message"), and the saved draft's warnings that carry no position (a
// declared source that binds to no project source, a quote not found in
// its source) at the line of the declaration or cite they are about,
// found in the text.

import { citerWords } from './clauses.js';
import { ruleString } from './rulestext.js';
import type { CheckDiagnostic, Draft, DraftCheck, TextPosition } from './types.js';

/** A problem at a place in the rules text (line and column 1-based). */
export interface Placed {
  severity: 'error' | 'warning' | 'info';
  line: number;
  column: number;
  /** end, when the problem's span is known, is where it ends (exclusive), else it runs over the word at line and column. */
  end?: { line: number; column: number };
  message: string;
  /** fix, when the API suggests one, replaces the text find (as written in the rules) with replace. */
  fix?: { label: string; find: string; replace: string };
}


/** parseCompileError reads "file:line:column: message"; null when the text has another shape. */
export function parseCompileError(text: string): Placed | null {
  const m = /^(?:[^:\n]*):(\d+):(\d+):\s*([\s\S]*)$/.exec(text);
  if (!m) return null;
  return { severity: 'error', line: Number(m[1]), column: Number(m[2]), message: (m[3] ?? '').trim() };
}

/** placeCompileErrors places compile errors; one without a position goes at the start. */
export function placeCompileErrors(errors: readonly string[]): Placed[] {
  return errors.map((e) => parseCompileError(e) ?? { severity: 'error', line: 1, column: 1, message: e });
}

/** lineOf finds the first line of rules matching test; 1 when none does. */
function lineOf(rules: string, test: (line: string) => boolean): { line: number; column: number } {
  const lines = rules.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? '';
    if (test(text)) return { line: i + 1, column: text.length - text.trimStart().length + 1 };
  }
  return { line: 1, column: 1 };
}

/** escapeRegExp makes text match itself literally. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** placeDiagnostics gathers a draft answer's errors and warnings, placed in rules, in text order. */
export function placeDiagnostics(rules: string, draft: Pick<Draft, 'compile_errors' | 'reference_problems' | 'provenance_report'>): Placed[] {
  const out = placeCompileErrors(draft.compile_errors);
  for (const p of draft.reference_problems) {
    const m = /^source ([a-z][a-z0-9_]*):/.exec(p);
    const at = m?.[1] ? lineOf(rules, (l) => new RegExp(`^\\s*source\\s+${m[1]}\\b`).test(l)) : { line: 1, column: 1 };
    out.push({ severity: 'warning', ...at, message: p });
  }
  for (const q of draft.provenance_report.quotes) {
    if (q.verified) continue;
    const start = escapeRegExp(ruleString(q.quote.slice(0, 40)).slice(1, -1));
    const cite = new RegExp(`^\\s*cite\\s+${escapeRegExp(q.source_id)}\\s+"${start}`);
    const at = lineOf(rules, (l) => cite.test(l));
    const near = q.nearest_passage;
    const placed: Placed = {
      severity: 'warning',
      ...at,
      message: `This quote for ${citerWords(q)} is not in the text of its source (${q.project_source_id || q.source_id}); it must match word for word.`,
    };
    if (near) {
      placed.message += ` The nearest passage in the source${near.page ? ` (page ${near.page})` : ''} is “${near.text}”.`;
      placed.fix = { label: `Quote the source’s words for ${citerWords(q)}`, find: ruleString(q.quote), replace: ruleString(near.text) };
    }
    out.push(placed);
  }
  return out.sort((a, b) => a.line - b.line || a.column - b.column);
}

// A position as the language server gives it (line and character from 0,
// characters in UTF-16 code units, a JavaScript string's), one diagnostic
// and the answer of POST .../draft/check: the API's generated shapes.
export type { CheckDiagnostic, DraftCheck, TextPosition };

/** placeCheck places the language server's diagnostics at their ranges. */
export function placeCheck(check: DraftCheck): Placed[] {
  return check.diagnostics.map((d) => ({
    severity: d.severity === 'information' ? 'info' : d.severity,
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    end: { line: d.range.end.line + 1, column: d.range.end.character + 1 },
    message: d.message,
  }));
}

/**
 * problemsOf is what the editor lists for its text: the diagnostics of
 * the latest check of this very text (or, before there is one, the saved
 * draft's compile errors), then the saved draft's warnings about its
 * sources and quotes found in the text; in text order.
 */
export function problemsOf(rules: string, saved: Pick<Draft, 'compile_errors' | 'reference_problems' | 'provenance_report'> | null, check: DraftCheck | null): Placed[] {
  const compiled = check ? placeCheck(check) : placeCompileErrors(saved?.compile_errors ?? []);
  const warnings = saved ? placeDiagnostics(rules, { ...saved, compile_errors: [] }) : [];
  return [...compiled, ...warnings].sort((a, b) => a.line - b.line || a.column - b.column);
}

/** describePlaced words a problem for a list read aloud: "Error, line 3, column 5: …". */
export function describePlaced(p: Placed): string {
  return `${p.severity === 'error' ? 'Error' : p.severity === 'warning' ? 'Warning' : 'Note'}, line ${p.line}, column ${p.column}: ${p.message}`;
}
