// End-to-end tests of the interview in the applicant's words: labels and
// units rather than ids, the rule in plain language (the rules language
// only behind "For specialists"), dates as dates, progress that counts
// accepted answers, search by words, deciding as of a date, the graph
// fitted and zoomable, and, signed in, the interview on a team's private
// ruleset and rulebook. run.sh publishes the rulesets and rulebooks and
// passes the interview tenant's key in ELIGO_INTERVIEW_KEY. Screenshots
// and accessibility reports go to e2e/artifacts/interview/.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { answer, answerAll, axe as axeIn, decideAsOf, launchBrowser, open as openIn, origin, outcome, questionFor, shot as shotIn, tabTo } from './browser.mjs';

const api = origin + '/api/v1/public';
const key = process.env.ELIGO_INTERVIEW_KEY;
const tenant = process.env.ELIGO_INTERVIEW_TENANT;
if (!key || !tenant) {
  throw new Error('ELIGO_INTERVIEW_KEY is not set: run web/e2e/run.sh');
}
const fmla = '/#/ruleset/' + encodeURIComponent('demo/us-fmla-employee');
const voter = '/#/ruleset/' + encodeURIComponent('demo/ca-voter-registration');
const snap = '/#/ruleset/' + encodeURIComponent('demo/snap-income');
const privateSlug = `${tenant}/fmla-private`;
const privateBook = `${tenant}/eitc-qualifying-child`;
const publicAgency = 'A public agency (state, local or a federal agency outside title 5)';

let browser;

before(async () => {
  browser = await launchBrowser('interview');
});

after(async () => {
  await browser?.close();
});

const open = (t, p, options) => openIn(browser, t, p, undefined, options);
const shot = (page, name) => shotIn(browser, page, name);
const axe = (page, name) => axeIn(browser, page, name);

async function progressText(page) {
  return (await page.locator('#progress-text').textContent()).trim();
}

// Rules-language text: a dotted field id, or a comparison operator.
const dsl = /\b[a-z_]+\.[a-z_][a-z0-9_]*\b|>=|<=|==|!=/;

test('the FMLA interview speaks in labels and units, never ids', async (t) => {
  const { page, clean } = await open(t, fmla);
  await questionFor(page, 'employment.employer_type');
  const choices = await page.locator('#question-form .choice label').allTextContents();
  assert.deepEqual(choices, ['A private business', publicAgency, 'The federal civil service (title 5)']);
  const question = await page.locator('#question-form').innerText();
  assert.doesNotMatch(question, /federal title5|public_agency|federal_title5/);
  await answer(page, 'employment.employer_type', publicAgency);
  await questionFor(page, 'employment.months_employed');
  assert.equal((await page.locator('#question-form .unit').textContent()).trim(), 'months', 'the unit beside the input');
  assert.match(await page.locator('#question-form .hint').textContent(), /whole number, in months/);
  await shot(page, 'fmla-units');
  await axe(page, 'question-unit');
  await answer(page, 'employment.months_employed', '14');
  await answer(page, 'employment.hours_12_months', '1000');
  assert.equal(await outcome(page), 'Not eligible');
  const answers = await page.locator('#answers').innerText();
  assert.match(answers, /Employer\s+A public agency/);
  assert.match(answers, /Months worked for this employer\s+14 months/);
  assert.match(answers, /Hours worked in the last 12 months\s+1,000 hours/);
  assert.doesNotMatch(answers, /hours 12 months|employer type/, 'no label made from an id');
  const hours = page.locator('.explanation li[data-criterion="hours"]');
  assert.match(await hours.locator('.facts-used').innerText(), /Hours worked in the last 12 months: 1,000 hours/);
  clean();
});

