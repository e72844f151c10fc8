// One source's text as the rules read it: page by page (a PDF's pages
// numbered), each clause marked by what cites it (which criteria, which
// quotes, found word for word or only near) and the clauses no criterion
// cites marked "Not cited", with the share cited above. A criterion's
// name leads to it in the rules editor; the editor's "Show in source"
// leads back here, to the quote's passage, which takes focus.

import { capitalise } from '../answers.js';
import { announce, append, h } from '../dom.js';
import type { StudioClient } from './client.js';
import { citationWords, citedAsWords, citerId, citerWords, clauseState, coverageWords, findPassage, isTitle, marksHeldOver, pageSegments, stateWords } from './clauses.js';
import { rulesHref, studioHref } from './routes.js';
import type { ClauseCitation, SourceClause, SourceText } from './types.js';
import { alertBox, errorMessage } from './ui.js';

/** Quotes longer than this are cut in the marks beside the text (the clause itself shows them whole). */
const shownQuote = 100;

/** clauseId is the element id of a clause's piece on page (a clause running over a page break has one piece per page). */
function clauseId(c: SourceClause, first: boolean): string {
  return first ? `clause-${c.number}` : `clause-${c.number}-page-${c.page}`;
}

/** sourceTextView draws the text of project's source sourceId into container, at the passage params name (criterion and quote). */
export async function sourceTextView(client: StudioClient, projectId: string, sourceId: string, container: HTMLElement, params: Record<string, string> = {}): Promise<void> {
  const heading = h('h2', { tabindex: '-1', id: 'source-heading' }, 'Source text');
  const alert = alertBox('source-text-error');
  const summary = h('p', { id: 'source-summary', class: 'count', tabindex: '-1' }, 'Loading the text…');
  const citedAs = h('p', { id: 'source-cited-as' });
  container.append(
    h('p', { class: 'crumbs' }, h('a', { href: studioHref({ kind: 'project', projectId, screen: 'sources' }), id: 'back-to-sources' }, 'All sources')),
    heading,
    summary,
    citedAs,
    alert.el,
  );
  let st: SourceText;
  try {
    st = await client.call<SourceText>('GET', `/projects/${encodeURIComponent(projectId)}/sources/${encodeURIComponent(sourceId)}/text`);
  } catch (err) {
    summary.textContent = 'The text could not be loaded.';
    alert.show(errorMessage(err));
    return;
  }
  const name = st.title || st.filename;
  heading.textContent = `Text of ${name}`;
  document.title = `${name} · ${document.title}`;
  summary.textContent = coverageWords(st);
  citedAs.textContent = citedAsWords(st);
  citedAs.hidden = citedAs.textContent === '';

  const paged = st.media_type === 'application/pdf';
  const seen = new Set<number>();
  const pieces = new Map<SourceClause, HTMLElement>();
  const pages = st.pages.map((p) => {
    const text = h('div', { class: 'source-text' });
    const segments = pageSegments(p.text, p.page, st.clauses);
    const heldOver = marksHeldOver(segments);
    for (const [i, seg] of segments.entries()) {
      if (!seg.clause) {
        text.append(seg.text);
        continue;
      }
      const first = !seen.has(seg.clause.number);
      seen.add(seg.clause.number);
      const { clause, shown } = clauseElement(projectId, seg.clause, seg.text, first, heldOver[i]!);
      pieces.set(seg.clause, clause);
      text.append(shown);
    }
    const pageHeading = paged ? h('h3', { id: `page-${p.page}` }, `Page ${p.page}`) : null;
    return h('section', { class: 'source-page', 'aria-labelledby': paged ? `page-${p.page}` : 'source-heading' }, pageHeading, text);
  });

  const focusClause = (c: SourceClause, words: string): void => {
    const el = pieces.get(c);
    if (!el) return;
    container.querySelectorAll('.clause.target').forEach((x) => x.classList.remove('target'));
    el.classList.add('target');
    el.focus();
    el.scrollIntoView({ block: 'center' });
    announce(words);
  };

  append(
    container,
    legend(),
    uncitedList(st.clauses, (c) => focusClause(c, `Clause ${c.number}${paged ? `, page ${c.page}` : ''}, not cited.`)),
    unplacedNotice(projectId, st.unplaced_quotes),
    h('div', { class: 'source-pages', id: 'source-pages' }, ...pages),
  );

  const { criterion, quote } = params;
  if (criterion !== undefined && quote !== undefined) {
    const at = findPassage(st.clauses, criterion, quote);
    const c = st.clauses[at];
    if (c) {
      const cite = c.cited_by.find((x) => citerId(x) === criterion && x.quote === quote);
      focusClause(c, cite ? `${citationWords(cite)}${paged ? ` Page ${c.page}.` : ''}` : '');
    } else {
      alert.show(`The quote “${quote}” of criterion ${criterion} is not in this text, and no passage is near it.`);
      summary.focus();
    }
  }
}

