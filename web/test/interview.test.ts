// Unit tests of the interview's state and of what it shows next.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Interview, nextStep } from '../src/interview.js';
import type { Decision, Question } from '../src/types.js';

function decision(extra: Partial<Decision>): Decision {
  return {
    decision: 'undetermined',
    slug: 's',
    ruleset_id: 'r',
    ruleset_version: 'v1',
    content_digest: 'sha256:x',
    engine_version: 'e',
    decision_id: 'dec_x',
    inputs_hash: 'sha256:y',
    decision_time: 't',
    decision_date: '2026-11-23',
    fields_evaluated: 0,
    fields_provided: 0,
    missing_fields: [],
    next_question: null,
    optimal_path: [],
    field_errors: [],
    ...extra,
  };
}
const q = (field_id: string): Question => ({ field_id, question: '', weight: 1 });

test('answer, skip and back walk the history', () => {
  const iv = new Interview();
  iv.answer('a', { text: '1', json: '1' });
  iv.skip('b');
  assert.deepEqual(iv.history, ['a', 'b']);
  assert.deepEqual([...iv.declined], ['b']);
  // Answering a skipped question takes it out of the skipped ones.
  iv.answer('b', { text: 'yes', json: 'true' });
  assert.deepEqual([...iv.declined], []);
  assert.deepEqual(iv.back(), { fieldId: 'b', text: 'yes' });
  assert.equal(iv.answers.has('b'), false);
  assert.deepEqual(iv.back(), { fieldId: 'a', text: '1' });
  assert.equal(iv.back(), undefined);
});

test('a what-if changes a copy, never the answers', () => {
  const iv = new Interview();
  iv.answer('a', { text: '1', json: '1' });
  const alt = iv.with('a', { text: '2', json: '2' });
  assert.equal(alt.get('a')?.json, '2');
  assert.equal(iv.answers.get('a')?.json, '1');
});

test('next step: the planner’s question, a field error first, a settled outcome at once', () => {
  const iv = new Interview();
  assert.deepEqual(nextStep(decision({ next_question: q('a'), optimal_path: [q('a'), q('b')] }), iv), { kind: 'question', fieldId: 'a' });
  iv.answer('a', { text: 'x', json: '"x"' });
  const refused = decision({ next_question: q('b'), field_errors: [{ field: 'a', message: 'expected a number' }] });
  assert.deepEqual(nextStep(refused, iv), { kind: 'question', fieldId: 'a', error: 'expected a number' });
  // Settled although optimal_path still lists questions.
  assert.deepEqual(nextStep(decision({ decision: 'not_eligible', optimal_path: [q('b')] }), iv), { kind: 'decided' });
});

test('next step: a skipped question is not asked again; none left is stuck', () => {
  const iv = new Interview();
  iv.skip('a');
  assert.deepEqual(nextStep(decision({ next_question: q('a'), optimal_path: [q('a'), q('c')] }), iv), { kind: 'question', fieldId: 'c' });
  assert.deepEqual(nextStep(decision({ next_question: q('a'), optimal_path: [q('a')] }), iv), { kind: 'stuck' });
});