test('no rules language on the applicant’s screen, only behind “For specialists”', async (t) => {
  const { page, clean } = await open(t, fmla);
  await answer(page, 'employment.employer_type', publicAgency);
  await answer(page, 'employment.months_employed', '14');
  await answer(page, 'employment.hours_12_months', '1000');
  assert.equal(await outcome(page), 'Not eligible');
  const reason = page.locator('.reasons li.reason[data-criterion="hours"]');
  await reason.waitFor();
  assert.match(await reason.locator('.sentence').innerText(), /^The rule: .+\.$/);
  // What the applicant sees (innerText leaves out a closed disclosure).
  for (const part of ['#answers', '.reasons', '.explanation', '.whatif-box', '#progress']) {
    assert.doesNotMatch(await page.locator(part).innerText(), dsl, `${part} shows no rules language`);
  }
  const specialists = reason.locator('details.specialists');
  assert.equal(await specialists.getAttribute('open'), null, 'the expression is closed by default');
  await specialists.locator('summary').click();
  assert.match(await specialists.locator('code').innerText(), /employment\.hours_12_months >= 1250/);
  await shot(page, 'fmla-specialists');
  await axe(page, 'specialists');
  clean();
});

test('a date is asked with a date input and shown as a date', async (t) => {
  const { page, clean } = await open(t, voter);
  await answer(page, 'person.us_citizen', 'Yes');
  await answer(page, 'person.california_resident', 'Yes');
  await questionFor(page, 'person.date_of_birth');
  assert.equal(await page.locator('#question-form input[name$="date_of_birth"]').getAttribute('type'), 'date');
  assert.doesNotMatch(await page.locator('#question-form').innerText(), /0001-01-01|day number/);
  await answer(page, 'person.date_of_birth', '1990-04-21');
  await page.waitForSelector('#answers li[data-field="person.date_of_birth"]');
  assert.match(await page.locator('#answers li[data-field="person.date_of_birth"]').innerText(), /21 April 1990/);
  await axe(page, 'date-answer');
  clean();
});

test('progress counts accepted answers: a refused one is not counted', async (t) => {
  const { page, clean } = await open(t, fmla);
  await answer(page, 'employment.employer_type', publicAgency);
  await questionFor(page, 'employment.months_employed');
  assert.match(await progressText(page), /^1 answered/);
  await answer(page, 'employment.months_employed', 'fourteen');
  await page.locator('#question-form .control .field-error').waitFor();
  assert.match(await progressText(page), /^1 answered/, 'the refused answer is not counted');
  assert.equal(await page.locator('#progress progress').getAttribute('value'), '1');
  await answer(page, 'employment.months_employed', '14');
  await questionFor(page, 'employment.hours_12_months');
  assert.match(await progressText(page), /^2 answered/);
  clean();
});

test('search by words: names first, never the middle of a word', async (t) => {
  const { page, clean } = await open(t, '/');
  await page.waitForSelector('#catalogue li');
  const search = async (q) => {
    await page.fill('#search', q);
    await page.keyboard.press('Enter');
    await page.waitForFunction((text) => document.querySelector('#results-heading')?.textContent?.includes(`“${text}”`), q);
    return page.locator('#catalogue li h3').allTextContents();
  };
  // "pet" is inside a word of the voter registration's description
  // ("incompetent"-style): a search by words finds nothing there.
  assert.deepEqual(await search('pet'), []);
  assert.match(await page.locator('#results-heading').textContent(), /^0 rulesets/);
  const aged = await search('age');
  assert.ok(aged.length >= 1);
  assert.match(aged[0], /EITC qualifying child: age test/, 'the ruleset named by the word comes first');
  const children = await search('child');
  const firstDescriptionOnly = children.findIndex((name) => !/child/i.test(name));
  const lastNamed = children.map((name) => /child/i.test(name)).lastIndexOf(true);
  assert.ok(firstDescriptionOnly === -1 || firstDescriptionOnly > lastNamed, `names with the word come first: ${children.join(' | ')}`);
  await shot(page, 'search-words');
  await axe(page, 'search');
  clean();
});

