// Unit tests of the rulebook screens' logic: the outcome tree (read from
// and written to the API's outcome_logic, built and changed step by step,
// checked, said in words, following a change of the section list), the
// rulebook form, the field overlay's changes and the presence-polarity
// refusal in words.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  addCondition,
  defaultTree,
  describe,
  fromApi,
  group,
  negate,
  nodeAt,
  type OutcomeNode,
  preview,
  relabel,
  remove,
  setLetter,
  setOp,
  toApi,
  type Tree,
  validateTree,
} from '../src/studio/outcometree.js';
import {
  moves,
  overlayChanges,
  rulebookBody,
  sectionChoices,
  sectionInForce,
  validateRulebookForm,
  witnessSentences,
} from '../src/studio/rulebookform.js';
import { parseStudioRoute, studioHref } from '../src/studio/routes.js';

const A: Tree = { kind: 'section', letter: 'A' };
const B: Tree = { kind: 'section', letter: 'B' };
const C: Tree = { kind: 'section', letter: 'C' };

test('outcome_logic round-trips through the editor’s tree', () => {
  const cases: OutcomeNode[] = [
    { section: 'A' },
    { op: 'and', args: [{ section: 'A' }, { section: 'B' }] },
    { op: 'or', args: [{ op: 'not', args: [{ section: 'A' }] }, { op: 'and', args: [{ section: 'B' }, { section: 'C' }] }] },
  ];
  for (const node of cases) assert.deepEqual(toApi(fromApi(node, 3)), node, JSON.stringify(node));
  // null is the API's default, every section and-ed, which the editor shows as such.
  assert.deepEqual(fromApi(null, 3), { kind: 'and', args: [A, B, C] });
  assert.deepEqual(fromApi(null, 1), A);
  assert.equal(fromApi(null, 0), null);
  assert.equal(toApi(null), null);
  assert.throws(() => fromApi({ op: 'xor', args: [] }, 2), /does not know/);
  assert.throws(() => fromApi({ op: 'not', args: [{ section: 'A' }, { section: 'B' }] }, 2), /does not know/);
});

test('the tree is built step by step: add, group, negate, change, remove', () => {
  // From nothing: a condition, then a second one makes an “all of”.
  let r = addCondition(null, [], 'A');
  assert.deepEqual(r, { tree: A, at: [] });
  r = addCondition(r.tree, [], 'B');
  assert.deepEqual(r.tree, { kind: 'and', args: [A, B] });
  assert.deepEqual(r.at, [1]);
  // Group B with C under “any of”, then negate A.
  const g = group(r.tree, [1], 'or', 'C');
  assert.deepEqual(g.tree, { kind: 'and', args: [A, { kind: 'or', args: [B, C] }] });
  let t = negate(g.tree, [0]);
  assert.deepEqual(nodeAt(t, [0]), { kind: 'not', arg: A });
  assert.deepEqual(toApi(t), { op: 'and', args: [{ op: 'not', args: [{ section: 'A' }] }, { op: 'or', args: [{ section: 'B' }, { section: 'C' }] }] });
  // Negating a “not” takes it away.
  assert.deepEqual(negate(t, [0]), g.tree);
  t = setOp(t, [], 'or');
  assert.equal(t.kind, 'or');
  t = setLetter(t, [1, 0], 'A');
  assert.deepEqual(nodeAt(t, [1, 0]), A);
  // A group left with one condition becomes that condition.
  assert.deepEqual(remove(g.tree, [1, 1]), { kind: 'and', args: [A, B] });
  assert.deepEqual(remove({ kind: 'and', args: [A, B] }, [0]), B);
  assert.equal(remove(A, []), null);
  assert.deepEqual(remove({ kind: 'not', arg: { kind: 'and', args: [A, B] } }, [0, 1]), { kind: 'not', arg: A });
});

test('validation finds what the API would refuse, in words', () => {
  const cases: Array<[string, Tree | null, number, string[]]> = [
    ['a valid tree', { kind: 'and', args: [A, B] }, 2, []],
    ['the default', null, 2, []],
    ['a group of one', { kind: 'and', args: [A] }, 2, ['needs at least two conditions']],
    ['a section the rulebook does not have', { kind: 'or', args: [A, C] }, 2, ['section C, which this rulebook does not have']],
    ['nested problems', { kind: 'not', arg: { kind: 'or', args: [] } }, 1, ['needs at least two conditions']],
  ];
  for (const [name, tree, sections, want] of cases) {
    const got = validateTree(tree, sections, ['Income', 'Age']);
    assert.equal(got.length, want.length, name + ': ' + JSON.stringify(got));
    want.forEach((w, i) => assert.match(got[i]?.message ?? '', new RegExp(w), name));
  }
  assert.deepEqual(validateTree({ kind: 'and', args: [A] }, 2)[0]?.path, []);
  assert.deepEqual(validateTree({ kind: 'and', args: [A, { kind: 'not', arg: C }] }, 2)[0]?.path, [1, 0]);
});

