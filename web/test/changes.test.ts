// Unit tests of the Changes screen's and the in-force panel's own logic:
// the one-sentence summary of whom publishing affects, the comparison's
// query, and picking the ruleset an address points at from a catalogue page.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { diffQuery, whomItAffects, sameQuotes } from '../src/studio/draftdiff.js';
import { inForce, visibilityWords } from '../src/studio/published.js';
import type { Change, DraftDiff, RulesetSummary } from '../src/studio/types.js';

const change = { from: 'eligible', to: 'not_eligible', kind: 'outcome', witness: {}, criteria: [] } as unknown as Change;
const fieldChange = { field: 'hours_worked', kind: 'added' } as DraftDiff['field_changes'][number];

test('whom publishing affects, in one sentence', () => {
  const cases: Array<[Pick<DraftDiff, 'changes' | 'field_changes' | 'equivalent'>, string]> = [
    [{ equivalent: true, changes: [], field_changes: [] }, 'No applicant’s outcome would change.'],
    [{ equivalent: false, changes: [change], field_changes: [] }, '1 kind of applicant would get another outcome.'],
    [{ equivalent: false, changes: [change, change], field_changes: [fieldChange] }, '2 kinds of applicant would get another outcome, and 1 question would change.'],
    [{ equivalent: true, changes: [], field_changes: [fieldChange, fieldChange] }, '2 questions would change.'],
  ];
  for (const [d, want] of cases) assert.equal(whomItAffects(d), want);
});

test('the comparison query names the ruleset and the day only when given', () => {
  assert.equal(diffQuery('', ''), '');
  assert.equal(diffQuery('  ', ''), '');
  assert.equal(diffQuery('acme/leave', ''), '?against=acme%2Fleave');
  assert.equal(diffQuery(' rs_123 ', '2026-01-31'), '?against=rs_123&decision_date=2026-01-31');
  assert.equal(diffQuery('', '2026-01-31'), '?decision_date=2026-01-31');
});

test('the ruleset in force is the one whose address matches exactly', () => {
  const r = (slug: string): RulesetSummary => ({ slug, ruleset_id: 'id-' + slug }) as RulesetSummary;
  const page = [r('acme/leave-extra'), r('acme/leave'), r('acme/leave/sub')];
  assert.equal(inForce(page, 'acme/leave')?.ruleset_id, 'id-acme/leave');
  assert.equal(inForce(page, 'acme/lea'), null);
  assert.equal(inForce([], 'acme/leave'), null);
  assert.match(visibilityWords('public'), /applicants/);
  assert.match(visibilityWords('private'), /team/);
});

test('a criterion quoting the same law before and after shows it once', () => {
  assert.ok(sameQuotes(['a', 'b'], ['a', 'b']));
  assert.ok(sameQuotes(null, []));
  assert.ok(!sameQuotes(['a'], ['a', 'b']));
  assert.ok(!sameQuotes(['a', 'b'], ['b', 'a']));
});
