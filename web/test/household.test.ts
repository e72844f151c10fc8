// Unit tests of the household in the interview: the lists of a schema,
// what each person is called, the names of their answers, and the
// renumbering when a person is removed.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { fieldLabel, fieldValuesText } from '../src/answers.js';
import {
  countOf,
  inHousehold,
  listOfField,
  listsOf,
  memberLabel,
  personName,
  plural,
  possessive,
  renumberIds,
  renumberMap,
  renumberedId,
  whoIs,
  withPeople,
  withoutPerson,
  withoutWho,
} from '../src/household.js';
import { valueTitle } from '../src/decisionview.js';
import { Interview } from '../src/interview.js';
import type { Field } from '../src/types.js';

function field(extra: Partial<Field> & { field_id: string }): Field {
  return { description: '', enum_values: null, field_type: 'int', notes: [], weight: 1, ...extra };
}

// The schema of a household of up to three people, as the API serves it:
// the list's count, then each person's copies of the member questions.
const schema: Field[] = [
  field({ field_id: 'household.rent', field_type: 'decimal' }),
  field({ field_id: 'member', question: 'How many people live in your household?', list: { title: 'People in the household', max: 3, noun: 'person' } }),
  ...[0, 1, 2].flatMap((i) => [
    field({ field_id: `member[${i}].age`, question: `Person ${i + 1}: How old is this person?`, label: `Person ${i + 1}: Age`, member: { list: 'member', index: i, name: 'age' } }),
    field({ field_id: `member[${i}].pregnant`, field_type: 'bool', question: `Person ${i + 1}: Is this person pregnant?`, member: { list: 'member', index: i, name: 'pregnant' } }),
  ]),
];

test('a schema’s lists: the count’s field, its bound and noun, and what each member is asked', () => {
  const lists = listsOf(schema);
  assert.deepEqual([...lists.values()], [{ id: 'member', title: 'People in the household', max: 3, noun: 'person', names: ['age', 'pregnant'] }]);
  assert.equal(listOfField(lists, 'member[2].age')?.id, 'member');
  assert.equal(listOfField(lists, 'member')?.id, 'member');
  assert.equal(listOfField(lists, 'household.rent'), undefined);
});

test('a person is called by the name typed, else by the noun and their number from 1', () => {
  const list = listsOf(schema).get('member')!;
  assert.equal(personName(list, [], 0), 'Person 1');
  assert.equal(personName(list, ['', ' Maria '], 1), 'Maria');
  assert.equal(personName(list, ['  '], 0), 'Person 1', 'a name of spaces is no name');
  assert.equal(personName({ ...list, noun: 'child' }, [], 2), 'Child 3');
  assert.equal(plural('person'), 'people');
  assert.equal(plural('child'), 'children');
  assert.equal(plural('applicant'), 'applicants');
  assert.equal(possessive('Maria'), "Maria's");
  assert.equal(possessive('James'), "James'");
});

test('a person’s answer is named by who it is about, never by its id', () => {
  const lists = listsOf(schema);
  const list = lists.get('member')!;
  const byId = new Map(schema.map((f) => [f.field_id, f]));
  assert.equal(withoutWho('Person 2: How old is this person?', list, 1), 'How old is this person?');
  assert.equal(withoutWho('Person 2: Age', list, 0), 'Person 2: Age', 'only the person’s own number is taken off');
  assert.equal(memberLabel(byId.get('member[1].age')!, list, ['', 'Maria']), "Maria's age");
  assert.equal(memberLabel(byId.get('member[2].age')!, list, ['', 'Maria']), "Person 3's age");
  // Without a label, the answer's name in words.
  assert.equal(memberLabel(byId.get('member[0].pregnant')!, list, []), "Person 1's pregnant");
  const named = withPeople(byId, lists, new Map([['member', ['Maria']]]));
  assert.equal(fieldLabel(named.get('member[0].age'), 'member[0].age'), "Maria's age");
  assert.equal(fieldLabel(named.get('member[1].age'), 'member[1].age'), "Person 2's age");
  assert.equal(fieldLabel(named.get('member'), 'member'), 'How many people live in your household?');
  assert.equal(named.get('household.rent'), byId.get('household.rent'), 'other fields are the schema’s own');
  assert.equal(byId.get('member[0].age')?.label, 'Person 1: Age', 'the schema is not changed');
});

