// Unit tests of the impact panel's words: counts of applicants (hidden
// below the threshold as "fewer than"), transitions, the summary, progress,
// and how an upload names its format.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { applicants, progressSentence, summarySentence, transitionSentence, uploadQuery } from '../src/studio/impact.js';

const exact = (n: number) => ({ count: n, fewer_than: null });
const hidden = { count: null, fewer_than: 10 };

test('a count of applicants, exact or fewer than the threshold', () => {
  assert.equal(applicants(exact(0)), '0 applicants');
  assert.equal(applicants(exact(1)), '1 applicant');
  assert.equal(applicants(exact(42)), '42 applicants');
  assert.equal(applicants(hidden), 'fewer than 10 applicants');
});

test('a transition in words', () => {
  const cases: Array<[Parameters<typeof transitionSentence>[0], string]> = [
    [{ ...exact(12), from: 'not_eligible', to: 'eligible' }, '12 applicants who are not eligible would become eligible.'],
    [{ ...exact(1), from: 'eligible', to: 'undetermined' }, '1 applicant who is eligible would become undetermined.'],
    [{ ...hidden, from: 'eligible', to: 'not_eligible' }, 'Fewer than 10 applicants who are eligible would become not eligible.'],
    [{ ...exact(120), from: 'eligible', to: 'eligible' }, '120 applicants would stay eligible.'],
  ];
  for (const [t, want] of cases) assert.equal(transitionSentence(t), want);
});

test('the summary', () => {
  assert.equal(summarySentence({ cases: exact(0), changed: exact(0) }), 'No applicant of the file could be decided.');
  assert.equal(summarySentence({ cases: exact(500), changed: exact(0) }), 'Out of 500 applicants, none would get another outcome.');
  assert.equal(summarySentence({ cases: exact(500), changed: exact(31) }), 'Out of 500 applicants, 31 applicants would get another outcome.');
  assert.equal(summarySentence({ cases: exact(500), changed: hidden }), 'Out of 500 applicants, fewer than 10 applicants would get another outcome.');
});

test('progress', () => {
  const p = (state: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled', done: number) => ({ state, progress: { rows_done: done, rows_total: 40, cases_done: done } });
  assert.equal(progressSentence(p('queued', 0)), 'Waiting to start: 40 rows to decide.');
  assert.equal(progressSentence(p('running', 12)), 'Deciding: 12 of 40 rows done.');
  assert.equal(progressSentence(p('succeeded', 40)), 'Done: 40 of 40 rows decided.');
  assert.equal(progressSentence(p('cancelled', 7)), 'Cancelled after 7 of 40 rows.');
  assert.equal(progressSentence(p('failed', 3)), 'Stopped after 3 of 40 rows.');
});

test('an upload names its format by the file name', () => {
  assert.deepEqual(uploadQuery('Applicants.CSV'), { query: '?filename=Applicants.CSV&format=csv', contentType: 'text/csv' });
  assert.deepEqual(uploadQuery('cases.jsonl'), { query: '?filename=cases.jsonl&format=jsonl', contentType: 'application/x-ndjson' });
});
