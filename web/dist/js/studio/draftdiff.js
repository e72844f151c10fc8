// What publishing would change for applicants: the saved rules against the
// version in force under the same address (diff-project-draft), said as
// people read it: which outcomes change, for an example applicant, which
// criteria decide it differently, and which questions are added, removed
// or changed.
import { append, h } from '../dom.js';
import { StudioError } from './client.js';
import { formatAnswers, outcomeWords } from './caseform.js';
import { alertBox, busy, errorMessage } from './ui.js';
/** statusWords says a criterion's status ("not_satisfied" is "not satisfied"; none is "not decided"). */
function statusWords(s) {
    return s ? s.replace(/_/g, ' ') : 'not in the rules';
}
/** changeSentence says one kind of outcome change. */
export function changeSentence(c) {
    return `Some applicants who were ${outcomeWords(c.from).toLowerCase()} would be ${outcomeWords(c.to).toLowerCase()}.`;
}
/** fieldChangeSentence says what happens to one question. */
export function fieldChangeSentence(f) {
    switch (f.kind) {
        case 'added':
            return `New question: ${f.field}.`;
        case 'removed':
            return `Question no longer asked: ${f.field}.`;
        case 'type_changed':
            return `${f.field} takes another kind of answer${f.old && f.new ? ` (${f.old}, now ${f.new})` : ''}.`;
        default:
            return `${f.field} offers other choices${f.old && f.new ? ` (${f.old}, now ${f.new})` : ''}.`;
    }
}
/** draftDiffPanel draws the comparison section of the publish screen. */
export function draftDiffPanel(client, projectId) {
    const button = h('button', { type: 'button', id: 'compare-published', class: 'secondary' }, 'Compare with the published version');
    const result = h('div', { id: 'diff-result', tabindex: '-1' });
    const alert = alertBox('diff-error');
    button.addEventListener('click', () => {
        alert.clear();
        void busy(button, async () => {
            result.replaceChildren(h('p', {}, 'Comparing every possible applicant… this can take a few seconds.'));
            try {
                const d = await client.call('GET', `/projects/${encodeURIComponent(projectId)}/draft/diff`);
                result.replaceChildren();
                append(result, h('p', {}, `Compared with ${d.against_version} of `, h('code', {}, d.against_slug), '.'), d.equivalent && !d.field_changes.length ? h('p', { id: 'diff-none' }, 'No applicant’s outcome would change.') : null, ...d.changes.map((c) => h('div', { class: 'card change' }, h('p', {}, h('strong', {}, changeSentence(c))), h('p', {}, 'For example, one who answers:'), h('pre', { class: 'answers' }, formatAnswers(c.witness) || 'nothing'), c.criteria.length
                    ? h('ul', {}, ...c.criteria.map((k) => h('li', {}, `Criterion ${k.criterion_id}: was ${statusWords(k.old_status)}, would be ${statusWords(k.new_status)}.`)))
                    : null)), d.field_changes.length ? h('ul', { id: 'field-changes' }, ...d.field_changes.map((f) => h('li', {}, fieldChangeSentence(f)))) : null);
            }
            catch (err) {
                result.replaceChildren();
                if (err instanceof StudioError && err.reason === 'nothing_published') {
                    result.append(h('p', { id: 'diff-none' }, 'Nothing is published under this address yet, so every decision would be new.'));
                }
                else {
                    alert.show(errorMessage(err));
                }
            }
            result.focus();
        });
    });
    return h('section', { 'aria-labelledby': 'diff-heading' }, h('h3', { id: 'diff-heading' }, 'What would change for applicants'), h('p', { class: 'hint' }, 'The saved rules against the version in force under the same address, over every possible applicant.'), h('div', { class: 'buttons' }, button), alert.el, result);
}
