// Unit tests of which rows of a table of limits apply to an applicant: the
// decision page shows a one-person household its own limit, not the
// limits for households of 2 to 9 as "Met".
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { rowFields, rowFit, rowGuards, splitOr } from '../src/rows.js';

const row = (size: number) => `household.region != "contiguous_us_guam_vi" or household.size != ${size} or income.gross_monthly <= 1696`;
const ninePlus = 'household.region != "alaska" or household.size < 9 or income.gross_monthly <= 7336 + (household.size - 8) * 746';
const answers = (values: Record<string, unknown>) => (id: string) => values[id];

test('a row applies, is about others, or waits for answers', () => {
  const cases: [string, Record<string, unknown>, string | undefined][] = [
    [row(1), { 'household.region': 'contiguous_us_guam_vi', 'household.size': 1 }, 'applies'],
    [row(2), { 'household.region': 'contiguous_us_guam_vi', 'household.size': 1 }, 'other'],
    [row(2), { 'household.region': 'alaska' }, 'other'],
    [row(2), { 'household.region': 'contiguous_us_guam_vi' }, 'unknown'],
    [row(2), {}, 'unknown'],
    [ninePlus, { 'household.region': 'alaska', 'household.size': 12 }, 'applies'],
    [ninePlus, { 'household.region': 'alaska', 'household.size': 8 }, 'other'],
    // Dates, as text or a day number, against a band of birth dates.
    ['person.date_of_birth < date("1939-01-02") or person.date_of_birth > date("1940-01-01") or months_between(person.date_of_birth, decision_date()) >= 784',
      { 'person.date_of_birth': '1939-06-01' }, 'applies'],
    ['person.date_of_birth < date("1939-01-02") or person.date_of_birth > date("1940-01-01") or months_between(person.date_of_birth, decision_date()) >= 784',
      { 'person.date_of_birth': 726578 }, 'other'],
    ['household.region not in ["alaska", "hawaii"] or income.gross_monthly <= 5', { 'household.region': 'hawaii' }, 'applies'],
    // Not rows: plain alternatives, one guard that says "is at least".
    ['household.size >= 3 or income.gross_monthly <= 1000', { 'household.size': 1 }, undefined],
    ['person.us_citizen or household.size != 1', {}, undefined],
    ['income.gross_monthly <= 1000', {}, undefined],
  ];
  for (const [expression, values, want] of cases) {
    assert.equal(rowFit(expression, answers(values)), want, `${expression} with ${JSON.stringify(values)}`);
  }
});

test('the guards are read outside brackets and strings', () => {
  assert.deepEqual(splitOr('a.b != "x or y" or (c.d > 1 or c.e < 2) or f.g'), ['a.b != "x or y"', '(c.d > 1 or c.e < 2)', 'f.g']);
  assert.deepEqual(rowGuards('a.b != "x or y" or c.d <= 5')?.map((g) => g.values), [['x or y']]);
  assert.deepEqual(rowFields(ninePlus), ['household.region', 'household.size']);
  assert.deepEqual(rowFields('income.gross_monthly <= 1'), []);
});
