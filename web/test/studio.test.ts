// Unit tests of the studio's own logic: routes, the new-project form, the
// line diff, where diagnostics land in the rules text, the test-case form,
// checking the rules as they are typed, the session's version history and the publishing
// gates read from a draft.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { buildCase, formatAnswers, parseAnswers, parseValue, reasons } from '../src/studio/caseform.js';
import { changeSentence, fieldChangeSentence } from '../src/studio/draftdiff.js';
import { describePlaced, parseCompileError, placeCheck, placeCompileErrors, placeDiagnostics, problemsOf, type DraftCheck } from '../src/studio/diagnostics.js';
import { VersionHistory } from '../src/studio/history.js';
import { diffSummary, lineDiff } from '../src/studio/linediff.js';
import { draftSlug, sectionFromSlug, starterDraft, validateProjectForm } from '../src/studio/projectform.js';
import { gates } from '../src/studio/gates.js';
import { parseStudioRoute, screenFor, studioHref } from '../src/studio/routes.js';
import { scoreWords, uniqueName } from '../src/studio/suggestions.js';
import { LiveCheck } from '../src/studio/livecheck.js';
import type { Draft } from '../src/studio/types.js';

test('studio routes: parsed and written back, unknown screens refused', () => {
  const cases: Array<[string, ReturnType<typeof parseStudioRoute>]> = [
    ['#/studio', { kind: 'projects' }],
    ['#/studio/', { kind: 'projects' }],
    ['#/studio/projects/prj_abc/tests', { kind: 'project', projectId: 'prj_abc', screen: 'tests' }],
    ['#/studio/projects/prj_abc', { kind: 'project', projectId: 'prj_abc', screen: 'draft' }],
    ['#/studio/projects/prj_abc/nonsense', null],
    ['#/ruleset/demo%2Fx', null],
    ['', null],
  ];
  for (const [hash, want] of cases) {
    assert.deepEqual(parseStudioRoute(hash), want, hash);
    if (want && hash !== '#/studio/' && hash !== '#/studio/projects/prj_abc') assert.equal(studioHref(want), hash);
  }
});

test('actionable_via leads to the screen where the check is fixed', () => {
  const cases: Array<[string, string | null]> = [
    ['PUT /projects/prj_7JzbM3k7HKam3BQt/draft', 'draft'],
    ['POST /projects/prj_7JzbM3k7HKam3BQt/tests', 'tests'],
    ['PATCH /projects/prj_7JzbM3k7HKam3BQt/sources/src_x', 'sources'],
    ['POST /projects/prj_7JzbM3k7HKam3BQt/guidance', 'generate'],
    ['POST /projects/prj_7JzbM3k7HKam3BQt/generate-and-test', 'generate'],
    ['POST /projects/prj_7JzbM3k7HKam3BQt/publish', 'publish'],
    ['GET /projects/prj_7JzbM3k7HKam3BQt/draft/diff', 'changes'],
    ['GET /rulesets/x', null],
    ['', null],
  ];
  for (const [via, want] of cases) assert.equal(screenFor(via), want, via);
});

test('new-project form: each field says what is wrong with it', () => {
  const ok = { name: 'Leave', slug: 'acme/leave-eligibility', sectionId: 'leave_eligibility', sourceText: '' };
  assert.deepEqual(validateProjectForm(ok), {});
  const cases: Array<[Partial<typeof ok>, string[]]> = [
    [{ name: '  ' }, ['name']],
    [{ slug: '' }, ['slug']],
    [{ slug: 'Acme/Leave' }, ['slug']],
    [{ slug: 'acme/' }, ['slug']],
    [{ slug: 'acme//x' }, ['slug']],
    [{ sectionId: '1leave' }, ['sectionId']],
    [{ sectionId: 'leave-eligibility' }, ['sectionId']],
    [{ name: '', slug: 'x y', sectionId: '' }, ['name', 'slug', 'sectionId']],
  ];
  for (const [change, fields] of cases) {
    assert.deepEqual(Object.keys(validateProjectForm({ ...ok, ...change })).sort(), [...fields].sort(), JSON.stringify(change));
  }
  assert.equal(sectionFromSlug('acme/fmla-leave'), 'fmla_leave');
  assert.equal(sectionFromSlug('acme/2024-rules'), 'rules');
  assert.equal(sectionFromSlug('x'), 'x');
});

