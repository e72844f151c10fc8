// The input drawn for one field: choices, yes/no, a date, a number with its
// unit, or plain text; each labelled by the question, described by its hint
// and, when the API refused the answer, by the error next to it.
import { inputFor, questionText } from './answers.js';
import { h, idFor } from './dom.js';
/** labelOf is the words a field is asked with (see questionText): never its id. */
export function labelOf(field) {
    return questionText(field);
}
/**
 * control draws the input for field. prefix keeps ids unique when two
 * inputs are on the page (the interview's and the what-if's); labelText is
 * the question (or a shorter label); value fills it in; error, when set, is
 * shown under the input and marks it invalid.
 */
export function control(field, prefix, labelText, value, error) {
    const spec = inputFor(field);
    const base = idFor(prefix, field.field_id);
    const hintId = base + '-hint';
    const errorId = base + '-error';
    const hint = h('p', { id: hintId, class: 'hint' }, spec.hint);
    const err = error ? h('p', { id: errorId, class: 'field-error', role: 'alert' }, h('strong', {}, 'Check this answer: '), error) : null;
    const describedBy = [hintId, err ? errorId : ''].filter(Boolean).join(' ');
    const extra = field.description && field.description !== labelText ? h('p', { class: 'description' }, field.description) : null;
    if (spec.kind === 'choice' || spec.kind === 'yesno') {
        const radios = spec.choices.map((c, i) => h('input', {
            type: 'radio',
            name: base,
            id: `${base}-${i}`,
            value: c.value,
            checked: c.value === value,
            'aria-describedby': describedBy,
            'aria-invalid': err ? 'true' : undefined,
        }));
        const node = h('fieldset', { class: 'control choices' + (err ? ' invalid' : '') }, h('legend', { class: 'question' }, labelText), extra, hint, err, ...spec.choices.map((c, i) => h('div', { class: 'choice' }, radios[i] ?? null, h('label', { for: `${base}-${i}` }, c.label))));
        return {
            node,
            read: () => radios.find((r) => r.checked)?.value ?? '',
            focus: () => (radios.find((r) => r.checked) ?? radios[0])?.focus(),
        };
    }
    // A date gets the browser's date input: its value is always YYYY-MM-DD
    // (or empty), whatever the reader's locale shows.
    const input = h('input', {
        type: spec.kind === 'date' ? 'date' : 'text',
        id: base,
        name: base,
        value,
        inputmode: spec.kind === 'date' ? undefined : spec.inputMode,
        autocomplete: 'off',
        spellcheck: 'false',
        class: spec.kind === 'text' ? 'wide' : 'narrow',
        'aria-describedby': describedBy,
        'aria-invalid': err ? 'true' : undefined,
    });
    // The unit beside the input; the hint says it to a screen reader.
    const unit = spec.unit ? h('span', { class: 'unit', id: base + '-unit', 'aria-hidden': 'true' }, spec.unit) : null;
    const node = h('div', { class: 'control' + (err ? ' invalid' : '') }, h('label', { for: base, class: 'question' }, labelText), extra, hint, err, h('div', { class: 'row' }, input, unit));
    return { node, read: () => input.value, focus: () => input.focus() };
}
