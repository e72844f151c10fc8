// The decision explained: the outcome, what would need to change, each
// criterion with the answers it rests on and the verbatim law behind it,
// and the audit envelope to replay it.
import { figureText, fieldLabel, formatDate, humanize, textOfValue } from './answers.js';
import { announce, h } from './dom.js';
import { safeLink } from './links.js';
import { rowFields, rowFit } from './rows.js';
/** The outcome in words. */
export const outcomeWords = {
    eligible: 'Eligible',
    not_eligible: 'Not eligible',
    undetermined: 'Undetermined',
};
const statusWords = {
    satisfied: 'Met',
    not_satisfied: 'Not met',
    pending: 'Open',
};
const mechanismWords = {
    threshold: 'An answer is on the wrong side of a limit the law sets.',
    enum_mismatch: 'An answer is not one the law accepts here.',
    missing_answer: 'A question this condition needs has not been answered.',
    presence_default: 'An unanswered question counts against this condition.',
    discretionary: 'An official decides this; no answer settles it.',
    date_window: 'A date is outside the period the law sets.',
    any_group_exhausted: 'None of the alternatives holds.',
};
/** nobody is the Who of rules without people: every value is the household's. */
const nobody = () => undefined;
/**
 * valueTitle is a value's name on the page: its title, with the person
 * it is about beside it when it is a value of each member ("Counted as a
 * member of the household (Maria)"). The name goes beside the title, not
 * before it as in "Maria's age": a value's title need not be a noun.
 */
export function valueTitle(v, who) {
    const name = who(v.value);
    return name ? `${v.title} (${name})` : v.title;
}
/** place sorts items by rowFit of their rules text. */
function place(items, expression, known) {
    const fits = items.map((item) => rowFit(expression(item) ?? '', known));
    const several = fits.filter((f) => f === 'unknown').length > 1;
    const placed = { listed: [], open: [], other: [] };
    items.forEach((item, i) => {
        if (fits[i] === 'other')
            placed.other.push(item);
        else if (fits[i] === 'unknown' && several)
            placed.open.push(item);
        else
            placed.listed.push(item);
    });
    return placed;
}
/**
 * rowWords names what decides which rows apply, in a few words: "household
 * region and household size"; only the fields keep says (by default all).
 */