test('the public rulebooks are listed; answering one asks to sign in', async (t) => {
  const { page, clean } = await open(t, '/', { refusals: true });
  await page.waitForSelector('#rulebooks li');
  const book = page.locator('#rulebooks li', { hasText: 'EITC qualifying child, tax year 2026' });
  assert.equal(await book.count(), 1);
  assert.match(await page.locator('#rulebooks-section').innerText(), /needs signing in/);
  await book.locator('a').click();
  await page.waitForSelector('h1:has-text("Sign in to answer this rulebook")');
  assert.match(await page.locator('#rulebook-sign-in').innerText(), /listed in the catalogue for everyone, but the service answers rulebooks only to signed-in teams/);
  assert.equal(await page.locator('main a[href="#/sign-in"]').count(), 1);
  await axe(page, 'rulebook-anonymous');
  // A team's private ruleset is not there for anyone else.
  await page.goto(origin + '/#/ruleset/' + encodeURIComponent(privateSlug));
  await page.waitForSelector('h1:has-text("This ruleset is not available")');
  clean();
});

test('decide as of another date: the date is sent and shown with the decision', async (t) => {
  const { page, clean } = await open(t, fmla);
  await answer(page, 'employment.employer_type', publicAgency);
  await answer(page, 'employment.months_employed', '14');
  await answer(page, 'employment.hours_12_months', '1300');
  await answer(page, 'worksite.employees_within_75_miles', '60');
  assert.equal(await outcome(page), 'Eligible');
  assert.match(await page.locator('#decided-as-of').innerText(), /^Decided as of \d{1,2} [A-Z][a-z]+ \d{4} \(today\)\.$/);
  await page.locator('#asof summary').click();
  await page.fill('#decision-date', '2020-06-30');
  await page.click('#decision-date-apply');
  await page.waitForFunction(() => document.querySelector('#decided-as-of')?.textContent === 'Decided as of 30 June 2020.');
  const env = JSON.parse(await page.locator('#envelope').textContent());
  assert.equal(env.decision_date, '2020-06-30');
  assert.equal(env.request.decision_date, '2020-06-30', 'the replay asks for the same date');
  assert.equal(await outcome(page), 'Eligible');
  await shot(page, 'decide-as-of');
  await axe(page, 'decide-as-of');
  clean();
});

test('decide as of a date inside a ruleset’s period clears the period note', async (t) => {
  const today = await (
    await fetch(api + '/decide', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ruleset_id: 'demo/snap-income', field_values: {} }) })
  ).json();
  const { page, clean } = await open(t, snap);
  await page.waitForSelector('#progress-text');
  const note = page.locator('#warnings li[data-code="outside_effective_period"]');
  if (today.decision_date > '2026-09-30') await note.waitFor();
  await page.locator('#asof summary').click();
  await page.fill('#decision-date', '2026-01-15');
  await page.click('#decision-date-apply');
  await note.waitFor({ state: 'detached' });
  // Back to today: the note returns exactly when the period has ended.
  await page.click('#decision-date-clear');
  if (today.decision_date > '2026-09-30') await note.waitFor();
  clean();
});