test('the starter draft records the slug, and the slug is read back from rules', () => {
  const text = starterDraft({ name: 'Say "hi"', slug: 'acme/leave', sectionId: 'leave', sourceText: '' });
  assert.equal(text, 'ruleset "acme/leave"\nsection leave\nname "Say \\"hi\\""\n');
  assert.equal(draftSlug(text), 'acme/leave');
  assert.equal(draftSlug('# ruleset "no"\nsection x\n'), '');
  assert.equal(draftSlug('section x\n  ruleset "late/one"\n'), 'late/one');
});

test('line diff: the longest common subsequence of lines', () => {
  const cases: Array<[string, string, string[]]> = [
    ['a\nb\nc', 'a\nb\nc', [' a', ' b', ' c']],
    ['a\nb\nc', 'a\nx\nc', [' a', '-b', '+x', ' c']],
    ['a\nc', 'a\nb\nc', [' a', '+b', ' c']],
    ['a\nb\nc', 'a\nc', [' a', '-b', ' c']],
    ['', 'x', ['-', '+x']],
    ['x\ny', 'y\nx', ['-x', ' y', '+x']],
  ];
  const sign = { same: ' ', added: '+', removed: '-' } as const;
  for (const [a, b, want] of cases) {
    assert.deepEqual(
      lineDiff(a, b).map((l) => sign[l.kind] + l.text),
      want,
      `${JSON.stringify(a)} to ${JSON.stringify(b)}`,
    );
  }
  const numbered = lineDiff('a\nb\nc', 'a\nx\nc');
  assert.deepEqual(
    numbered.map((l) => [l.oldLine, l.newLine]),
    [
      [1, 1],
      [2, undefined],
      [undefined, 2],
      [3, 3],
    ],
  );
  assert.equal(diffSummary(numbered), '1 line added, 1 removed.');
  assert.equal(diffSummary(lineDiff('a', 'a')), 'No differences.');
  assert.equal(diffSummary(lineDiff('a', 'a\nb\nc')), '2 lines added, 0 removed.');
});

test('line diff: past the table bound, the middle shows as replaced', () => {
  const a = Array.from({ length: 2100 }, (_, i) => `a${i}`).join('\n');
  const b = Array.from({ length: 2100 }, (_, i) => `b${i}`).join('\n');
  const d = lineDiff('head\n' + a + '\ntail', 'head\n' + b + '\ntail');
  assert.equal(d[0]?.kind, 'same');
  assert.equal(d[d.length - 1]?.kind, 'same');
  assert.equal(d.filter((l) => l.kind === 'removed').length, 2100);
  assert.equal(d.filter((l) => l.kind === 'added').length, 2100);
});

const rules = `ruleset "acme/leave"
section leave
source usc "US Code" url "https://example.gov/usc" licence "public-domain"
field person.age int weight 1
  question "How old are you?"
group g all "G" {
  criterion adult "Adult" {
    person.age >= 18
    cite usc "eighteen \\"years\\" of age"
  }
}
`;

function draftWith(d: Partial<Pick<Draft, 'compile_errors' | 'reference_problems' | 'provenance_report'>>): Pick<Draft, 'compile_errors' | 'reference_problems' | 'provenance_report'> {
  return {
    compile_errors: [],
    reference_problems: [],
    provenance_report: { totals: { verified: 0, flagged: 0, uncited: 0 }, coverage: [], quotes: [] },
    ...d,
  };
}

