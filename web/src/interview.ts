// The interview's state, free of the DOM: the answers given, the questions
// skipped, the order they were met in (for Back), and what to show next
// given the latest /decide answer.

import type { Answer } from './answers.js';
import { countAnswer, countOf, renumberIds, renumberMap } from './household.js';
import type { Decision } from './types.js';

/** Interview holds one applicant's answers to one ruleset. */
export class Interview {
  /** The answers, by field id, in the order given. */
  readonly answers = new Map<string, Answer>();
  /** The questions the applicant chose to skip (inquiry_context's declined_fields). */
  readonly declined = new Set<string>();
  /** The questions answered or skipped, oldest first: what Back walks. */
  readonly history: string[] = [];

  /** answer records an answer to fieldId, replacing an earlier one or a skip. */
  answer(fieldId: string, a: Answer): void {
    this.answers.set(fieldId, a);
    this.declined.delete(fieldId);
    this.visit(fieldId);
  }

  /** skip records that the applicant will not answer fieldId. */
  skip(fieldId: string): void {
    this.answers.delete(fieldId);
    this.declined.add(fieldId);
    this.visit(fieldId);
  }

  /**
   * back undoes the latest answer or skip and returns the field it was
   * about with the text that was entered (so the question can be shown
   * again, filled in), or undefined at the start.
   */
  back(): { fieldId: string; text: string } | undefined {
    const fieldId = this.history.pop();
    if (fieldId === undefined) {
      return undefined;
    }
    const text = this.answers.get(fieldId)?.text ?? '';
    this.answers.delete(fieldId);
    this.declined.delete(fieldId);
    return { fieldId, text };
  }

  /** forget takes back an answer or a skip, as if the question had never been met. */
  forget(fieldId: string): void {
    this.answers.delete(fieldId);
    this.declined.delete(fieldId);
    const i = this.history.indexOf(fieldId);
    if (i >= 0) this.history.splice(i, 1);
  }

  /**
   * addMember answers that list holds one member more than it does (none
   * when unanswered) and returns the new member's index, from 0.
   */
  addMember(list: string): number {
    const n = countOf(this.answers, list) ?? 0;
    this.answer(list, countAnswer(n + 1));
    return n;
  }

  /**
   * removeMember takes member index (from 0) out of list: their answers
   * and skips are forgotten, every later member's move one place down
   * (member[3].age becomes member[2].age), and the list's count is one
   * less.
   */
  removeMember(list: string, index: number): void {
    const n = countOf(this.answers, list) ?? 0;
    const answers = renumberMap(this.answers, list, index);
    const declined = renumberMap(new Map([...this.declined].map((id) => [id, true])), list, index);
    const history = renumberIds(this.history, list, index);
    this.answers.clear();
    for (const [id, a] of answers) this.answers.set(id, a);
    this.declined.clear();
    for (const id of declined.keys()) this.declined.add(id);
    this.history.splice(0, this.history.length, ...history);
    this.answer(list, countAnswer(Math.max(n - 1, 0)));
  }

  /** with is a copy of the answers with fieldId's answer replaced: a what-if. */
  with(fieldId: string, a: Answer): Map<string, Answer> {
    const m = new Map(this.answers);
    m.set(fieldId, a);
    return m;
  }

  private visit(fieldId: string): void {
    const i = this.history.indexOf(fieldId);
    if (i >= 0) {
      this.history.splice(i, 1);
    }
    this.history.push(fieldId);
  }
}

/** What the interview shows after a /decide answer. */
export type Step =
  | { kind: 'question'; fieldId: string; error?: string }
  | { kind: 'decided' }
  | { kind: 'stuck' };

/**
 * nextStep reads a /decide answer: an answer the API could not apply is
 * asked again with its error; a settled outcome (eligible or not_eligible)
 * is shown at once, however many questions remain; otherwise the planner's
 * next_question is asked, or, when it is one the applicant skipped, the
 * first unskipped question of optimal_path. With none left the interview is
 * stuck at undetermined, and the skipped questions are offered again.
 */
export function nextStep(d: Decision, iv: Interview): Step {
  for (const fe of d.field_errors) {
    if (iv.answers.has(fe.field)) {
      return { kind: 'question', fieldId: fe.field, error: fe.message };
    }
  }
  if (d.decision !== 'undetermined') {
    return { kind: 'decided' };
  }
  const candidates = [d.next_question, ...d.optimal_path].filter((q) => q !== null);
  for (const q of candidates) {
    if (!iv.declined.has(q.field_id) && !iv.answers.has(q.field_id)) {
      return { kind: 'question', fieldId: q.field_id };
    }
  }
  return { kind: 'stuck' };
}
