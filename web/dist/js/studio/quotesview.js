// The saved draft's quotes under the editor: each with whether it was
// found in its source, and a link to its passage there.
import { capitalise } from '../answers.js';
import { h } from '../dom.js';
import { citerId, citerWords } from './clauses.js';
import { sourceHref } from './routes.js';
/** quoteState says, in brackets, whether a quote of the saved draft was found in its source. */
function quoteState(q) {
    if (!q.project_source_id)
        return '(its source is not one of the project’s sources)';
    if (q.verified)
        return '(found in its source)';
    return q.nearest_passage ? '(not found word for word; a passage is near)' : '(not found in its source)';
}
/** QuotesList is the "Quotes" section of project projectId. */
export class QuotesList {
    projectId;
    heading = h('h3', { id: 'quotes-heading' }, 'Quotes');
    list = h('ul', { id: 'quotes', class: 'quotes' });
    section = h('section', { 'aria-labelledby': 'quotes-heading' }, this.heading, this.list);
    constructor(projectId) {
        this.projectId = projectId;
    }
    /** show lists the saved draft's quotes, each leading to its passage in its source. */
    show(d) {
        const qs = d.provenance_report.quotes;
        this.heading.textContent = qs.length ? `Quotes (${qs.length})` : 'Quotes';
        this.list.replaceChildren(...(qs.length
            ? qs.map((q) => h('li', {}, `${capitalise(citerWords(q))}: “${q.quote}” `, h('span', { class: 'quote-state' }, quoteState(q)), ' ', q.project_source_id && (q.verified || q.nearest_passage)
                ? h('a', {
                    href: sourceHref(this.projectId, q.project_source_id, { criterion: citerId(q), quote: q.quote }),
                    class: 'show-in-source',
                    'aria-label': `Show in source: ${citerWords(q)}, “${q.quote}”`,
                }, 'Show in source')
                : null))
            : [h('li', { class: 'none' }, 'The saved rules quote no source.')]));
    }
}
