// What the source view shows of a source's text: each page cut into its
// clauses and the text between them, each clause marked by what in the
// rules cites it, in words as well as in colour. The API places clauses
// by UTF-8 byte offsets into their page's text (GET .../sources/{id}/text);
// the page is cut on its bytes, so a clause with accents or symbols lands
// exactly where the API put it.
import { capitalise } from '../answers.js';
import { plural } from './ui.js';
/**
 * pageSegments cuts a page's text into its clauses (those of clauses on
 * page, in text order) and the text around them. A clause whose offsets
 * fall outside the page, or overlap the one before, is shown as plain
 * text rather than lost.
 */
export function pageSegments(pageText, page, clauses) {
    const bytes = new TextEncoder().encode(pageText);
    const decode = (from, to) => new TextDecoder().decode(bytes.subarray(from, to));
    const out = [];
    let at = 0;
    for (const c of clauses) {
        if (c.page !== page || c.start < at || c.end > bytes.length || c.end <= c.start)
            continue;
        if (c.start > at)
            out.push({ text: decode(at, c.start), clause: null });
        out.push({ text: decode(c.start, c.end), clause: c });
        at = c.end;
    }
    if (at < bytes.length || out.length === 0)
        out.push({ text: decode(at, bytes.length), clause: null });
    return out;
}
/** clauseState says how a clause stands. */
export function clauseState(c) {
    if (c.cited_by.some((x) => x.verified))
        return 'cited';
    if (c.cited_by.length)
        return 'near';
    return c.counted ? 'uncited' : 'heading';
}
/**
 * isTitle says whether the API marks a clause as a heading line (a short
 * line without a sentence, a numbered section title), shown as a heading;
 * read loosely, as the generated client types may predate the member.
 */
export function isTitle(c) {
    return c.heading === true;
}
/** stateWords names a clause's state, as the mark beside it says it. */
export const stateWords = {
    cited: 'Cited',
    near: 'Nearest passage of a quote',
    uncited: 'Not cited',
    heading: 'Heading',
};
/** citerId is the id of what cites a quote: the criterion's, or the named value's or table's. */
export function citerId(c) {
    return c.value_id || c.criterion_id;
}
/** citerWords names what cites a quote as a sentence does: "criterion hours", "the figure net_income". */
export function citerWords(c) {
    return c.value_id ? `the figure ${c.value_id}` : `criterion ${c.criterion_id}`;
}
/** citationWords says one citation in a sentence: what cites, which quote, found or not. */
export function citationWords(c) {
    return `${capitalise(citerWords(c))} quotes “${c.quote}”` + (c.verified ? ', found word for word.' : ', not found word for word: this is the nearest passage.');
}
/**
 * citedAsWords says how the rules name the source: the id each citation
 * of it declares (“fpg_2025”), the name an analyst finds in the rules'
 * cite lines; empty when nothing cites it.
 */
export function citedAsWords(st) {
    const ids = new Set([...st.clauses.flatMap((c) => c.cited_by.map((x) => x.source_id)), ...st.unplaced_quotes.map((x) => x.source_id)]);
    const list = [...ids].sort();
    if (list.length === 0)
        return '';
    const names = list.length === 1 ? list[0] : `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`;
    return `The rules cite it as ${names}.`;
}
/** coverageWords sums a source up: how many of its clauses the rules cite. */
export function coverageWords(st) {
    const { clauses, cited_clauses: cited } = st.coverage;
    if (clauses === 0)
        return 'The text has no clauses to cite.';
    const share = `${cited} of ${plural(clauses, 'clause')} cited by the rules (${Math.round((cited / clauses) * 100)}%)`;
    if (st.draft === 'none')
        return `${share}: the project has no rules yet.`;
    if (st.draft === 'invalid')
        return `${share}: the rules do not compile, so their quotes cannot be checked.`;
    const uncited = clauses - cited;
    return uncited ? `${share}; ${plural(uncited, 'clause is', 'clauses are')} not cited.` : `${share}.`;
}
/**
 * findPassage finds the clause that criterion's quote rests on: the first
 * whose citations hold that criterion and quote. Its index in clauses, or
 * -1 when no clause has it.
 */
export function findPassage(clauses, criterion, quote) {
    return clauses.findIndex((c) => c.cited_by.some((x) => citerId(x) === criterion && x.quote === quote));
}
/** citationKey names a clause's citations as a whole, in any order, to tell whether two clauses are cited alike. */
function citationKey(c) {
    return JSON.stringify(c.cited_by.map((x) => [citerId(x), x.quote, x.verified]).sort());
}
/**
 * marksHeldOver says, for each of a page's segments, whether its clause's
 * mark is left to the next clause: one quote across a paragraph split at
 * its semicolons or enumerators cites every piece alike, and saying "Cited
 * by …" once, after the last of them, reads better than once a piece. A
 * clause holds its mark over when the next clause is of the same paragraph
 * (no blank line between them) and cited by exactly the same citations;
 * uncited clauses are each marked.
 */
export function marksHeldOver(segments) {
    return segments.map((seg, i) => {
        if (!seg.clause?.cited_by.length)
            return false;
        let between = '';
        let j = i + 1;
        for (; j < segments.length && !segments[j].clause; j++)
            between += segments[j].text;
        const next = segments[j]?.clause;
        return !!next && !/\n[ \t\r]*\n/.test(between) && citationKey(next) === citationKey(seg.clause);
    });
}
/** criteriaOf lists the criteria citing a clause, each once, in order. */
export function criteriaOf(c) {
    return [...new Set(c.cited_by.map(citerId))];
}
