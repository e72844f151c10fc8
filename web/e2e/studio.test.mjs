// End-to-end tests of the authoring studio in a real browser against a
// real `eligo serve` (run.sh creates a key for a tenant with the projects,
// rulesets and decide scopes and passes it in ELIGO_KEY): from signing in,
// through sources, rules, tests and review, to publishing and the
// applicant interview, then signing out. The main flow is driven from the
// keyboard wherever a person could; every screen is checked with axe-core.
// Screenshots and accessibility reports go to e2e/artifacts/studio/.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { apiCall, axe as axeIn, launchBrowser, open as openIn, origin, press, shot as shotIn, signIn, tabTo } from './browser.mjs';

const key = process.env.ELIGO_KEY;
const tenant = process.env.ELIGO_TENANT;
if (!key || !tenant) {
  throw new Error('ELIGO_KEY and ELIGO_TENANT are not set: run web/e2e/run.sh');
}
const here = path.dirname(fileURLToPath(import.meta.url));
const statute = path.join(here, 'testdata', 'usc29-2611.html');
const statuteURL = 'https://www.law.cornell.edu/uscode/text/29/2611';
// Unique per run, so a rerun against the same server publishes afresh.
const slug = `${tenant}/fmla-service-${Date.now().toString(36)}`;

let browser;

before(async () => {
  browser = await launchBrowser('studio');
});

after(async () => {
  await browser?.close();
});

const open = (t, p) => openIn(browser, t, p, undefined, { refusals: true });
const shot = (page, name) => shotIn(browser, page, name);
const axe = (page, name) => axeIn(browser, page, name);

/** rules is the draft the flow writes; brokenLine names a field the rules do not declare. */
function rules(broken) {
  return `ruleset "${slug}"
section fmla_service
name "FMLA length of service"

source usc29_2611 "29 U.S.C. 2611(2)" url "${statuteURL}" licence "public-domain"

field employment.months_employed int weight 1
  question "For how many months have you worked for this employer?"
field employment.hours_12_months decimal weight 2
  question "How many hours did you work for this employer in the last 12 months?"

group service all "Length and amount of service" {
  criterion tenure "Employed for at least 12 months" {
    ${broken ? 'employment.months_worked' : 'employment.months_employed'} >= 12
    cite usc29_2611 "for at least 12 months by the employer with respect to whom leave is requested"
  }
  criterion hours "At least 1,250 hours in the previous 12 months" {
    employment.hours_12_months >= 1250
    cite usc29_2611 "for at least 1,250 hours of service with such employer during the previous 12-month period"
  }
}
`;
}
/** The line of the broken reference in rules(true). */
const brokenLine = 14;

/** typeInto tabs to a field and types into it, as a keyboard user would. */
async function typeInto(page, selector, text) {
  await tabTo(page, selector, 150);
  await page.keyboard.type(text);
}

/** setRules replaces the editor's text from the keyboard, saves with Ctrl+S and waits for the new version. */
async function setRules(page, text) {
  const versions = await page.locator('#versions li').count();
  await tabTo(page, '.cm-content', 150);
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
  await page.keyboard.press('Control+S');
  await page.waitForFunction((n) => document.querySelectorAll('#versions li').length === n + 1, versions);
}

/**
 * signedIn waits for the screen to show ready, signing in first when it
 * asks: the browser may still hold the session of the test before, which
 * signed out at its end only if it got that far.
 */
async function signedIn(page, ready) {
  await page.waitForSelector(`${ready}, #api-key`);
  if (await page.locator('#api-key').isVisible()) await signIn(page, key);
  await page.waitForSelector(ready);
}

/** noKeyStored says the key is nowhere the page's scripts can read it back. */
async function noKeyStored(page) {
  const stored = await page.evaluate(() => ({
    local: JSON.stringify(Object.entries(localStorage)),
    session: JSON.stringify(Object.entries(sessionStorage)),
    cookie: document.cookie,
    url: location.href,
  }));
  // A key is elg_<prefix>_<secret>, and the secret's own alphabet has
  // "_": everything after the prefix is the secret (its last piece alone
  // can be a letter or two, which any URL may hold).
  const secret = key.split('_').slice(2).join('_');
  for (const [where, text] of Object.entries(stored)) {
    assert.ok(!text.includes(key), `the API key is not in ${where}`);
    assert.ok(!text.includes(secret), `the key's secret is not in ${where}`);
  }
  assert.equal(stored.cookie, '', 'the session cookie is HttpOnly: the page reads no cookie');
}