test('decide as of a date in an earlier period: that period’s rules answer, under the address the page was opened at', async (t) => {
  // FY2026 limits a household of one to $1,696 gross a month, FY2027 to
  // $1,729: $1,710 passes the later test and fails the earlier one.
  const { page, clean } = await open(t, '/#/ruleset/' + encodeURIComponent('demo/food-income-by-year'));
  await page.waitForSelector('#progress-text');
  assert.match(await page.locator('#version').innerText(), /^Version v2 /, 'the newest version is shown first');
  await decideAsOf(page, '2027-01-15');
  // Under FY2027 the region does not matter for these answers (every
  // region's limits admit them); under FY2026 it does, and is asked.
  const household = {
    'household.region': 'contiguous_us_guam_vi',
    'household.size': '1',
    'household.elderly_or_disabled_member': 'no',
    'income.gross_monthly': '1710',
    'income.net_monthly': '1000',
  };
  await answerAll(page, household);
  assert.equal(await outcome(page), 'Eligible');
  const later = JSON.parse(await page.locator('#envelope').textContent());
  assert.equal(later.ruleset_version, 'v2');

  await decideAsOf(page, '2026-09-30');
  assert.match(await page.locator('#version').innerText(), /^Version v1 /, 'the page names the version in force on the date');
  await answerAll(page, household);
  await page.waitForFunction(() => document.querySelector('#decided-as-of')?.textContent === 'Decided as of 30 September 2026.');
  assert.equal(await outcome(page), 'Not eligible', 'FY2026’s gross income limit answers');
  assert.equal(await page.locator('#warnings li[data-code="outside_effective_period"]').count(), 0, 'no note that the date is outside the rules’ period');
  const earlier = JSON.parse(await page.locator('#envelope').textContent());
  assert.equal(earlier.ruleset_version, 'v1');
  assert.notEqual(earlier.ruleset_id, later.ruleset_id);
  assert.equal(earlier.request.ruleset_id, earlier.ruleset_id, 'the replay pins the cut that answered');
  await axe(page, 'decide-as-of-earlier-period');
  clean();
});

test('a decision dated outside the rules’ period says they do not cover that date, and which period they do', async (t) => {
  // SNAP's only cut holds from 2025-10-01 until 2026-09-30: on 2030-01-15
  // the decision is undetermined because of the date, not a condition.
  const { page, clean } = await open(t, snap);
  await page.waitForSelector('#progress-text');
  await decideAsOf(page, '2030-01-15');
  assert.equal(await outcome(page), 'Undetermined');
  const said = page.locator('#outside-period');
  await said.waitFor();
  assert.match(await said.innerText(), /These rules do not cover 15 January 2030: they cover 1 October 2025 to 30 September 2026\./);
  assert.doesNotMatch(await page.locator('main').innerText(), /No single condition stands in the way/);
  await shot(page, 'outside-period');
  await axe(page, 'outside-period');
  // Inside the period (the "Decide as of" form is still open), the
  // interview asks again and says nothing of it.
  await page.fill('#decision-date', '2026-01-15');
  await page.click('#decision-date-apply');
  await page.waitForSelector('#question-form');
  assert.equal(await page.locator('#outside-period').count(), 0);
  clean();
});

test('the graph fits its box and zooms, by button and by keyboard', async (t) => {
  const { page, clean } = await open(t, fmla);
  await questionFor(page, 'employment.employer_type');
  await page.locator('#graph summary').click();
  await page.waitForSelector('#graph-view svg g.node');
  const size = () =>
    page.evaluate(() => {
      const view = document.getElementById('graph-view');
      const svg = view.querySelector('svg');
      return { svg: svg.getBoundingClientRect().width, box: view.clientWidth, zoom: document.getElementById('graph-view-zoom').textContent };
    });
  const fitted = await size();
  assert.ok(fitted.svg <= fitted.box, `the graph fits its box: ${fitted.svg} <= ${fitted.box}`);
  assert.match(fitted.zoom, /^Zoom \d+%$/);
  await tabTo(page, '#graph-zoom-in');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  const bigger = await size();
  assert.ok(bigger.svg > fitted.svg, 'Zoom in makes it larger');
  await page.focus('#graph-view');
  await page.keyboard.press('-');
  const smaller = await size();
  assert.ok(smaller.svg < bigger.svg, '- zooms out');
  await page.click('#graph-fit');
  const again = await size();
  assert.ok(Math.abs(again.svg - fitted.svg) < 2, 'Fit to the box returns to the fitted size');
  await shot(page, 'graph-fitted');
  await axe(page, 'graph-zoom');
  clean();
});

