// The project's test cases: each case's answers and the outcome the team
// expects, next to what the draft decides, so a failing case shows its
// reasons where it is read. Cases are added, edited and deleted here
// (set-project-tests replaces the list), and run by asking for the draft,
// whose answer decides every case.
import { announce, h } from '../dom.js';
import { loadDraft } from './client.js';
import { buildCase, formatAnswers, outcomes, outcomeWords, reasons } from './caseform.js';
import { suggestionsPanel } from './suggestions.js';
import { alertBox, busy, confirmDialog, errorMessage, field, plural } from './ui.js';
/** testsView draws the tests screen of project into container. */
export async function testsView(client, projectId, container) {
    const base = `/projects/${encodeURIComponent(projectId)}`;
    const summary = h('p', { id: 'tests-summary', class: 'count', tabindex: '-1' }, 'Loading the tests…');
    const alert = alertBox('tests-error');
    const body = h('tbody', {});
    const table = h('table', { id: 'tests', class: 'tests' }, h('caption', {}, 'Test cases and what the rules decide'), h('thead', {}, h('tr', {}, ...['Case', 'Answers', 'Expected', 'Decided', 'Result', 'Change'].map((c) => h('th', { scope: 'col' }, c)))), body);
    const run = h('button', { type: 'button', id: 'run-tests' }, 'Run the tests');
    let cases = [];
    let results = new Map();
    let editing = null;
    const name = field('case-name', 'Name', h('input', { type: 'text', class: 'wide', autocomplete: 'off' }), 'What the case checks, for example “eligible at exactly 12 months”.');
    const answers = field('case-answers', 'Answers', h('textarea', { rows: '5', class: 'wide', spellcheck: 'false' }), 'One per line: the field id, “=”, and the answer, for example “employment.months_employed = 12”. Leave a field out to leave it unanswered.');
    const expected = field('case-expected', 'Expected outcome', h('select', {}, ...outcomes.map(([v, words]) => h('option', { value: v }, words))));
    const date = field('case-date', 'Decision date (optional)', h('input', { type: 'text', class: 'narrow', placeholder: 'YYYY-MM-DD', autocomplete: 'off' }), 'For rules that read the decision date.');
    const formHeading = h('h3', { id: 'case-form-heading', tabindex: '-1' }, 'Add a case');
    const submit = h('button', { type: 'submit', id: 'save-case' }, 'Add the case');
    const cancel = h('button', { type: 'button', class: 'secondary', id: 'cancel-case', hidden: true }, 'Cancel editing');
    const formAlert = alertBox('case-error');
    const draw = () => {
        const failing = cases.filter((c) => results.get(c.name)?.pass === false).length;
        const passing = cases.filter((c) => results.get(c.name)?.pass === true).length;
        summary.textContent = cases.length
            ? failing
                ? `${passing} of ${plural(cases.length, 'case')} pass; ${failing} ${failing === 1 ? 'fails' : 'fail'}.`
                : passing === cases.length
                    ? `All ${plural(cases.length, 'case')} pass.`
                    : `${plural(cases.length, 'case')}; save rules that compile to see what they decide.`
            : 'No test cases yet: add the first below.';
        body.replaceChildren(...cases.map(row));
    };
    const row = (c) => {
        const r = results.get(c.name);
        const edit = h('button', { type: 'button', class: 'secondary small', 'aria-label': `Edit ${c.name}`, onclick: () => startEdit(c) }, 'Edit');
        const del = h('button', { type: 'button', class: 'danger small', 'aria-label': `Delete ${c.name}` }, 'Delete');
        del.addEventListener('click', () => void remove(c, del));
        return h('tr', { class: r ? (r.pass ? 'pass' : 'fail') : '' }, h('th', { scope: 'row' }, c.name), h('td', {}, h('pre', { class: 'answers' }, formatAnswers(c.field_values) || 'none')), h('td', {}, outcomeWords(c.expected_outcome)), h('td', {}, r ? outcomeWords(r.got) : '—'), h('td', { class: 'result' }, r ? h('strong', {}, r.pass ? 'Passes' : 'Fails') : 'Not run', r && !r.pass ? h('ul', { class: 'case-reasons' }, ...reasons(r).map((t) => h('li', {}, t))) : null), h('td', {}, h('div', { class: 'row' }, edit, del)));
    };
    const refresh = async () => {
        alert.clear();
        try {
            const [project, draft] = await Promise.all([client.call('GET', base), loadDraft(client, projectId)]);
            cases = project.test_cases;
            results = new Map((draft?.acceptance.results ?? []).map((r) => [r.name, r]));
            draw();
            if (draft && !draft.compiles)
                alert.show('The rules do not compile, so no case can be decided: fix them on the Rules screen.');
        }
        catch (err) {
            alert.show(errorMessage(err));
        }
    };
    const store = async (next) => {
        try {
            const project = await client.call('POST', `${base}/tests`, { test_cases: next, replace: true });
            cases = project.test_cases;
            await refresh();
            return true;
        }
        catch (err) {
            formAlert.show(errorMessage(err));
            return false;
        }
    };
    const resetForm = () => {
        editing = null;
        name.control.value = '';
        answers.control.value = '';
        expected.control.value = 'eligible';
        date.control.value = '';
        for (const f of [name, answers, expected, date])
            f.setError('');
        formHeading.textContent = 'Add a case';
        submit.textContent = 'Add the case';
        cancel.hidden = true;
    };
    const startEdit = (c) => {
        resetForm();
        editing = c.name;
        name.control.value = c.name;
        answers.control.value = formatAnswers(c.field_values);
        expected.control.value = c.expected_outcome;
        date.control.value = c.decision_date ?? '';
        formHeading.textContent = `Edit “${c.name}”`;
        submit.textContent = 'Save the case';
        cancel.hidden = false;
        formHeading.focus();
    };
    const remove = async (c, button) => {
        formAlert.clear();
        const ok = await confirmDialog(`Delete the case “${c.name}”?`, [h('p', {}, 'The case is removed from the project’s tests.')], 'Delete the case');
        if (!ok)
            return;
        await busy(button, async () => {
            if (await store(cases.filter((x) => x.name !== c.name))) {
                announce(`Case ${c.name} deleted.`);
                summary.focus();
            }
        });
    };
    const form = h('form', {
        id: 'case-form',
        class: 'studio-form',
        'aria-labelledby': 'case-form-heading',
        onsubmit: (e) => {
            e.preventDefault();
            formAlert.clear();
            const values = { name: name.control.value, answers: answers.control.value, expected: expected.control.value, decisionDate: date.control.value };
            const built = buildCase(values, cases.filter((c) => c.name !== editing));
            const fields = [
                ['name', name],
                ['answers', answers],
                ['expected', expected],
                ['decisionDate', date],
            ];
            for (const [k, f] of fields)
                f.setError(built.ok ? '' : (built.errors[k] ?? ''));
            if (!built.ok) {
                fields.find(([k]) => built.errors[k])?.[1].control.focus();
                return;
            }
            const previous = cases.find((c) => c.name === editing);
            // Editing keeps what the form does not show (the case's detailed expectations).
            const next = previous ? { ...previous, ...built.testCase } : built.testCase;
            if (previous && !built.testCase.decision_date)
                delete next.decision_date;
            const list = previous ? cases.map((c) => (c === previous ? next : c)) : [...cases, next];
            void busy(submit, async () => {
                if (await store(list)) {
                    announce(`Case ${next.name} ${previous ? 'saved' : 'added'}. ${summary.textContent ?? ''}`);
                    resetForm();
                    summary.focus();
                }
            });
        },
    }, formHeading, name.row, answers.row, expected.row, date.row, h('div', { class: 'buttons' }, submit, cancel), formAlert.el);
    cancel.addEventListener('click', () => {
        resetForm();
        name.control.focus();
    });
    run.addEventListener('click', () => {
        void busy(run, async () => {
            await refresh();
            announce(summary.textContent ?? '');
        });
    });
    const suggestions = suggestionsPanel(client, projectId, () => cases, (c) => store([...cases, c]));
    container.append(h('h2', { tabindex: '-1' }, 'Tests'), h('div', { class: 'buttons' }, run), summary, alert.el, h('div', { class: 'table-wrap' }, table), form, suggestions);
    resetForm();
    await refresh();
}
