// A rulebook's outcome tree as the studio edits it: conditions (each a
// section, by its letter) combined with all of / any of / not, read from
// and written to the API's outcome_logic, checked before it is sent, said
// in plain words, and changed one step at a time (add a condition, group,
// negate, remove) so that the tree editor can be used from the keyboard.
// No DOM here: the editor (rulebookform's tree view) draws what this
// module computes.

import type { components } from '../../../clients/ts/src/schema.js';

type S = components['schemas'];

/** The API's outcome_logic node (docs/api.md#rulebooks). */
export type OutcomeNode = S['OutcomeNode'];

/** A condition: one section must hold. */
export interface Leaf {
  kind: 'section';
  letter: string;
}

/** A group: all of, or any of, its conditions must hold. */
export interface Group {
  kind: 'and' | 'or';
  args: Tree[];
}

/** A negation: its condition must not hold. */
export interface Not {
  kind: 'not';
  arg: Tree;
}

/** Tree is an outcome tree; null stands for the API's default, every section and-ed. */
export type Tree = Leaf | Group | Not;

/** Path addresses a node: the indices of the children taken from the root ([] is the root; a not's one child is 0). */
export type Path = number[];

/** letterOf is the letter of section i (0 is A). */
export function letterOf(i: number): string {
  return String.fromCharCode(65 + i);
}

/** defaultTree is every section and-ed: what the API applies when outcome_logic is null. */
export function defaultTree(sections: number): Tree | null {
  if (sections === 0) return null;
  if (sections === 1) return { kind: 'section', letter: 'A' };
  return { kind: 'and', args: Array.from({ length: sections }, (_, i): Tree => ({ kind: 'section', letter: letterOf(i) })) };
}

/**
 * fromApi reads outcome_logic; null (the default) reads as every section
 * and-ed. A node the editor cannot show (an unknown op, a string) throws,
 * naming what is wrong.
 */
export function fromApi(node: OutcomeNode | null | undefined, sections: number): Tree | null {
  if (node === null || node === undefined) return defaultTree(sections);
  return readNode(node);
}

function readNode(node: OutcomeNode): Tree {
  if (typeof node !== 'object' || node === null) throw new Error('The outcome logic is not a tree of conditions.');
  if (typeof node.section === 'string') return { kind: 'section', letter: node.section };
  const args = Array.isArray(node.args) ? node.args.map(readNode) : [];
  if (node.op === 'and' || node.op === 'or') return { kind: node.op, args };
  if (node.op === 'not' && args.length === 1 && args[0]) return { kind: 'not', arg: args[0] };
  throw new Error(`The outcome logic has a node the editor does not know (${String(node.op)}).`);
}

/** toApi writes the tree as outcome_logic; null stays null (every section and-ed). */
export function toApi(tree: Tree | null): OutcomeNode | null {
  if (!tree) return null;
  switch (tree.kind) {
    case 'section':
      return { section: tree.letter };
    case 'not':
      return { op: 'not', args: [toApi(tree.arg) as OutcomeNode] };
    default:
      return { op: tree.kind, args: tree.args.map((a) => toApi(a) as OutcomeNode) };
  }
}

/** A problem found in the tree: where, and what to do about it, in words. */
export interface TreeProblem {
  path: Path;
  message: string;
}

/** validateTree lists what the API would refuse: a group of fewer than two conditions, a condition on a section the rulebook does not have. */
export function validateTree(tree: Tree | null, sections: number, names: string[] = []): TreeProblem[] {
  const problems: TreeProblem[] = [];
  const walk = (t: Tree, path: Path): void => {
    switch (t.kind) {
      case 'section': {
        const i = t.letter.charCodeAt(0) - 65;
        if (t.letter.length !== 1 || i < 0 || i >= sections)
          problems.push({ path, message: `A condition names section ${t.letter}, which this rulebook does not have: remove it or choose another section.` });
        break;
      }
      case 'not':
        walk(t.arg, [...path, 0]);
        break;
      default:
        if (t.args.length < 2)
          problems.push({
            path,
            message: `${t.kind === 'and' ? '“All of”' : '“Any of”'} ${describe(t, names)} needs at least two conditions: add one, or remove the group.`,
          });
        t.args.forEach((a, i) => walk(a, [...path, i]));
    }
  };
  if (tree) walk(tree, []);
  return problems;
}