test('diagnostics: compile errors at their line and column, warnings at what they are about', () => {
  assert.deepEqual(parseCompileError('draft.rules:14:5: unknown field a.b: declare it'), {
    severity: 'error',
    line: 14,
    column: 5,
    message: 'unknown field a.b: declare it',
  });
  assert.equal(parseCompileError('no position here'), null);
  const placed = placeDiagnostics(
    rules,
    draftWith({
      compile_errors: ['draft.rules:8:5: something: with a colon', 'a message without a place'],
      reference_problems: ['source usc: the project has no source uploaded with url "https://example.gov/usc"', 'source_targets names x, which the draft does not declare'],
      provenance_report: {
        totals: { verified: 0, flagged: 1, uncited: 0 },
        coverage: [],
        quotes: [
          { criterion_id: 'adult', source_id: 'usc', project_source_id: 'src_1', quote: 'eighteen "years" of age', verified: false },
          { criterion_id: 'other', source_id: 'usc', project_source_id: 'src_1', quote: 'fine', verified: true },
        ],
      },
    }),
  );
  assert.deepEqual(
    placed.map((p) => [p.severity, p.line, p.column]),
    [
      ['error', 1, 1],
      ['warning', 1, 1],
      ['warning', 3, 1],
      ['error', 8, 5],
      ['warning', 9, 5],
    ],
  );
  assert.match(placed[4]?.message ?? '', /criterion adult/);
  assert.equal(placed[4]?.fix, undefined, 'no fix without a nearest passage');
  const near = placeDiagnostics(
    rules,
    draftWith({
      provenance_report: {
        totals: { verified: 0, flagged: 1, uncited: 0 },
        coverage: [],
        quotes: [
          {
            criterion_id: 'adult',
            source_id: 'usc',
            project_source_id: 'src_1',
            quote: 'eighteen "years" of age',
            verified: false,
            nearest_passage: { text: 'eighteen "years" of ages', offset: 10, end: 34, page: 2, similarity: 0.9 },
          },
        ],
      },
    }),
  );
  assert.match(near[0]?.message ?? '', /nearest passage in the source \(page 2\) is “eighteen "years" of ages”/);
  assert.deepEqual(near[0]?.fix, {
    label: 'Quote the source’s words for criterion adult',
    find: '"eighteen \\"years\\" of age"',
    replace: '"eighteen \\"years\\" of ages"',
  });
  assert.ok(rules.includes(near[0]?.fix?.find ?? '-'), 'the fix finds the quote as the rules write it');
  assert.deepEqual(placeCompileErrors(['draft.rules:2:3: x', 'y']), [
    { severity: 'error', line: 2, column: 3, message: 'x' },
    { severity: 'error', line: 1, column: 1, message: 'y' },
  ]);
  assert.equal(describePlaced(placed[3]!), 'Error, line 8, column 5: something: with a colon');
});

test('test cases: answers parsed from lines, with their errors said per field', () => {
  assert.equal(parseValue('12'), 12);
  assert.equal(parseValue('-1.5'), -1.5);
  assert.equal(parseValue('true'), true);
  assert.equal(parseValue('"12"'), '12');
  assert.equal(parseValue(' private '), 'private');
  assert.equal(parseValue('2024-02-29'), '2024-02-29');
  assert.deepEqual(parseAnswers('a.b = 1\n\n# note\nc.d: "x y"\ne.f = false'), { ok: true, values: { 'a.b': 1, 'c.d': 'x y', 'e.f': false } });
  assert.deepEqual(parseAnswers('a.b = 1\na.b = 2'), { ok: false, error: 'Line 2: a.b is answered twice.' });
  assert.equal(parseAnswers('age 12').ok, false);
  assert.equal(parseAnswers('a.b =').ok, false);
  const values = { 'a.b': 1, 'c.d': 'private', 'e.f': '12', 'g.h': true };
  const round = parseAnswers(formatAnswers(values));
  assert.deepEqual(round, { ok: true, values });
  // A household: how many people, then each person's answers.
  const household = { 'h.region': 'north', member: [{ age: 34, pregnant: false }, {}, { age: 3 }] };
  assert.equal(formatAnswers(household), 'h.region = north\nmember = 3\nmember[0].age = 34\nmember[0].pregnant = false\nmember[2].age = 3');
  assert.deepEqual(parseAnswers(formatAnswers(household)), { ok: true, values: household });
  assert.deepEqual(parseAnswers('member[0].age = 3'), {
    ok: false,
    error: 'Line 1: say first how many the list holds (“member = 1” or more), then answer for each.',
  });
  assert.deepEqual(parseAnswers('member = 1\nmember[0].age = 3\nmember[0].age = 4'), { ok: false, error: 'Line 3: member[0].age is answered twice.' });
  assert.equal(parseAnswers('member = two').ok, false);

  const others = [{ name: 'taken', field_values: {}, expected_outcome: 'eligible' }];
  const ok = buildCase({ name: ' new ', answers: 'a.b = 1', expected: 'not_eligible', decisionDate: '' }, others);
  assert.deepEqual(ok, { ok: true, testCase: { name: 'new', field_values: { 'a.b': 1 }, expected_outcome: 'not_eligible' } });
  const dated = buildCase({ name: 'd', answers: '', expected: 'eligible', decisionDate: '2026-01-31' }, others);
  assert.equal(dated.ok && dated.testCase.decision_date, '2026-01-31');
  const bad = buildCase({ name: 'taken', answers: 'nope', expected: 'maybe', decisionDate: '31/01/2026' }, others);
  assert.equal(bad.ok, false);
  if (!bad.ok) assert.deepEqual(Object.keys(bad.errors).sort(), ['answers', 'decisionDate', 'expected', 'name']);
});

