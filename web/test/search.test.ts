// Unit tests of the catalogue's search: words, not letters, and names first.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { rank, score, words } from '../src/search.js';

const entry = (name: string, description = '', slug = 'demo/' + words(name).join('-')) => ({ name, slug, description });

const catalogue = [
  entry('Guardianship of an incompetent adult', 'Whether a court may appoint a guardian for an adult found incompetent.'),
  entry('Pet passport', 'Whether a dog, cat or ferret may travel.'),
  entry('Petition for a name change', 'Whether a petition may be filed.'),
  entry('Animal import licence', 'Bringing pets and other animals into the country.'),
  entry('FMLA employee eligibility', 'Unpaid, job-protected leave.', 'demo/us-fmla-employee'),
];

test('words are lower case, split on anything but letters and digits, accents folded', () => {
  assert.deepEqual(words('Kindergeld: Anspruch für Eltern (§ 62 EStG)'), ['kindergeld', 'anspruch', 'fur', 'eltern', '62', 'estg']);
  assert.deepEqual(words('demo/us-fmla-employee'), ['demo', 'us', 'fmla', 'employee']);
  assert.deepEqual(words('  '), []);
});

test('a query word matches whole words and their beginnings, never the middle of a word', () => {
  const names = (q: string) => rank(catalogue, q).map((e) => e.name);
  const cases: [string, string[]][] = [
    // "pet" is in "incompetent", but not at the start of a word: no match.
    ['pet', ['Pet passport', 'Petition for a name change', 'Animal import licence']],
    ['PET', ['Pet passport', 'Petition for a name change', 'Animal import licence']],
    ['competent', []],
    ['incompetent', ['Guardianship of an incompetent adult']],
    ['fmla', ['FMLA employee eligibility']],
    ['pet travel', ['Pet passport']],
    ['pet zebra', []],
  ];
  for (const [q, want] of cases) {
    assert.deepEqual(names(q), want, q);
  }
});

test('a whole word in the name ranks above its beginning, and the name above the description', () => {
  const q = words('pet');
  const whole = score(entry('Pet passport'), q);
  const prefix = score(entry('Petition'), q);
  const inDescription = score(entry('Animal import', 'pets'), q);
  assert.ok(whole > prefix, 'a whole word beats a beginning');
  assert.ok(prefix > inDescription, 'the name beats the description');
  assert.equal(score(entry('Guardianship', 'incompetent'), q), 0);
});

test('an empty query lists everything in name order', () => {
  assert.deepEqual(
    rank(catalogue, '  ').map((e) => e.name),
    [...catalogue.map((e) => e.name)].sort((a, b) => a.localeCompare(b, 'en')),
  );
});