test('the studio: sign in, sources, rules, tests, review, publish, sign out', async (t) => {
  const { page, clean } = await open(t, '/');

  // The site header leads to the studio, which asks to sign in.
  await page.waitForFunction(() => !/Loading/.test(document.querySelector('#results-heading')?.textContent ?? 'Loading'));
  await press(page, '#studio-link');
  await page.waitForSelector('#sign-in-form');
  assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'H1', 'focus moves to the new view’s heading');
  await axe(page, 'sign-in');

  // A wrong key is refused with the API's words, and the field is emptied.
  await typeInto(page, '#api-key', 'elg_nothing_wrong');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#sign-in-error:not([hidden])');
  assert.doesNotMatch(await page.locator('#sign-in-error').textContent(), /invalid_api_key|\{/, 'a message, not a code or JSON');
  assert.equal(await page.inputValue('#api-key'), '');

  // Signing in from the keyboard.
  await page.keyboard.type(key);
  assert.equal(await page.getAttribute('#api-key', 'type'), 'password');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#signed-in-as');
  const banner = await page.locator('#signed-in-as').textContent();
  assert.match(banner, new RegExp(tenant));
  assert.match(banner, new RegExp(key.split('_')[1]), 'the banner names the key prefix');
  await noKeyStored(page);
  await page.waitForSelector('#projects-count');
  await axe(page, 'projects');

  // Create a project from the keyboard; the section id follows the slug.
  await typeInto(page, '#project-name', 'FMLA length of service');
  await typeInto(page, '#project-slug', slug);
  assert.match(await page.inputValue('#project-section'), /^fmla_service_/);
  await page.fill('#project-section', 'fmla_service');
  await press(page, '#create-project');
  await page.waitForSelector('#upload-form');
  assert.match(page.url(), /#\/studio\/projects\/prj_[^/]+\/sources$/);
  const projectId = /projects\/(prj_[^/]+)\//.exec(page.url())[1];
  assert.equal(await page.locator('h1').textContent(), 'FMLA length of service');

  // Upload the statute with its address and licence through the file input.
  await page.setInputFiles('#source-file', statute);
  await typeInto(page, '#source-url', statuteURL);
  await typeInto(page, '#source-licence', 'public-domain');
  await press(page, '#upload');
  await page.waitForFunction(() => document.querySelectorAll('#sources > li').length === 1);
  const first = page.locator('#sources > li').first();
  assert.match(await first.textContent(), /Web page \(HTML\)/);
  assert.match(await first.textContent(), /In use/);
  assert.match(await first.textContent(), /public-domain/);

  // The same file dropped on the drop zone: flagged as a possible duplicate.
  const html = fs.readFileSync(statute, 'utf8');
  const dropped = await page.evaluateHandle((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'copy.html', { type: 'text/html' }));
    return dt;
  }, html);
  await page.dispatchEvent('#dropzone', 'drop', { dataTransfer: dropped });
  assert.match(await page.locator('#drop-chosen').textContent(), /copy\.html/);
  await press(page, '#upload');
  await page.waitForFunction(() => document.querySelectorAll('#sources > li').length === 2);
  const copy = page.locator('#sources > li', { has: page.locator('h3', { hasText: 'copy.html' }) });
  assert.match(await copy.textContent(), /Possibly the same text as:\s*usc29-2611\.html \(the same file\)/);
  await axe(page, 'sources');
  await shot(page, 'sources');

  // Mark the copy reference-only, then delete it (after confirming).
  const copyId = await copy.getAttribute('id');
  await page.selectOption(`#${copyId}-status`, 'reference_only');
  await copy.getByRole('button', { name: /Save the status/ }).click();
  await page.waitForFunction((id) => document.querySelector(`#${id} .source-status`)?.textContent === 'Reference only', copyId);
  await page.locator(`#${copyId}`).getByRole('button', { name: /Delete/ }).click();
  await page.waitForSelector('dialog[open]');
  await axe(page, 'delete-dialog');
  await page.click('#dialog-confirm');
  await page.waitForFunction(() => document.querySelectorAll('#sources > li').length === 1);

  // The rules, from the keyboard: a draft with an unknown field shows the
  // compiler's error at its line, inline and in the list.
  await press(page, '#tab-draft');
  await page.waitForSelector('.cm-content');
  await page.waitForFunction(() => document.activeElement?.tagName === 'H2', null, { timeout: 10_000 });
  await setRules(page, rules(true));
  await page.waitForSelector('#problems li.error');
  const problem = await page.locator('#problems li.error').first().textContent();
  assert.match(problem, new RegExp(`^Error, line ${brokenLine}, column 5: `));
  assert.match(problem, /months_worked/);
  await page.waitForSelector('.cm-lintRange-error');
  const marked = await page.locator('.cm-lintRange-error').first().textContent();
  assert.match(marked, /employment\.months_worked/, 'the error is underlined where it is');
  assert.match(await page.locator('#draft-status').textContent(), /do not compile/);
  await axe(page, 'rules-with-error');
  await shot(page, 'rules-with-error');

  // Fixed and saved with the button; the problem goes.
  await setRules(page, rules(false));
  await page.waitForFunction(() => /The rules compile/.test(document.querySelector('#draft-status')?.textContent ?? ''));
  assert.match(await page.locator('#problems').textContent(), /None found/);
  assert.equal(await page.locator('.cm-lintRange-error').count(), 0);

  // Three versions this session; comparing the broken one with the editor
  // shows the changed line; restoring brings it back.
  assert.equal(await page.locator('#versions li').count(), 3);
  await page.locator('#versions li', { hasText: 'Version 1' }).getByRole('button', { name: /Compare/ }).click();
  assert.equal(await page.locator('#compare-summary').textContent(), '1 line added, 1 removed.');
  assert.match(await page.locator('#compare .diff-removed').textContent(), /months_worked/);
  await page.locator('#versions li', { hasText: 'Version 1' }).getByRole('button', { name: /Restore/ }).click();
  assert.match(await page.locator('.cm-content').textContent(), /months_worked/);
  await page.locator('#versions li', { hasText: 'Version 2' }).getByRole('button', { name: /Restore/ }).click();
  assert.doesNotMatch(await page.locator('.cm-content').textContent(), /months_worked/);

  // Completion offers the declared fields.
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\n# employment.ho');
  await page.keyboard.press('Control+Space');
  await page.waitForSelector('.cm-tooltip-autocomplete');
  assert.match(await page.locator('.cm-tooltip-autocomplete').textContent(), /employment\.hours_12_months/);
  await page.keyboard.press('Escape');
  await page.locator('#versions li', { hasText: 'Version 2' }).getByRole('button', { name: /Restore/ }).click();

  // Format: the compiler's canonical layout replaces the text (here the
  // indentation of a field's question); a text that does not parse says where.
  await page.locator('.cm-line', { hasText: 'question "For how many months' }).click();
  await page.keyboard.press('Home');
  await page.keyboard.type('      ');
  await press(page, '#format-draft');
  await page.waitForFunction(() => /canonical layout/.test(document.querySelector('#draft-status')?.textContent ?? ''));
  assert.match(await page.locator('#draft-status').textContent(), /^Formatted/);
  const formatted = await page.evaluate(() => [...document.querySelectorAll('.cm-line')].map((l) => l.textContent).join('\n'));
  assert.match(formatted, /\n {2}question "For how many months/);
  // Saved from the toolbar: Ctrl+S works wherever focus is on this screen.
  await page.keyboard.press('Control+S');
  await page.waitForFunction(() => /The rules compile/.test(document.querySelector('#draft-status')?.textContent ?? ''));
  await page.locator('.cm-line', { hasText: 'section fmla_service' }).click();
  await page.keyboard.press('End');
  await page.keyboard.type(' {');
  await press(page, '#format-draft');
  await page.waitForSelector('#draft-error:not([hidden])');
  await page.waitForSelector('.cm-lintRange-error');
  await page.keyboard.press('Control+Z');
  await page.keyboard.press('Control+Z');

  // A quote that is not word for word in its source: the nearest passage
  // is offered, and taking it clears the warning.
  await setRules(page, rules(false).replace('with respect to whom leave is requested', 'with respect to whom leave was requested'));
  await page.waitForSelector('#problems li.warning');
  assert.match(await page.locator('#problems li.warning').textContent(), /nearest passage in the source is “for at least 12 months by the employer with respect to whom leave is requested/);
  await press(page, '#problems li.warning button.secondary');
  const fixedSave = page.waitForResponse((r) => r.url().endsWith('/draft') && r.request().method() === 'PUT');
  await page.keyboard.press('Control+S');
  const saved = await fixedSave;
  assert.equal(saved.status(), 200, `the save with the source's words was answered ${saved.status()}: ${await saved.text()}`);
  await page.waitForFunction(() => /None found/.test(document.querySelector('#problems')?.textContent ?? ''));

  // The session ends while the author edits: signing in again in place
  // keeps the unsaved text, and the save then goes through.
  await page.evaluate(async () => {
    const token = (await fetch('/console/session', { credentials: 'same-origin' })).headers.get('X-CSRF-Token');
    await fetch('/console/session', { method: 'DELETE', credentials: 'same-origin', headers: { 'X-CSRF-Token': token } });
  });
  await page.locator('.cm-line', { hasText: 'section fmla_service' }).click();
  await page.keyboard.press('End');
  // The pause after typing sends a check of its own (refused: the session
  // has ended); it is answered before the save, so that none is left to
  // go out later, during the sign-in below, however slow the machine.
  const typedCheck = page.waitForResponse((r) => r.url().endsWith('/draft/check'));
  await page.keyboard.type('  # kept across sign-ins');
  await typedCheck;
  await page.keyboard.press('Control+S');
  await page.waitForSelector('#session-ended');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'session-ended-heading');
  assert.match(await page.locator('#draft-error').textContent(), /no longer signed in/);
  await axe(page, 'session-ended');
  await typeInto(page, '#api-key', key);
  // A check the editor sends while the sign-in is being answered waits
  // for it: sent in between, it would carry the new session's cookie with
  // the old session's token and be refused.
  let answerSignIn;
  const signInHeld = new Promise((resolve) => (answerSignIn = resolve));
  await page.route('**/console/session', async (route) => {
    if (route.request().method() === 'POST') await signInHeld;
    await route.continue();
  });
  const checks = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/draft/check')) checks.push(r);
  });
  // The edit is typed once the sign-in is on its way, however slowly the
  // machine sends it.
  const signingIn = page.waitForRequest((r) => r.url().endsWith('/console/session') && r.method() === 'POST');
  await page.keyboard.press('Enter');
  await signingIn;
  await page.locator('.cm-line', { hasText: 'section fmla_service' }).click();
  await page.keyboard.press('End');
  await page.keyboard.type('.');
  await page.keyboard.press('Backspace');
  await page.waitForTimeout(1500);
  assert.equal(checks.length, 0, 'no check is sent while the sign-in is being answered');
  const signedIn = page.waitForResponse((r) => r.url().endsWith('/console/session') && r.request().method() === 'POST');
  const checked = page.waitForRequest((r) => r.url().endsWith('/draft/check'));
  answerSignIn();
  const token = (await signedIn).headers()['x-csrf-token'];
  assert.equal((await checked).headers()['x-csrf-token'], token, 'the waiting check carries the new session’s token');
  await page.waitForSelector('#signed-in-as');
  await page.unroute('**/console/session');
  await press(page, '#save-draft');
  await page.waitForFunction(() => /The rules compile/.test(document.querySelector('#draft-status')?.textContent ?? ''));
  assert.match(await page.locator('.cm-content').textContent(), /# kept across sign-ins/);

  // Tests: one case passes, one expects the wrong outcome and fails with its reason.
  await press(page, '#tab-tests');
  await page.waitForSelector('#case-form');
  await page.waitForFunction(() => /No test cases yet/.test(document.querySelector('#tests-summary')?.textContent ?? ''));
  await typeInto(page, '#case-name', 'eligible at 12 months and 1,250 hours');
  await typeInto(page, '#case-answers', 'employment.months_employed = 12\nemployment.hours_12_months = 1250');
  await press(page, '#save-case');
  await page.waitForFunction(() => /All 1 case pass/.test(document.querySelector('#tests-summary')?.textContent ?? ''));
  await typeInto(page, '#case-name', 'eleven months is not enough');
  await typeInto(page, '#case-answers', 'employment.months_employed = 11\nemployment.hours_12_months = 1300');
  await press(page, '#save-case');
  await page.waitForFunction(() => /1 of 2 cases pass; 1 fails/.test(document.querySelector('#tests-summary')?.textContent ?? ''));
  const failing = page.locator('#tests tbody tr.fail');
  assert.equal(await failing.count(), 1);
  assert.match(await failing.textContent(), /eleven months is not enough/);
  assert.match(await failing.locator('.case-reasons').textContent(), /\S/, 'the failing case says why');
  await axe(page, 'tests-failing');
  await shot(page, 'tests-failing');

  // Publishing now is refused for the failing test; the confirmation names
  // it, and declining publishes nothing.
  await press(page, '#tab-changes');
  await page.waitForFunction(() => /Nothing is published under this address yet/.test(document.querySelector('#diff-summary')?.textContent ?? ''));
  await press(page, '#tab-publish');
  await page.waitForSelector('#publish-form');
  // The slug is filled in once the draft has been read.
  await page.waitForFunction(() => document.querySelector('#publish-slug')?.value !== '');
  assert.equal(await page.inputValue('#publish-slug'), slug, 'the slug comes from the rules');
  await page.waitForSelector('#gates li.gate.fail');
  await page.waitForSelector('#in-force-none');
  await press(page, '#publish');
  await page.waitForSelector('dialog[open]');
  assert.match(await page.locator('#force-failures').textContent(), /eleven months is not enough/);
  await axe(page, 'force-dialog');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'dialog-cancel', 'the safe choice has focus');
  await page.keyboard.press('Enter');
  await page.waitForSelector('dialog[open]', { state: 'detached' });
  assert.ok(await page.locator('#publish-result').isHidden());
  assert.match(await page.locator('#publish-error').textContent(), /tests pass/);

  // Fix the case: it expected the wrong outcome.
  await press(page, '#tab-tests');
  await page.waitForSelector('#tests tbody tr.fail');
  await press(page, 'button[aria-label="Edit eleven months is not enough"]');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'case-form-heading');
  await tabTo(page, '#case-expected');
  await page.selectOption('#case-expected', 'not_eligible');
  await press(page, '#save-case');
  await page.waitForFunction(() => /All 2 cases pass/.test(document.querySelector('#tests-summary')?.textContent ?? ''));

  // The solver suggests what the tests leave out; one is added as it is.
  await press(page, '#suggest-cases');
  await page.waitForFunction(() => /deliberate mistake/.test(document.querySelector('#suggestions-summary')?.textContent ?? ''));
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'suggestions-summary');
  const suggested = page.locator('#suggestions li.suggestion');
  assert.ok((await suggested.count()) > 0, 'the two cases leave something to suggest');
  const goal = (await suggested.first().locator('h4').textContent()).trim();
  await axe(page, 'suggestions');
  await press(page, `#${await suggested.first().getAttribute('id')} button`);
  await page.waitForFunction(() => /All 3 cases pass/.test(document.querySelector('#tests-summary')?.textContent ?? ''));
  assert.match(await page.locator('#tests tbody').textContent(), new RegExp(goal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));

  // Review: every check with its status and evidence, and a way to the fix.
  await press(page, '#tab-review');
  await page.waitForSelector('#checks li');
  assert.match(await page.locator('#check-draft_compiles').textContent(), /Draft compiles/);
  assert.match(await page.locator('#check-tests_pass').textContent(), /Passed/);
  const fix = page.locator('#check-tests_per_section a.fix');
  assert.equal(await fix.getAttribute('href'), `#/studio/projects/${projectId}/tests`);
  assert.doesNotMatch(await page.locator('#checks').textContent(), /actionable_via|\{"/, 'no raw JSON');
  await axe(page, 'review');
  await shot(page, 'review');

  // On a phone-sized screen the rules and the tests fit without sideways
  // scrolling of the page (the tests table scrolls within its own box).
  await page.setViewportSize({ width: 375, height: 800 });
  for (const screen of ['draft', 'tests']) {
    await page.goto(`${origin}/#/studio/projects/${projectId}/${screen}`);
    await page.waitForSelector(screen === 'draft' ? '.cm-content' : '#tests tbody tr');
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 375, `the ${screen} screen is ${width} px wide on a 375 px screen`);
    await axe(page, `phone-${screen}`);
    await shot(page, `phone-${screen}`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${origin}/#/studio/projects/${projectId}/review`);
  await page.waitForSelector('#checks li');

  // Publish, make it public, and open the applicant interview.
  await press(page, '#tab-publish');
  await page.waitForSelector('#publish-form');
  await page.waitForFunction(() => document.querySelectorAll('#gates li.gate.fail').length === 0);
  // Who can use the new version is chosen before publishing; by default
  // as the version in force, and a new address starts private.
  assert.ok(await page.locator('#publish-visibility-keep').isChecked());
  assert.match(await page.locator('#publish-visibility-keep-hint').textContent(), /nothing is in force at this address yet/);
  await press(page, '#publish');
  await page.waitForSelector('#published-heading');
  assert.match(await page.locator('#published-heading').textContent(), /Published as version/);
  assert.equal(await page.locator('#published-slug').textContent(), slug);
  assert.match(await page.locator('#published-visibility').textContent(), /Private to your team \(a new address starts private/);
  await page.waitForFunction(() => /Private to your team/.test(document.querySelector('#in-force-visibility')?.textContent ?? ''));
  await axe(page, 'published');
  await press(page, '#make-public');
  await page.waitForSelector('#interview-link:not([hidden])');
  assert.match(await page.locator('#in-force-visibility').textContent(), /Public/);
  // The next version will keep the programme public.
  await page.waitForFunction(() => /is public, so the new version is public too/.test(document.querySelector('#publish-visibility-keep-hint')?.textContent ?? ''));
  await shot(page, 'published');

  // Nothing changes against what was just published; then a threshold
  // moves (1,250 hours becomes 1,000) and the Changes screen shows whom it
  // affects: an applicant in between, the criterion and the law it quotes.
  await press(page, '#tab-changes');
  await page.waitForFunction(() => /Compared with v1/.test(document.querySelector('#diff-result')?.textContent ?? ''));
  assert.equal(await page.locator('#diff-summary').textContent(), 'No applicant’s outcome would change.');
  await press(page, '#tab-draft');
  await page.waitForSelector('.cm-content');
  await setRules(page, rules(false).replace('hours_12_months >= 1250', 'hours_12_months >= 1000'));
  await press(page, '#tab-changes');
  await page.waitForSelector('#changes li.change');
  assert.match(await page.locator('#diff-summary').textContent(), /kinds? of applicant would get another outcome/);
  const witness = await page.locator('#changes li.change', { hasText: /not eligible would be eligible/i }).textContent();
  const hours = Number(/employment\.hours_12_months = (\d+)/.exec(witness)?.[1]);
  assert.ok(hours >= 1000 && hours < 1250, `the example applicant worked ${hours} hours, between the old and the new threshold`);
  assert.match(witness, /hours/);
  assert.match(witness, /1,250 hours of service/, 'the law behind the changed criterion is quoted');
  await axe(page, 'changes');
  await shot(page, 'changes');

  // Real applicants: upload a CSV of three, run the draft against the
  // version in force, follow its progress and read whom it moves, in
  // words (three applicants are too few to count exactly).
  await page.setInputFiles('#impact-file', {
    name: 'applicants.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('employment.months_employed,employment.hours_12_months,reference\n24,1100,A-1\n24,1300,A-2\n6,2000,A-3\n'),
  });
  await press(page, '#impact-upload', 300);
  await page.waitForFunction(() => /applicants\.csv: 3 applicants/.test(document.querySelector('#impact-caseload')?.textContent ?? ''));
  assert.equal(await page.getAttribute('#impact-progress', 'role'), 'status', 'progress is read out as it changes');
  await press(page, '#impact-start', 300);
  await page.waitForSelector('#impact-result:not([hidden])');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'impact-result', 'the report takes the focus');
  assert.match(await page.locator('#impact-progress').textContent(), /^Done: (\d+) of \1 rows decided\.$/);
  assert.equal(
    await page.locator('#impact-result .impact-summary').textContent(),
    'Out of fewer than 10 applicants, fewer than 10 applicants would get another outcome.',
  );
  assert.equal(await page.locator('#impact-result .impact-transitions').textContent(), 'Fewer than 10 applicants who are not eligible would become eligible.');
  assert.match(await page.locator('#impact-result .impact-criteria').textContent(), /hours: for fewer than 10 applicants\./);
  assert.equal(await page.locator('#impact-runs li').count(), 1, 'the run is listed');
  await axe(page, 'changes-impact');
  await shot(page, 'changes-impact');

  // Another day: the comparison is made as of a date given.
  await typeInto(page, '#diff-as-of', '01022027');
  await press(page, '#compare-published');
  await page.waitForFunction(() => document.activeElement?.id === 'diff-result');
  assert.match(await page.locator('#diff-summary').textContent(), /kinds? of applicant would get another outcome/);

  await press(page, '#tab-publish');
  await page.waitForSelector('#interview-link:not([hidden])');
  await press(page, '#interview-link a');
  await page.waitForSelector('#question-form');
  assert.match(await page.locator('#question-form').textContent(), /months|hours/);

  // A cited source cannot be deleted: the API's message is shown.
  await page.goto(`${origin}/#/studio/projects/${projectId}/sources`);
  await page.waitForSelector('#sources > li');
  await page.locator('#sources > li').first().getByRole('button', { name: /Delete/ }).click();
  await page.click('#dialog-confirm');
  const refusal = page.locator('#sources > li .alert:not([hidden])');
  await refusal.waitFor();
  assert.match(await refusal.textContent(), /cite|publish/i);
  assert.equal(await page.locator('#sources > li').count(), 1);

  // Archive what is in force: only after a confirmation, and the address
  // then has nothing in force.
  await page.goto(`${origin}/#/studio/projects/${projectId}/publish`);
  await page.waitForSelector('#archive-ruleset');
  await press(page, '#archive-ruleset');
  await page.waitForSelector('dialog[open]');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'dialog-cancel', 'the safe choice has focus');
  await axe(page, 'archive-dialog');
  await press(page, '#dialog-confirm');
  await page.waitForSelector('#in-force-none');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'in-force-heading');

  // Sign out: the next call is refused and the studio asks to sign in.
  await press(page, '#sign-out');
  await page.waitForSelector('#sign-in-form');
  const status = await page.evaluate(async () => (await fetch('/api/v1/public/projects', { credentials: 'same-origin' })).status);
  assert.equal(status, 401);
  await page.reload();
  await page.waitForSelector('#sign-in-form');
  await noKeyStored(page);
  clean();
});

