// The household step of the interview, the way benefit forms ask it: once
// the applicant has said how many people there are, each person's
// questions grouped under that person, with a name the applicant may give
// them (kept in the page, never sent), "Add a person" up to the rules'
// bound and "Remove" for each. The interview (interviewview.ts) owns the
// answers; this draws them and reports what the applicant did. See
// docs/console.md (Interview).
import { encodeAnswer, questionText } from './answers.js';
import { control } from './controls.js';
import { h, idFor } from './dom.js';
import { countOf, memberFieldId, personName, plural, withoutWho } from './household.js';
/** The id of the input for the name of person index of a list. */
function labelId(list, index) {
    return idFor('person-label', `${list.id}-${index}`);
}
/** householdForm draws the household step. */
export function householdForm(s) {
    const { list } = s;
    const n = countOf(s.iv.answers, list.id) ?? 0;
    const controls = new Map();
    const people = [];
    for (let i = 0; i < n; i++)
        people.push(person(s, i, controls));
    const many = plural(list.noun);
    const full = n >= list.max;
    const add = h('button', {
        type: 'button',
        class: 'secondary',
        id: 'add-person',
        disabled: full,
        'aria-describedby': full ? 'add-person-why' : undefined,
        onclick: () => s.onAdd(),
    }, `Add a ${list.noun}`);
    const empty = h('p', { class: 'field-error', role: 'alert', hidden: true, id: 'empty-error' }, 'Enter an answer, or choose Skip.');
    const askedMember = s.asked !== list.id;
    const form = h('form', { class: 'question-form household', id: 'question-form', novalidate: true, 'data-field': s.asked, 'aria-labelledby': 'household-heading' }, h('h2', { id: 'household-heading' }, list.title || `The ${many}`), h('p', { class: 'hint', id: 'household-names-hint' }, `You may give each ${list.noun} a name to tell them apart. Names stay on this page only: they are never sent to the service.`), people.length ? h('ol', { class: 'people' }, ...people) : h('p', { id: 'no-people' }, `No ${many} yet.`), h('div', { class: 'buttons' }, add), full ? h('p', { class: 'hint', id: 'add-person-why' }, `No more ${many} can be added: these rules count at most ${list.max}.`) : null, empty, h('div', { class: 'buttons' }, h('button', { type: 'submit', id: 'continue' }, 'Continue'), askedMember ? h('button', { type: 'button', class: 'secondary', id: 'skip', onclick: () => s.onSkip() }, 'Skip this question') : null, h('button', { type: 'button', class: 'secondary', id: 'back', disabled: !s.canBack, onclick: () => s.onBack() }, 'Back')));
    form.addEventListener('submit', (e) => {
        e.preventDefault();
        let changed = false;
        for (const [id, c] of controls) {
            const f = s.fields.get(id);
            const text = c.read();
            const old = s.iv.answers.get(id);
            const json = f ? encodeAnswer(f, text) : null;
            if (json === null) {
                if (old) {
                    s.iv.forget(id);
                    changed = true;
                }
            }
            else if (!old || old.text !== text || old.json !== json) {
                s.iv.answer(id, { text, json });
                changed = true;
            }
        }
        if (!changed && askedMember && !s.iv.answers.has(s.asked)) {
            empty.hidden = false;
            controls.get(s.asked)?.focus();
            return;
        }
        s.drafts.clear();
        s.onContinue();
    });
    const keepDrafts = () => {
        for (const [id, c] of controls)
            s.drafts.set(id, c.read());
    };
    const focus = () => {
        if (s.focus === 'add') {
            add.focus();
            return;
        }
        const target = s.focus ?? (askedMember ? s.asked : undefined);
        const c = target ? controls.get(target) : undefined;
        if (c) {
            c.focus();
        }
        else {
            // The list itself: the first question of the first person, else Add.
            const first = controls.values().next().value;
            if (first)
                first.focus();
            else
                add.focus();
        }
    };
    return { node: form, focus, keepDrafts };
}
/** person draws one person's group: their name, the name field, their questions and Remove. */
function person(s, i, controls) {
    const { list } = s;
    const name = () => personName(list, s.labels, i);
    const legend = h('legend', { class: 'person-name' }, name());
    const remove = h('button', { type: 'button', class: 'secondary remove-person', onclick: () => s.onRemove(i) }, `Remove ${name()}`);
    const id = labelId(list, i);
    const labelInput = h('input', {
        type: 'text',
        id,
        class: 'narrow person-label',
        autocomplete: 'off',
        spellcheck: 'false',
        value: s.labels[i] ?? '',
        'aria-describedby': 'household-names-hint',
    });
    labelInput.addEventListener('input', () => {
        s.labels[i] = labelInput.value;
        legend.textContent = name();
        remove.textContent = `Remove ${name()}`;
    });
    labelInput.addEventListener('change', () => s.onRename());
    const questions = list.names.map((n) => {
        const fid = memberFieldId(list.id, i, n);
        const f = s.fields.get(fid);
        if (!f)
            return null;
        const text = s.drafts.get(fid) ?? s.iv.answers.get(fid)?.text ?? '';
        const c = control(f, 'q', withoutWho(questionText(f), list, i), text, s.errors.get(fid));
        controls.set(fid, c);
        if (fid === s.asked)
            c.node.classList.add('asked');
        if (s.iv.declined.has(fid))
            c.node.append(h('p', { class: 'hint skipped-note' }, 'You skipped this question.'));
        return c.node;
    });
    return h('li', { class: 'person', 'data-person': String(i) }, h('fieldset', { class: 'person-group' }, legend, h('div', { class: 'control person-label-control' }, h('label', { for: id, class: 'question' }, 'Who is this? (optional)'), h('div', { class: 'row' }, labelInput)), ...questions, h('div', { class: 'buttons' }, remove)));
}
