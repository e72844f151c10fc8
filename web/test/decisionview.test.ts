// Unit tests of the decision view's words: how many conditions would need
// to change is explain-failure's changes_needed, not the number of reasons.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { figureText } from '../src/answers.js';
import { changesSentence, periodOf, periodWords } from '../src/decisionview.js';
import type { FailureExplanation, FailureReason } from '../src/types.js';

function reason(id: string, mechanism: string): FailureReason {
  return {
    criterion_id: id, title: id.toUpperCase(), group: 'g', status: 'not_satisfied', needed_status: 'satisfied', mechanism,
    condition: '', facts: [], missing_fields: [], source_references: [],
  } as unknown as FailureReason;
}

function explanation(reasons: string[], mechanism: string, changes: string[]): FailureExplanation {
  return {
    expected_outcome: 'eligible', actual_outcome: 'not_eligible', field_errors: [],
    reasons: Object.fromEntries(reasons.map((id) => [id, reason(id, mechanism)])),
    changes_needed: changes.length, changes, complete: true,
    ruleset_id: 'r', slug: 's', ruleset_version: 'v1', content_digest: 'sha256:x', engine_version: 'e', decision_date: '2026-11-23',
  };
}

test('the count of changes is changes_needed, whatever the number of reasons', () => {
  const title = (id: string) => id.toUpperCase();
  const cases: { name: string; fx: FailureExplanation; want: string }[] = [
    { name: 'a failed any group: two alternatives, one change', fx: explanation(['a', 'b'], 'any_group_exhausted', ['a']),
      want: 'The fewest conditions to change for “eligible”: one (A).' },
    { name: 'a failed all group: one reason, three changes', fx: explanation(['a'], 'threshold', ['a', 'b', 'c']),
      want: 'The fewest conditions to change for “eligible”: 3 (A, B, C).' },
    { name: 'one reason, one change', fx: explanation(['a'], 'threshold', ['a']),
      want: 'The fewest conditions to change for “eligible”: one (A).' },
    { name: 'only open conditions stand in the way', fx: explanation(['a'], 'missing_answer', []),
      want: 'Nothing answered so far stands in the way: the open conditions below decide.' },
  ];
  for (const c of cases) {
    assert.equal(changesSentence(c.fx, title), c.want, c.name);
  }
});

test('a computed figure reads as people write it', () => {
  const cases: { figure: unknown; unit?: string; want: string }[] = [
    { figure: 1187.4, unit: 'USD', want: '$1,187.40' },
    { figure: 596.32, unit: 'USD', want: '$596.32' },
    { figure: 30000, unit: 'USD a year', want: '$30,000 a year' },
    { figure: 12, unit: 'months', want: '12 months' },
    { figure: true, want: 'yes' },
    { figure: null, unit: 'USD', want: 'not known yet' },
  ];
  for (const c of cases) {
    assert.equal(figureText(c.figure, c.unit), c.want, `${JSON.stringify(c.figure)} ${c.unit ?? ''}`);
  }
});

test('the period of a table row reads as people say it', () => {
  const cases = [
    { text: '2025-10-01 until 2026-09-30', want: '1 October 2025 to 30 September 2026' },
    { text: '2025-01-01 onwards', want: '1 January 2025 onwards' },
  ];
  for (const c of cases) {
    assert.equal(periodWords(periodOf(c.text)), c.want, c.text);
  }
});
