// Drawing the ruleset's graph with the vendored Mermaid, loaded from this
// origin the first time a graph is shown (it is large, and most people
// never open the graph).

import { h } from './dom.js';
import { statusLook } from './overlay.js';
import type { Status } from './types.js';

/** The part of Mermaid's API the console uses. */
interface Mermaid {
  initialize(config: Record<string, unknown>): void;
  render(id: string, text: string): Promise<{ svg: string }>;
}

declare global {
  interface Window {
    mermaid?: Mermaid;
  }
}

/** The vendored Mermaid, as the console's handler serves it. */
export const mermaidSrc = '/console/vendor/mermaid.min.js';

let loading: Promise<Mermaid> | undefined;

function loadMermaid(): Promise<Mermaid> {
  loading ??= new Promise<Mermaid>((resolve, reject) => {
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
export async function drawGraph(container: HTMLElement, text: string, label: string): Promise<void> {
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
export function legend(): HTMLElement {
  const items = (['satisfied', 'not_satisfied', 'pending'] as Status[]).map((st) =>
    h('li', { class: 'legend-' + st }, h('span', { class: 'mark', 'aria-hidden': 'true' }, statusLook[st].mark), ` ${statusLook[st].words}`),
  );
  return h('ul', { class: 'legend', 'aria-label': 'Legend' }, ...items);
}
