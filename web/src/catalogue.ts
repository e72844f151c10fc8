// The catalogue: the public rulesets and rulebooks (and, signed in, the
// team's own), searchable by words, each with its name, description, rule
// count and version, and a way into its interview.

import type { Target } from './answers.js';
import { Api } from './api.js';
import { announce, h } from './dom.js';
import { rank } from './search.js';
import { knownSession } from './transport.js';
import type { RulebookSummary, RulesetSummary } from './types.js';

/** interviewHref is the console address of a ruleset's interview. */
export function interviewHref(slug: string): string {
  return '#/ruleset/' + encodeURIComponent(slug);
}

/** rulebookHref is the console address of a rulebook's interview (by its id, rb_...). */
export function rulebookHref(rulebookId: string): string {
  return '#/rulebook/' + encodeURIComponent(rulebookId);
}

/** targetHref is the console address of the interview on target. */
export function targetHref(target: Target): string {
  return target.kind === 'rulebook' ? rulebookHref(target.id) : interviewHref(target.id);
}

/** What the catalogue lists: the rulesets and rulebooks it found, and whether a session is signed in. */
interface Listing {
  rulesets: RulesetSummary[];
  rulebooks: RulebookSummary[];
  signedIn: boolean;
}

/**
 * load reads the catalogue once: anonymously the public rulesets and
 * rulebooks; signed in (a session this page has seen), through the session, the rulesets the team sees
 * (the public ones and its own) and its own rulebooks beside the public
 * ones. A rulebook list that cannot be read leaves the rulesets listed.
 */
async function load(): Promise<Listing> {
  const signedIn = knownSession();
  const anonymous = new Api(false);
  const client = new Api(signedIn);
  const rulesets = await client.listRulesets();
  const lists = await Promise.all([anonymous.listRulebooks().catch(() => []), signedIn ? client.listRulebooks().catch(() => []) : Promise.resolve([])]);
  const rulebooks = new Map<string, RulebookSummary>();
  for (const rb of lists.flat()) {
    if (rb.status !== 'archived') rulebooks.set(rb.rulebook_id, rb);
  }
  return { rulesets, rulebooks: [...rulebooks.values()], signedIn };
}

/** showCatalogue draws the catalogue into main, searching for q. */
export async function showCatalogue(main: HTMLElement, q: string): Promise<void> {
  const list = h('ul', { class: 'catalogue', id: 'catalogue', 'aria-labelledby': 'results-heading' });
  const count = h('h2', { id: 'results-heading', class: 'count' }, 'Loading…');
  const books = h('section', { class: 'rulebooks', id: 'rulebooks-section', 'aria-labelledby': 'rulebooks-heading', hidden: true });
  const input = h('input', { type: 'search', id: 'search', name: 'q', value: q, autocomplete: 'off', 'aria-describedby': 'search-hint' });
  let listing: Listing | undefined;
  const run = (text: string): void => {
    if (!listing) return;
    const query = text.trim();
    const found = rank(listing.rulesets, query);
    list.replaceChildren(...found.map(card));
    const words = found.length === 1 ? '1 ruleset' : `${found.length} rulesets`;
    count.textContent = query ? `${words} matching “${query}”` : words;
    const foundBooks = rank(listing.rulebooks, query);
    books.hidden = foundBooks.length === 0;
    books.replaceChildren(
      h('h2', { id: 'rulebooks-heading' }, 'Rulebooks'),
      h(
        'p',
        { class: 'hint' },
        listing.signedIn
          ? 'Rulebooks combine several rulesets into one interview.'
          : 'Rulebooks combine several rulesets into one interview. They are listed for everyone, but answering one needs signing in: the service answers rulebooks only to signed-in teams.',
      ),
      h('ul', { class: 'catalogue', id: 'rulebooks' }, ...foundBooks.map(bookCard)),
    );
    announce(count.textContent + (foundBooks.length ? `, ${foundBooks.length === 1 ? '1 rulebook' : `${foundBooks.length} rulebooks`}` : ''));
  };
  let timer = 0;
  input.addEventListener('input', () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => run(input.value), 150);
  });
  const form = h(
    'form',
    {
      role: 'search',
      class: 'search',
      onsubmit: (e: Event) => {
        e.preventDefault();
        window.clearTimeout(timer);
        run(input.value);
      },
    },
    h('label', { for: 'search' }, 'Search the rulesets'),
    h('div', { class: 'row' }, input, h('button', { type: 'submit' }, 'Search')),
    h('p', { id: 'search-hint', class: 'hint' }, 'By words of the name or description, for example “pension” or “fmla”; names that match come first.'),
  );
  main.replaceChildren(
    h('h1', { tabindex: '-1' }, 'Find out whether you qualify'),
    h(
      'p',
      { class: 'lead' },
      'Pick a benefit or permission. You answer one question at a time, only those that matter for your case, and see the decision with the law behind it.',
    ),
    form,
    count,
    list,
    books,
  );
  try {
    listing = await load();
  } catch (err) {
    count.textContent = 'The catalogue could not be loaded.';
    list.replaceChildren(h('li', { class: 'error', role: 'alert' }, (err as Error).message));
    return;
  }
  run(input.value || q);
}

function card(r: RulesetSummary): HTMLElement {
  return h(
    'li',
    {},
    h(
      'article',
      { class: 'card' },
      h('h3', {}, h('a', { href: interviewHref(r.slug) }, r.name)),
      h('p', {}, r.description),
      h(
        'dl',
        { class: 'facts' },
        h('div', {}, h('dt', {}, 'Conditions'), h('dd', {}, String(r.rule_count))),
        h('div', {}, h('dt', {}, 'Version'), h('dd', {}, r.ruleset_version)),
      ),
      forDevelopers(r.slug),
    ),
  );
}

/**
 * forDevelopers keeps the address programs use (the slug, which search
 * also reads) where only developers look: behind a disclosure, never among
 * the facts an applicant reads.
 */
function forDevelopers(slug: string): HTMLElement {
  return h('details', { class: 'for-developers' }, h('summary', {}, 'For developers'), h('p', {}, 'Address in the API: ', h('code', {}, slug)));
}

function bookCard(r: RulebookSummary): HTMLElement {
  return h(
    'li',
    {},
    h(
      'article',
      { class: 'card' },
      h('h3', {}, h('a', { href: rulebookHref(r.rulebook_id) }, r.name || r.slug)),
      h('p', {}, r.description),
      h(
        'dl',
        { class: 'facts' },
        h('div', {}, h('dt', {}, 'Visibility'), h('dd', {}, r.visibility === 'private' ? 'Your team only' : 'Public')),
      ),
      forDevelopers(r.slug),
    ),
  );
}