/**
 * clauseElement is a clause's piece in the text (clause, which takes focus)
 * and what is shown: the piece followed by its mark, who cites it or "Not
 * cited" (a heading has no mark, nor has a clause whose mark is held over
 * to the next one, cited alike: marksHeldOver).
 */
function clauseElement(projectId: string, c: SourceClause, text: string, first: boolean, heldOver: boolean): { clause: HTMLElement; shown: HTMLElement } {
  const state = clauseState(c);
  const clause = h('span', { class: `clause clause-${state}${isTitle(c) ? ' clause-title' : ''}`, id: clauseId(c, first), tabindex: '-1', 'data-clause': String(c.number) }, text);
  if (state === 'heading' || heldOver) return { clause, shown: clause };
  const mark = h('span', { class: `clause-mark mark-${state}` }, h('span', { class: 'mark-state' }, stateWords[state]));
  for (const x of c.cited_by) mark.append(' ', citation(projectId, x));
  return { clause, shown: h('span', { class: 'clause-wrap' }, clause, ' ', mark) };
}

/** citation is one citation in a clause's mark: the criterion (a link to it in the rules) and its quote. */
function citation(projectId: string, x: ClauseCitation): HTMLElement {
  const quote = x.quote.length > shownQuote ? x.quote.slice(0, shownQuote - 1) + '…' : x.quote;
  return h(
    'span',
    { class: x.verified ? 'cite cite-found' : 'cite cite-near' },
    'by ',
    h('a', { href: rulesHref(projectId, citerId(x), x.quote), class: 'cite-criterion' }, citerId(x)),
    ` “${quote}”`,
    x.verified ? '' : ' (not word for word)',
  );
}

/** legend says what the marks mean, with their look. */
function legend(): HTMLElement {
  const item = (state: 'cited' | 'near' | 'uncited', words: string): HTMLElement =>
    h('li', {}, h('span', { class: `clause-mark mark-${state}` }, h('span', { class: 'mark-state' }, stateWords[state])), ' ', words);
  return h(
    'ul',
    { class: 'clause-legend', 'aria-label': 'What the marks mean' },
    item('cited', 'a criterion quotes the clause word for word; the criterion’s name leads to it in the rules.'),
    item('near', 'a criterion’s quote is not found word for word, and this clause is the closest text.'),
    item('uncited', 'no criterion quotes the clause.'),
  );
}

/** uncitedList lists the clauses no criterion cites, each a button that moves to it. */
function uncitedList(clauses: readonly SourceClause[], go: (c: SourceClause) => void): HTMLElement | null {
  const seen = new Set<number>();
  const uncited = clauses.filter((c) => clauseState(c) === 'uncited' && !seen.has(c.number) && seen.add(c.number));
  if (!uncited.length) return null;
  const shown = uncited.slice(0, 100);
  return h(
    'details',
    { class: 'uncited', id: 'uncited-clauses' },
    h('summary', {}, `Clauses not cited (${uncited.length})`),
    h(
      'ul',
      {},
      ...shown.map((c) =>
        h('li', {}, h('button', { type: 'button', class: 'link', onclick: () => go(c) }, `Clause ${c.number}: ${c.text.length > 80 ? c.text.slice(0, 79) + '…' : c.text}`)),
      ),
    ),
    uncited.length > shown.length ? h('p', { class: 'hint' }, `The first ${shown.length} are listed; the text below marks them all.`) : null,
  );
}

/** unplacedNotice names the quotes of this source found nowhere in it. */
function unplacedNotice(projectId: string, quotes: readonly ClauseCitation[]): HTMLElement | null {
  if (!quotes.length) return null;
  return h(
    'div',
    { class: 'notice', id: 'unplaced-quotes' },
    h('p', {}, 'These quotes cite this source but are not in its text, and no passage is near them:'),
    h('ul', {}, ...quotes.map((x) => h('li', {}, h('a', { href: rulesHref(projectId, citerId(x), x.quote) }, capitalise(citerWords(x))), ` “${x.quote}”`))),
  );
}
