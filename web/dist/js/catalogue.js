// The catalogue: the public rulesets, searchable, each with its name,
// description, rule count and version, and a way into its interview.
import { listRulesets } from './api.js';
import { announce, h } from './dom.js';
/** interviewHref is the console address of a ruleset's interview. */
export function interviewHref(slug) {
    return '#/ruleset/' + encodeURIComponent(slug);
}
/** showCatalogue draws the catalogue into main, searching for q. */
export async function showCatalogue(main, q) {
    const list = h('ul', { class: 'catalogue', id: 'catalogue', 'aria-labelledby': 'results-heading' });
    const count = h('h2', { id: 'results-heading', class: 'count' }, 'Loading…');
    const input = h('input', { type: 'search', id: 'search', name: 'q', value: q, autocomplete: 'off', 'aria-describedby': 'search-hint' });
    let seq = 0;
    const run = async (text) => {
        const mine = ++seq;
        try {
            const found = await listRulesets(text.trim());
            if (mine !== seq)
                return; // a newer search has started
            list.replaceChildren(...found.map(card));
            const words = found.length === 1 ? '1 ruleset' : `${found.length} rulesets`;
            count.textContent = text.trim() ? `${words} matching “${text.trim()}”` : words;
            announce(count.textContent);
        }
        catch (err) {
            if (mine !== seq)
                return;
            count.textContent = 'The catalogue could not be loaded.';
            list.replaceChildren(h('li', { class: 'error', role: 'alert' }, err.message));
        }
    };
    let timer = 0;
    input.addEventListener('input', () => {
        window.clearTimeout(timer);
        timer = window.setTimeout(() => void run(input.value), 250);
    });
    const form = h('form', {
        role: 'search',
        class: 'search',
        onsubmit: (e) => {
            e.preventDefault();
            window.clearTimeout(timer);
            void run(input.value);
        },
    }, h('label', { for: 'search' }, 'Search the rulesets'), h('div', { class: 'row' }, input, h('button', { type: 'submit' }, 'Search')), h('p', { id: 'search-hint', class: 'hint' }, 'By name, description or slug, for example “pension” or “fmla”.'));
    main.replaceChildren(h('h1', { tabindex: '-1' }, 'Find out whether you qualify'), h('p', { class: 'lead' }, 'Pick a benefit or permission. You answer one question at a time, only those that matter for your case, and see the decision with the law behind it.'), form, count, list);
    await run(q);
}
function card(r) {
    return h('li', {}, h('article', { class: 'card' }, h('h3', {}, h('a', { href: interviewHref(r.slug) }, r.name)), h('p', {}, r.description), h('dl', { class: 'facts' }, h('div', {}, h('dt', {}, 'Rules'), h('dd', {}, String(r.rule_count))), h('div', {}, h('dt', {}, 'Version'), h('dd', {}, r.ruleset_version)), h('div', {}, h('dt', {}, 'Slug'), h('dd', {}, h('code', {}, r.slug))))));
}
