// Unit tests of the console's own logic: inputs for field types, units,
// the encoding of answers, request bodies and progress.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { answerText, decideBody, shortLabel, encodeAnswer, inputFor, inquiryContext, notesOf, progress, textOfValue, unitOf } from '../src/answers.js';
import type { Field } from '../src/types.js';

function field(field_type: string, extra: Partial<Field> = {}): Field {
  return { field_id: 'g.f', field_type, weight: 1, enum_values: null, ...extra };
}

test('each field type gets its input', () => {
  const e = inputFor(field('enum', { enum_values: ['private', 'public_agency'] }));
  assert.equal(e.kind, 'choice');
  assert.deepEqual(e.choices, [
    { value: 'private', label: 'private' },
    { value: 'public_agency', label: 'public agency' },
  ]);
  assert.equal(inputFor(field('bool')).kind, 'yesno');
  assert.deepEqual(inputFor(field('bool')).choices.map((c) => c.value), ['yes', 'no']);
  const d = inputFor(field('date'));
  assert.equal(d.kind, 'date');
  assert.match(d.hint, /YYYY|year-month-day/);
  const n = inputFor(field('int', { field_id: 'employment.months_employed' }));
  assert.equal(n.kind, 'number');
  assert.equal(n.inputMode, 'numeric');
  assert.equal(n.unit, 'months');
  assert.match(n.hint, /whole number, in months/);
  assert.equal(inputFor(field('decimal')).inputMode, 'decimal');
});

test('x_ui_widget free_text is a plain text input whatever the type', () => {
  for (const t of ['enum', 'bool', 'int', 'date']) {
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
  const plain = decideBody('r:1', answers, []);
  assert.equal(plain, '{"ruleset_id":"r:1","field_values":{"g.n":0.10,"g.e":"x"}}');
  const full = JSON.parse(decideBody('r:1', answers, ['g.z'], { include_explanation: true, include_graph_overlay: false }));
  assert.deepEqual(full.inquiry_context, { declined_fields: ['g.z'] });
  assert.equal(full.include_explanation, true);
  assert.equal('include_graph_overlay' in full, false);
});

test('progress counts answers against the remaining optimal path', () => {
  const path = [{ field_id: 'a' }, { field_id: 'b' }];
  const p = progress(3, path, false);
  assert.equal(p.answered, 3);
  assert.equal(p.total, 5);
  assert.match(p.text, /3 answered; the shortest way to a decision needs 2 more/);
  const done = progress(3, path, true);
  assert.equal(done.total, 3);
  assert.match(done.text, /Decided after 3 answers/);
  assert.match(progress(1, [], false).text, /no further question/);
});

test('values and notes read as people write them', () => {
  assert.equal(textOfValue(field('bool'), true), 'Yes');
  assert.equal(textOfValue(field('enum'), 'public_agency'), 'public agency');
  assert.equal(textOfValue(field('int', { field_id: 'e.hours_12_months' }), 1000), '1000 hours');
  const notes = notesOf(
    field('int', {
      notes: [
        { note_text: 'WHY: Hours count.', metadata: { type: 'why' } },
        { note_text: 'LEGAL BACKGROUND: Title 5.', metadata: { type: 'legal_background' } },
      ],
    }),
  );
  assert.deepEqual(notes, { why: ['Hours count.'], legal: ['Title 5.'] });
  assert.equal(shortLabel('employment.hours_12_months'), 'hours 12 months');
  assert.equal(answerText(field('decimal', { field_id: 'e.hours_12_months' }), { text: '1250.10', json: '1250.10' }), '1250.10 hours');
  assert.equal(answerText(field('bool'), { text: 'no', json: 'false' }), 'No');
  assert.equal(answerText(field('date'), { text: '1990-04-21', json: '"1990-04-21"' }), '1990-04-21');
});
