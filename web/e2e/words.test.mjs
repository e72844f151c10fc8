// The words an applicant reads, in a real browser against a real `eligo
// serve` (run.sh): the catalogue's cards, the plain sentences under each
// condition, and a table of limits that shows the applicant their own row.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { answerAll, axe as axeIn, decideAsOf, launchBrowser, open as openIn, outcome, shot as shotIn } from './browser.mjs';

const snap = '/#/ruleset/' + encodeURIComponent('demo/snap-income');
const childBenefit = '/#/ruleset/' + encodeURIComponent('demo/uk-child-benefit');

let browser;

before(async () => {
  browser = await launchBrowser('words');
});

after(async () => {
  await browser?.close();
});

const open = (t, p, viewport) => openIn(browser, t, p, viewport);
const shot = (page, name) => shotIn(browser, page, name);
const axe = (page, name) => axeIn(browser, page, name);

test('catalogue cards say what an applicant needs; the API address waits behind “For developers”', async (t) => {
  const { page, clean } = await open(t, '/');
  await page.waitForSelector('#catalogue li');
  const card = page.locator('#catalogue li', { hasText: 'FMLA employee eligibility' });
  const shown = await card.innerText();
  assert.match(shown, /Conditions:?\s*\d+/);
  assert.match(shown, /Version:?\s*v1/);
  assert.doesNotMatch(shown, /Slug|Rules:/);
  assert.doesNotMatch(shown, /demo\/us-fmla-employee/, 'the slug is not among the facts shown');
  assert.doesNotMatch(await page.locator('#search-hint').innerText(), /slug/);
  await card.locator('details.for-developers summary').click();
  assert.match(await card.locator('details.for-developers').innerText(), /Address in the API: demo\/us-fmla-employee/);
  // Search still finds a ruleset by its address.
  await page.fill('#search', 'us-fmla-employee');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelectorAll('#catalogue li').length === 1);
  await axe(page, 'catalogue-for-developers');
  clean();
});

// A one-person household: SNAP's limits come as a table, one condition
// per region and household size. $2,000 a month is above the limit in the
// 48 states and Hawaii, within Alaska's, so the region is asked.
const onePerson = {
  'household.region': 'alaska',
  'household.size': '1',
  'household.elderly_or_disabled_member': 'no',
  'income.gross_monthly': '2000',
  'income.net_monthly': '500',
};

test('a table of limits shows a one-person household its own row, in words, and counts the others once', async (t) => {
  const { page, clean } = await open(t, snap);
  await page.waitForSelector('#progress-text');
  await decideAsOf(page, '2026-01-15');
  await answerAll(page, onePerson);
  assert.equal(await outcome(page), 'Eligible');
  const gross = page.locator('section.group[data-group="gross_test"]');
  assert.deepEqual(await gross.locator('li.criterion').evaluateAll((els) => els.map((e) => e.getAttribute('data-criterion'))), ['gross_ak_1']);
  const text = await gross.innerText();
  assert.match(text, /Alaska, household of 1: \$2,118 a month/);
  assert.match(text, /The rule: If household region is alaska and household size is 1, gross monthly is at most 2,118\./);
  assert.doesNotMatch(text, /household of 2|household size is not/);
  assert.match(text, /26 conditions for another household region and household size are not shown: they do not apply to your answers\./);
  assert.doesNotMatch(await page.locator('main').innerText(), /household size is not \d/);
  // The page names the version for people; the slug is in the audit envelope only.
  assert.equal(await page.locator('#version').innerText(), 'Version v1 of these rules');
  assert.equal(JSON.parse(await page.locator('#envelope').textContent()).slug, 'demo/snap-income');
  await shot(page, 'table-own-row');
  await axe(page, 'table-own-row');
  clean();
});

test('rows that cannot be placed yet are said once: the condition for your household region and size', async (t) => {
  // With the household size skipped, the region settles nothing and is
  // not asked: no row can be placed.
  const { page, clean } = await open(t, snap);
  await page.waitForSelector('#progress-text');
  await decideAsOf(page, '2026-01-15');
  await answerAll(page, onePerson, ['household.size']);
  assert.equal(await outcome(page), 'Undetermined');
  const gross = page.locator('section.group[data-group="gross_test"]');
  await gross.waitFor();
  assert.equal(await gross.locator('li.criterion').count(), 1, 'the open rows are one condition');
  assert.equal(await gross.locator('li.rows-open').count(), 1);
  const text = await gross.innerText();
  assert.match(text, /The condition for your household region and household size\n/);
  assert.match(text, /Which of these 27 conditions applies depends on your household region and household size, not answered yet\./);
  assert.doesNotMatch(text, /household of \d/, 'no row is shown as a condition of its own');
  await axe(page, 'table-open-rows');
  clean();
});