test('problems as typed: the check of this very text at its ranges, then the saved draft’s warnings', () => {
  const check: DraftCheck = {
    compiles: false,
    diagnostics: [
      { range: { start: { line: 7, character: 4 }, end: { line: 7, character: 17 } }, severity: 'error', code: '', message: 'unknown field person.height' },
      { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 5 } }, severity: 'information', code: '', message: 'a note' },
    ],
  };
  assert.deepEqual(placeCheck(check), [
    { severity: 'error', line: 8, column: 5, end: { line: 8, column: 18 }, message: 'unknown field person.height' },
    { severity: 'info', line: 1, column: 1, end: { line: 1, column: 6 }, message: 'a note' },
  ]);
  const saved = draftWith({
    compile_errors: ['draft.rules:3:1: the saved text’s error'],
    reference_problems: ['source usc: the project has no source uploaded with url "https://example.gov/usc"'],
  });
  // With a check of the text, its diagnostics replace the saved draft's
  // compile errors; the saved draft's warnings about sources stay.
  assert.deepEqual(
    problemsOf(rules, saved, check).map((p) => [p.severity, p.line, p.message.slice(0, 12)]),
    [
      ['info', 1, 'a note'],
      ['warning', 3, 'source usc: '],
      ['error', 8, 'unknown fiel'],
    ],
  );
  // Before any check: the saved draft's compile errors.
  assert.deepEqual(
    problemsOf(rules, saved, null).map((p) => [p.severity, p.line]),
    [
      ['error', 3],
      ['warning', 3],
    ],
  );
  assert.deepEqual(problemsOf(rules, null, { compiles: true, diagnostics: [] }), []);
  assert.equal(describePlaced(placeCheck(check)[1]!), 'Note, line 1, column 1: a note');
});

test('checking as typed: one check per pause, and a later keystroke wins over a late answer', async () => {
  let text = 'a';
  const asked: string[] = [];
  const answers: string[] = [];
  // Each check answers when told to, so answers can come out of order.
  const pending: Array<() => void> = [];
  const live = new LiveCheck(
    (t) => {
      asked.push(t);
      return new Promise<DraftCheck>((resolve) => pending.push(() => resolve({ compiles: t === 'ok', diagnostics: [] })));
    },
    () => text,
    (c, t) => answers.push(`${t}:${c.compiles}`),
    5,
  );
  const settle = () => new Promise((r) => setTimeout(r, 20));
  // Three keystrokes within the pause: one check, of the last text.
  for (const t of ['b', 'bo', 'ok']) {
    text = t;
    live.changed();
  }
  await settle();
  assert.deepEqual(asked, ['ok']);
  pending.shift()!();
  await settle();
  assert.deepEqual(answers, ['ok:true']);
  // A check goes out, the author types on, and its answer comes late: it
  // is dropped, and the newer text's answer is shown.
  text = 'okay';
  live.changed();
  await settle();
  text = 'okay!';
  live.changed();
  await settle();
  assert.deepEqual(asked, ['ok', 'okay', 'okay!']);
  pending.pop()!();
  await settle();
  pending.pop()!();
  await settle();
  assert.deepEqual(answers, ['ok:true', 'okay!:false']);
  // The text last answered for is not checked again (a save of it).
  await live.now();
  assert.deepEqual(asked, ['ok', 'okay', 'okay!']);
  // stop drops what is on its way.
  text = 'x';
  await Promise.all([live.now().then(() => undefined), (async () => (live.stop(), pending.pop()!()))()]);
  await settle();
  assert.deepEqual(answers, ['ok:true', 'okay!:false']);
});

test('version history: newest first, an unchanged save is not a new version', () => {
  const h = new VersionHistory();
  const at = new Date(0);
  assert.equal(h.record('a', at).n, 0);
  assert.equal(h.record('a', at).n, 0);
  assert.equal(h.record('b', at).n, 1);
  assert.equal(h.record('a', at).n, 2);
  assert.deepEqual(
    h.list().map((v) => [v.n, v.rules]),
    [
      [2, 'a'],
      [1, 'b'],
      [0, 'a'],
    ],
  );
  assert.equal(h.get(1)?.rules, 'b');
});

