// Cases the solver suggests for what the project's tests leave untested
// (suggest-project-cases): each with the goal it exercises, its answers,
// the outcome the rules decide for it now, and the deliberate mistakes in
// the rules ("mutants") that the current tests miss and it would catch.
// A suggestion is added as it is, after the author has checked its
// outcome against the law: the rules deciding it does not make it right.

import { announce, h } from '../dom.js';
import type { StudioClient } from './client.js';
import { formatAnswers, outcomeWords } from './caseform.js';
import type { SuggestedCase, SuggestedCases, TestCase } from './types.js';
import { alertBox, busy, errorMessage, plural } from './ui.js';

/** uniqueName gives a suggested case a name no case of the project has. */
export function uniqueName(name: string, taken: readonly string[]): string {
  if (!taken.includes(name)) return name;
  for (let n = 2; ; n++) {
    const candidate = `${name} (${n})`;
    if (!taken.includes(candidate)) return candidate;
  }
}

/** scoreWords says a mutation score for people. */
export function scoreWords(s: SuggestedCases['mutation_score']): string {
  if (s.total === 0) return 'There are no deliberate mistakes to try on these rules.';
  const now = `The tests catch ${s.killed} of ${plural(s.total, 'deliberate mistake')} made in the rules`;
  return s.killed_with_suggestions > s.killed ? `${now}; with every case below, ${s.killed_with_suggestions}.` : `${now}.`;
}

/**
 * suggestionsPanel draws the suggestions section. cases reads the
 * project's current cases; add stores a case (set-project-tests) and
 * answers whether it was stored.
 */
export function suggestionsPanel(client: StudioClient, projectId: string, cases: () => TestCase[], add: (c: TestCase) => Promise<boolean>): HTMLElement {
  const button = h('button', { type: 'button', id: 'suggest-cases', class: 'secondary' }, 'Suggest cases');
  const summary = h('p', { id: 'suggestions-summary', tabindex: '-1' });
  const list = h('ul', { id: 'suggestions', class: 'checks' });
  const alert = alertBox('suggestions-error');

  // remaining counts the suggestions not yet added, so the summary
  // follows each case added; scoreNote is the search's own note.
  let remaining = 0;
  let scoreNote = '';
  const item = (s: SuggestedCase, i: number): HTMLElement => {
    const c = s.case;
    if (!c) return h('li', { class: 'card' }, h('h4', {}, s.goal), h('p', {}, 'No applicant can meet this, so no case can test it.'));
    const addButton = h('button', { type: 'button', 'aria-label': `Add the case “${s.goal}”` }, 'Add the case');
    const li = h(
      'li',
      { class: 'card suggestion', id: `suggestion-${i}` },
      h('h4', {}, s.goal),
      h('pre', { class: 'answers' }, formatAnswers(c.field_values) || 'No answers'),
      h('p', {}, 'The rules now decide: ', h('strong', {}, outcomeWords(c.expected_outcome)), '. Check this against the law before adding it.'),
      s.kills.length
        ? h(
            'details',
            { class: 'note' },
            h('summary', {}, `Catches ${plural(s.kills.length, 'mistake')} the tests miss`),
            h('ul', {}, ...s.kills.map((k) => h('li', {}, k.description))),
          )
        : null,
      s.also_covers.length ? h('p', { class: 'hint' }, 'Also covers: ', s.also_covers.join('; '), '.') : null,
      h('div', { class: 'buttons' }, addButton),
    );
    addButton.addEventListener('click', () => {
      alert.clear();
      void busy(addButton, async () => {
        const testCase = { ...c, name: uniqueName(c.name, cases().map((x) => x.name)) } as TestCase;
        if (await add(testCase)) {
          li.remove();
          remaining--;
          summary.textContent = `${remaining ? plural(remaining, 'suggested case') + ' left' : 'Every suggested case is added'}. ${scoreNote}`;
          announce(`Case ${testCase.name} added.`);
          summary.focus();
        }
      });
    });
    return li;
  };

  button.addEventListener('click', () => {
    alert.clear();
    void busy(button, async () => {
      summary.textContent = 'Looking for cases the tests leave out… this can take a few seconds.';
      try {
        const got = await client.call<SuggestedCases>('POST', `/projects/${encodeURIComponent(projectId)}/suggest-cases`, {});
        const reachable = got.suggestions.filter((s) => s.case);
        remaining = reachable.length;
        scoreNote = `${scoreWords(got.mutation_score)}${got.complete ? '' : ' The search stopped before the end; ask again for more.'}`;
        summary.textContent = `${reachable.length ? plural(reachable.length, 'suggested case') : 'No new cases to suggest'}. ${scoreNote}`;
        list.replaceChildren(...got.suggestions.map(item));
        summary.focus();
      } catch (err) {
        summary.textContent = '';
        alert.show(errorMessage(err));
      }
    });
  });

  return h(
    'section',
    { 'aria-labelledby': 'suggestions-heading', class: 'suggestions' },
    h('h3', { id: 'suggestions-heading' }, 'Cases the tests leave out'),
    h('p', { class: 'hint' }, 'The solver proposes answers that test each criterion both ways and each threshold at its boundary, from the saved rules.'),
    h('div', { class: 'buttons' }, button),
    summary,
    alert.el,
    list,
  );
}
