// Unit tests of what the Generate screen says: the progress panel's lines,
// what is read out (a change of stage, not every poll), the outcome of a
// finished generation, a refusal over the model's budget, and how a source
// question settled as guidance is recognised.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  announcement,
  count,
  duration,
  finishedHeading,
  type GenerationStatus,
  isActive,
  outcomeOf,
  overBudget,
  overBudgetWords,
  progressFacts,
  settledReading,
  settleText,
  stageWords,
} from '../src/studio/generation.js';

function status(over: Partial<GenerationStatus>): GenerationStatus {
  return {
    project_id: 'prj_x',
    generation_contract_version: 1,
    job_id: 'gen_1',
    state: 'running',
    outcome: null,
    mode: 'fresh',
    model: 'gpt-4.1',
    progress: { stage: 'call', round: 1, tests_passing: 0, tests_total: 0, tokens_used: 0 },
    prompt_tokens: 0,
    telemetry_availability: 'full',
    worker_lifecycle: 'working',
    retry_readiness: 'blocked',
    error_detail: null,
    result: null,
    draft: null,
    created_at: '2026-11-27T09:00:00Z',
    started_at: '2026-11-27T09:00:01Z',
    finished_at: null,
    ...over,
  } as GenerationStatus;
}

test('stages are said in words; an unknown stage is still said', () => {
  assert.equal(stageWords('verify_quotes'), 'Checking the quotes against the sources');
  assert.equal(stageWords('repair'), 'Asking the model to repair the rules');
  assert.equal(stageWords('a_new_stage'), 'Working');
});

test('active means queued or running', () => {
  const cases: Array<[string, boolean]> = [
    ['queued', true],
    ['running', true],
    ['idle', false],
    ['success', false],
    ['failed', false],
  ];
  for (const [state, want] of cases) assert.equal(isActive({ state } as GenerationStatus), want, state);
  assert.equal(isActive(null), false);
});

test('durations and counts', () => {
  const cases: Array<[number, string]> = [
    [0, '0 s'],
    [59.9, '59 s'],
    [61, '1 min 1 s'],
    [3725, '1 h 2 min'],
    [-4, '0 s'],
  ];
  for (const [s, want] of cases) assert.equal(duration(s), want, String(s));
  assert.equal(count(4072), '4,072');
  assert.equal(count(1031576), '1,031,576');
  assert.equal(count(12), '12');
});

test('the progress panel: stage, round, tests of total, tokens, time since start', () => {
  const now = Date.parse('2026-11-27T09:01:06Z');
  const cases: Array<[Partial<GenerationStatus>, Partial<ReturnType<typeof progressFacts>>]> = [
    [{}, { stage: 'Waiting for the model', round: '1', tests: 'the project has no tests', tokens: '0', elapsed: '1 min 5 s' }],
    [{ progress: { stage: 'compile', round: 1, tests_passing: 0, tests_total: 3, tokens_used: 10 } }, { tests: '3 tests, not run yet' }],
    [
      { progress: { stage: 'repair', round: 3, tests_passing: 2, tests_total: 5, tokens_used: 12345 } },
      { stage: 'Asking the model to repair the rules', round: '3', tests: '2 of 5 tests pass', tokens: '12,345' },
    ],
    [{ progress: { stage: 'test', round: 1, tests_passing: 1, tests_total: 1, tokens_used: 9 } }, { tests: '1 of 1 test pass' }],
    [{ progress: { stage: 'call', round: 2, tests_passing: 1, tests_total: 2, tokens_used: 9 } }, { tests: '1 of 2 tests pass' }],
    [{ state: 'queued', started_at: null, progress: null }, { stage: 'Waiting for a worker to take it', round: '—', elapsed: '1 min 6 s' }],
    [{ started_at: null, created_at: null }, { elapsed: '—' }],
  ];
  for (const [over, want] of cases) {
    const got = progressFacts(status(over), now);
    for (const [k, v] of Object.entries(want)) assert.equal(got[k as keyof typeof got], v, `${JSON.stringify(over)} ${k}`);
  }
});

test('only a change of stage, round or generation is read out', () => {
  const call = status({});
  const callLater = status({ progress: { stage: 'call', round: 1, tests_passing: 0, tests_total: 0, tokens_used: 800 } });
  const compile = status({ progress: { stage: 'compile', round: 1, tests_passing: 0, tests_total: 0, tokens_used: 900 } });
  const repair2 = status({ progress: { stage: 'repair', round: 2, tests_passing: 0, tests_total: 1, tokens_used: 900 } });
  const repair3 = status({ progress: { stage: 'repair', round: 3, tests_passing: 0, tests_total: 1, tokens_used: 900 } });
  const other = status({ job_id: 'gen_2' });
  const done = status({ state: 'success', outcome: 'accepted' });
  const cases: Array<[GenerationStatus | null, GenerationStatus, string]> = [
    [null, call, 'Waiting for the model.'],
    [call, callLater, ''],
    [callLater, compile, 'Compiling the rules.'],
    [compile, repair2, 'Asking the model to repair the rules, round 2.'],
    [repair2, repair3, 'Asking the model to repair the rules, round 3.'],
    [repair3, repair3, ''],
    [call, other, 'Waiting for the model.'],
    [repair3, done, ''],
    [null, status({ state: 'queued', progress: null }), 'Waiting for a worker to take it.'],
  ];
  for (const [prev, next, want] of cases) assert.equal(announcement(prev, next), want, `${prev?.progress?.stage} → ${next.progress?.stage}`);
});

