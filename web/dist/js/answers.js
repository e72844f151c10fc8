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
/** capitalise writes text with a capital first letter, for a label standing alone. */
export function capitalise(text) {
    return text.charAt(0).toUpperCase() + text.slice(1);
}
/**
 * fieldLabel is the short name a field goes by in summaries (the answers
 * so far, the answers a condition rests on, the what-if): the ruleset's
 * label, else its question, else a readable form of its id ("Hours 12
 * months"), never the id itself.
 */
export function fieldLabel(field, fieldId = field?.field_id ?? '') {
    return field?.label || field?.question || capitalise(shortLabel(fieldId));
}
/**
 * questionText is the words a field is asked with: its question, else its
 * label, else its description, else a readable form of its id.
 */
export function questionText(field) {
    return field.question || field.label || field.description || capitalise(shortLabel(field.field_id));
}
/** choiceLabel is how an enum value reads to people: the ruleset's value label, else the value in words. */
export function choiceLabel(field, value) {
    return field?.value_labels?.[value] || capitalise(humanize(value));
}
/** unitFor is what a number field counts: the ruleset's unit, else the one its id names (see unitOf). */
export function unitFor(field) {
    return field.unit || unitOf(field.field_id);
}
// 1970-01-01 as a day number counted from 0001-01-01 (which is day 1).
const unixEpochOrdinal = 719163;
const dayMs = 86_400_000;
const monthNames = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
/** ordinalToISO turns a day number (0001-01-01 is day 1), as the API may carry a date, into YYYY-MM-DD. */
export function ordinalToISO(n) {
    return new Date((n - unixEpochOrdinal) * dayMs).toISOString().slice(0, 10);
}
/**
 * formatDate writes a YYYY-MM-DD date for people, the same in every
 * browser: "21 April 1990". Text that is no such date is returned as it is.
 */
export function formatDate(iso) {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso.trim());
    if (!m)
        return iso;
    const month = monthNames[Number(m[2]) - 1];
    return month ? `${Number(m[3])} ${month} ${Number(m[1])}` : iso;
}
/**
 * inputFor chooses the input for a field: an enum as choices by their
 * labels, a bool as yes/no, a date as a date input, a number with its
 * unit (the ruleset's, else the one its id names), and any
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
            spec.choices = (field.enum_values ?? []).map((value) => ({ value, label: choiceLabel(field, value) }));
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
            spec.hint = 'A date: day, month and year.';
            return spec;
        case 'int':
        case 'decimal': {
            spec.kind = 'number';
            spec.unit = unitFor(field);
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
// rate. A field whose ruleset declares no unit gets the one its name
// states (job.gross_annual_salary_eur, hours_12_months).
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
 * knownValues reads the answers the API took (those it refused with a
 * field error are not known) as values by field id: undefined for a field
 * not answered.
 */
export function knownValues(answers, fieldErrors) {
    const refused = new Set(fieldErrors.map((e) => e.field));
    return (fieldId) => {
        const a = answers.get(fieldId);
        return a && !refused.has(fieldId) ? JSON.parse(a.json) : undefined;
    };
}
/**
 * objectText writes a JSON object from members whose values are already
 * JSON text, so exact numbers are never re-read as floats.
 */
export function objectText(members) {
    return '{' + members.map(([k, v]) => JSON.stringify(k) + ':' + v).join(',') + '}';
}
/**
 * memberOf reads a member field's id, "member[1].age", as its list, the
 * member's index and the answer's name within the member; null for any
 * other id. A list's own id is the only field id without a dot.
 */
export function memberOf(fieldId) {
    const m = /^([^.[\]]+)\[(\d+)\]\.(.+)$/.exec(fieldId);
    return m ? { list: m[1] ?? '', index: Number(m[2]), name: m[3] ?? '' } : null;
}
/**
 * fieldValuesText is the field_values object of the answers. The answer
 * to how many members a list has, and the answers about each member, are
 * sent as the API reads a household: the list's id holding one object per
 * member, each with that member's answers by name (an answer about a
 * member beyond the list's length is left out).
 */
