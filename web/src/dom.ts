// A small element builder. Text always goes in as text nodes, never as
// markup, so nothing a ruleset author or an applicant writes can become
// HTML.

type Child = Node | string | number | null | undefined | false;
type Attr = string | boolean | undefined | null | ((e: Event) => void);

/**
 * h builds an element: attributes by name (true for a bare attribute,
 * false or nullish to leave it out, a function for an "on..." listener)
 * and children as nodes or text.
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, Attr> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === 'function') {
      el.addEventListener(name.replace(/^on/, ''), value);
    } else if (value === true) {
      el.setAttribute(name, '');
    } else if (value !== false && value !== undefined && value !== null) {
      el.setAttribute(name, value);
    }
  }
  append(el, ...children);
  return el;
}

/** append adds children (nodes or text) to el. */
export function append(el: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

/** idFor makes an element id from free text (a field id, a criterion id). */
export function idFor(prefix: string, text: string): string {
  return prefix + '-' + text.replace(/[^A-Za-z0-9_-]/g, '-');
}

/** announce says text through the page's polite live region. */
export function announce(text: string): void {
  const region = document.getElementById('status');
  if (region) {
    region.textContent = '';
    // A fresh text node after clearing makes screen readers speak it again.
    window.setTimeout(() => {
      region.textContent = text;
    }, 30);
  }
}