test('signed in: the team’s private ruleset and rulebook, each to a decision', async (t) => {
  const { page, clean } = await open(t, '/#/sign-in', { refusals: true });
  await page.fill('#api-key', key);
  await page.click('#sign-in');
  await page.waitForSelector('#signed-in');

  // The catalogue lists the team's own beside the public ones.
  // Within the page's life (a hash change, not a reload): the session is the one signed in here.
  await page.evaluate(() => {
    window.location.hash = '#/';
  });
  await page.waitForSelector(`#catalogue a[href="#/ruleset/${encodeURIComponent(privateSlug)}"]`);
  const own = page.locator('#rulebooks li', { hasText: privateBook });
  await own.waitFor();
  assert.match(await own.innerText(), /Your team only/);
  await axe(page, 'catalogue-signed-in');

  // The private ruleset.
  await page.click(`#catalogue a[href="#/ruleset/${encodeURIComponent(privateSlug)}"]`);
  await answer(page, 'employment.employer_type', publicAgency);
  await answer(page, 'employment.months_employed', '14');
  await answer(page, 'employment.hours_12_months', '1300');
  await answer(page, 'worksite.employees_within_75_miles', '60');
  assert.equal(await outcome(page), 'Eligible');
  assert.equal(JSON.parse(await page.locator('#envelope').textContent()).slug, privateSlug);

  // The private rulebook, at the address the studio links to.
  const res = await fetch(api + '/rulebooks/' + encodeURIComponent(privateBook), { headers: { 'x-api-key': key } });
  assert.equal(res.status, 200);
  const { rulebook_id: rulebookId } = await res.json();
  await page.evaluate((id) => {
    window.location.hash = '#/rulebook/' + encodeURIComponent(id);
  }, rulebookId);
  await page.waitForSelector('h1:has-text("EITC qualifying child")');
  assert.match(await page.locator('.meta').innerText(), /Rulebook, release 1/);
  // Two of its sections hold for 2026 only: decided as of a day in it,
  // whatever day the test runs.
  await decideAsOf(page, '2026-06-30');
  await answerAll(page, {
    'child.relationship': 'son_or_daughter',
    'child.date_of_birth': '2015-03-01',
    'taxpayer.date_of_birth': '1980-01-01',
    'child.permanently_disabled': 'no',
    'child.full_time_student': 'no',
    'taxpayer.files_jointly': 'no',
    'spouse.date_of_birth': '1981-01-01',
    'residence.abode_in_united_states': 'yes',
    'residence.days_lived_together': '300',
    'child.filed_joint_return': 'no',
    'child.joint_return_only_for_refund': 'no',
  });
  assert.equal(await outcome(page), 'Eligible');
  const parts = page.locator('.sections li');
  assert.equal(await parts.count(), 4, 'each section’s own outcome');
  assert.match(await parts.first().innerText(), /^A\. EITC qualifying child: relationship test: Eligible$/);
  assert.match(await page.locator('#answers').innerText(), /1 March 2015/);
  const env = JSON.parse(await page.locator('#envelope').textContent());
  assert.equal(env.rulebook_id, rulebookId);
  assert.equal(env.request.rulebook_id, rulebookId);
  assert.ok(env.request.release_id, 'the replay names the release');
  await shot(page, 'rulebook-eligible');
  await axe(page, 'rulebook-decision');

  // The replay through the key gives the same decision.
  const replay = await (
    await fetch(api + '/decide', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(env.request) })
  ).json();
  assert.equal(replay.decision, env.decision);
  assert.equal(replay.inputs_hash, env.inputs_hash);

  const token = await page.evaluate(async () => (await fetch('/console/session', { credentials: 'same-origin' })).headers.get('X-CSRF-Token'));
  await page.evaluate(
    async (csrf) => fetch('/console/session', { method: 'DELETE', credentials: 'same-origin', headers: { 'X-CSRF-Token': csrf } }),
    token,
  );
  clean();
});