test('publishing gates read from the draft: only the tests can be overridden', () => {
  const draft = {
    compiles: true,
    compile_errors: [],
    reference_problems: [],
    acceptance: {
      accepted: false,
      tests_passing: 1,
      tests_total: 2,
      contract_checks: [],
      results: [
        { name: 'ok', pass: true, expected: 'eligible', got: 'eligible', mismatches: [], ignored_fields: [] },
        { name: 'eleven months', pass: false, expected: 'eligible', got: 'not_eligible', mismatches: [], ignored_fields: [] },
      ],
    },
    provenance_report: {
      totals: { verified: 1, flagged: 1, uncited: 0 },
      coverage: [{ source_id: 'src_1', filename: 'poverty-guidelines.txt', status: 'active', clauses: 3, cited_clauses: 1, share: 0.33, uncited_passages: [] }],
      quotes: [
        { criterion_id: 'c', source_id: 'fpg_2025', project_source_id: 'src_1', quote: 'q', verified: false },
        { criterion_id: 'd', source_id: 'act', project_source_id: '', quote: 'r', verified: false },
      ],
    },
  } as unknown as Draft;
  const got = gates(draft).map((g) => [g.name, g.ok, g.overridable, g.problems]);
  assert.deepEqual(got, [
    ['The rules compile', true, false, []],
    ['Every test passes', false, true, ['eleven months: expected Eligible, decided Not eligible']],
    ['Every source is uploaded and licensed', true, false, []],
    ['Every quote is in its source', false, false, ['criterion c: “q” is not in fpg_2025 (poverty-guidelines.txt)', 'criterion d: “r” is not in act']],
  ]);
});

test('suggested cases: a name no case has, and the mutation score in words', () => {
  assert.equal(uniqueName('criterion tenure satisfied', ['other']), 'criterion tenure satisfied');
  assert.equal(uniqueName('a', ['a', 'a (2)']), 'a (3)');
  const score = { total: 9, killed: 3, killed_with_suggestions: 9, score: 1 / 3, score_with_suggestions: 1, survivors: [], candidates: 9, planned: 9, done: 9, complete: true, sampled: false };
  assert.equal(scoreWords(score), 'The tests catch 3 of 9 deliberate mistakes made in the rules; with every case below, 9.');
  assert.equal(scoreWords({ ...score, killed_with_suggestions: 3 }), 'The tests catch 3 of 9 deliberate mistakes made in the rules.');
  assert.equal(scoreWords({ ...score, total: 0, killed: 0, killed_with_suggestions: 0 }), 'There are no deliberate mistakes to try on these rules.');
});

test('what publishing would change, in sentences', () => {
  assert.equal(changeSentence({ from: 'not_eligible', to: 'eligible' }), 'Some applicants who were not eligible would be eligible.');
  assert.equal(fieldChangeSentence({ field: 'person.age', kind: 'added' }), 'New question: person.age.');
  assert.equal(fieldChangeSentence({ field: 'person.age', kind: 'removed' }), 'Question no longer asked: person.age.');
  assert.equal(fieldChangeSentence({ field: 'a.b', kind: 'type_changed', old: 'int', new: 'decimal' }), 'a.b takes another kind of answer (int, now decimal).');
  assert.equal(fieldChangeSentence({ field: 'a.b', kind: 'values_changed' }), 'a.b offers other choices.');
});

test('a failing case says why in words', () => {
  const base = { name: 'c', pass: false, expected: 'eligible', got: 'not_eligible', mismatches: [], ignored_fields: [] };
  assert.deepEqual(reasons({ ...base, mismatches: ['expected eligible, got not_eligible'], hint: 'look at criterion tenure' }), [
    'expected eligible, got not eligible',
    'look at criterion tenure',
  ]);
  assert.deepEqual(reasons({ ...base, ignored_fields: ['a.b', 'c.d'] }), ['Answers to fields the rules do not declare were ignored: a.b, c.d.']);
  assert.deepEqual(reasons(base), ['Expected Eligible, the rules decide Not eligible.']);
  assert.deepEqual(reasons({ ...base, got: 'eligible' }), []);
});
