// End-to-end test of the rules editor checking and completing as the
// author types, in a real browser against a real `eligo serve` (run.sh
// passes a key in ELIGO_KEY): a draft saved without a field shows "the
// ruleset declares no fields"; typing a field line changes the problems
// to the language server's words for the new text, with no save; and
// Ctrl+Space after `cite ` lists the project's declared sources by their
// titles, chosen from the keyboard, which inserts the id the rules use;
// with its quote typed, the problems go, still unsaved.
// The open completion list is checked with axe-core. Screenshots and
// accessibility reports go to e2e/artifacts/editor/.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { apiCall, axe as axeIn, launchBrowser, open as openIn, shot as shotIn, signIn } from './browser.mjs';

const key = process.env.ELIGO_KEY;
if (!key) {
  throw new Error('ELIGO_KEY is not set: run web/e2e/run.sh');
}

// A draft with its sources and a criterion but no field yet.
const rules = `section editor_live
name "Checked as typed"

source grant_act "Grant Act" url "https://laws.example.org/grant" licence "public-domain"
source age_rules "Age of Majority Rules" url "https://laws.example.org/age" licence "public-domain"


group age all "Age" {
  criterion adult "At least 18" {
    person.age >= 18
  }
}
outcome age
`;

let browser;

before(async () => {
  browser = await launchBrowser('editor');
});

after(async () => {
  await browser?.close();
});

/** problemsText is the problems list's text. */
const problemsText = (page) => page.locator('#problems').textContent();

test('the editor checks and completes as the author types, before any save', async (t) => {
  const project = await apiCall(key, 'POST', '/projects/', { name: 'Checked as typed', section_id: 'editor_live', source_text: '', test_cases: [] });
  const draft = await apiCall(key, 'PUT', `/projects/${project.project_id}/draft`, { rules });
  assert.equal(draft.compiles, false);

  const { page, clean } = await openIn(browser, t, `/#/studio/projects/${project.project_id}/draft`, undefined, { refusals: true });
  const axe = (name) => axeIn(browser, page, name);
  const shot = (name) => shotIn(browser, page, name);
  await signIn(page, key);
  await page.waitForSelector('.cm-content');
  await page.waitForFunction(() => /declares no fields/.test(document.querySelector('#problems')?.textContent ?? ''));
  const saves = await page.locator('#versions li').count();

  // Typing a field line with a type the language does not have: the
  // problems become the language server's for the text in the editor,
  // inline and in the list, and nothing is saved.
  await page.locator('.cm-line').nth(5).click();
  await page.keyboard.type('field person.age integer');
  await page.waitForFunction(() => /unknown type "integer"/.test(document.querySelector('#problems')?.textContent ?? ''));
  assert.doesNotMatch(await problemsText(page), /declares no fields/);
  assert.match(await page.locator('#problems li.error', { hasText: 'unknown type' }).textContent(), /^Error, line 6, column 18: unknown type "integer"/);
  assert.equal(await page.locator('.cm-lintRange-error', { hasText: 'integer' }).count(), 1, 'the error is underlined where it is');
  assert.equal(await page.locator('#versions li').count(), saves, 'nothing was saved');
  assert.match(await page.locator('#draft-status').textContent(), /do not compile/, 'the status still speaks of the last save');

  // Corrected as typed: the type's error goes, without a save.
  for (let i = 0; i < 4; i++) await page.keyboard.press('Backspace');
  await page.waitForFunction(() => !/unknown type/.test(document.querySelector('#problems')?.textContent ?? ''));
  assert.doesNotMatch(await problemsText(page), /declares no fields/);
  assert.match(await problemsText(page), /criterion adult cites nothing/);

  // Ctrl+Space after cite: the project's sources by their titles; the
  // arrows choose one, Enter inserts its id.
  await page.locator('.cm-line', { hasText: 'person.age >= 18' }).click();
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await page.keyboard.type('cite ');
  await page.keyboard.press('Control+Space');
  await page.waitForSelector('.cm-tooltip-autocomplete [role="listbox"] [role="option"]');
  const options = page.locator('.cm-tooltip-autocomplete [role="option"]');
  assert.equal(await options.count(), 2);
  const labels = await options.allTextContents();
  assert.ok(labels.some((l) => /^Grant Act/.test(l)) && labels.some((l) => /^Age of Majority Rules/.test(l)), labels.join(' | '));
  // The editor is the list's combobox: it owns it and points at the chosen option.
  const content = page.locator('.cm-content');
  assert.equal(await content.getAttribute('aria-autocomplete'), 'list');
  const listId = await page.locator('.cm-tooltip-autocomplete [role="listbox"]').getAttribute('id');
  assert.equal(await content.getAttribute('aria-controls'), listId);
  const chosenId = await content.getAttribute('aria-activedescendant');
  assert.equal(await page.locator(`[id="${chosenId}"]`).getAttribute('aria-selected'), 'true');
  await page.waitForFunction(() => /^2 suggestions: .+, 1 of 2\./.test(document.querySelector('#status')?.textContent ?? ''));
  await axe('completion-open');
  await shot('completion-open');
  // Escape closes the list and keeps the text.
  await page.keyboard.press('Escape');
  await page.waitForSelector('.cm-tooltip-autocomplete', { state: 'detached' });
  await page.keyboard.press('Control+Space');
  await page.waitForSelector('.cm-tooltip-autocomplete [role="option"]');
  // CodeMirror leaves the keys to the text for its first 75 ms, so that a
  // list opening under a fast typist does not take the next arrow; a
  // person is slower than that.
  await page.waitForTimeout(200);
  // Down to the Grant Act, then Enter.
  for (let i = 0; i < 2; i++) {
    const selected = await page.locator('.cm-tooltip-autocomplete [role="option"][aria-selected="true"]').textContent();
    if (/^Grant Act/.test(selected)) break;
    await page.keyboard.press('ArrowDown');
  }
  assert.match(await page.locator('.cm-tooltip-autocomplete [role="option"][aria-selected="true"]').textContent(), /^Grant Act/);
  await page.waitForFunction(() => /^Grant Act \(grant_act\)/.test(document.querySelector('#status')?.textContent ?? ''));
  await page.keyboard.press('Enter');
  await page.waitForSelector('.cm-tooltip-autocomplete', { state: 'detached' });
  assert.match(await page.locator('.cm-line', { hasText: 'cite' }).textContent(), /^\s*cite grant_act$/);
  // With its quote the rules compile, as the check of the unsaved text says.
  await page.keyboard.type(' "is at least 18 years old');
  await page.waitForFunction(() => /None found/.test(document.querySelector('#problems')?.textContent ?? ''));
  assert.equal(await page.locator('.cm-lintRange-error').count(), 0);
  assert.equal(await page.locator('#versions li').count(), saves, 'still nothing saved');
  clean();
});