test('a value of each member is named with its person beside it, as the answers name them', () => {
  const lists = listsOf(schema);
  const labels = new Map([['member', ['', 'Maria']]]);
  const who = (id: string) => whoIs(lists, labels, id);
  const cases: { id: string; title: string; want: string }[] = [
    { id: 'member[1].countable', title: 'Countable income', want: 'Countable income (Maria)' },
    { id: 'member[0].counted', title: 'Counted as a member of the household', want: 'Counted as a member of the household (Person 1)' },
    { id: 'member[2].counted', title: 'Counted as a member of the household', want: 'Counted as a member of the household (Person 3)' },
    { id: 'household_size', title: 'Household size', want: 'Household size' },
    { id: 'other[0].counted', title: 'Counted', want: 'Counted' },
  ];
  for (const c of cases) assert.equal(valueTitle({ value: c.id, title: c.title }, who), c.want, c.id);
  assert.equal(whoIs(lists, new Map(), 'member[1].countable'), 'Person 2', 'without names typed, the noun and number');
  assert.equal(whoIs(lists, labels, 'member'), undefined, 'the list itself is nobody');
});

test('removing a person forgets their answers and moves every later person’s one place down', () => {
  assert.equal(renumberedId('member[0].age', 'member', 1), 'member[0].age');
  assert.equal(renumberedId('member[1].age', 'member', 1), null);
  assert.equal(renumberedId('member[2].age', 'member', 1), 'member[1].age');
  assert.equal(renumberedId('member', 'member', 1), 'member');
  assert.equal(renumberedId('other[2].age', 'member', 1), 'other[2].age', 'another list stays');
  const m = new Map([
    ['member[2].age', 'c'],
    ['member[0].age', 'a'],
    ['member[1].age', 'b'],
  ]);
  assert.deepEqual([...renumberMap(m, 'member', 0)], [
    ['member[1].age', 'c'],
    ['member[0].age', 'b'],
  ]);
  assert.deepEqual(renumberIds(['member', 'member[1].age', 'member[2].pregnant'], 'member', 1), ['member', 'member[1].pregnant']);
  assert.deepEqual(withoutPerson(['Ana', 'Ben', 'Maria'], 1), ['Ana', 'Maria']);
  assert.deepEqual(withoutPerson(['Ana'], 2), ['Ana'], 'a person without a name leaves the names as they are');
  // Only the second person named: removing the third keeps her second.
  const sparse: string[] = [];
  sparse[1] = 'Maria';
  assert.deepEqual(withoutPerson(sparse, 2), ['', 'Maria']);
  assert.deepEqual(withoutPerson(sparse, 0), ['Maria']);
});

test('the interview adds and removes people: the count follows, answers and skips move with their person', () => {
  const iv = new Interview();
  iv.answer('member', { text: '3', json: '3' });
  iv.answer('member[0].age', { text: '34', json: '34' });
  iv.answer('member[1].age', { text: '70', json: '70' });
  iv.skip('member[1].pregnant');
  iv.answer('member[2].age', { text: '3', json: '3' });
  iv.skip('member[2].pregnant');
  iv.removeMember('member', 1);
  assert.equal(countOf(iv.answers, 'member'), 2);
  assert.equal(fieldValuesText(iv.answers), '{"member":[{"age":34},{"age":3}]}');
  assert.deepEqual([...iv.declined], ['member[1].pregnant'], 'the third person’s skip is now the second’s; the removed one’s is gone');
  assert.deepEqual(iv.history, ['member[0].age', 'member[1].age', 'member[1].pregnant', 'member']);
  assert.equal(iv.addMember('member'), 2, 'the new person comes last');
  assert.equal(fieldValuesText(iv.answers), '{"member":[{"age":34},{"age":3},{}]}');
  // The last person removed: the count drops, nobody moves.
  iv.removeMember('member', 2);
  assert.equal(fieldValuesText(iv.answers), '{"member":[{"age":34},{"age":3}]}');
  iv.removeMember('member', 0);
  iv.removeMember('member', 0);
  assert.equal(fieldValuesText(iv.answers), '{"member":[]}');
  assert.equal(countOf(iv.answers, 'member'), 0);
  // Without a count yet, adding starts the list.
  const fresh = new Interview();
  assert.equal(fresh.addMember('member'), 0);
  assert.equal(countOf(fresh.answers, 'member'), 1);
});

test('only the people the answers count are in the household', () => {
  const answers = new Map([['member', { text: '2', json: '2' }]]);
  assert.equal(inHousehold(answers, 'member[1].age'), true);
  assert.equal(inHousehold(answers, 'member[2].age'), false);
  assert.equal(inHousehold(answers, 'household.rent'), true);
  assert.equal(inHousehold(answers, 'other[0].age'), false, 'a list not counted yet has nobody');
});

test('forget takes an answer back as if never given', () => {
  const iv = new Interview();
  iv.answer('a', { text: '1', json: '1' });
  iv.skip('b');
  iv.forget('a');
  iv.forget('b');
  assert.deepEqual([iv.answers.size, iv.declined.size, iv.history], [0, 0, []]);
});