test('rows that all hold whichever applies say so once', async (t) => {
  // $500 a month is within every one-person limit: the region is never asked.
  const { page, clean } = await open(t, snap);
  await page.waitForSelector('#progress-text');
  await decideAsOf(page, '2026-01-15');
  await answerAll(page, { ...onePerson, 'income.gross_monthly': '500' });
  assert.equal(await outcome(page), 'Eligible');
  const text = await page.locator('section.group[data-group="gross_test"]').innerText();
  assert.match(text, /Met The condition for your household region\n/);
  assert.match(text, /All 3 conditions that could apply to you are met, whatever your household region\./);
  assert.match(text, /24 conditions for another household size are not shown/);
  clean();
});

test('yes/no conditions read as answers, two alike kept apart, proper nouns capitalised, a school year as the law counts it', async (t) => {
  const { page, clean } = await open(t, childBenefit);
  await page.waitForSelector('#progress-text');
  await answerAll(page, {
    'child.date_of_birth': '2015-05-01',
    'claimant.child_lives_with_you': 'yes',
    'claimant.in_great_britain': 'yes',
    'child.in_great_britain': 'yes',
    'claimant.ordinarily_resident_uk': 'yes',
    'claimant.right_to_reside': 'yes',
    'claimant.contributes_at_least_weekly_rate': 'yes',
    'child.education_or_training': 'none',
    'child.course_started_before_19': 'no',
  });
  assert.equal(await outcome(page), 'Eligible');
  const conditions = await page.locator('section.explanation').innerText();
  assert.match(conditions, /The rule: Claimant in Great Britain: yes\./);
  assert.match(conditions, /The rule: Child in Great Britain: yes\./);
  assert.match(conditions, /The rule: Ordinarily resident UK: yes\./);
  assert.match(conditions, /the date of the decision falls in the same year from 1 September to 31 August as the date 16 years after date of birth\./);
  assert.doesNotMatch(conditions, /great britain|is yes|time since 1 September 1900/);
  await shot(page, 'yes-no-words');
  clean();
});

// Full SNAP eligibility works out net income from the household's answers:
// the applicant sees the figures the law computed, in dollars, and under
// each condition the amounts it rests on with how each was worked out.
const threePeople = {
  'household.region': '48_states_dc',
  'household.size': '3',
  'household.elderly_or_disabled': 'no',
  'income.earned': '2100',
  'income.unearned': '300.45',
  'expenses.dependent_care': '200',
  'expenses.medical': '0',
  'expenses.child_support_paid': '0',
  'shelter.rent_or_mortgage': '1100',
  'shelter.property_tax_and_insurance': '50',
  'shelter.claims_sua': 'yes',
  'shelter.standard_utility_allowance': '500',
  'shelter.actual_utility_costs': '0',
  'resources.countable': '1000',
};

test('a decision that computes shows the figures the law worked out and how', async (t) => {
  const { page, clean } = await open(t, '/#/ruleset/' + encodeURIComponent('demo/us-snap-eligibility'));
  await page.waitForSelector('#progress-text');
  await decideAsOf(page, '2026-01-15');
  await answerAll(page, threePeople);
  assert.equal(await outcome(page), 'Eligible');
  const computed = await page.locator('section.computed').innerText();
  assert.match(computed, /What the law worked out/);
  assert.match(computed, /Net monthly income, as the law counts it: \$827/);
  assert.match(computed, /Excess shelter deduction, as the law counts it: \$744/);
  const net = page.locator('li.criterion[data-criterion="net_within_limit"]');
  const amounts = net.locator('.figures-used');
  assert.match(await amounts.innerText(), /Net monthly income: \$827/);
  const limit = amounts.locator('li[data-value="net_income_limit"]');
  assert.match(await limit.innerText(), /\$2,221/);
  await limit.locator('details.how summary').click();
  const how = await limit.locator('details.how').innerText();
  assert.match(how, /With the figures for 1 October 2025 to 30 September 2026\./);
  await shot(page, 'computed-figures');
  await axe(page, 'computed-figures');
  clean();
});
