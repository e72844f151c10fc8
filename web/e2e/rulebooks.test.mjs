// End-to-end test of the studio's rulebook screens in a real browser
// against a real `eligo serve`. run.sh publishes, for a tenant of its own
// (ELIGO_RULEBOOKS_KEY), SNAP income and FMLA as sections, and an older,
// non-conservative cut of SNAP income that the presence-polarity gate
// refuses. The test composes a two-section rulebook with an “all of” tree
// built from the keyboard alone, activates it and reads its label, finds
// it in the release history, tries to promote the non-conservative cut
// and reads the gate's witness in words, edits the released rulebook's
// tree, sets a field's wording, makes the rulebook public with a
// confirmation, promotes another version of the other section, archives
// it, and checks every screen with axe-core. Screenshots and reports go to
// e2e/artifacts/rulebooks/.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { answerAll, apiCall, axe as axeIn, decideAsOf, launchBrowser, open as openIn, outcome, press, shot as shotIn, tabTo } from './browser.mjs';

const key = process.env.ELIGO_RULEBOOKS_KEY;
if (!key) {
  throw new Error('ELIGO_RULEBOOKS_KEY is not set: run web/e2e/run.sh');
}
// Unique per run, so a rerun against the same server creates afresh.
const slug = `e2e-rulebooks/benefits-${Date.now().toString(36)}`;

let browser;

before(async () => {
  browser = await launchBrowser('rulebooks');
});

after(async () => {
  await browser?.close();
});

const open = (t, p) => openIn(browser, t, p, undefined, { refusals: true });
const shot = (page, name) => shotIn(browser, page, name);
const axe = (page, name) => axeIn(browser, page, name);

/** focused is the id of the focused element. */
function focused(page) {
  return page.evaluate(() => document.activeElement?.id ?? '');
}

