// The Changes screen: what publishing the saved rules would change for
// applicants, against the version in force under the same address or any
// published ruleset the team may see (diff-project-draft), said as people
// read it: which outcomes change, for an example applicant, which criteria
// decide it differently, the law quoted on each side, and which questions
// are added, removed or changed. A household's member fields and the
// thresholds over them are said once, as the rules write them
// ("member.age"), not once per member the list can hold
// (docs/language.md#households).
import { memberOf } from '../answers.js';
import { append, h } from '../dom.js';
import { loadDraft, StudioError } from './client.js';
import { formatAnswers, outcomeWords } from './caseform.js';
import { impactPanel } from './impact.js';
import { draftSlug } from './projectform.js';
import { alertBox, busy, errorMessage, field, plural } from './ui.js';
/** statusWords says a criterion's status ("not_satisfied" is "not satisfied"; none is "not in the rules"). */
function statusWords(s) {
    return s ? s.replace(/_/g, ' ') : 'not in the rules';
}
/** changeSentence says one kind of outcome change. */
export function changeSentence(c) {
    return `Some applicants who were ${outcomeWords(c.from).toLowerCase()} would be ${outcomeWords(c.to).toLowerCase()}.`;
}
/**
 * questionChanges folds the diff's field changes into one per question as
 * the rules declare it: the copies of a member field ("member[0].age" to
 * "member[3].age") changed the same way are one change of "member.age",
 * in the order the first copy came.
 */
export function questionChanges(list) {
    const out = [];
    const byKey = new Map();
    for (const f of list) {
        const m = memberOf(f.field);
        if (!m) {
            out.push({ change: f, members: [] });
            continue;
        }
        const key = JSON.stringify([f.kind, m.list, m.name, f.old ?? '', f.new ?? '']);
        let q = byKey.get(key);
        if (!q) {
            q = { change: { ...f, field: `${m.list}.${m.name}` }, members: [] };
            byKey.set(key, q);
            out.push(q);
        }
        q.members.push(m.index);
    }
    return out;
}
/** membersWords says whose question a member field's change is: every member's, or only some members' (numbered from 1). */
function membersWords(members) {
    if (!members.length)
        return '';
    const sorted = [...members].sort((a, b) => a - b);
    if (sorted.every((m, i) => m === i))
        return ' (each member’s)';
    const nums = sorted.map((m) => String(m + 1));
    return nums.length === 1 ? ` (member ${nums[0]}’s)` : ` (members ${nums.slice(0, -1).join(', ')} and ${nums[nums.length - 1]})`;
}
/** fieldChangeSentence says what happens to one question; members are the list's members it changes for, when it is a member field. */
export function fieldChangeSentence(f, members = []) {
    const field = f.field + membersWords(members);
    switch (f.kind) {
        case 'added':
            return `New question: ${field}.`;
        case 'removed':
            return `Question no longer asked: ${field}.`;
        case 'type_changed':
            return `${field} takes another kind of answer${f.old && f.new ? ` (${f.old}, now ${f.new})` : ''}.`;
        default:
            return `${field} offers other choices${f.old && f.new ? ` (${f.old}, now ${f.new})` : ''}.`;
    }
}
/** asWritten writes an expression over members' fields as the rules write it: "member[2].age < 18" as "member.age < 18". */
function asWritten(subject) {
    return subject.replace(/\b([a-z][a-z0-9_]*)\[\d+\]\./g, '$1.');
}
/**
 * thresholdLines says each moved figure once: a threshold over a member
 * field moves for every member's copy of the condition, and is said as the
 * rules write it ("(member.age <)").
 */
export function thresholdLines(list) {
    const out = [];
    for (const t of list) {
        const subject = asWritten(t.subject);
        const line = subject === t.subject ? t.message : t.message.replace(`(${t.subject} ${t.operator})`, `(${subject} ${t.operator})`);
        if (!out.includes(line))
            out.push(line);
    }
    return out;
}
/**
 * whomItAffects says in one sentence whom publishing would affect: no one,
 * or how many kinds of outcome change and how many questions change.
 */
export function whomItAffects(d) {
    const parts = [];
    if (d.changes.length)
        parts.push(`${plural(d.changes.length, 'kind')} of applicant would get another outcome`);
    const questions = questionChanges(d.field_changes).length;
    if (questions)
        parts.push(`${plural(questions, 'question')} would change`);
    return parts.length ? parts.join(', and ') + '.' : 'No applicant’s outcome would change.';
}
/**
 * diffQuery is the query of a comparison: the published ruleset to
 * compare with (a slug or a ruleset id; empty for the one in force under
 * the draft's address) and the day the comparison is made as of.
 */
