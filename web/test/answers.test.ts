// Unit tests of the console's own logic: inputs for field types, units,
// the encoding of answers, request bodies and progress.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  acceptedAnswers,
  answerText,
  choiceLabel,
  decideBody,
  decideTarget,
  fieldLabel,
  formatDate,
  ordinalToISO,
  questionText,
  shortLabel,
  encodeAnswer,
  fieldValuesText,
  inputFor,
  memberOf,
  inquiryContext,
  notesOf,
  groupThousands,
  progress,
  textOfValue,
  amountText,
  unitOf,
  type Target,
} from '../src/answers.js';
import type { Field } from '../src/types.js';

function field(field_type: Field['field_type'], extra: Partial<Field> = {}): Field {
  return { field_id: 'g.f', field_type, description: '', weight: 1, enum_values: null, notes: [], ...extra };
}

test('each field type gets its input', () => {
  const e = inputFor(field('enum', { enum_values: ['private', 'public_agency'] }));
  assert.equal(e.kind, 'choice');
  assert.deepEqual(e.choices, [
    { value: 'private', label: 'Private' },
    { value: 'public_agency', label: 'Public agency' },
  ]);
  const labelled = inputFor(field('enum', { enum_values: ['private', 'federal_title5'], value_labels: { federal_title5: 'The federal civil service (title 5)' } }));
  assert.deepEqual(
    labelled.choices.map((c) => c.label),
    ['Private', 'The federal civil service (title 5)'],
    'a value label wins; a value without one reads as words',
  );
  assert.equal(inputFor(field('bool')).kind, 'yesno');
  assert.deepEqual(inputFor(field('bool')).choices.map((c) => c.value), ['yes', 'no']);
  const d = inputFor(field('date'));
  assert.equal(d.kind, 'date');
  assert.match(d.hint, /day, month and year/);
  assert.doesNotMatch(d.hint, /0001|day number/, 'no day numbers on screen');
  const n = inputFor(field('int', { field_id: 'employment.months_employed' }));
  assert.equal(n.kind, 'number');
  assert.equal(n.inputMode, 'numeric');
  assert.equal(n.unit, 'months');
  assert.match(n.hint, /whole number, in months/);
  assert.equal(inputFor(field('decimal')).inputMode, 'decimal');
  const declared = inputFor(field('int', { field_id: 'worksite.employees_within_75_miles', unit: 'employees' }));
  assert.equal(declared.unit, 'employees', 'the ruleset’s unit wins over the one read from the id');
  assert.match(declared.hint, /whole number, in employees/);
});

test('a field goes by its label, else its question, else its id in words', () => {
  const cases: [Partial<Field>, string, string][] = [
    [{ field_id: 'employment.hours_12_months', label: 'Hours worked in the last 12 months', question: 'How many hours?' }, 'Hours worked in the last 12 months', 'How many hours?'],
    [{ field_id: 'employment.hours_12_months', question: 'How many hours?' }, 'How many hours?', 'How many hours?'],
    [{ field_id: 'employment.hours_12_months' }, 'Hours 12 months', 'Hours 12 months'],
    [{ field_id: 'employment.hours_12_months', label: 'Hours worked', description: 'Hours actually worked.' }, 'Hours worked', 'Hours worked'],
  ];
  for (const [extra, label, asked] of cases) {
    const f = field('int', extra);
    assert.equal(fieldLabel(f), label, JSON.stringify(extra));
    assert.equal(questionText(f), asked, JSON.stringify(extra));
  }
  assert.equal(fieldLabel(undefined, 'person.date_of_birth'), 'Date of birth', 'a field the schema lacks still reads as words');
  assert.equal(choiceLabel(field('enum', { value_labels: { a_b: 'A and B' } }), 'a_b'), 'A and B');
  assert.equal(choiceLabel(field('enum'), 'federal_title5'), 'Federal title5');
});

test('dates read as dates, day numbers included', () => {
  const cases: [string, string][] = [
    ['1990-04-21', '21 April 1990'],
    ['2026-01-01', '1 January 2026'],
    ['0001-01-01', '1 January 1'],
    ['1990-13-01', '1990-13-01'],
    ['21/04/1990', '21/04/1990'],
  ];
  for (const [iso, shown] of cases) {
    assert.equal(formatDate(iso), shown, iso);
  }
  assert.equal(ordinalToISO(1), '0001-01-01');
  assert.equal(ordinalToISO(719163), '1970-01-01');
  assert.equal(ordinalToISO(726578), '1990-04-21');
  const dob = field('date', { field_id: 'person.date_of_birth' });
  assert.equal(textOfValue(dob, '1990-04-21'), '21 April 1990');
  assert.equal(textOfValue(dob, 726578), '21 April 1990', 'a day number the API carries is shown as its date');
  assert.equal(textOfValue(dob, '726578'), '21 April 1990');
  assert.equal(answerText(dob, { text: '1990-04-21', json: '"1990-04-21"' }), '21 April 1990');
});