test('the preview says the logic in plain words', () => {
  const names = ['Income', 'Age', 'Residence'];
  const cases: Array<[Tree | null, number, string]> = [
    [null, 0, 'Add a section first: the outcome combines the sections.'],
    [null, 2, 'Eligible when every section holds.'],
    [A, 1, 'Eligible when “Income” (A) holds.'],
    [{ kind: 'and', args: [A, B] }, 2, 'Eligible when both “Income” (A) and “Age” (B) hold.'],
    [{ kind: 'or', args: [A, B] }, 2, 'Eligible when either “Income” (A) or “Age” (B) holds.'],
    [{ kind: 'and', args: [A, B, C] }, 3, 'Eligible when all of “Income” (A), “Age” (B) and “Residence” (C) hold.'],
    [{ kind: 'not', arg: A }, 1, 'Eligible unless “Income” (A) holds.'],
    [
      { kind: 'or', args: [{ kind: 'and', args: [A, B] }, { kind: 'not', arg: C }] },
      3,
      'Eligible when either (both “Income” (A) and “Age” (B)) or (not “Residence” (C)) holds.',
    ],
  ];
  for (const [tree, sections, want] of cases) assert.equal(preview(tree, sections, names), want);
  assert.equal(describe({ kind: 'or', args: [A, B, C] }), 'any of section A, section B or section C');
});

test('the tree follows a change of the section list', () => {
  const tree: Tree = { kind: 'or', args: [{ kind: 'and', args: [A, B] }, { kind: 'not', arg: C }] };
  // B removed: its condition goes and its group collapses; C becomes B.
  assert.deepEqual(relabel(tree, moves(['a', 'b', 'c'], ['a', 'c'])), { kind: 'or', args: [A, { kind: 'not', arg: B }] });
  // A and B swapped.
  assert.deepEqual(relabel({ kind: 'and', args: [A, B] }, moves(['a', 'b'], ['b', 'a'])), { kind: 'and', args: [B, A] });
  // Every section removed.
  assert.equal(relabel(tree, moves(['a', 'b', 'c'], [])), null);
  assert.deepEqual(defaultTree(2), { kind: 'and', args: [A, B] });
});

test('the rulebook form: checked in words, sent as the API reads it', () => {
  const ok = { name: 'Benefits', slug: 'acme/benefits', description: '', sections: ['income', 'age'] };
  assert.deepEqual(validateRulebookForm(ok, true), {});
  const bad = validateRulebookForm({ name: ' ', slug: 'Acme', description: '', sections: ['a', 'a'] }, true);
  assert.match(bad.name ?? '', /name/);
  assert.match(bad.slug ?? '', /lower-case/);
  assert.match(bad.sections ?? '', /once/);
  // Editing: the address is not checked (it cannot change).
  assert.deepEqual(validateRulebookForm({ ...ok, slug: '' }, false), {});

  const tree: Tree = { kind: 'and', args: [A, B] };
  assert.deepEqual(rulebookBody(ok, tree, null), {
    name: 'Benefits',
    slug: 'acme/benefits',
    description: '',
    ruleset_refs: [{ section_id: 'income' }, { section_id: 'age' }],
    outcome_logic: { op: 'and', args: [{ section: 'A' }, { section: 'B' }] },
  });
  // A pinned reference keeps its exact cut; the address is not sent on an edit.
  const edited = rulebookBody(ok, null, [{ section_id: 'income', pin_mode: 'pinned', ruleset_id: 'income:20260101-abc' }]);
  assert.deepEqual(edited.ruleset_refs, [{ section_id: 'income', pin_mode: 'pinned', ruleset_id: 'income:20260101-abc' }, { section_id: 'age' }]);
  assert.equal(edited.slug, undefined);
  assert.equal(edited.outcome_logic, null);

  const choices = sectionChoices([
    { section_id: 'income', name: 'Income test', slug: 'acme/income', ruleset_version: 'v2', status: 'active' },
    { section_id: 'income', name: 'Income test', slug: 'acme/income-lenient', ruleset_version: 'v1', status: 'active' },
    { section_id: 'age', name: 'Age', slug: 'acme/age', ruleset_version: 'v1', status: 'active' },
    { section_id: 'old', name: 'Old', slug: 'acme/old', ruleset_version: 'v1', status: 'archived' },
  ]);
  assert.deepEqual(choices, [
    { sectionId: 'age', name: 'Age', label: 'Age (acme/age)' },
    { sectionId: 'income', name: 'Income test', label: 'Income test (acme/income, acme/income-lenient)' },
  ]);
});