export function fieldValuesText(answers) {
    const members = [];
    const lists = new Map();
    for (const [id, a] of answers) {
        if (!id.includes('.') && /^\d+$/.test(a.json)) {
            lists.set(id, Array.from({ length: Number(a.json) }, () => []));
        }
    }
    for (const [id, a] of answers) {
        const m = memberOf(id);
        if (m) {
            lists.get(m.list)?.[m.index]?.push([m.name, a.json]);
        }
        else {
            members.push([id, a.json]);
        }
    }
    return objectText(members.map(([k, v]) => (lists.has(k) ? [k, '[' + lists.get(k).map(objectText).join(',') + ']'] : [k, v])));
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
/**
 * decideTarget is what /decide is asked about for an interview the route
 * names as route, showing the cut (or rulebook) shownId: a ruleset named by
 * slug is decided by its slug, so that the service answers with the cut in
 * force on the decision date (last year's rules for last year's
 * application); a concrete ruleset id pins its cut, and a rulebook is
 * decided by its id.
 */
export function decideTarget(route, shownId) {
    if (route.kind === 'ruleset' && !route.id.includes(':'))
        return route;
    return { kind: route.kind, id: shownId };
}
/** targetMember is the member of a /decide body that names what to decide on: ruleset_id or rulebook_id. */
export function targetMember(target) {
    return [target.kind === 'rulebook' ? 'rulebook_id' : 'ruleset_id', JSON.stringify(target.id)];
}
/**
 * decideBody writes a /decide request body about target; decisionDate
 * (YYYY-MM-DD), when given, is the date the rules are applied as of.
 */
export function decideBody(target, answers, declined, flags = {}, decisionDate = '') {
    const members = [targetMember(target), ['field_values', fieldValuesText(answers)]];
    const ic = inquiryContext(declined);
    if (ic) {
        members.push(['inquiry_context', JSON.stringify(ic)]);
    }
    if (decisionDate) {
        members.push(['decision_date', JSON.stringify(decisionDate)]);
    }
    for (const [k, v] of Object.entries(flags)) {
        if (v)
            members.push([k, 'true']);
    }
    return objectText(members);
}
/**
 * acceptedAnswers counts the answers the API took: an answer it refused
 * with a field error is given but not yet answered.
 */
export function acceptedAnswers(answers, fieldErrors) {
    const refused = new Set(fieldErrors.map((e) => e.field));
    let n = 0;
    for (const id of answers.keys()) {
        if (!refused.has(id))
            n++;
    }
    return n;
}
/**
 * progress measures the interview against optimal_path: the questions
 * answered so far plus those the cheapest way to a decision still needs.
 * The total can move as answers open or close ways: when the answer just
 * given (answered grew since before) leaves more questions than before,
 * the sentence says that answer ruled out a shorter way, so that the
 * count going up reads as what happened rather than as going backwards.
 */
export function progress(answered, optimalPath, settled, before) {
    const remaining = settled ? 0 : optimalPath.length;
    const total = answered + remaining;
    let text;
    if (settled) {
        text = `Decided after ${answered} ${answered === 1 ? 'answer' : 'answers'}.`;
    }
    else if (remaining === 0) {
        text = `${answered} answered; no further question can settle the outcome.`;
    }
    else if (before && answered > before.answered && remaining > before.total - before.answered) {
        text = `${answered} answered; that answer ruled out a shorter way, so a decision now needs ${remaining} more.`;
    }
    else {
        text = `${answered} answered; the shortest way to a decision needs ${remaining} more.`;
    }
    return { answered, total, text };
}
/**
 * textOfValue shows a wire value in the applicant's words: yes or no, a
 * choice by its label, a number with its unit, a date as a date (a day
 * number the API carries included), never an id or a day count.
 */
export function textOfValue(field, value) {
    if (typeof value === 'boolean') {
        return value ? 'Yes' : 'No';
    }
    if (field?.field_type === 'enum' && typeof value === 'string') {
        return choiceLabel(field, value);
    }
    if (field?.field_type === 'date') {
        if (typeof value === 'number' && Number.isInteger(value) && value >= 1)
            return formatDate(ordinalToISO(value));
        if (typeof value === 'string')
            return /^\d+$/.test(value.trim()) ? formatDate(ordinalToISO(Number(value))) : formatDate(value);
    }
    const numeric = field?.field_type === 'int' || field?.field_type === 'decimal';
    if (numeric && field && (typeof value === 'number' || typeof value === 'string')) {
        return amountText(groupThousands(String(value)), unitFor(field));
    }
    return String(value);
}
// The currencies written with a sign before the amount; other currency
// codes are written before it ("CHF 1,200").
const currencySigns = { USD: '$', GBP: '£', EUR: '€' };
// Rates as people write them after an amount: "$2,345 a month".
const rateWords = {
    'per year': 'a year', 'per month': 'a month', 'per week': 'a week', 'per day': 'a day',
    yearly: 'a year', monthly: 'a month', weekly: 'a week', daily: 'a day', annually: 'a year', 'per annum': 'a year',
};
/** isCurrency reports whether a unit names a currency ("USD", "usd a month"). */
export function isCurrency(unit) {
    return Object.values(currencies).includes((unit.split(' ')[0] ?? '').toUpperCase());
}
/**
 * amountText writes a figure (already grouped in thousands) with its unit
 * as people write it, the way the plain sentences do (withUnit in
 * engine/present): money with its sign or code in front and its rate after
 * ("$30,000 a year", "CHF 1,200"), anything else counted after the figure
 * ("1,300 hours"); the figure alone when there is no unit.
 */
export function amountText(figure, unit) {
    if (!unit)
        return figure;
    const [code = '', ...restWords] = unit.split(' ');
    const upper = code.toUpperCase();
    if (!isCurrency(unit))
        return `${figure} ${unit}`;
    const rest = restWords.join(' ');
    const rate = rateWords[rest.toLowerCase()] ?? rest;
    const sign = currencySigns[upper];
    const amount = sign ? (figure.startsWith('-') ? `-${sign}${figure.slice(1)}` : `${sign}${figure}`) : `${upper} ${figure}`;
    return rate ? `${amount} ${rate}` : amount;
}
/**
 * groupThousands writes a plain decimal figure with commas between its
 * thousands, exactly (no rounding through floating point): "30000" reads
 * "30,000", "-1250.75" "-1,250.75". Anything else is returned as it is.
 */
export function groupThousands(figure) {
    const m = /^(-?)(\d+)(\.\d+)?$/.exec(figure.trim());
    if (!m)
        return figure;
    const [, sign = '', whole = '', fraction = ''] = m;
    return sign + whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',') + fraction;
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
/**
 * figureText writes a computed figure as people read it: an amount with its
 * currency and separators, yes or no, a date, or "not known yet" when the
 * answers do not settle it.
 */
export function figureText(figure, unit) {
    switch (typeof figure) {
        case 'number': {
            // Money with cents shows both digits of them: $1,187.40.
            const digits = isCurrency(unit ?? '') && !Number.isInteger(figure) ? figure.toFixed(2) : String(figure);
            return amountText(groupThousands(digits), unit ?? '');
        }
        case 'boolean':
            return figure ? 'yes' : 'no';
        case 'string':
            return formatDate(figure);
    }
    return 'not known yet';
}
