// Drawing the ruleset's graph with the vendored Mermaid, loaded from this
// origin the first time a graph is shown (it is large, and most people
// never open the graph).

import { announce, h } from './dom.js';
import { forSvg, restoredText, statusLook } from './overlay.js';
import type { Status } from './types.js';
import { fitScale, zoomed } from './zoom.js';

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
      // Labels are SVG text, never HTML: Mermaid 11 reads the top-level
      // htmlLabels (flowchart.htmlLabels alone still drew HTML labels in a
      // foreignObject), and no directive in the text may change these.
      m.initialize({
        startOnLoad: false,
        securityLevel: 'strict',
        htmlLabels: false,
        theme: 'neutral',
        fontFamily: 'system-ui, sans-serif',
        flowchart: { htmlLabels: false, useMaxWidth: false },
        secure: [...secureKeys],
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

/**
 * secureKeys are the settings no directive in a graph's text may change:
 * Mermaid's own secure list and everything that decides how labels are
 * drawn and styled.
 */
const secureKeys = [
  'secure',
  'securityLevel',
  'startOnLoad',
  'maxTextSize',
  'suppressErrorRendering',
  'maxEdges',
  'htmlLabels',
  'flowchart',
  'markdownAutoWrap',
  'dompurifyConfig',
  'theme',
  'themeCSS',
  'themeVariables',
  'fontFamily',
] as const;

/**
 * svgElements are the elements a flowchart drawn with SVG labels is made
 * of; inert removes every other element (a foreignObject, a link, an image,
 * a script) and every attribute that could run or fetch anything, whatever
 * Mermaid drew.
 */
const svgElements = new Set([
  'svg', 'g', 'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon', 'text', 'tspan', 'style', 'defs', 'marker',
  'title', 'desc', 'clipPath', 'linearGradient', 'radialGradient', 'stop', 'filter', 'feDropShadow', 'feGaussianBlur', 'feOffset',
  'feFlood', 'feComposite', 'feMerge', 'feMergeNode', 'feBlend', 'feColorMatrix',
]);

/** inert strips svg of every element not in svgElements and every event handler, link or source attribute. */
function inert(svg: Element): void {
  for (const el of [svg, ...Array.from(svg.querySelectorAll('*'))]) {
    if (!svgElements.has(el.localName) || el.namespaceURI !== 'http://www.w3.org/2000/svg') {
      el.remove();
      continue;
    }
    for (const a of Array.from(el.attributes)) {
      if (/^on/i.test(a.localName) || /^(href|src|action|formaction)$/i.test(a.localName)) el.removeAttributeNode(a);
    }
  }
}

/**
 * restoreLabels puts each node's exact words back into its drawn label
 * (forSvg drew a few characters by stand-ins): the node g of Mermaid id
 * prefix-flowchart-ID-n gets labels' text for ID.
 */
function restoreLabels(svg: Element, prefix: string, labels: Map<string, string>): void {
  const idOf = new RegExp('^' + prefix + '-flowchart-(.+)-\\d+$');
  for (const node of Array.from(svg.querySelectorAll('g.node'))) {
    const id = idOf.exec(node.id)?.[1];
    const text = id === undefined ? undefined : labels.get(id);
    if (text === undefined) continue;
    const spans = Array.from(node.querySelectorAll('tspan.text-inner-tspan'));
    const restored = restoredText(
      text,
      spans.map((s) => s.textContent ?? ''),
    );
    restored?.forEach((t, i) => {
      const span = spans[i];
      if (span) span.textContent = t;
    });
  }
}

let drawn = 0;

/**
 * drawGraph renders Mermaid text as SVG into container, labelled for
 * screen readers by label, and fits it to the container (see fitGraph).
 */
export async function drawGraph(container: HTMLElement, text: string, label: string): Promise<void> {
  const m = await loadMermaid();
  drawn++;
  const prefix = `eligo-graph-${drawn}`;
  const svgText = forSvg(text);
  const { svg } = await m.render(prefix, svgText.text);
  const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
  inert(doc.documentElement);
  restoreLabels(doc.documentElement, prefix, svgText.labels);
  const el = document.importNode(doc.documentElement, true) as unknown as SVGSVGElement;
  el.setAttribute('role', 'img');
  el.setAttribute('aria-label', label);
  // Mermaid writes an inline max-width; the zoom sets the size instead.
  el.removeAttribute('style');
  const box = el.viewBox.baseVal;
  const width = box && box.width > 0 ? box.width : Number.parseFloat(el.getAttribute('width') ?? '') || 800;
  const height = box && box.height > 0 ? box.height : Number.parseFloat(el.getAttribute('height') ?? '') || 600;
  container.dataset['width'] = String(width);
  container.dataset['height'] = String(height);
  container.replaceChildren(el);
  fitGraph(container, false);
}

/** scaleGraph draws the graph in container at scale (1 is Mermaid's own size) and says the new size. */
function scaleGraph(container: HTMLElement, scale: number, say: boolean): void {
  const svg = container.querySelector('svg');
  const width = Number(container.dataset['width']);
  const height = Number(container.dataset['height']);
  if (!svg || !width || !height) return;
  container.dataset['scale'] = String(scale);
  svg.setAttribute('width', String(Math.round(width * scale)));
  svg.setAttribute('height', String(Math.round(height * scale)));
  const percent = `${Math.round(scale * 100)}%`;
  const output = document.getElementById(container.id + '-zoom');
  if (output) output.textContent = `Zoom ${percent}`;
  if (say) announce(`Graph zoom ${percent}.`);
}

/** fitGraph scales the graph in container to fit its box whole, the height at most most of the window. */
export function fitGraph(container: HTMLElement, say = true): void {
  const natural = { width: Number(container.dataset['width']), height: Number(container.dataset['height']) };
  const box = { width: container.clientWidth - 2, height: Math.round(window.innerHeight * 0.7) };
  scaleGraph(container, fitScale(natural, box), say);
}

/** zoomGraph zooms the graph in container one step in (+1) or out (-1). */
export function zoomGraph(container: HTMLElement, direction: 1 | -1): void {
  scaleGraph(container, zoomed(Number(container.dataset['scale']) || 1, direction), true);
}

/**
 * zoomControls are the graph's zoom buttons (in, out, fit) with the
 * current zoom; with the graph focused, + and - zoom and 0 fits it too.
 */
export function zoomControls(container: HTMLElement): HTMLElement {
  container.addEventListener('keydown', (e: KeyboardEvent) => {
    const direction = e.key === '+' || e.key === '=' ? 1 : e.key === '-' ? -1 : 0;
    if (direction) {
      e.preventDefault();
      zoomGraph(container, direction);
    } else if (e.key === '0') {
      e.preventDefault();
      fitGraph(container);
    }
  });
  const button = (id: string, text: string, onclick: () => void): HTMLElement =>
    h('button', { type: 'button', class: 'secondary', id, 'aria-controls': container.id, onclick }, text);
  return h(
    'div',
    { class: 'zoom buttons', role: 'group', 'aria-label': 'Zoom the graph' },
    button('graph-zoom-in', 'Zoom in', () => zoomGraph(container, 1)),
    button('graph-zoom-out', 'Zoom out', () => zoomGraph(container, -1)),
    button('graph-fit', 'Fit to the box', () => fitGraph(container)),
    h('span', { id: container.id + '-zoom', class: 'hint' }),
  );
}

/** legend explains the graph's colours and marks in words. */
export function legend(): HTMLElement {
  const items = (['satisfied', 'not_satisfied', 'pending'] as Status[]).map((st) =>
    h('li', { class: 'legend-' + st }, h('span', { class: 'mark', 'aria-hidden': 'true' }, statusLook[st].mark), ` ${statusLook[st].words}`),
  );
  return h('ul', { class: 'legend', 'aria-label': 'Legend' }, ...items);
}