test('the field overlay sends only what changed', () => {
  const stored = { 'a.x': { question: 'Old?' }, 'a.y': { weight: 3 }, 'a.n': { question: 'Kept?', notes: [{ note_text: 'WHY: law' }] } };
  const { fields, errors } = overlayChanges(stored, {
    'a.x': { question: 'New?', description: '', weight: '' },
    'a.y': { question: '', description: '', weight: '' },
    'a.n': { question: 'Kept?', description: '', weight: '' },
    'a.z': { question: '', description: 'More', weight: '5' },
    'a.w': { question: '', description: '', weight: 'lots' },
  });
  assert.deepEqual(fields, { 'a.x': { question: 'New?' }, 'a.y': null, 'a.z': { description: 'More', weight: 5 } });
  assert.deepEqual(Object.keys(errors), ['a.w']);
});

test('a section in force reads as the analyst says it, with no ids', () => {
  const cases: { name: string; args: [string, string, string, string]; want: string }[] = [
    { name: 'a studio-published version, by its date', args: ['A', 'Lifeline', '20261129-d12ad59a6881', 'us_lifeline:20261129-d12ad59a6881'],
      want: 'Section A: Lifeline, in force: version of 29 November 2026' },
    { name: 'a numbered version', args: ['B', 'FMLA employee', 'v2', 'fmla:v2'], want: 'Section B: FMLA employee, in force: version 2' },
    { name: 'the published ruleset not at hand: the version from the live id', args: ['A', 'us_lifeline', '', 'us_lifeline:20261129-d12ad59a6881'],
      want: 'Section A: us_lifeline, in force: version of 29 November 2026' },
    { name: 'a name that is no date', args: ['C', 'SNAP', '2026a', 'snap:2026a'], want: 'Section C: SNAP, in force: version 2026a' },
    { name: 'eight digits that are no date', args: ['C', 'SNAP', '20261399-abc', 'snap:20261399-abc'], want: 'Section C: SNAP, in force: version 20261399-abc' },
  ];
  for (const c of cases) assert.equal(sectionInForce(...c.args), c.want, c.name);
});

test('the presence-polarity refusal in words', () => {
  const lines = witnessSentences({
    field: 'household.income',
    criterion: 'net_income',
    message: 'Leaving household.income unanswered makes net_income satisfied…',
    witness: {
      other_answers: [{ field: 'household.size', value: 1 }],
      field: 'household.income',
      unanswered: 'satisfied',
      value: 1305.01,
      answered: 'not_satisfied',
    },
  });
  assert.deepEqual(lines, [
    'Field: household.income. Criterion: net_income.',
    'With household.size is 1: leaving household.income unanswered makes criterion “net_income” met, but answering 1305.01 makes it not met.',
    'Leaving household.income unanswered makes net_income satisfied…',
  ]);
  const outcome = witnessSentences({ field: 'f', criterion: '', message: '', witness: { field: 'f', unanswered: 'eligible', value: true, answered: 'not_eligible' } });
  assert.match(outcome[1] ?? '', /^With no other answers: leaving f unanswered makes the outcome eligible, but answering yes makes it not eligible\.$/);
});

test('rulebook routes', () => {
  const cases: Array<[string, ReturnType<typeof parseStudioRoute>]> = [
    ['#/studio/rulebooks', { kind: 'rulebooks' }],
    ['#/studio/rulebooks/rb_abc', { kind: 'rulebook', rulebookId: 'rb_abc' }],
    ['#/studio/rulebooks/rb_abc/x', null],
  ];
  for (const [hash, want] of cases) {
    assert.deepEqual(parseStudioRoute(hash), want, hash);
    if (want) assert.equal(studioHref(want), hash);
  }
});
