// The console's own logic about answers, free of the DOM so that it is
// unit-tested on its own: which input a field gets, the unit a number is
// counted in, how typed text becomes the JSON value /decide reads, and how
// the request bodies are written.
/** humanize turns an identifier into words: "public_agency" -> "public agency". */
export function humanize(id) {
    return id.replace(/[_.]+/g, ' ').trim();
}
/**
 * shortLabel names a field in a few words, from its id without the group:
 * "employment.hours_12_months" -> "hours 12 months", as the graph does.
 */
export function shortLabel(fieldId) {
    return humanize(fieldId.slice(fieldId.indexOf('.') + 1));
}
/**
 * inputFor chooses the input for a field: an enum as choices, a bool as
 * yes/no, a date as a date text input, a number with its unit, and any
 * field marked x_ui_widget free_text as plain text. Whatever the input, the
 * answer is sent in the field's type (see encodeAnswer).
 */
export function inputFor(field) {
    const spec = { kind: 'text', choices: [], unit: '', hint: '', inputMode: 'text' };
    if (field.x_ui_widget === 'free_text') {
        spec.hint = 'Type your answer.';
        return spec;
    }
    switch (field.field_type) {
        case 'enum':
            spec.kind = 'choice';
            spec.choices = (field.enum_values ?? []).map((value) => ({ value, label: humanize(value) }));
            spec.hint = 'Choose one.';
            return spec;
        case 'bool':
            spec.kind = 'yesno';
            spec.choices = [
                { value: 'yes', label: 'Yes' },
                { value: 'no', label: 'No' },
            ];
            spec.hint = 'Choose yes or no.';
            return spec;
        case 'date':
            spec.kind = 'date';
            spec.inputMode = 'numeric';
            spec.hint = 'A date as year-month-day, for example 1990-04-21 (or a day number counted from 0001-01-01).';
            return spec;
        case 'int':
        case 'decimal': {
            spec.kind = 'number';
            spec.unit = unitOf(field.field_id);
            const whole = field.field_type === 'int';
            spec.inputMode = whole ? 'numeric' : 'decimal';
            const form = whole ? 'A whole number' : 'A number (decimals allowed, with a point: 1250.5)';
            spec.hint = spec.unit ? `${form}, in ${spec.unit}.` : `${form}.`;
            return spec;
        }
    }
    return spec;
}
// Words of a field id that name what a number counts, a currency, or a
// rate. The rules language declares no unit, so the console reads the one
// the field's name states (job.gross_annual_salary_eur, hours_12_months).
const countUnits = {
    hours: 'hours', days: 'days', weeks: 'weeks', workweeks: 'weeks', months: 'months', years: 'years',
    miles: 'miles', km: 'km', employees: 'people', people: 'people', persons: 'people', members: 'people',
};
const currencies = {
    eur: 'EUR', usd: 'USD', gbp: 'GBP', aud: 'AUD', cad: 'CAD', nzd: 'NZD', chf: 'CHF',
};
const rates = {
    monthly: 'per month', annual: 'per year', yearly: 'per year', weekly: 'per week', daily: 'per day',
};
/**
 * unitOf reads the unit a number field is counted in from its id: the first
 * count word of the name (hours, months, employees...) or a currency code,
 * followed by a rate (monthly, annual...). "" when the id names none.
 */
export function unitOf(fieldId) {
    const name = fieldId.slice(fieldId.indexOf('.') + 1);
    const words = name.toLowerCase().split('_');
    let base = '';
    let rate = '';
    for (const w of words) {
        if (!base && (countUnits[w] || currencies[w])) {
            base = countUnits[w] ?? currencies[w] ?? '';
        }
        if (!rate && rates[w]) {
            rate = rates[w] ?? '';
        }
    }
    return [base, rate].filter(Boolean).join(' ');
}
const jsonNumber = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
/**
 * encodeAnswer turns what the applicant entered into the JSON text of the
 * value sent for the field. Numbers are sent exactly as typed (never
 * through a binary float, since a decimal field is exact); a date is sent
 * as its text, or as an integer ordinal when it is all digits; yes/no as
 * true/false. Text the field's type cannot take is sent as a string so that
 * the API names the problem in field_errors, next to the answer. Returns
 * null for an empty answer.
 */