test('the studio over a household: member test cases, then review, gates and Changes say member fields as the rules write them', async (t) => {
  // The project, its source and a household draft (a list, member fields,
  // any and count over the members) over the API.
  const dir = path.join(here, 'testdata', 'household-studio');
  const mealsSlug = `${tenant}/school-meals-${Date.now().toString(36)}`;
  const meals = fs.readFileSync(path.join(dir, 'meals.rules'), 'utf8').replace('ruleset "e2e-studio/school-meals"', `ruleset "${mealsSlug}"`);
  const call = (method, p, body) => apiCall(key, method, p, body);
  const project = await call('POST', '/projects/', { name: 'School meals', section_id: 'school_meals', source_text: '', test_cases: [] });
  const base = `/projects/${project.project_id}`;
  await call('POST', base + '/sources', { filename: 'school-meals.txt', text: fs.readFileSync(path.join(dir, 'source.txt'), 'utf8'), url: 'https://example.org/school-meals', licence: 'public-domain' });
  const draft = await call('PUT', base + '/draft', { rules: meals });
  assert.equal(draft.compiles, true, JSON.stringify(draft.compile_errors));

  const { page, clean } = await open(t, `/#/studio/projects/${project.project_id}/tests`);
  await signedIn(page, '#case-form');
  // Member cases as the tests take them: how many people, then each one's answers.
  const addCase = async (name, answers, expected) => {
    const n = await page.locator('#tests tbody tr').count();
    await page.fill('#case-name', name);
    await page.fill('#case-answers', answers);
    await page.selectOption('#case-expected', expected);
    await press(page, '#save-case');
    await page.waitForFunction((k) => document.querySelectorAll('#tests tbody tr').length === k, n + 1);
  };
  await addCase('a parent and a child in school', 'member = 2\nmember[0].age = 34\nmember[0].in_school = false\nmember[1].age = 9\nmember[1].in_school = true', 'eligible');
  await addCase('a child alone', 'member = 1\nmember[0].age = 12\nmember[0].in_school = true', 'not_eligible');
  await addCase('two adults', 'member = 2\nmember[0].age = 34\nmember[0].in_school = false\nmember[1].age = 40\nmember[1].in_school = false', 'not_eligible');
  await press(page, '#run-tests');
  await page.waitForFunction(() => /All 3 cases pass/.test(document.querySelector('#tests-summary')?.textContent ?? ''));
  // Each case's answers as they were written: the count, then each person's.
  assert.match(await page.locator('#tests tbody tr', { hasText: 'a parent and a child' }).locator('pre.answers').textContent(), /^member = 2\nmember\[0\]\.age = 34\n/);
  await axe(page, 'household-tests');
  await shot(page, 'household-tests');

  await press(page, '#tab-review');
  await page.waitForSelector('#checks li');
  const checks = await page.locator('#checks').innerText();
  assert.match(await page.locator('#check-tests_pass').textContent(), /Passed/);
  assert.match(checks, /member\.age < 18 \(criterion school_child\)/, 'a member field’s threshold as the rules write it');
  assert.doesNotMatch(checks, /member\[\d\]/, 'no member’s copy of a field');
  assert.doesNotMatch(checks, /count\(member\) > \d/, 'the guard before each member’s part of an aggregate is no threshold');
  await axe(page, 'household-review');
  await shot(page, 'household-review');

  await press(page, '#tab-publish');
  await page.waitForSelector('#publish-form');
  await page.waitForSelector('#gates li.gate');
  assert.equal(await page.locator('#gates li.gate.fail').count(), 0);
  await axe(page, 'household-gates');
  await press(page, '#publish');
  await page.waitForSelector('#published-heading');

  // A new draft: the school age moves and each person is asked one more question.
  await call('PUT', base + '/draft', { rules: meals.replace('member.age < 18 and', 'member.age < 19 and').replace('group meals', 'field member.disabled bool weight 3\n  question "Is this person disabled?"\n  label "Disabled"\n\ngroup meals').replace('count(member where member.age >= 18) >= 1', 'count(member where member.age >= 18 or member.disabled) >= 1') });
  await press(page, '#tab-changes');
  await page.waitForSelector('#changes li.change');
  // The new question and the moved age are said once, as the rules write
  // them, not once for each of the four people the list can hold.
  assert.match(await page.locator('#diff-summary').textContent(), /kinds? of applicant would get another outcome, and 1 question would change\./);
  assert.deepEqual(await page.locator('#field-changes li').allTextContents(), ['New question: member.disabled (each member’s).']);
  assert.deepEqual(await page.locator('#threshold-changes li').allTextContents(), ['criterion school_child: threshold changed from 18 to 19 (member.age <)']);
  // An example applicant is written as the tests take a household.
  assert.match(await page.locator('#changes li.change pre.witness').first().textContent(), /^member = \d\n/);
  await axe(page, 'household-changes');
  await shot(page, 'household-changes');
  clean();
});