/** sectionName is how a condition on letter reads: the section's name when known, with its letter. */
export function sectionName(letter: string, names: string[]): string {
  const name = names[letter.charCodeAt(0) - 65];
  return name ? `“${name}” (${letter})` : `section ${letter}`;
}

function list(items: string[], conjunction: string): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${conjunction} ${items[items.length - 1]}`;
}

/** describe says a node in plain words: “both X and Y”, “any of X, Y or Z”, “not X”. */
export function describe(tree: Tree, names: string[] = []): string {
  const inner = (t: Tree): string => (t.kind === 'section' ? describe(t, names) : `(${describe(t, names)})`);
  switch (tree.kind) {
    case 'section':
      return sectionName(tree.letter, names);
    case 'not':
      return `not ${inner(tree.arg)}`;
    case 'and': {
      const parts = tree.args.map(inner);
      if (parts.length === 0) return 'all of nothing yet';
      if (parts.length === 1) return `all of ${parts[0]}`;
      return parts.length === 2 ? `both ${parts[0]} and ${parts[1]}` : `all of ${list(parts, 'and')}`;
    }
    case 'or': {
      const parts = tree.args.map(inner);
      if (parts.length === 0) return 'any of nothing yet';
      if (parts.length === 1) return `any of ${parts[0]}`;
      return parts.length === 2 ? `either ${parts[0]} or ${parts[1]}` : `any of ${list(parts, 'or')}`;
    }
  }
}

/** preview is the whole tree as a sentence: when an applicant is eligible. */
export function preview(tree: Tree | null, sections: number, names: string[] = []): string {
  if (sections === 0) return 'Add a section first: the outcome combines the sections.';
  if (!tree) return 'Eligible when every section holds.';
  if (tree.kind === 'not') return `Eligible unless ${describe(tree.arg, names)} ${verb(tree.arg)}.`;
  return `Eligible when ${describe(tree, names)} ${verb(tree)}.`;
}

/** verb agrees with a node's description: “both X and Y hold”, “either X or Y holds”. */
function verb(tree: Tree): string {
  return tree.kind === 'and' && tree.args.length > 1 ? 'hold' : 'holds';
}

/** nodeAt is the node at path, or null when there is none. */
export function nodeAt(tree: Tree | null, path: Path): Tree | null {
  let t: Tree | null = tree;
  for (const i of path) {
    if (!t) return null;
    if (t.kind === 'not') t = i === 0 ? t.arg : null;
    else if (t.kind === 'and' || t.kind === 'or') t = t.args[i] ?? null;
    else return null;
  }
  return t;
}

/** replaceAt is tree with the node at path replaced by node (null removes it from its group, or empties the tree). */
function replaceAt(tree: Tree | null, path: Path, node: Tree | null): Tree | null {
  if (path.length === 0) return node;
  if (!tree) return tree;
  const [i, ...rest] = path as [number, ...number[]];
  if (tree.kind === 'not') {
    const arg = replaceAt(tree.arg, rest, node);
    return arg ? { kind: 'not', arg } : null;
  }
  if (tree.kind === 'and' || tree.kind === 'or') {
    const args = tree.args.slice();
    const child = replaceAt(args[i] ?? null, rest, node);
    if (child) args[i] = child;
    else args.splice(i, 1);
    return { kind: tree.kind, args };
  }
  return tree;
}

/** addCondition adds a condition on letter to the group at path; on a tree that is one condition, or empty, it makes an “all of” group. The answer says where the new condition is. */
export function addCondition(tree: Tree | null, path: Path, letter: string): { tree: Tree; at: Path } {
  const leaf: Leaf = { kind: 'section', letter };
  const target = nodeAt(tree, path);
  if (!tree || !target) return { tree: leaf, at: [] };
  if (target.kind === 'and' || target.kind === 'or') {
    const group: Group = { kind: target.kind, args: [...target.args, leaf] };
    return { tree: replaceAt(tree, path, group) as Tree, at: [...path, target.args.length] };
  }
  return { tree: replaceAt(tree, path, { kind: 'and', args: [target, leaf] }) as Tree, at: [...path, 1] };
}

/** group puts the node at path in a new group (all of, or any of) with a condition on letter beside it. */
export function group(tree: Tree, path: Path, op: 'and' | 'or', letter: string): { tree: Tree; at: Path } {
  const target = nodeAt(tree, path);
  if (!target) return { tree, at: path };
  return { tree: replaceAt(tree, path, { kind: op, args: [target, { kind: 'section', letter }] }) as Tree, at: path };
}

/** setOp turns the group at path into “all of” or “any of”. */
export function setOp(tree: Tree, path: Path, op: 'and' | 'or'): Tree {
  const target = nodeAt(tree, path);
  if (!target || (target.kind !== 'and' && target.kind !== 'or')) return tree;
  return replaceAt(tree, path, { kind: op, args: target.args }) as Tree;
}

/** setLetter points the condition at path at another section. */
export function setLetter(tree: Tree, path: Path, letter: string): Tree {
  const target = nodeAt(tree, path);
  if (!target || target.kind !== 'section') return tree;
  return replaceAt(tree, path, { kind: 'section', letter }) as Tree;
}

/** negate wraps the node at path in “not”, or, when it is a “not” already, takes the “not” away. */
export function negate(tree: Tree, path: Path): Tree {
  const target = nodeAt(tree, path);
  if (!target) return tree;
  return replaceAt(tree, path, target.kind === 'not' ? target.arg : { kind: 'not', arg: target }) as Tree;
}

/**
 * remove takes the node at path out. A group left with one condition is
 * replaced by that condition; a “not” whose condition goes goes too;
 * removing the root empties the tree (every section and-ed).
 */
export function remove(tree: Tree, path: Path): Tree | null {
  return simplify(replaceAt(tree, path, null));
}

/** simplify replaces each group of one condition by that condition and drops empty groups. */
export function simplify(tree: Tree | null): Tree | null {
  if (!tree) return null;
  switch (tree.kind) {
    case 'section':
      return tree;
    case 'not': {
      const arg = simplify(tree.arg);
      return arg ? { kind: 'not', arg } : null;
    }
    default: {
      const args = tree.args.map(simplify).filter((a): a is Tree => a !== null);
      if (args.length === 0) return null;
      if (args.length === 1) return args[0] as Tree;
      return { kind: tree.kind, args };
    }
  }
}

/**
 * relabel follows a change of the section list: moved[i] is the new index
 * of old section i, or null when it was removed. Conditions on a removed
 * section go (and the tree is simplified); the others take their new letters.
 */
export function relabel(tree: Tree | null, moved: Array<number | null>): Tree | null {
  const walk = (t: Tree): Tree | null => {
    switch (t.kind) {
      case 'section': {
        const to = moved[t.letter.charCodeAt(0) - 65];
        return to === null || to === undefined ? null : { kind: 'section', letter: letterOf(to) };
      }
      case 'not': {
        const arg = walk(t.arg);
        return arg ? { kind: 'not', arg } : null;
      }
      default:
        return { kind: t.kind, args: t.args.map(walk).filter((a): a is Tree => a !== null) };
    }
  };
  return simplify(tree ? walk(tree) : null);
}

/** pathKey writes a path as an element id suffix: "root", "0-1-2". */
export function pathKey(path: Path): string {
  return path.length ? path.join('-') : 'root';
}
