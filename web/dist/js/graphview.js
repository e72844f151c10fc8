// Drawing the ruleset's graph with the vendored Mermaid, loaded from this
// origin the first time a graph is shown (it is large, and most people
// never open the graph).
import { h } from './dom.js';
import { statusLook } from './overlay.js';
/** The vendored Mermaid, as the console's handler serves it. */
export const mermaidSrc = '/console/vendor/mermaid.min.js';
let loading;
function loadMermaid() {
    loading ??= new Promise((resolve, reject) => {
        const script = h('script', { src: mermaidSrc });
        script.addEventListener('load', () => {
            const m = window.mermaid;
            if (!m) {
                reject(new Error('The graph renderer did not start.'));
                return;
            }
            m.initialize({
                startOnLoad: false,
                securityLevel: 'strict',
                theme: 'neutral',
                fontFamily: 'system-ui, sans-serif',
                flowchart: { htmlLabels: false, useMaxWidth: false },
            });
            resolve(m);
        });
        script.addEventListener('error', () => {
            loading = undefined;
            reject(new Error('The graph renderer could not be loaded.'));
        });
        document.head.appendChild(script);
    });
    return loading;
}
let drawn = 0;
/**
 * drawGraph renders Mermaid text as SVG into container, labelled for
 * screen readers by label.
 */
export async function drawGraph(container, text, label) {
    const m = await loadMermaid();
    drawn++;
    const { svg } = await m.render(`eligo-graph-${drawn}`, text);
    const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
    const el = document.importNode(doc.documentElement, true);
    el.setAttribute('role', 'img');
    el.setAttribute('aria-label', label);
    container.replaceChildren(el);
}
/** legend explains the graph's colours and marks in words. */
export function legend() {
    const items = ['satisfied', 'not_satisfied', 'pending'].map((st) => h('li', { class: 'legend-' + st }, h('span', { class: 'mark', 'aria-hidden': 'true' }, statusLook[st].mark), ` ${statusLook[st].words}`));
    return h('ul', { class: 'legend', 'aria-label': 'Legend' }, ...items);
}
