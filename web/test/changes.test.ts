// Unit tests of the Changes screen's and the in-force panel's own logic:
// the one-sentence summary of whom publishing affects, the comparison's
// query, and picking the ruleset an address points at from a catalogue page.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { diffQuery, fieldChangeSentence, questionChanges, thresholdLines, whomItAffects, sameQuotes } from '../src/studio/draftdiff.js';
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

test('a household’s member field and its thresholds change once, as the rules write them, not once per member', () => {
  const added = [0, 1, 2, 3].map((i) => ({ field: `member[${i}].disabled`, kind: 'added', new: 'bool' }) as DraftDiff['field_changes'][number]);
  const cases: Array<{ name: string; changes: DraftDiff['field_changes']; want: string[] }> = [
    { name: 'every member’s copy added', changes: added, want: ['New question: member.disabled (each member’s).'] },
    {
      name: 'a bound raised: only the new members’ copies',
      changes: [4, 5].map((i) => ({ field: `member[${i}].age`, kind: 'added', new: 'int' }) as DraftDiff['field_changes'][number]),
      want: ['New question: member.age (members 5 and 6).'],
    },
    {
      name: 'a bound lowered by one, beside a field of the household',
      changes: [{ field: 'household.rent', kind: 'removed', old: 'decimal' }, { field: 'member[3].age', kind: 'removed', old: 'int' }] as DraftDiff['field_changes'],
      want: ['Question no longer asked: household.rent.', 'Question no longer asked: member.age (member 4’s).'],
    },
    {
      name: 'copies changed differently stay apart',
      changes: [{ field: 'member[0].age', kind: 'type_changed', old: 'int', new: 'decimal' }, { field: 'member[0].in_school', kind: 'added', new: 'bool' }] as DraftDiff['field_changes'],
      want: ['member.age (each member’s) takes another kind of answer (int, now decimal).', 'New question: member.in_school (each member’s).'],
    },
  ];
  for (const c of cases) {
    assert.deepEqual(questionChanges(c.changes).map((q) => fieldChangeSentence(q.change, q.members)), c.want, c.name);
  }
  assert.equal(whomItAffects({ changes: [], field_changes: added }), '1 question would change.');
  const moved = [0, 1, 2, 3].map((i) => ({
    criterion_id: 'school_child', subject: `member[${i}].age`, operator: '<', old: '18', new: '19',
    message: `criterion school_child: threshold changed from 18 to 19 (member[${i}].age <)`,
  }) as DraftDiff['threshold_changes'][number]);
  const income = { criterion_id: 'income', subject: 'household.income', operator: '<=', old: '1255', new: '1305', message: 'criterion income: threshold changed from 1,255 to 1,305 (household.income <=)' } as DraftDiff['threshold_changes'][number];
  assert.deepEqual(thresholdLines([income, ...moved]), [income.message, 'criterion school_child: threshold changed from 18 to 19 (member.age <)']);
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