test('x_ui_widget free_text is a plain text input whatever the type', () => {
  for (const t of ['enum', 'bool', 'int', 'date'] as const) {
    const spec = inputFor(field(t, { x_ui_widget: 'free_text', enum_values: t === 'enum' ? ['a'] : null }));
    assert.equal(spec.kind, 'text', t);
    assert.equal(spec.choices.length, 0, t);
  }
});

test('the unit comes from the words of the field id', () => {
  const cases: [string, string][] = [
    ['employment.hours_12_months', 'hours'],
    ['worksite.employees_within_75_miles', 'people'],
    ['employer.workweeks_with_50_employees', 'weeks'],
    ['job.gross_annual_salary_eur', 'EUR per year'],
    ['income.gross_monthly', 'per month'],
    ['residence.total_years', 'years'],
    ['household.size', ''],
  ];
  for (const [id, unit] of cases) {
    assert.equal(unitOf(id), unit, id);
  }
});

test('answers are encoded in the field type, numbers exactly as typed', () => {
  assert.equal(encodeAnswer(field('decimal'), ' 1250.10 '), '1250.10');
  assert.equal(encodeAnswer(field('decimal'), '123456789012345678.5'), '123456789012345678.5');
  assert.equal(encodeAnswer(field('int'), '14'), '14');
  // Not a number: sent as text, so the API's field error names it.
  assert.equal(encodeAnswer(field('int'), '1,250'), '"1,250"');
  assert.equal(encodeAnswer(field('bool'), 'yes'), 'true');
  assert.equal(encodeAnswer(field('bool'), 'no'), 'false');
  assert.equal(encodeAnswer(field('enum'), 'public_agency'), '"public_agency"');
  assert.equal(encodeAnswer(field('date'), '1990-04-21'), '"1990-04-21"');
  assert.equal(encodeAnswer(field('date'), '0726000'), '726000');
  assert.equal(encodeAnswer(field('date'), '21/04/1990'), '"21/04/1990"');
  assert.equal(encodeAnswer(field('int'), '   '), null);
});

test('skipped questions become inquiry_context declined_fields, sorted and once each', () => {
  assert.equal(inquiryContext([]), undefined);
  assert.deepEqual(inquiryContext(['b.y', 'a.x', 'b.y']), { declined_fields: ['a.x', 'b.y'] });
});

test('the /decide body keeps exact numbers and adds only what is asked', () => {
  const answers = new Map([
    ['g.n', { text: '0.10', json: '0.10' }],
    ['g.e', { text: 'x', json: '"x"' }],
  ]);
  const plain = decideBody({ kind: 'ruleset', id: 'r:1' }, answers, []);
  assert.equal(plain, '{"ruleset_id":"r:1","field_values":{"g.n":0.10,"g.e":"x"}}');
  const full = JSON.parse(decideBody({ kind: 'ruleset', id: 'r:1' }, answers, ['g.z'], { include_explanation: true, include_graph_overlay: false }));
  assert.deepEqual(full.inquiry_context, { declined_fields: ['g.z'] });
  assert.equal(full.include_explanation, true);
  assert.equal('include_graph_overlay' in full, false);
  assert.equal('decision_date' in full, false, 'no date: today');
  const book = JSON.parse(decideBody({ kind: 'rulebook', id: 'rb_x' }, answers, [], {}, '2025-06-30'));
  assert.equal(book.rulebook_id, 'rb_x');
  assert.equal('ruleset_id' in book, false);
  assert.equal(book.decision_date, '2025-06-30', 'decided as of the date asked');
});

test('progress counts only the answers the API accepted', () => {
  const answers = new Map([
    ['a', { text: '1', json: '1' }],
    ['b', { text: 'twelve', json: '"twelve"' }],
    ['c', { text: 'yes', json: 'true' }],
  ]);
  assert.equal(acceptedAnswers(answers, []), 3);
  assert.equal(acceptedAnswers(answers, [{ field: 'b', message: 'not a number' }]), 2, 'a refused answer is not counted');
  assert.equal(acceptedAnswers(answers, [{ field: 'z', message: 'unknown field' }]), 3, 'an error about another field changes nothing');
  assert.equal(acceptedAnswers(new Map(), [{ field: 'b', message: 'x' }]), 0);
});

test('progress counts answers against the remaining optimal path', () => {
  const path = [{ field_id: 'a', question: '' }, { field_id: 'b', question: '' }];
  const p = progress(3, path, false);
  assert.equal(p.answered, 3);
  assert.equal(p.total, 5);
  assert.match(p.text, /3 answered; the shortest way to a decision needs 2 more/);
  const done = progress(3, path, true);
  assert.equal(done.total, 3);
  assert.match(done.text, /Decided after 3 answers/);
  assert.match(progress(1, [], false).text, /no further question/);
});

