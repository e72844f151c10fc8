// The Generate screen's progress panel while a generation runs: the stage
// line is the live region, changed only when the stage does, so a screen
// reader hears each stage once; the facts beside it (round, tests, tokens,
// time) change at every poll, and the time every second between polls.
import { h } from '../dom.js';
import { announcement, progressFacts } from './generation.js';
/** progressPanel builds the panel; its clock stops once container leaves the page. */
export function progressPanel(container) {
    const stageLine = h('p', { id: 'gen-stage', role: 'status', 'aria-live': 'polite', class: 'draft-status' });
    const fact = (id, label) => {
        const dd = h('dd', { id });
        return [h('div', {}, h('dt', {}, label), dd), dd];
    };
    const [roundRow, roundEl] = fact('gen-round', 'Round');
    const [testsRow, testsEl] = fact('gen-tests', 'Tests');
    const [tokensRow, tokensEl] = fact('gen-tokens', 'Tokens used');
    const [elapsedRow, elapsedEl] = fact('gen-elapsed', 'Time');
    const cancelButton = h('button', { type: 'button', id: 'cancel-generation', class: 'danger' }, 'Cancel the generation');
    const el = h('section', { id: 'gen-progress', class: 'card', 'aria-labelledby': 'gen-progress-heading', hidden: true }, h('h3', { id: 'gen-progress-heading', tabindex: '-1' }, 'Generation in progress'), stageLine, h('dl', { class: 'facts' }, roundRow, testsRow, tokensRow, elapsedRow), h('div', { class: 'buttons' }, cancelButton));
    let last = null;
    let ticker;
    return {
        el,
        cancelButton,
        get last() {
            return last;
        },
        draw(st) {
            const said = announcement(last, st);
            if (said)
                stageLine.textContent = said;
            last = st;
            const f = progressFacts(st, Date.now());
            roundEl.textContent = f.round;
            testsEl.textContent = f.tests;
            tokensEl.textContent = f.tokens;
            elapsedEl.textContent = f.elapsed;
            if (ticker === undefined) {
                ticker = window.setInterval(() => {
                    if (!container.isConnected || !last) {
                        window.clearInterval(ticker);
                        return;
                    }
                    elapsedEl.textContent = progressFacts(last, Date.now()).elapsed;
                }, 1000);
            }
        },
        reset(text) {
            last = null;
            if (text !== undefined)
                stageLine.textContent = text;
        },
        show(on) {
            el.hidden = !on;
            if (!on && ticker !== undefined) {
                window.clearInterval(ticker);
                ticker = undefined;
            }
        },
    };
}