export function diffQuery(against, asOf) {
    const q = new URLSearchParams();
    if (against.trim())
        q.set('against', against.trim());
    if (asOf)
        q.set('decision_date', asOf);
    const s = q.toString();
    return s ? '?' + s : '';
}
/** sameQuotes says whether a criterion quotes the same law before and after, so it is shown once. */
export function sameQuotes(before, after) {
    const a = before ?? [];
    const b = after ?? [];
    return a.length === b.length && a.every((q, i) => q === b[i]);
}
/** quotes draws the law one side of a criterion quotes, or says it quotes none. */
function quotes(label, list) {
    const items = list ?? [];
    return h('div', { class: 'quotes' }, h('p', {}, h('strong', {}, label)), items.length ? h('ul', {}, ...items.map((q) => h('li', {}, h('q', {}, q)))) : h('p', { class: 'hint' }, 'No quote.'));
}
/** changeCard draws one kind of outcome change with its example applicant and the criteria behind it. */
function changeCard(c, n) {
    const headingId = `change-${n}-heading`;
    return h('li', { class: 'card change', 'aria-labelledby': headingId }, h('h4', { id: headingId }, changeSentence(c)), h('p', {}, 'For example, an applicant who answers:'), h('pre', { class: 'answers witness' }, formatAnswers(c.witness) || 'nothing'), c.criteria.length
        ? h('ul', { class: 'criteria-changes', 'aria-label': 'Criteria decided differently' }, ...c.criteria.map((k) => h('li', {}, h('p', {}, `Criterion `, h('code', {}, k.criterion_id), `: was ${statusWords(k.old_status)}, would be ${statusWords(k.new_status)}.`), ...(sameQuotes(k.old_quotes, k.new_quotes)
            ? [quotes('The law it rests on, before and after:', k.new_quotes)]
            : [quotes('The law it rests on now:', k.old_quotes), quotes('The law it would rest on:', k.new_quotes)]))))
        : null);
}
/** changesView draws the Changes screen of project into container. */
export async function changesView(client, projectId, container) {
    const choices = h('datalist', { id: 'published-rulesets' });
    const against = field('diff-against', 'Compare with', h('input', { type: 'text', class: 'wide', autocomplete: 'off', spellcheck: 'false', list: 'published-rulesets' }), 'Leave empty for the version in force under the rules’ own address, or give the address or id of another published ruleset.');
    const asOf = field('diff-as-of', 'As of', h('input', { type: 'date' }), 'The day whose version in force is compared, and what “today” means in the rules. Leave empty for today.');
    const submit = h('button', { type: 'submit', id: 'compare-published' }, 'Compare');
    const alert = alertBox('diff-error');
    const result = h('section', { id: 'diff-result', tabindex: '-1', 'aria-labelledby': 'diff-result-heading' });
    const compare = async (moveFocus) => {
        alert.clear();
        result.replaceChildren(h('p', {}, 'Comparing every possible applicant… this can take a few seconds.'));
        try {
            const d = await client.call('GET', `/projects/${encodeURIComponent(projectId)}/draft/diff${diffQuery(against.control.value, asOf.control.value)}`);
            result.replaceChildren();
            append(result, h('h3', { id: 'diff-result-heading' }, 'Who this affects'), h('p', {}, `Compared with ${d.against_version} of `, h('code', {}, d.against_slug), '.'), h('p', { id: 'diff-summary', class: 'count' }, whomItAffects(d)), d.changes.length ? h('ol', { id: 'changes', class: 'changes' }, ...d.changes.map(changeCard)) : null, d.threshold_changes?.length
                ? h('section', { 'aria-labelledby': 'threshold-changes-heading' }, h('h4', { id: 'threshold-changes-heading' }, 'Figures that moved'), h('ul', { id: 'threshold-changes' }, ...thresholdLines(d.threshold_changes).map((t) => h('li', {}, t))))
                : null, d.field_changes.length
                ? h('section', { 'aria-labelledby': 'field-changes-heading' }, h('h4', { id: 'field-changes-heading' }, 'Questions'), h('ul', { id: 'field-changes' }, ...questionChanges(d.field_changes).map((q) => h('li', {}, fieldChangeSentence(q.change, q.members)))))
                : null);
        }
        catch (err) {
            result.replaceChildren(h('h3', { id: 'diff-result-heading' }, 'Who this affects'));
            if (err instanceof StudioError && err.reason === 'nothing_published') {
                result.append(h('p', { id: 'diff-summary', class: 'count' }, 'Nothing is published under this address yet, so every decision would be new.'));
            }
            else {
                result.append(h('p', { id: 'diff-summary', class: 'count' }, 'The comparison could not be made.'));
                alert.show(errorMessage(err));
            }
        }
        if (moveFocus)
            result.focus();
    };
    const form = h('form', {
        id: 'diff-form',
        class: 'studio-form',
        'aria-label': 'Compare',
        onsubmit: (e) => {
            e.preventDefault();
            void busy(submit, () => compare(true));
        },
    }, against.row, choices, asOf.row, h('div', { class: 'buttons' }, submit));
    container.append(h('h2', { tabindex: '-1' }, 'Changes'), h('p', { class: 'hint' }, 'What publishing the saved rules would change for applicants, found by the solver over every possible applicant, with an example of each change and the law behind it.'), form, alert.el, result, impactPanel(client, {
        projectId,
        candidate: () => null,
        describe: 'Beside the example above: decide every applicant of a file on the version in force and on the saved rules, and count whose outcome would change.',
        log: { kind: 'ruleset', slug: async () => draftSlug((await loadDraft(client, projectId))?.rules ?? '') },
    }));
    // The team's published rulesets are offered as choices; typing any other
    // address or id works too.
    void client
        .call('GET', '/rulesets?limit=100')
        .then((list) => choices.replaceChildren(...list.map((r) => h('option', { value: r.slug }, `${r.name} (${r.ruleset_version})`))))
        .catch(() => { });
    // The first comparison runs as the screen opens; focus stays on its heading.
    await compare(false);
}
