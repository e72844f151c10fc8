// The review: every check the API runs over the project (compiles, tests
// per section and passing, criteria tested both ways, thresholds at their
// boundary, citations, coverage, polarity, ...), each with its status, its
// evidence and why it matters, and a link to the studio screen where it is
// fixed. The review is advisory: it never blocks publishing.
import { h } from '../dom.js';
import { screenFor, screenTitles, studioHref } from './routes.js';
import { alertBox, busy, errorMessage } from './ui.js';
/** statusWords says a check's status for people. */
export function statusWords(status) {
    return { pass: 'Passed', warn: 'Warning', fail: 'Failed', info: 'For information', skip: 'Not run', error: 'Could not run' }[status] ?? status;
}
/** reviewView draws the review screen of project into container. */
export async function reviewView(client, projectId, container) {
    const score = h('p', { id: 'review-score', class: 'count', tabindex: '-1' }, 'Reviewing the project…');
    const alert = alertBox('review-error');
    const list = h('ul', { id: 'checks', class: 'checks' });
    const next = h('div', { id: 'next-skill' });
    const again = h('button', { type: 'button', id: 'run-review' }, 'Review again');
    const checkItem = (c) => {
        const screen = screenFor(c.actionable_via);
        return h('li', { class: 'card check status-' + c.status, id: 'check-' + c.id }, h('h3', {}, c.title, ' ', h('span', { class: 'badge badge-' + c.status }, statusWords(c.status))), c.evidence.length ? h('ul', { class: 'evidence', 'aria-label': 'Evidence' }, ...c.evidence.map((e) => h('li', {}, e))) : null, c.incomplete ? h('p', { class: 'notice' }, c.incomplete) : null, h('p', { class: 'why' }, h('strong', {}, 'Why it matters: '), c.why), screen && ['fail', 'warn', 'error'].includes(c.status)
            ? h('p', {}, h('a', { href: studioHref({ kind: 'project', projectId, screen }), class: 'fix' }, `Fix this on the ${screenTitles[screen]} screen`))
            : null);
    };
    const run = async () => {
        alert.clear();
        try {
            const report = await client.call('POST', `/projects/${encodeURIComponent(projectId)}/review`, {});
            score.textContent =
                report.score === null
                    ? 'No scored check applies yet.'
                    : `Score ${report.score} out of 100${report.data_completeness === 'thin' ? ', with few tests so far' : ''}.`;
            const hint = report.next_skill;
            const hintScreen = hint ? screenFor(hint.actionable_via) : null;
            next.replaceChildren(...(hint
                ? [
                    h('h3', {}, 'Next step'),
                    h('p', {}, hint.message, ' ', hintScreen ? h('a', { href: studioHref({ kind: 'project', projectId, screen: hintScreen }) }, `Go to ${screenTitles[hintScreen]}`) : null),
                ]
                : []));
            list.replaceChildren(...report.checks.map(checkItem));
        }
        catch (err) {
            score.textContent = 'The review could not be run.';
            alert.show(errorMessage(err));
        }
    };
    again.addEventListener('click', () => void busy(again, run));
    container.append(h('h2', { tabindex: '-1' }, 'Review'), h('p', { class: 'hint' }, 'Advice on the rules and their tests; it never stops you publishing.'), h('div', { class: 'buttons' }, again), score, alert.el, next, h('h3', {}, 'Checks'), list);
    await run();
}