test('rulebooks: compose, activate, history, edit, promotion refused with its witness, wording, visibility, promotion, archive', async (t) => {
  // A project to keep the file of applicants the promotion's impact runs on.
  await apiCall(key, 'POST', '/projects/', { name: 'SNAP applicants', section_id: 'snap_income_one_person', source_text: '', test_cases: [] });
  const { page, clean } = await open(t, '/#/studio/rulebooks');

  // Sign in; the rulebooks tab of the studio's landing page.
  await page.waitForSelector('#sign-in-form');
  await tabTo(page, '#api-key');
  await page.keyboard.type(key);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#rulebooks-count');
  await page.waitForFunction(() => !/Loading/.test(document.querySelector('#rulebooks-count')?.textContent ?? 'Loading'));
  assert.equal(await page.getAttribute('#section-rulebooks', 'aria-current'), 'page');
  await axe(page, 'rulebooks');

  // The form: name, address, two sections.
  await tabTo(page, '#rulebook-name');
  await page.keyboard.type('SNAP and family leave');
  await tabTo(page, '#rulebook-slug');
  await page.keyboard.type(slug);
  for (const section of ['snap_income_one_person', 'fmla_employee']) {
    await page.selectOption('#new-section-pick', section);
    await press(page, '#new-add-section');
  }
  assert.equal(await page.locator('#new-sections li').count(), 2);
  const preview = () => page.locator('#outcome-preview').textContent();
  assert.match(await preview(), /^Eligible when both “SNAP income tests[^”]*” \(A\) and “[^”]+” \(B\) hold\.$/);

  // The tree from the keyboard alone: remove it, add a condition, group it
  // under “any of”, switch to “all of”, negate and un-negate.
  await press(page, '#remove-root');
  assert.equal(await preview(), 'Eligible when every section holds.');
  await press(page, '#add-root');
  assert.equal(await focused(page), 'cond-root', 'focus goes to the new condition');
  assert.match(await preview(), /^Eligible when “SNAP[^”]*” \(A\) holds\.$/);
  await press(page, '#group-or-root');
  assert.equal(await focused(page), 'cond-1', 'focus goes to the condition the group added');
  assert.match(await preview(), /^Eligible when either “SNAP[^”]*” \(A\) or “[^”]+” \(B\) holds\.$/);
  await tabTo(page, '#op-root');
  await page.keyboard.press('ArrowUp');
  await page.waitForFunction(() => /both/.test(document.querySelector('#outcome-preview')?.textContent ?? ''));
  await press(page, '#negate-1');
  assert.match(await preview(), /and \(not “[^”]+” \(B\)\) hold\.$/);
  await press(page, '#negate-1');
  assert.match(await preview(), /^Eligible when both “SNAP[^”]*” \(A\) and “[^”]+” \(B\) hold\.$/);
  assert.equal(await page.locator('#outcome-problems').isHidden(), true);
  await axe(page, 'rulebook-form');
  await shot(page, 'create');

  await press(page, '#create-rulebook');
  await page.waitForSelector('#activate');
  assert.match(page.url(), /#\/studio\/rulebooks\/rb_[^/]+$/);
  const rulebookId = /rulebooks\/(rb_[^/]+)$/.exec(page.url())[1];
  assert.equal(await page.locator('h1').textContent(), 'SNAP and family leave');
  assert.equal(await page.locator('#rulebook-status').textContent(), 'Draft: not released yet');
  assert.equal(await page.getAttribute('#rulebook-interview', 'href'), `#/rulebook/${rulebookId}`);
  await page.waitForSelector('#history-body p');
  assert.match(await page.locator('#history-body').textContent(), /Nothing released yet/);
  await page.waitForSelector('#save-fields');
  await axe(page, 'rulebook-draft');

  // Activate: the release's version and two-word label.
  await press(page, '#activate');
  await page.waitForSelector('#activated:not([hidden])');
  const released = await page.locator('#activated').textContent();
  const m = /Released: Version 1, “([a-z]+-[a-z]+)”\./.exec(released);
  assert.ok(m, `the release names its version and label: ${released}`);
  const label = m[1];
  assert.equal(await page.locator('#rulebook-release').textContent(), `Version 1, “${label}”`);
  assert.equal(await page.locator('#rulebook-status').textContent(), 'Active');

  // The release history.
  await page.waitForSelector('#releases');
  const row = page.locator('#releases tbody tr').first();
  assert.match(await row.textContent(), new RegExp(`Version 1 \\(current\\)${label}`));
  assert.match(await row.textContent(), /A: SNAP income tests.*?, e2e-rulebooks\/snap-income v1/);
  assert.match(await row.textContent(), /B: .+?, e2e-rulebooks\/fmla-employee v1/);
  await axe(page, 'rulebook-active');
  await shot(page, 'active');

  // Edit the released rulebook: “any of” instead of “all of”, from the
  // keyboard; saving releases version 2 at once.
  await tabTo(page, '#op-root', 250);
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction(() => /^Eligible when either /.test(document.querySelector('#outcome-preview')?.textContent ?? ''));
  await press(page, '#save-rulebook');
  await page.waitForFunction(() => /^Saved and released: Version 2, “[a-z]+-[a-z]+”\.$/.test(document.getElementById('status')?.textContent ?? ''));
  await page.waitForFunction(() => /^Version 2, /.test(document.getElementById('rulebook-release')?.textContent ?? ''));
  assert.match(await preview(), /^Eligible when either /, 'the saved tree is read back');
  const afterEdit = await page.locator('#rulebook-release').textContent();

  // Each section says what is in force in words; its ids are in the
  // row's title only, for developers.
  const sectionRow = page.locator('#promote-sections li p').first();
  assert.match(await sectionRow.textContent(), /^Section A: [^:]+, in force: version 1$/);
  assert.match(await sectionRow.getAttribute('title'), /:/, 'the section and ruleset ids are in the title');

  // Promote the non-conservative cut of section A: confirmed, then refused
  // by the presence-polarity gate, its witness said in words.
  assert.match(await page.locator('#promote-A option').first().textContent(), /e2e-rulebooks\/snap-income-lenient v1/);
  await press(page, '#promote-A-go');
  await page.waitForSelector('dialog[open]');
  assert.equal(await focused(page), 'dialog-cancel', 'the safe choice is focused');
  await axe(page, 'promote-confirm');
  await press(page, '#dialog-confirm');
  await page.waitForSelector('#promote-witness:not([hidden])');
  const witness = await page.locator('#promote-witness').textContent();
  assert.match(witness, /Field: household\.income\./);
  assert.match(witness, /Criterion: [a-z_]+\./);
  assert.match(witness, /leaving household\.income unanswered makes/);
  assert.doesNotMatch(witness, /non_conservative|\{/, 'words, not a code or JSON');
  assert.equal(await focused(page), 'promote-witness');
  assert.equal(await page.locator('#rulebook-release').textContent(), afterEdit, 'nothing was promoted');
  assert.match(await page.locator('#promote-B option').first().textContent(), /fmla-employee-plain/, 'only the team’s own versions are offered');
  await axe(page, 'promote-refused');
  await shot(page, 'promote-refused');

  // Beside the witness, the same version over real applicants: one who
  // gives no income, whom the lenient cut passes, and one over the limit.
  assert.match(await page.locator('#impact-proposal option').first().textContent(), /^Section A: .+snap-income-lenient v1$/);
  await page.waitForSelector('#impact-project option', { state: 'attached' });
  await page.waitForSelector('#impact-file');
  await page.setInputFiles('#impact-file', {
    name: 'applicants.jsonl',
    mimeType: 'application/x-ndjson',
    buffer: Buffer.from(
      [
        { field_values: { 'household.size': 1 }, decision_date: '2026-01-15', reference: 'R-1' },
        { field_values: { 'household.size': 1, 'household.elderly_or_disabled_member': false, 'income.gross_monthly': 9000, 'income.net_monthly': 9000 }, decision_date: '2026-01-15', reference: 'R-2' },
      ]
        .map((c) => JSON.stringify(c))
        .join('\n') + '\n',
    ),
  });
  await press(page, '#impact-upload', 300);
  await page.waitForFunction(() => /applicants\.jsonl: 2 applicants/.test(document.querySelector('#impact-caseload')?.textContent ?? ''));
  await press(page, '#impact-start', 300);
  await page.waitForSelector('#impact-result:not([hidden])');
  assert.equal(await focused(page), 'impact-result');
  assert.match(await page.locator('#impact-result .impact-summary').textContent(), /^Out of fewer than 10 applicants, fewer than 10 applicants would get another outcome\.$/);
  assert.match(await page.locator('#impact-result .impact-transitions').textContent(), /^Fewer than 10 applicants who are [a-z ]+ would become eligible\.$/);
  assert.match(await page.locator('#impact-runs').textContent(), /rulebook, succeeded/);
  assert.equal(await page.locator('#rulebook-release').textContent(), afterEdit, 'a run promotes nothing');
  await axe(page, 'promote-impact');
  await shot(page, 'promote-impact');

  // A field's wording: saved, and a new release is cut.
  await tabTo(page, '#overlay-q-0', 250);
  await page.keyboard.type('In a few words: your household’s situation?');
  await press(page, '#save-fields');
  await page.waitForFunction(() => /Wording saved and released: Version 3/.test(document.getElementById('status')?.textContent ?? ''));

  // Public, after confirming what public means: listed for everyone,
  // answered only to keys, so applicants not signed in cannot answer it.
  await press(page, '#toggle-visibility');
  await page.waitForSelector('dialog[open]');
  assert.match(await page.locator('#visibility-applicants').textContent(), /not signed in see it listed but cannot answer it/);
  assert.match(await page.locator('#visibility-applicants').textContent(), /make its sections’ rulesets public/);
  await press(page, '#dialog-confirm');
  await page.waitForFunction(() => document.getElementById('rulebook-visibility')?.textContent === 'Public');
  await page.waitForSelector('#releases');
  assert.equal(await page.locator('#releases tbody tr').count(), 3);
  assert.match(await page.locator('#releases tbody tr').first().textContent(), /Version 3 \(current\)/);

  // Promote FMLA's other version: confirmed, released, and the sections pinned.
  assert.match(await page.locator('#promote-B option').first().textContent(), /e2e-rulebooks\/fmla-employee-plain v1/);
  await press(page, '#promote-B-go');
  await page.waitForSelector('dialog[open]');
  await press(page, '#dialog-confirm');
  await page.waitForFunction(() => /^Promoted: /.test(document.getElementById('activated')?.textContent ?? ''));
  assert.match(
    await page.locator('#activated').textContent(),
    /^Promoted: e2e-rulebooks\/fmla-employee-plain v1 is live in section B\. Released: Version 4, “[a-z]+-[a-z]+”\. Against the version it replaced: No applicant’s outcome would change\.$/,
    'the promotion says whom it affects: the renamed version decides alike',
  );
  assert.equal(await focused(page), 'activated');
  assert.equal(await page.locator('#edit-section-pick').count(), 0, 'a promoted rulebook’s sections are pinned');
  await page.waitForSelector('#releases');
  assert.match(await page.locator('#releases tbody tr').first().textContent(), /Version 4 \(current\).*B: .+?, e2e-rulebooks\/fmla-employee-plain v1/);
  await axe(page, 'promoted');

  // The interview on the rulebook, signed in: every section asks its
  // questions, and the decision says each section's outcome.
  // Decided as of a day inside the SNAP section's period (it ends
  // 2026-09-30), so the outcome does not depend on the day the test runs.
  await press(page, '#rulebook-interview');
  await decideAsOf(page, '2026-01-15');
  await answerAll(page, {
    'household.size': '1',
    'household.elderly_or_disabled_member': 'no',
    'income.gross_monthly': '900',
    'income.net_monthly': '700',
    'employment.employer_type': 'private',
    'employment.months_employed': '24',
    'employment.hours_12_months': '1500',
    'employer.workweeks_with_50_employees': '30',
    'worksite.employees_within_75_miles': '80',
  });
  assert.match(await outcome(page), /^(Eligible|Not eligible)$/);
  assert.equal(await page.locator('.sections li').count(), 2, 'each section’s own outcome');
  assert.equal(await page.locator('#decided-as-of').textContent(), 'Decided as of 15 January 2026.');
  await axe(page, 'rulebook-interview');
  await shot(page, 'rulebook-interview');
  await page.goBack();
  await page.waitForSelector('#archive');

  // Archive, after confirming: it can be activated again.
  await press(page, '#archive');
  await page.waitForSelector('dialog[open]');
  assert.equal(await focused(page), 'dialog-cancel');
  await press(page, '#dialog-confirm');
  await page.waitForFunction(() => document.getElementById('rulebook-status')?.textContent === 'Archived');
  assert.equal(await page.locator('#activate').textContent(), 'Activate again');
  await axe(page, 'archived');

  // Back to the list: the rulebook with its release.
  await page.click('.crumbs a');
  await page.waitForFunction(() => !/Loading/.test(document.querySelector('#rulebooks-count')?.textContent ?? 'Loading'));
  const card = page.locator('#rulebooks li', { hasText: slug });
  assert.match(await card.textContent(), /Status:?\s*Archived/);
  assert.match(await card.textContent(), /Public/);
  assert.match(await card.textContent(), /Version 4, “[a-z]+-[a-z]+”/);
  await axe(page, 'rulebooks-after');
  clean();
});
