// What the Generate screen says when a generation ends or is refused: the
// outcome (what the tests, quotes and review make of the new draft, the
// failing tests, the review's next step) and, for a prompt over the
// model's budget, the largest sources with what to do about them.

import { append, h } from '../dom.js';
import { outcomeWords } from './caseform.js';
import { type Outcome, overBudget, overBudgetWords } from './generation.js';
import { type ProjectScreen, screenFor, screenTitles } from './routes.js';

/** outcomePanel is the outcome's section, hidden until draw shows an outcome under heading (focused when focus). */
export function outcomePanel(href: (screen: ProjectScreen) => string): { el: HTMLElement; draw(o: Outcome, heading: string, focus: boolean): void } {
  const el = h('section', { id: 'gen-outcome', 'aria-labelledby': 'gen-outcome-heading', hidden: true });
  const draw = (o: Outcome, heading: string, focus: boolean): void => {
    const hintScreen = o.hint ? screenFor(o.hint.actionableVia) : null;
    const title = h('h3', { id: 'gen-outcome-heading', tabindex: '-1' }, heading);
    el.className = 'card check status-' + (o.kind === 'accepted' ? 'pass' : o.kind === 'failing_tests' ? 'warn' : 'fail');
    el.replaceChildren();
    append(
      el,
      title,
      h('p', { id: 'gen-headline', class: 'count' }, o.headline),
      o.lines.length ? h('ul', { class: 'evidence' }, ...o.lines.map((l) => h('li', {}, l))) : null,
      o.failures.length
        ? h(
            'div',
            {},
            h('h4', {}, 'Tests that fail'),
            h(
              'ul',
              { id: 'gen-failures', class: 'evidence' },
              ...o.failures.map((f) => h('li', {}, h('strong', {}, f.name), `: expected ${outcomeWords(f.expected).toLowerCase()}, decided ${outcomeWords(f.got).toLowerCase()}.`, f.hint ? h('span', { class: 'hint' }, ' ' + f.hint) : null)),
            ),
          )
        : null,
      o.hint
        ? h('p', { id: 'gen-next' }, h('strong', {}, 'Next step: '), o.hint.message, ' ', hintScreen ? h('a', { href: href(hintScreen) }, `Go to ${screenTitles[hintScreen]}`) : null)
        : null,
      o.kind === 'accepted' || o.kind === 'failing_tests' ? h('p', {}, h('a', { href: href('draft'), id: 'gen-open-draft' }, 'Open the draft on the Rules screen')) : null,
    );
    el.hidden = false;
    if (focus) title.focus();
  };
  return { el, draw };
}

/**
 * budgetPanel is the alert for a prompt over the model's budget. show
 * draws it from a refusal's body and says whether the body was that
 * refusal; hide hides it.
 */
export function budgetPanel(href: (screen: ProjectScreen) => string): { el: HTMLElement; show(body: unknown): boolean; hide(): void } {
  const el = h('div', { id: 'generate-budget', class: 'alert', role: 'alert', hidden: true });
  return {
    el,
    show(body) {
      const over = overBudget(body);
      if (!over) return false;
      const w = overBudgetWords(over);
      el.replaceChildren();
      append(
        el,
        h('p', {}, w.headline),
        w.sources.length ? h('p', {}, 'The largest active sources:') : null,
        w.sources.length ? h('ul', {}, ...w.sources.map((s) => h('li', {}, s))) : null,
        h('p', {}, w.advice, ' ', h('a', { href: href('sources') }, 'Go to Sources')),
      );
      el.hidden = false;
      return true;
    },
    hide() {
      el.hidden = true;
    },
  };
}