/** shipped waits until the server's decision log holds no record it has not yet written to the database. */
async function shipped() {
  for (let i = 0; i < 600; i++) {
    const ready = await (await fetch(origin + '/readyz')).json();
    if ((ready.decision_log?.spool?.segments ?? 0) === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail('the decision log did not ship its records to the database');
}

test('Real applicants from the decision log: the answers kept under the ruleset make a file, and a run over it moves who the draft moves', async (t) => {
  // Over the API: a ruleset published under the tenant's own address, and
  // a draft of it whose hours threshold moves from 1,250 to 1,000.
  const logSlug = `${tenant}/fmla-logged-${Date.now().toString(36)}`;
  const call = (method, p, body) => apiCall(key, method, p, body);
  const project = await call('POST', '/projects/', { name: 'FMLA, logged', section_id: 'fmla_service', source_text: '', test_cases: [] });
  const base = `/projects/${project.project_id}`;
  await call('POST', base + '/sources', {
    filename: 'usc29-2611.txt',
    text: 'The term "eligible employee" means an employee who has been employed (i) for at least 12 months by the employer with respect to whom leave is requested under section 2612 of this title; and (ii) for at least 1,250 hours of service with such employer during the previous 12-month period.',
    url: statuteURL,
    licence: 'public-domain',
  });
  const published = rules(false).replace(`ruleset "${slug}"`, `ruleset "${logSlug}"`);
  assert.equal((await call('PUT', base + '/draft', { rules: published })).compiles, true);
  assert.equal((await call('POST', base + '/publish', {})).slug, logSlug);
  assert.equal((await call('PUT', base + '/draft', { rules: published.replace('hours_12_months >= 1250', 'hours_12_months >= 1000') })).compiles, true);

  // Answer logging is off: the panel says so, and its button does nothing.
  const { page, clean } = await open(t, `/#/studio/projects/${project.project_id}/changes`);
  await signedIn(page, '#impact-log');
  await page.waitForFunction(() => /not being kept/.test(document.querySelector('#impact-log-state')?.textContent ?? ''));
  assert.equal(await page.inputValue('#impact-log-slug'), logSlug, 'the slug the rules publish under is the default');
  assert.match(await page.locator('#impact-log-state').textContent(), new RegExp(`^Decisions under ${logSlug} are not being kept; an administrator can turn answer logging on`));
  assert.equal(await page.isDisabled('#impact-log-make'), true);
  await axe(page, 'changes-log-off');

  // Logging on, then three decisions by the tenant's key: one between the
  // thresholds, one above both, one employed too briefly.
  await call('PUT', `/rulesets/${encodeURIComponent(logSlug)}/answer-logging`, { retention_days: 30 });
  for (const [months, hours] of [[24, 1100], [24, 1300], [6, 2000]]) {
    const d = await call('POST', '/decide', { ruleset_id: logSlug, field_values: { 'employment.months_employed': months, 'employment.hours_12_months': hours } });
    assert.equal(d.answers_logged?.retention_days, 30, 'the decision says its answers were kept');
  }
  await shipped();

  // The panel, opened again, offers them; the file made from them is chosen and counted in words.
  await page.reload();
  await page.waitForFunction(() => /are kept for 30 days/.test(document.querySelector('#impact-log-state')?.textContent ?? ''));
  assert.equal(await page.isDisabled('#impact-log-make'), false);
  await press(page, '#impact-log-make', 300);
  await page.waitForFunction(() => /^Made /.test(document.querySelector('#impact-progress')?.textContent ?? ''));
  assert.equal(await page.locator('#impact-progress').textContent(), `Made ${logSlug.replace('/', '_')}.log.jsonl from 3 decisions under ${logSlug}: 3 applicants.`);
  assert.match(await page.locator('#impact-caseload option:checked').textContent(), /\.log\.jsonl: 3 applicants/);

  // A run over them: the applicant between the thresholds would become eligible.
  await press(page, '#impact-start', 300);
  await page.waitForSelector('#impact-result:not([hidden])');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'impact-result', 'the report takes the focus');
  assert.equal(await page.locator('#impact-result .impact-transitions').textContent(), 'Fewer than 10 applicants who are not eligible would become eligible.');
  const unchanged = await page.locator('#impact-result .impact-unchanged').textContent();
  assert.match(unchanged, /applicants? would stay eligible\./);
  assert.match(unchanged, /applicants? would stay not eligible\./);
  await axe(page, 'changes-log-impact');
  await shot(page, 'changes-log-impact');
  clean();
});