function rowWords(fields, expressions, keep = () => true) {
    const all = [...new Set(expressions.flatMap((e) => rowFields(e ?? '')))];
    const ids = all.some(keep) ? all.filter(keep) : all;
    const names = ids.map((id) => {
        const label = fields.get(id)?.label;
        return label ? label.charAt(0).toLowerCase() + label.slice(1) : humanize(id);
    });
    return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
/** leftOut says, once, that the rows about other applicants (another of the answers known) are not shown. */
function leftOut(fields, expressions, known) {
    if (!expressions.length)
        return null;
    const n = expressions.length;
    const what = rowWords(fields, expressions, (id) => known(id) !== undefined);
    return h('p', { class: 'hint rows-left-out' }, `${n === 1 ? 'One condition' : `${n} conditions`} for another ${what} ${n === 1 ? 'is' : 'are'} not shown: ${n === 1 ? 'it does' : 'they do'} not apply to your answers.`);
}
/**
 * openRows stands for the rows that cannot be placed yet, said once: the
 * limit for the applicant's household size (or whatever decides), and the
 * answers it waits for.
 */
function openRows(fields, statuses, expressions, known) {
    if (!expressions.length)
        return null;
    const st = statuses.every((x) => x === statuses[0]) ? (statuses[0] ?? 'pending') : 'pending';
    // The answers still missing decide: "your household size" once the region is known.
    const what = rowWords(fields, expressions, (id) => known(id) === undefined);
    return h('li', { class: 'criterion criterion-' + st + ' rows-open' }, h('h4', {}, badge(st), ' ', `The condition for your ${what}`), h('p', {}, st === 'satisfied'
        ? `All ${expressions.length} conditions that could apply to you are met, whatever your ${what}.`
        : `Which of these ${expressions.length} conditions applies depends on your ${what}, not answered yet.`));
}
function shortLabel(fields, id) {
    return fieldLabel(fields.get(id), id);
}
/**
 * condition shows a criterion's condition in plain language, with the rules
 * language kept for specialists behind a disclosure: never on its own on
 * an applicant's screen.
 */
export function condition(sentence, expression) {
    if (!sentence && !expression)
        return null;
    return h('div', { class: 'condition' }, sentence ? h('p', { class: 'sentence' }, 'The rule: ', sentence.charAt(0).toUpperCase() + sentence.slice(1).replace(/\.$/, ''), '.') : null, expression ? h('details', { class: 'specialists' }, h('summary', {}, 'For specialists'), h('p', {}, 'The condition in the rules language:'), h('code', {}, expression)) : null);
}
function facts(fields, list, caption) {
    if (!list.length)
        return null;
    return h('div', { class: 'facts-used' }, h('p', { class: 'caption' }, caption), h('ul', {}, ...list.map((f) => h('li', {}, `${shortLabel(fields, f.field)}: `, h('strong', {}, textOfValue(fields.get(f.field), f.value))))));
}
/**
 * figures lists the amounts the law worked out that a condition rests on
 * ("Gross monthly income limit: $7,060"), each with how it was reached:
 * the period whose figures applied, the law it rests on and, for
 * specialists, its definition in the rules language (for a table, the
 * row the amount came from).
 */
export function figures(list, caption, who = nobody) {
    if (!list?.length)
        return null;
    return h('div', { class: 'figures-used' }, h('p', { class: 'caption' }, caption), h('ul', {}, ...list.map((v) => h('li', { 'data-value': v.value }, `${valueTitle(v, who)}: `, h('strong', {}, figureText(v.figure, v.unit)), h('details', { class: 'how' }, h('summary', {}, 'How this was worked out'), v.period ? h('p', {}, `With the figures for ${periodWords(periodOf(v.period))}.`) : null, ...(v.source_references ?? []).map(quote), v.definition ? h('p', { class: 'specialists' }, 'In the rules language: ', h('code', {}, v.definition)) : null)))));
}
/** periodOf reads a period as the service words it ("2025-10-01 until 2026-09-30", "2025-01-01 onwards"). */
export function periodOf(text) {
    const [from = '', until] = text.split(' until ');
    return until ? { from, until } : { from: from.replace(/ onwards$/, '') };
}
/** quote draws a verified passage with a link that opens the source at it. */
export function quote(ref) {
    const href = safeLink(ref.deep_link) ?? safeLink(ref.url);
    const title = ref.title || ref.source || 'the source';
    return h('figure', { class: 'quote' }, h('blockquote', { cite: safeLink(ref.url) }, h('p', {}, ref.quote?.exact ?? '')), h('figcaption', {}, href ? h('a', { href, target: '_blank', rel: 'noopener noreferrer', class: 'source-link' }, title) : title, ref.licence ? h('span', { class: 'licence' }, ` · licence ${ref.licence}`) : null, ref.verified_at ? h('span', { class: 'verified' }, ` · quote verified ${ref.verified_at.slice(0, 10)}`) : null));
}
function badge(st) {
    return h('span', { class: 'badge badge-' + st }, statusWords[st] ?? st);
}
function criterion(fields, texts, c, who) {
    const text = texts.get(c.criterion_id);
    return h('li', { class: 'criterion criterion-' + c.status, 'data-criterion': c.criterion_id }, h('h4', {}, badge(c.status), ' ', c.title), condition(text?.description, text?.expression), facts(fields, c.supporting_facts, 'Your answers it rests on:'), figures(c.values, 'The amounts it rests on, as the law counts them:', who), ...(c.source_references ?? []).map(quote));
}
function reason(fields, texts, r, who) {
    return h('li', { class: 'reason', 'data-criterion': r.criterion_id }, h('h4', {}, r.title), h('p', {}, mechanismWords[r.mechanism] ?? humanize(r.mechanism)), condition(texts.get(r.criterion_id)?.description, r.condition || texts.get(r.criterion_id)?.expression), facts(fields, r.facts, 'Your answers it turns on:'), figures(r.values, 'The amounts it turns on, as the law counts them:', who), r.missing_fields.length ? h('p', {}, 'Not answered yet: ', r.missing_fields.map((f) => shortLabel(fields, f)).join(', ')) : null, ...(r.source_references ?? []).map(quote));
}
/** periodWords says a period for people: "1 October 2025 to 30 September 2026", or "1 October 2025 onwards". */
export function periodWords(p) {
    return p.until ? `${formatDate(p.from)} to ${formatDate(p.until)}` : `${formatDate(p.from)} onwards`;
}
/** outsidePeriodWarning is the service's outside_effective_period note among warnings, if any. */
export function outsidePeriodWarning(warnings) {
    return (warnings ?? []).find((w) => w.code === 'outside_effective_period');
}
/**
 * outsidePeriod says plainly that the rules do not cover the decision
 * date (YYYY-MM-DD, when known) and which period they do cover: no
 * condition stands in the way of such a decision, the date does.
 */
export function outsidePeriod(date, w) {
    const when = date ? formatDate(date) : 'the decision date';
    return h('section', { class: 'reasons outside-period', id: 'outside-period', 'aria-labelledby': 'outside-period-heading' }, h('h3', { id: 'outside-period-heading' }, 'These rules do not cover this date'), h('p', {}, w.period
        ? `These rules do not cover ${when}: they cover ${periodWords(w.period)}. No decision is given from the law of another period.`
        : `These rules do not cover ${when}. ${w.message}`), h('p', {}, 'Choose a decision date inside that period under “Decide as of”, or use the rules for the period that covers this date.'));
}
/**
 * changesSentence says how many conditions would need to change, and
 * which: explain-failure's changes_needed, not the number of reasons (the
 * alternatives of a failed `any` group are all reasons, and changing one
 * is enough); open (pending) conditions are not changes. title names a
 * criterion by id.
 */
export function changesSentence(fx, title) {
    const n = fx.changes_needed;
    if (!n)
        return 'Nothing answered so far stands in the way: the open conditions below decide.';
    const which = (fx.changes ?? []).map(title).join(', ');
    return `The fewest conditions to change for “eligible”: ${n === 1 ? 'one' : n}${which ? ` (${which})` : ''}.`;
}
/**
 * reasons draws explain-failure's minimal reasons (the conditions that
 * together stand in the way) under how many of them, or of the others,
 * would need to change. A date outside the rules' period is not a
 * condition: that is said instead (outsidePeriod).
 */
export function reasons(fields, texts, fx, date, known = () => undefined, who = nobody) {
    const outside = outsidePeriodWarning(fx.warnings);
    if (outside)
        return outsidePeriod(date, outside);
    const list = Object.values(fx.reasons);
    const title = (id) => fx.reasons[id]?.title ?? texts.get(id)?.title ?? humanize(id);
    // Rows of a table not placed yet stand in the way as one: the limit for
    // the applicant's household size, once the size is known.
    const expression = (r) => r.condition || texts.get(r.criterion_id)?.expression;
    const rows = place(list, expression, known);
    return h('section', { class: 'reasons', 'aria-labelledby': 'reasons-heading' }, h('h3', { id: 'reasons-heading' }, 'What would need to change'), list.length ? h('p', {}, changesSentence(fx, title)) : h('p', {}, 'No single condition stands in the way.'), h('ul', { class: 'reason-list' }, ...rows.listed.map((r) => reason(fields, texts, r, who)), openRows(fields, rows.open.map((r) => r.status), rows.open.map(expression), known)));
}
/**
 * explanation draws every group and criterion with its status, answers
 * and law; of a table of limits (one condition per household size, say)
 * only the rows that apply to the known answers, the others counted in one
 * line, and the rows that cannot be placed yet as one condition (see
 * rows.ts).
 */
export function explanation(fields, texts, d, known = () => undefined, who = nobody) {
    if (!d.explanation)
        return null;
    const expression = (c) => texts.get(c.criterion_id)?.expression;
    return h('section', { class: 'explanation', 'aria-labelledby': 'explanation-heading' }, h('h3', { id: 'explanation-heading' }, 'Each condition, with the law'), ...d.explanation.groups.map((g) => {
        const rows = place(g.criteria, expression, known);
        return h('section', { class: 'group group-' + g.status, 'data-group': g.group }, h('h4', { class: 'group-title' }, badge(g.status), ' ', g.title || humanize(g.group), g.kind === 'any' ? ' (any one is enough)' : ''), h('ul', { class: 'criteria' }, ...rows.listed.map((c) => criterion(fields, texts, c, who)), openRows(fields, rows.open.map((c) => c.status), rows.open.map(expression), known)), leftOut(fields, rows.other.map(expression), known));
    }));
}
/**
 * computedValues shows what the law worked out on the way to the decision
 * (its output values): "Net monthly income, as the law counts it: $596.32".
 */
export function computedValues(d) {
    const list = d.values ?? [];
    if (!list.length)
        return null;
    return h('section', { class: 'computed', 'aria-labelledby': 'computed-heading' }, h('h3', { id: 'computed-heading' }, 'What the law worked out'), h('ul', {}, ...list.map((v) => h('li', { 'data-value': v.value }, `${v.title}, as the law counts it: `, h('strong', {}, figureText(v.figure, v.unit))))));
}
/** sectionResults shows a rulebook decision's parts: each section's own outcome, by its name. */
export function sectionResults(d, names) {
    const list = d.section_results ?? [];
    if (!list.length)
        return null;
    return h('section', { class: 'sections', 'aria-labelledby': 'sections-heading' }, h('h3', { id: 'sections-heading' }, 'Each part of the decision'), h('ul', {}, ...list.map((s) => h('li', { 'data-section': s.section_id }, `${s.letter}. ${names.get(s.section_id) ?? humanize(s.section_id)}: `, h('strong', { class: 'outcome outcome-' + s.decision }, outcomeWords[s.decision])))));
}
/** envelopeBox shows the audit envelope with a button that copies it. */
export function envelopeBox(text) {
    const pre = h('pre', { id: 'envelope', tabindex: '0', 'aria-label': 'Audit envelope (JSON)' }, text);
    const copy = h('button', { type: 'button', class: 'secondary' }, 'Copy the audit envelope');
    copy.addEventListener('click', () => {
        void navigator.clipboard.writeText(text).then(() => announce('Audit envelope copied.'), () => {
            const sel = window.getSelection();
            const range = document.createRange();
            range.selectNodeContents(pre);
            sel?.removeAllRanges();
            sel?.addRange(range);
            announce('Copying is not allowed here; the envelope is selected, copy it with your keyboard.');
        });
    });
    return h('section', { class: 'envelope', 'aria-labelledby': 'envelope-heading' }, h('h3', { id: 'envelope-heading' }, 'Audit envelope'), h('p', {}, 'To replay this decision, send the request below to /decide again and compare inputs_hash, content_digest, engine_version and the decision. decision_id and decision_time differ on every call.'), pre, copy);
}