export function encodeAnswer(field, text) {
    const t = text.trim();
    if (t === '') {
        return null;
    }
    switch (field.field_type) {
        case 'int':
        case 'decimal':
            return jsonNumber.test(t) ? t : JSON.stringify(t);
        case 'bool':
            if (t === 'yes' || t === 'true')
                return 'true';
            if (t === 'no' || t === 'false')
                return 'false';
            return JSON.stringify(t);
        case 'date':
            return /^\d+$/.test(t) ? String(Number(t)) : JSON.stringify(t);
    }
    return JSON.stringify(t);
}
/**
 * objectText writes a JSON object from members whose values are already
 * JSON text, so exact numbers are never re-read as floats.
 */
export function objectText(members) {
    return '{' + members.map(([k, v]) => JSON.stringify(k) + ':' + v).join(',') + '}';
}
/** fieldValuesText is the field_values object of the answers. */
export function fieldValuesText(answers) {
    return objectText([...answers].map(([id, a]) => [id, a.json]));
}
/**
 * inquiryContext is the inquiry_context for the skipped questions, or
 * undefined when none were skipped (so that the request, and the decision
 * cache identity, stay the plain one).
 */
export function inquiryContext(declined) {
    const ids = [...new Set(declined)].sort();
    return ids.length ? { declined_fields: ids } : undefined;
}
/** decideBody writes a /decide request body. */
export function decideBody(rulesetId, answers, declined, flags = {}) {
    const members = [
        ['ruleset_id', JSON.stringify(rulesetId)],
        ['field_values', fieldValuesText(answers)],
    ];
    const ic = inquiryContext(declined);
    if (ic) {
        members.push(['inquiry_context', JSON.stringify(ic)]);
    }
    for (const [k, v] of Object.entries(flags)) {
        if (v)
            members.push([k, 'true']);
    }
    return objectText(members);
}
/**
 * progress measures the interview against optimal_path: the questions
 * answered so far plus those the cheapest way to a decision still needs.
 * The total can move as answers open or close ways.
 */
export function progress(answered, optimalPath, settled) {
    const remaining = settled ? 0 : optimalPath.length;
    const total = answered + remaining;
    let text;
    if (settled) {
        text = `Decided after ${answered} ${answered === 1 ? 'answer' : 'answers'}.`;
    }
    else if (remaining === 0) {
        text = `${answered} answered; no further question can settle the outcome.`;
    }
    else {
        text = `${answered} answered; the shortest way to a decision needs ${remaining} more.`;
    }
    return { answered, total, text };
}
/** textOfValue shows a wire value the way the applicant would write it. */
export function textOfValue(field, value) {
    if (typeof value === 'boolean') {
        return value ? 'Yes' : 'No';
    }
    if (field?.field_type === 'enum' && typeof value === 'string') {
        return humanize(value);
    }
    const numeric = field?.field_type === 'int' || field?.field_type === 'decimal';
    if (numeric && field && (typeof value === 'number' || typeof value === 'string')) {
        const unit = unitOf(field.field_id);
        return unit ? `${String(value)} ${unit}` : String(value);
    }
    return String(value);
}
/** answerText shows an answer: a choice by its words, anything else as typed, numbers with their unit. */
export function answerText(field, a) {
    if (field.field_type === 'bool' || field.field_type === 'enum') {
        return textOfValue(field, JSON.parse(a.json));
    }
    return textOfValue(field, a.text.trim());
}
/** The text of a field's notes by kind, their "WHY:" prefixes removed. */
export function notesOf(field) {
    const why = [];
    const legal = [];
    for (const n of field.notes ?? []) {
        const kind = n.metadata?.type;
        if (kind === 'why' || /^WHY:/i.test(n.note_text)) {
            why.push(n.note_text.replace(/^WHY:\s*/i, ''));
        }
        else if (kind === 'legal_background' || /^LEGAL BACKGROUND:/i.test(n.note_text)) {
            legal.push(n.note_text.replace(/^LEGAL BACKGROUND:\s*/i, ''));
        }
    }
    return { why, legal };
}
