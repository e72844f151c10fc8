// Unit tests of the impact panel's words: counts of applicants (hidden
// below the threshold as "fewer than"), transitions, the summary, progress,
// how an upload names its format, and a caseload made from the decision
// log: whether decisions are kept, the period asked for, what was made and
// why it could not be.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  applicants,
  fromLogRefusal,
  fromLogSentence,
  loggingPath,
  loggingSentence,
  logPeriod,
  progressSentence,
  summarySentence,
  transitionSentence,
  uploadQuery,
} from '../src/studio/impact.js';

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

test('whether the decisions under a slug are kept', () => {
  const on = (dropped: string[], masked: string[], days = 30) => ({ retention_days: days, dropped, masked });
  const cases: Array<[Parameters<typeof loggingSentence>, string]> = [
    [
      ['ruleset', 'acme/snap', null],
      'Decisions under acme/snap are not being kept; an administrator can turn answer logging on for the ruleset (PUT /rulesets/acme%2Fsnap/answer-logging), and the decisions your team’s keys make from then on can make a file of applicants.',
    ],
    [
      ['rulebook', 'acme/eitc', null],
      'Decisions under acme/eitc are not being kept; an administrator can turn answer logging on for the rulebook (PUT /rulebooks/acme%2Feitc/answer-logging), and the decisions your team’s keys make from then on can make a file of applicants.',
    ],
    [['ruleset', 'acme/snap', on([], [])], 'The answers of decisions your team’s keys make under acme/snap are kept for 30 days.'],
    [['ruleset', 'acme/snap', on(['household.name'], [], 1)], 'The answers of decisions your team’s keys make under acme/snap are kept for 1 day, with household.name left out.'],
    [
      ['ruleset', 'acme/snap', on(['a', 'b'], ['c', 'd', 'e'])],
      'The answers of decisions your team’s keys make under acme/snap are kept for 30 days, with a and b left out and the answers to c, d and e hidden (those applicants are counted as undecided).',
    ],
  ];
  for (const [args, want] of cases) assert.equal(loggingSentence(...args), want);
  assert.equal(loggingPath('ruleset', 'acme/snap'), '/rulesets/acme%2Fsnap/answer-logging');
});

test('the period of decisions a file is made from', () => {
  const cases: Array<[string, string, ReturnType<typeof logPeriod>]> = [
    ['', '', {}],
    ['2026-11-01', '', { since: '2026-11-01T00:00:00Z' }],
    ['', '2026-11-30', { until: '2026-12-01T00:00:00Z' }],
    ['2026-11-01', '2026-11-01', { since: '2026-11-01T00:00:00Z', until: '2026-11-02T00:00:00Z' }],
    ['2026-12-31', '2026-12-31', { since: '2026-12-31T00:00:00Z', until: '2027-01-01T00:00:00Z' }],
    ['2028-02-28', '2028-02-28', { since: '2028-02-28T00:00:00Z', until: '2028-02-29T00:00:00Z' }],
    ['2026-11-02', '2026-11-01', { error: 'The period ends before it starts: choose a “to” day on or after the “from” day.' }],
  ];
  for (const [from, to, want] of cases) assert.deepEqual(logPeriod(from, to), want, `${from} to ${to}`);
});

test('a file made from the log, and why one could not be', () => {
  assert.equal(fromLogSentence({ filename: 'acme_snap.log.jsonl', rows: 3, cases: 3 }, 'acme/snap'), 'Made acme_snap.log.jsonl from 3 decisions under acme/snap: 3 applicants.');
  assert.equal(fromLogSentence({ filename: 'acme_snap.log.jsonl', rows: 1, cases: 1 }, 'acme/snap'), 'Made acme_snap.log.jsonl from 1 decision under acme/snap: 1 applicant.');
  assert.equal(
    fromLogSentence({ filename: 'acme_snap.log.jsonl', rows: 5, cases: 4 }, 'acme/snap'),
    'Made acme_snap.log.jsonl from 5 decisions under acme/snap: 4 applicants and 1 row that cannot be read.',
  );
  assert.equal(
    fromLogSentence({ filename: 'acme_snap.log.jsonl', rows: 0, cases: 0 }, 'acme/snap'),
    'Made acme_snap.log.jsonl: no decision under acme/snap was kept in that period, so it holds no applicant.',
  );
  assert.equal(
    fromLogRefusal('ruleset', 404, 'Ruleset "acme/other" not found.'),
    'Ruleset "acme/other" not found. Decisions are read only under a ruleset your team publishes.',
  );
  assert.equal(fromLogRefusal('ruleset', 413, 'ask for a shorter period.'), 'Too many decisions for one file: ask for a shorter period.');
  assert.equal(fromLogRefusal('ruleset', 422, 'since: bad time'), 'since: bad time');
});