test('progress says when an answer ruled out a shorter way', () => {
  const one = progress(2, [{ field_id: 'a', question: '' }], false);
  assert.match(one.text, /needs 1 more/);
  const after = progress(3, [{ field_id: 'b', question: '' }, { field_id: 'c', question: '' }], false, one);
  assert.match(after.text, /3 answered; that answer ruled out a shorter way, so a decision now needs 2 more/);
  const fewer = progress(4, [{ field_id: 'c', question: '' }], false, after);
  assert.match(fewer.text, /4 answered; the shortest way to a decision needs 1 more/);
  const back = progress(1, [{ field_id: 'a', question: '' }, { field_id: 'b', question: '' }, { field_id: 'c', question: '' }], false, fewer);
  assert.match(back.text, /the shortest way to a decision needs 3 more/, 'going back is not an answer that ruled anything out');
});

test('values and notes read as people write them', () => {
  assert.equal(textOfValue(field('bool'), true), 'Yes');
  assert.equal(textOfValue(field('enum'), 'public_agency'), 'Public agency');
  assert.equal(textOfValue(field('enum', { value_labels: { public_agency: 'A public agency' } }), 'public_agency'), 'A public agency');
  assert.equal(textOfValue(field('int', { field_id: 'w.employees_within_75_miles', unit: 'employees' }), 60), '60 employees');
  assert.equal(textOfValue(field('int', { field_id: 'e.hours_12_months' }), 1000), '1,000 hours');
  const notes = notesOf(
    field('int', {
      notes: [
        { note_text: 'WHY: Hours count.', source: '', metadata: { type: 'why', section: '' } },
        { note_text: 'LEGAL BACKGROUND: Title 5.', source: '', metadata: { type: 'legal_background', section: '' } },
      ],
    }),
  );
  assert.deepEqual(notes, { why: ['Hours count.'], legal: ['Title 5.'] });
  assert.equal(shortLabel('employment.hours_12_months'), 'hours 12 months');
  assert.equal(answerText(field('decimal', { field_id: 'e.hours_12_months' }), { text: '1250.10', json: '1250.10' }), '1,250.10 hours');
  assert.equal(answerText(field('bool'), { text: 'no', json: 'false' }), 'No');
  assert.equal(answerText(field('date'), { text: '1990-04-21', json: '"1990-04-21"' }), '21 April 1990');
});

test('figures read with thousands separators, exactly', () => {
  assert.equal(groupThousands('30000'), '30,000');
  assert.equal(groupThousands('-1250.75'), '-1,250.75');
  assert.equal(groupThousands('999'), '999');
  assert.equal(groupThousands('1234567.000001'), '1,234,567.000001');
  assert.equal(groupThousands('12345678901234567890'), '12,345,678,901,234,567,890');
  assert.equal(groupThousands('abc'), 'abc');
});

test('money reads as people write it: sign or code first, the rate after', () => {
  const money = (unit: string, field_id = 'income.amount') => ({ field_id, field_type: 'decimal', unit }) as never;
  assert.equal(textOfValue(money('USD a year'), 30000), '$30,000 a year');
  assert.equal(textOfValue(money('USD per month'), '2345.5'), '$2,345.5 a month');
  assert.equal(textOfValue(money('GBP'), -1250), '-£1,250');
  assert.equal(textOfValue(money('CHF per week'), 1200), 'CHF 1,200 a week');
  assert.equal(textOfValue(money('', 'job.gross_annual_salary_eur'), 43759.8), '€43,759.8 a year');
  assert.equal(amountText('1,300', 'hours'), '1,300 hours');
  assert.equal(amountText('7', ''), '7');
});

test('decideTarget: a slug is decided by its slug, so the cut in force on the decision date answers', () => {
  const cases: [Target, string, Target][] = [
    [{ kind: 'ruleset', id: 'demo/snap-income' }, 'snap_income:20261001-abc', { kind: 'ruleset', id: 'demo/snap-income' }],
    [{ kind: 'ruleset', id: 'snap_income:20251001-def' }, 'snap_income:20251001-def', { kind: 'ruleset', id: 'snap_income:20251001-def' }],
    [{ kind: 'rulebook', id: 'demo/benefits' }, 'rb_123', { kind: 'rulebook', id: 'rb_123' }],
  ];
  for (const [route, shownId, want] of cases) assert.deepEqual(decideTarget(route, shownId), want, `${route.kind} ${route.id}`);
});

test('a household is sent as a list of members, each with its own answers', () => {
  const answers = new Map([
    ['household.region', { text: 'North', json: '"north"' }],
    ['member', { text: '3', json: '3' }],
    ['member[0].age', { text: '34', json: '34' }],
    ['member[2].earnings', { text: '1,200.50', json: '1200.50' }],
    ['member[0].pregnant', { text: 'Yes', json: 'true' }],
    ['member[5].age', { text: '9', json: '9' }],
  ]);
  assert.equal(
    fieldValuesText(answers),
    '{"household.region":"north","member":[{"age":34,"pregnant":true},{},{"earnings":1200.50}]}',
  );
  assert.deepEqual(memberOf('member[12].income.earned'), { list: 'member', index: 12, name: 'income.earned' });
  assert.equal(memberOf('income.earned'), null);
  assert.equal(memberOf('member'), null);
});
