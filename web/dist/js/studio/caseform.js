// A test case as people write it: answers one per line, "field = value"
// (a number, true or false, a date, or text, with or without quotes), and
// back again, so a case can be edited as text and sent as the JSON the API
// takes (field_values as /decide takes them).
import { memberOf } from '../answers.js';
/** The outcomes a case can expect, with their words. */
export const outcomes = [
    ['eligible', 'Eligible'],
    ['not_eligible', 'Not eligible'],
    ['undetermined', 'Undetermined'],
];
/** outcomeWords says an outcome in words ("not_eligible" is "Not eligible"). */
export function outcomeWords(outcome) {
    return outcomes.find(([v]) => v === outcome)?.[1] ?? outcome;
}
/** parseValue reads one answer's value: a number, a bool, or text (quotes optional). */
export function parseValue(text) {
    const t = text.trim();
    if (t === 'true')
        return true;
    if (t === 'false')
        return false;
    if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(t))
        return Number(t);
    const q = /^"((?:[^"\\]|\\.)*)"$/.exec(t);
    if (q)
        return (q[1] ?? '').replace(/\\(.)/g, '$1');
    return t;
}
/** formatValue writes a value back as parseValue reads it. */
export function formatValue(v) {
    if (typeof v === 'string')
        return /^(true|false|-?\d+(\.\d+)?([eE][+-]?\d+)?)$/.test(v.trim()) || v !== v.trim() ? JSON.stringify(v) : v;
    return typeof v === 'object' ? JSON.stringify(v) : String(v);
}
/**
 * parseAnswers reads "field = value" lines (blank lines and # comments
 * skipped). A household is written as it is asked: "member = 2" says how
 * many people the list holds, "member[0].age = 34" answers for the first
 * of them; the values hold the list as the API reads it, one object of
 * answers per member.
 */
export function parseAnswers(text) {
    const values = {};
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
        const line = (lines[i] ?? '').trim();
        if (!line || line.startsWith('#'))
            continue;
        const m = /^([a-z][a-z0-9_]*(?:\[\d+\])?(?:\.[a-z][a-z0-9_]*)*)\s*[=:]\s*(.*)$/.exec(line);
        const id = m?.[1] ?? '';
        const member = memberOf(id);
        if (!m || !(id.includes('.') || /^\d+$/.test((m[2] ?? '').trim()))) {
            return { ok: false, error: `Line ${i + 1}: write each answer as “field = value”, for example “person.age = 67”, and how many people a list holds as “member = 2”.` };
        }
        if (id in values || (member && member.name in memberAnswers(values, member)))
            return { ok: false, error: `Line ${i + 1}: ${id} is answered twice.` };
        if (!(m[2] ?? '').trim())
            return { ok: false, error: `Line ${i + 1}: ${id} has no value.` };
        if (!member) {
            values[id] = id.includes('.') ? parseValue(m[2] ?? '') : Array.from({ length: Number(m[2]) }, () => ({}));
            continue;
        }
        const list = values[member.list];
        if (!Array.isArray(list) || member.index >= list.length) {
            return { ok: false, error: `Line ${i + 1}: say first how many the list holds (“${member.list} = ${member.index + 1}” or more), then answer for each.` };
        }
        list[member.index][member.name] = parseValue(m[2] ?? '');
    }
    return { ok: true, values };
}
/** memberAnswers are the answers already read for one member. */
function memberAnswers(values, m) {
    const list = values[m.list];
    return Array.isArray(list) && m.index < list.length ? list[m.index] : {};
}
/** formatAnswers writes field_values as "field = value" lines, a household as parseAnswers reads it. */
export function formatAnswers(values) {
    if (!values || typeof values !== 'object')
        return '';
    return Object.entries(values)
        .flatMap(([k, v]) => {
        if (!Array.isArray(v) || v.some((m) => !m || typeof m !== 'object' || Array.isArray(m)))
            return [`${k} = ${formatValue(v)}`];
        return [`${k} = ${v.length}`, ...v.flatMap((m, i) => Object.entries(m).map(([n, x]) => `${k}[${i}].${n} = ${formatValue(x)}`))];
    })
        .join('\n');
}
/**
 * buildCase checks the form and makes the case. others are the project's
 * other cases (not the one being edited): a name must be unique.
 */
export function buildCase(f, others) {
    const errors = {};
    const name = f.name.trim();
    if (!name)
        errors.name = 'Give the case a name that says what it checks.';
    else if (others.some((c) => c.name === name))
        errors.name = 'Another case has this name; names must differ.';
    const answers = parseAnswers(f.answers);
    if (!answers.ok)
        errors.answers = answers.error;
    if (!outcomes.some(([v]) => v === f.expected))
        errors.expected = 'Choose the outcome this case expects.';
    const date = f.decisionDate.trim();
    if (date && !/^\d{4}-\d{2}-\d{2}$/.test(date))
        errors.decisionDate = 'Write the date as YYYY-MM-DD, or leave it empty.';
    if (Object.keys(errors).length > 0 || !answers.ok)
        return { ok: false, errors };
    const testCase = { name, field_values: answers.values, expected_outcome: f.expected };
    if (date)
        testCase.decision_date = date;
    return { ok: true, testCase };
}
/** plainOutcomes writes the outcome codes in a sentence of the API's as words ("not_eligible" as "not eligible"). */
function plainOutcomes(text) {
    return text.replace(/\b(not_eligible|eligible|undetermined)\b/g, (o) => outcomeWords(o).toLowerCase());
}
/** reasons lists why a case failed, in the API's words. */
export function reasons(r) {
    const out = r.mismatches.map(plainOutcomes);
    if (r.ignored_fields.length)
        out.push(`Answers to fields the rules do not declare were ignored: ${r.ignored_fields.join(', ')}.`);
    if (r.hint)
        out.push(r.hint);
    if (!out.length && r.expected !== r.got)
        out.push(`Expected ${outcomeWords(r.expected)}, the rules decide ${outcomeWords(r.got)}.`);
    return out;
}
