// The outcome tree editor: the tree drawn as nested lists of native
// controls, so it is used from the keyboard like any form. A condition is
// a section picker; a group says "all of" or "any of"; each node has its
// buttons (add a condition, group, negate, remove), named with what they
// act on for screen readers. After each change the tree is drawn again
// and focus goes to the node the change made or touched, and the
// plain-language preview below says the new logic.
import { announce, h } from '../dom.js';
import { addCondition, describe, group, letterOf, negate, nodeAt, pathKey, preview, remove, setLetter, setOp, validateTree, } from './outcometree.js';
/** treeEditor makes the editor for tree over the sections named. */
export function treeEditor(initial, initialNames) {
    let tree = initial;
    let names = initialNames;
    const root = h('div', { id: 'outcome-tree', class: 'outcome-tree' });
    const previewEl = h('p', { id: 'outcome-preview', class: 'outcome-preview', 'aria-live': 'polite' });
    const problemsEl = h('ul', { id: 'outcome-problems', class: 'field-error', hidden: true });
    const el = h('fieldset', { id: 'outcome-editor', class: 'outcome-editor' }, h('legend', {}, 'Outcome'), h('p', { class: 'hint', id: 'outcome-hint' }, 'Combine the sections: a condition asks that a section holds; “all of” needs every condition inside it, “any of” one of them, and “not” turns a condition around.'), root, h('p', { class: 'caption' }, 'In words:'), previewEl, problemsEl);
    const letterName = (letter) => {
        const n = names[letter.charCodeAt(0) - 65];
        return n ? `${n} (${letter})` : `Section ${letter}`;
    };
    /** otherLetter picks a section for a new condition: the first not already used beside path, else A. */
    const otherLetter = (path) => {
        const used = new Set();
        const collect = (t) => {
            if (!t)
                return;
            if (t.kind === 'section')
                used.add(t.letter);
            else if (t.kind === 'not')
                collect(t.arg);
            else
                t.args.forEach(collect);
        };
        collect(nodeAt(tree, path));
        for (let i = 0; i < names.length; i++)
            if (!used.has(letterOf(i)))
                return letterOf(i);
        return 'A';
    };
    const change = (next, focus, said) => {
        tree = next;
        draw();
        announce(said);
        const target = focus ? root.querySelector(`#node-${pathKey(focus)} .node-head select, #node-${pathKey(focus)} .node-head button`) : null;
        (target ?? root.querySelector('select, button'))?.focus();
    };
    const button = (label, what, id, onclick) => h('button', { type: 'button', class: 'secondary small', id, onclick }, label, h('span', { class: 'visually-hidden' }, ' ' + what));
    const parentOf = (path) => (path.length ? path.slice(0, -1) : null);
    const nodeEl = (t, path) => {
        const key = pathKey(path);
        const what = describe(t, names);
        const actions = [];
        let head;
        let children = null;
        if (t.kind === 'section') {
            const select = h('select', { id: `cond-${key}`, 'aria-label': 'Condition: this section holds' }, ...names.map((n, i) => h('option', { value: letterOf(i), selected: letterOf(i) === t.letter }, `${n} (${letterOf(i)})`)));
            if (!names.some((_, i) => letterOf(i) === t.letter))
                select.append(h('option', { value: t.letter, selected: true }, `Section ${t.letter} (no longer in the rulebook)`));
            select.addEventListener('change', () => change(setLetter(tree, path, select.value), path, `The condition is now ${letterName(select.value)}.`));
            head = h('span', { class: 'node-kind' }, select);
            actions.push(button('All of…', `: group ${what} with another section, all to hold`, `group-and-${key}`, () => {
                const r = group(tree, path, 'and', otherLetter(path.length ? parentOf(path) : path));
                change(r.tree, [...r.at, 1], 'Grouped with another condition under “all of”: choose its section.');
            }), button('Any of…', `: group ${what} with another section, either to hold`, `group-or-${key}`, () => {
                const r = group(tree, path, 'or', otherLetter(path.length ? parentOf(path) : path));
                change(r.tree, [...r.at, 1], 'Grouped with another condition under “any of”: choose its section.');
            }));
        }
        else if (t.kind === 'not') {
            head = h('span', { class: 'node-kind' }, h('strong', {}, 'Not'));
            children = h('ul', {}, nodeEl(t.arg, [...path, 0]));
        }
        else {
            const select = h('select', { id: `op-${key}`, 'aria-label': 'Combine these conditions' }, h('option', { value: 'and', selected: t.kind === 'and' }, 'All of these hold'), h('option', { value: 'or', selected: t.kind === 'or' }, 'Any of these holds'));
            select.addEventListener('change', () => {
                const op = select.value === 'or' ? 'or' : 'and';
                change(setOp(tree, path, op), path, op === 'and' ? 'All of the conditions must hold.' : 'Any one of the conditions is enough.');
            });
            head = h('span', { class: 'node-kind' }, select);
            actions.push(button('Add a condition', `to ${what}`, `add-${key}`, () => {
                const r = addCondition(tree, path, otherLetter(path));
                change(r.tree, r.at, 'Condition added: choose its section.');
            }));
            children = h('ul', {}, ...t.args.map((a, i) => nodeEl(a, [...path, i])));
        }
        actions.push(button(t.kind === 'not' ? 'Remove the not' : 'Negate', what, `negate-${key}`, () => change(negate(tree, path), path, t.kind === 'not' ? 'The “not” is removed.' : 'The condition is turned around: it must not hold.')), button('Remove', what, `remove-${key}`, () => {
            const next = remove(tree, path);
            const parent = parentOf(path);
            change(next, parent && nodeAt(next, parent) ? parent : [], next ? 'Removed.' : 'Removed: every section must hold again.');
        }));
        return h('li', { id: `node-${key}`, class: 'node node-' + t.kind }, h('div', { class: 'node-head' }, head, ...actions), children);
    };
    const draw = () => {
        if (!names.length) {
            root.replaceChildren(h('p', {}, 'Pick the sections first; then combine them here.'));
        }
        else if (!tree) {
            root.replaceChildren(h('p', {}, 'Every section must hold (the default).'), h('div', { class: 'buttons' }, button('Add a condition', 'to the outcome', 'add-root', () => {
                const r = addCondition(null, [], 'A');
                change(r.tree, r.at, 'Condition added: choose its section.');
            })));
        }
        else {
            root.replaceChildren(h('ul', { class: 'tree' }, nodeEl(tree, [])));
        }
        previewEl.textContent = preview(tree, names.length, names);
        const problems = validateTree(tree, names.length, names);
        problemsEl.replaceChildren(...problems.map((p) => h('li', {}, p.message)));
        problemsEl.hidden = problems.length === 0;
    };
    draw();
    return {
        el,
        tree: () => tree,
        setSections(n, t) {
            names = n;
            tree = t;
            draw();
        },
        problems: () => validateTree(tree, names.length, names).map((p) => p.message),
    };
}