test('the outcome: accepted, failing tests, cancelled, failed', () => {
  const result = {
    accepted: true,
    tests_passing: 2,
    tests_total: 2,
    failures: [],
    provenance_report: { totals: { verified: 3, flagged: 0, uncited: 1 } },
    review_hint: { message: 'Add a case that decides worksite_size.', actionable_via: 'POST /projects/prj_x/tests' },
    rounds: [{ round: 1, kept: true }],
    tokens_used: 4072,
  };
  const ok = outcomeOf(status({ state: 'success', outcome: 'accepted' }), result);
  assert.equal(ok.kind, 'accepted');
  assert.equal(ok.headline, 'The new draft is ready. All 2 tests pass.');
  assert.deepEqual(ok.lines, ['Quotes: 3 found in the sources, 0 not found, 1 criterion without a quote.', '1 round, 4,072 tokens used.']);
  assert.deepEqual(ok.hint, { message: 'Add a case that decides worksite_size.', actionableVia: 'POST /projects/prj_x/tests' });

  const failure = { name: 'child', pass: false, expected: 'not_eligible', got: 'eligible', hint: 'criterion adult decides it', mismatches: [], ignored_fields: [] };
  const failing = outcomeOf(null, { ...result, accepted: false, tests_passing: 1, failures: [failure], review_hint: null, changed_criteria: ['adult'] });
  assert.equal(failing.kind, 'failing_tests');
  assert.equal(failing.headline, 'The new draft is saved but not yet right. 1 of 2 tests pass.');
  assert.deepEqual(failing.failures, [failure]);
  assert.equal(failing.hint, null);
  assert.ok(failing.lines.includes('Criteria changed: adult.'));

  const none = outcomeOf(null, { ...result, tests_passing: 0, tests_total: 0, provenance_report: null, rounds: null });
  assert.equal(none.headline, 'The new draft is ready. The project has no tests yet, so none was run.');
  assert.deepEqual(none.lines, ['4,072 tokens used.']);

  const cancelled = outcomeOf(status({ state: 'failed', outcome: 'cancelled' }), null);
  assert.equal(cancelled.kind, 'cancelled');

  const failed = outcomeOf(
    status({ state: 'failed', outcome: 'failed', error_detail: { reason_code: 'provider_auth_failed', retryable: false, message: 'The provider refused the key.' } }),
    null,
  );
  assert.equal(failed.kind, 'failed');
  assert.equal(failed.headline, 'The provider refused the key.');
  assert.deepEqual(failed.lines, []);
  const retry = outcomeOf(status({ state: 'failed', outcome: 'failed', error_detail: { reason_code: 'provider_timeout', retryable: true, message: 'The model did not answer in time.' } }), null);
  assert.deepEqual(retry.lines, ['Starting it again may work.']);
  assert.doesNotMatch(JSON.stringify([ok, failing, failed, retry]), /provider_auth_failed|provider_timeout|reason_code/, 'no reason code is shown');
  assert.equal(finishedHeading[failed.kind], 'The generation failed', 'a failure never reads as finished');
  assert.equal(finishedHeading[cancelled.kind], 'The generation was cancelled');
  assert.equal(finishedHeading[failing.kind], 'The generation has finished, with tests failing');
  assert.equal(finishedHeading[ok.kind], 'The generation has finished');
});

test('a refusal over the token budget: the count, the budget, the largest sources and what to do', () => {
  const body = {
    detail: {
      error: 'unprocessable_entity',
      reason_code: 'token_budget_exceeded',
      message: 'The prompt counts 140000 tokens.',
      token_count: 140000,
      token_budget: 112000,
      largest_sources: [
        { source_id: 'src_a', filename: 'act.pdf', estimated_tokens: 120000 },
        { source_id: 'src_b', filename: 'notes.txt', estimated_tokens: 15000 },
      ],
    },
  };
  const o = overBudget(body);
  assert.deepEqual(o, { count: 140000, budget: 112000, largest: [{ filename: 'act.pdf', tokens: 120000 }, { filename: 'notes.txt', tokens: 15000 }] });
  const w = overBudgetWords(o!);
  assert.match(w.headline, /at least 140,000 tokens.*at most 112,000/);
  assert.deepEqual(w.sources, ['act.pdf: 120,000 tokens', 'notes.txt: 15,000 tokens']);
  assert.match(w.advice, /Reference only/);
  assert.equal(overBudget({ detail: { reason_code: 'generation_active' } }), null);
  assert.equal(overBudget(null), null);
  assert.equal(overBudget({ detail: 'text' }), null);
});

test('a settled source question is recognised from its guidance note; the latest note wins', () => {
  const q = { quote: 'a child under 18', question: 'Is 18 itself included?' };
  const text = settleText(q, ' Under 18 means 17 or younger. ');
  assert.match(text, /a child under 18/);
  assert.match(text, /Under 18 means 17 or younger\.$/);
  const note = (guidance_text: string, process_type: 'rule_generation' | 'field_extraction' = 'rule_generation') => ({ guidance_text, process_type });
  assert.equal(settledReading(q, []), null);
  assert.equal(settledReading(q, [note('Ages are completed years.')]), null);
  assert.equal(settledReading(q, [note(text, 'field_extraction')]), null, 'only rule-generation guidance settles');
  assert.equal(settledReading(q, [note(text)]), 'Under 18 means 17 or younger.');
  assert.equal(settledReading(q, [note(text), note(settleText(q, 'Up to and including 18.'))]), 'Up to and including 18.');
  assert.equal(settledReading({ quote: 'a child under 18', question: 'Is a stepchild a child?' }, [note(text)]), null, 'another question on the same clause');
});
