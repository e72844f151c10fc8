// End-to-end tests of the console in a real browser: playwright-core driving
// Debian's chromium against a real `eligo serve` with casebank rulesets
// published (run.sh sets it up and passes its address in ELIGO_URL).
// Screenshots and accessibility reports go to e2e/artifacts/console/.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { answer, answerAll, axe as axeIn, launchBrowser, open as openIn, origin, outcome, questionFor, shot as shotIn, tabTo } from './browser.mjs';

const api = origin + '/api/v1/public';
const fmla = '/#/ruleset/' + encodeURIComponent('demo/us-fmla-employee');
const voter = '/#/ruleset/' + encodeURIComponent('demo/ca-voter-registration');
// The FMLA ruleset's labels for its employer types.
const publicAgency = 'A public agency (state, local or a federal agency outside title 5)';

let browser;

before(async () => {
  browser = await launchBrowser('console');
});

after(async () => {
  await browser?.close();
});

const open = (t, p, viewport) => openIn(browser, t, p, viewport);
const shot = (page, name) => shotIn(browser, page, name);
const axe = (page, name) => axeIn(browser, page, name);

test('the console is served at / with a strict policy', async () => {
  const res = await fetch(origin + '/');
  assert.equal(res.status, 200);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /script-src 'self';/);
});

test('catalogue: the public rulesets, searchable, with rule count and version', async (t) => {
  const { page, clean } = await open(t, '/');
  await page.waitForSelector('#catalogue li');
  const listed = await (await fetch(api + '/rulesets')).json();
  assert.equal(await page.locator('#catalogue li').count(), listed.length);
  const card = page.locator('#catalogue li', { hasText: 'FMLA employee eligibility' });
  const fmlaSummary = listed.find((r) => r.slug === 'demo/us-fmla-employee');
  assert.match(await card.textContent(), new RegExp(`Conditions:?\\s*${fmlaSummary.rule_count}`));
  assert.match(await card.textContent(), /Version:?\s*v1/);
  await page.fill('#search', 'fmla');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelectorAll('#catalogue li').length === 1);
  assert.match(await page.locator('#catalogue li').textContent(), /FMLA/);
  await shot(page, 'catalogue-search');
  await axe(page, 'catalogue');
  clean();
});

test('keyboard only: an interview to eligible asks only the questions that matter', async (t) => {
  const { page, clean } = await open(t, '/');
  await page.waitForSelector('#catalogue li');
  await tabTo(page, 'a[href*="us-fmla-employee"]');
  await page.keyboard.press('Enter');
  await questionFor(page, 'employment.employer_type');
  // Into the choices, down to "public agency", then on to Continue.
  await tabTo(page, 'input[type=radio]');
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.locator('#question-form input[value=public_agency]').isChecked(), true);
  await tabTo(page, '#continue');
  await page.keyboard.press('Enter');
  // Each new question takes the focus: type and press Enter.
  for (const [field, value] of [
    ['employment.months_employed', '14'],
    ['employment.hours_12_months', '1300'],
    ['worksite.employees_within_75_miles', '60'],
  ]) {
    await questionFor(page, field);
    await page.waitForFunction((f) => document.activeElement?.closest('#question-form')?.getAttribute('data-field') === f, field);
    await page.keyboard.type(value);
    await page.keyboard.press('Enter');
  }
  assert.equal(await outcome(page), 'Eligible');
  // Four answers: the employer-size question never mattered for a public agency.
  assert.equal(await page.locator('#answers li').count(), 4);
  assert.equal(await page.locator('#answers li[data-field="employer.workweeks_with_50_employees"]').count(), 0);
  assert.match(await page.locator('#progress-text').textContent(), /Decided after 4 answers/);
  await shot(page, 'fmla-eligible');
  await axe(page, 'decision-eligible');
  clean();
});

test('each criterion shows its status, answers and the verbatim quote with a deep link', async (t) => {
  const { page, clean } = await open(t, fmla);
  await answer(page, 'employment.employer_type', publicAgency);
  await answer(page, 'employment.months_employed', '14');
  await answer(page, 'employment.hours_12_months', '1300');
  await answer(page, 'worksite.employees_within_75_miles', '60');
  assert.equal(await outcome(page), 'Eligible');
  const hours = page.locator('.explanation li[data-criterion="hours"]');
  assert.match(await hours.locator('.badge').textContent(), /Met/);
  assert.match(await hours.locator('.facts-used').textContent(), /1,300 hours/);
  const quote = hours.locator('figure.quote').first();
  const exact = (await quote.locator('blockquote').textContent()).trim();
  const href = await quote.locator('a.source-link').getAttribute('href');
  assert.match(href, /^https:\/\/.+#:~:text=/);
  assert.equal(decodeURIComponent(href.split('#:~:text=')[1]), exact, 'the link opens the source at the quoted words');
  assert.equal(await quote.locator('a.source-link').getAttribute('rel'), 'noopener noreferrer');
  clean();
});

test('not eligible: the minimal reasons, what would need to change', async (t) => {
  const { page, clean } = await open(t, voter);
  await answer(page, 'person.us_citizen', 'No');
  assert.equal(await outcome(page), 'Not eligible');
  const reasons = page.locator('.reasons li.reason');
  assert.equal(await reasons.count(), 1);
  assert.match(await reasons.first().textContent(), /United States citizen/);
  // How many conditions would need to change is the service's count (changes_needed), with their names.
  assert.match(await page.locator('.reasons > p').first().textContent(), /to change for “eligible”: one \(.*United States citizen.*\)\.$/);
  // The rule in plain language; the rules language only behind "For specialists".
  assert.match(await reasons.first().locator('.condition .sentence').textContent(), /^The rule: /);
  assert.match(await reasons.first().locator('details.specialists code').textContent(), /person\.us_citizen/);
  assert.ok((await reasons.first().locator('figure.quote a.source-link').count()) > 0, 'the reason carries its law');
  await shot(page, 'voter-not-eligible');
  await axe(page, 'decision-not-eligible');
  clean();
});

test('a refused answer is shown next to it, and correcting it goes on', async (t) => {
  const { page, clean } = await open(t, fmla);
  await answer(page, 'employment.employer_type', publicAgency);
  await answer(page, 'employment.months_employed', 'fourteen');
  await questionFor(page, 'employment.months_employed');
  const error = page.locator('#question-form .control .field-error');
  await error.waitFor();
  assert.match(await error.textContent(), /expected a number/);
  const input = page.locator('#question-form input[type=text]');
  assert.equal(await input.getAttribute('aria-invalid'), 'true');
  const described = (await input.getAttribute('aria-describedby')).split(' ');
  assert.ok(described.includes(await error.getAttribute('id')), 'the error describes the input');
  assert.equal(await input.inputValue(), 'fourteen', 'the refused answer stays for correction');
  assert.match(await page.locator('#answers li[data-field="employment.months_employed"]').textContent(), /expected a number/);
  await shot(page, 'fmla-field-error');
  await axe(page, 'field-error');
  await answer(page, 'employment.months_employed', '14');
  // The corrected answer is taken: the interview moves on to another question.
  await page.waitForFunction(() => {
    const form = document.querySelector('#question-form');
    return form !== null && form.getAttribute('data-field') !== 'employment.months_employed';
  });
  assert.equal(await page.locator('#question-form .control .field-error').count(), 0);
  assert.equal(await page.locator('#answers li.invalid').count(), 0);
  clean();
});

test('skip and back: a skipped question goes to inquiry_context, back returns to it', async (t) => {
  const { page, clean } = await open(t, fmla);
  await questionFor(page, 'employment.employer_type');
  await page.click('#skip');
  await questionFor(page, 'employment.months_employed');
  assert.match(await page.locator('#answers li[data-field="employment.employer_type"]').textContent(), /Skipped/);
  await page.click('#back');
  await questionFor(page, 'employment.employer_type');
  assert.equal(await page.locator('#answers li').count(), 0);
  clean();
});

test('undetermined: a skipped question nothing can replace, its reason, and the way back to it', async (t) => {
  const { page, clean } = await open(t, fmla);
  await questionFor(page, 'employment.employer_type');
  await page.click('#skip');
  await answer(page, 'employment.months_employed', '14');
  await answer(page, 'employment.hours_12_months', '1300');
  await answer(page, 'worksite.employees_within_75_miles', '60');
  assert.equal(await outcome(page), 'Undetermined');
  const reasons = page.locator('.reasons li.reason');
  assert.ok((await reasons.count()) >= 1);
  assert.match(await page.locator('.reasons').innerText(), /Not answered yet: Employer\n/);
  await shot(page, 'fmla-undetermined');
  await page.locator('.skipped button').first().click();
  await answer(page, 'employment.employer_type', publicAgency);
  assert.equal(await outcome(page), 'Eligible');
  clean();
});

test('the graph is drawn as SVG from the Mermaid text, coloured by the answers', async (t) => {
  const { page, clean } = await open(t, fmla);
  await answer(page, 'employment.employer_type', publicAgency);
  await answer(page, 'employment.months_employed', '14');
  await answer(page, 'employment.hours_12_months', '1000');
  assert.equal(await outcome(page), 'Not eligible');
  await page.locator('#graph summary').click();
  await page.waitForSelector('#graph-view svg g.node');
  const graph = await (await fetch(api + '/rulesets/' + encodeURIComponent('demo/us-fmla-employee') + '/graph')).json();
  assert.equal(await page.locator('#graph-view svg g.node').count(), graph.graph.nodes.length);
  assert.ok((await page.locator('#graph-view svg g.node.satisfied').count()) >= 2, 'met criteria are classed satisfied');
  assert.ok((await page.locator('#graph-view svg g.node.not_satisfied').count()) >= 2, 'the hours criterion and its group are classed not_satisfied');
  assert.match(await page.locator('#graph-view svg g.node.not_satisfied').first().textContent(), /✘/);
  assert.equal(await page.locator('#graph-view svg').getAttribute('role'), 'img');
  await shot(page, 'fmla-graph');
  await axe(page, 'graph');
  clean();
});

test('the graph draws named values and a table as hexagons, each with its figure', async (t) => {
  const { page, clean } = await open(t, '/#/ruleset/' + encodeURIComponent('demo/bill-help'));
  await answerAll(page, { 'income.earned': '1000', 'household.region': 'north' });
  assert.equal(await outcome(page), 'Eligible');
  await page.locator('#graph summary').click();
  await page.waitForSelector('#graph-view svg g.node');
  const graph = await (await fetch(api + '/rulesets/' + encodeURIComponent('demo/bill-help') + '/graph')).json();
  assert.equal(graph.graph.nodes.filter((n) => n.type === 'value').length, 3);
  assert.equal(await page.locator('#graph-view svg g.node').count(), graph.graph.nodes.length, 'every node is drawn, the hexagons too');
  const node = (id) => page.locator(`#graph-view svg g.node[id*="-flowchart-${id}-"]`);
  // Mermaid wraps a long label into lines, dropping the spaces between them.
  const drawn = async (id) => (await node(id).textContent()).replace(/\s+/g, '');
  assert.equal(await drawn('value_net'), 'Netincome=$800');
  assert.equal(await drawn('value_deduction'), 'Earnedincomededuction=$200');
  assert.equal(await drawn('value_limit'), 'Incomelimit(table)=$1,500');
  // A hexagon is drawn as a six-cornered outline, a criterion as a box.
  assert.equal(await node('value_net').locator('polygon, path').count() > 0, true);
  assert.match(await node('criterion_under').textContent(), /✔/);
  await shot(page, 'values-graph');
  await axe(page, 'values-graph');
  clean();
});

test('a household is asked how many people, then about each person under their name, with add and remove', async (t) => {
  const { page, clean } = await open(t, '/#/ruleset/' + encodeURIComponent('demo/household-help'));
  await questionFor(page, 'member');
  assert.match(await page.locator('#question-form').textContent(), /How many people live in your household/);
  const bodies = [];
  const sent = [];
  page.on('request', (r) => {
    if (r.method() !== 'POST') return;
    bodies.push(r.postData() ?? '');
    if (r.url().endsWith('/decide')) sent.push(JSON.parse(r.postData()).field_values);
  });
  // The input of a person's question, by its field id ("member[1].age").
  const input = (id) => '#q-' + id.replace(/[^A-Za-z0-9_-]/g, '-');
  const focused = () => page.evaluate(() => document.activeElement?.id ?? '');
  const said = (text) => page.waitForFunction((w) => document.getElementById('status')?.textContent === w, text);
  const people = () => page.locator('#question-form li.person > fieldset > legend').allTextContents();
  await answer(page, 'member', '2');
  // Each person's questions under them; the planner's question has the focus.
  await page.waitForSelector('#question-form.household[data-field="member[0].age"]');
  assert.deepEqual(await people(), ['Person 1', 'Person 2']);
  assert.equal(await focused(), 'q-member-0--age');
  assert.match(await page.locator('#household-names-hint').textContent(), /never sent/);
  assert.equal(await page.getByLabel('Who is this? (optional)').count(), 2, 'each name field is labelled');
  await axe(page, 'household-people');
  // A name typed names the person at once.
  await page.fill('#person-label-member-1', 'Maria');
  assert.deepEqual(await people(), ['Person 1', 'Maria']);
  assert.equal(await page.locator('li.person[data-person="1"] .remove-person').textContent(), 'Remove Maria');
  await page.fill(input('member[0].age'), '34');
  await page.fill(input('member[1].age'), '40');
  // Add: the new person's first question takes the focus, what was typed stays.
  await page.click('#add-person');
  await page.waitForSelector('#question-form.household[data-field="member[2].age"]');
  await said('Person 3 added.');
  assert.equal(await focused(), 'q-member-2--age');
  assert.deepEqual(await people(), ['Person 1', 'Maria', 'Person 3']);
  assert.equal(await page.inputValue(input('member[1].age')), '40');
  assert.equal(sent.at(-1).member.length, 3, 'the count follows the people shown');
  await shot(page, 'household-added');
  await page.fill(input('member[2].age'), '2');
  // Remove the last person: the focus goes to Add.
  await page.click('li.person[data-person="2"] .remove-person');
  await said('Person 3 removed.');
  await page.waitForFunction(() => document.querySelectorAll('#question-form li.person').length === 2);
  assert.equal(await focused(), 'add-person');
  // Remove the first: Maria takes their place, with her answer, and the focus.
  await page.click('li.person[data-person="0"] .remove-person');
  await said('Person 1 removed.');
  await page.waitForFunction(() => document.querySelectorAll('#question-form li.person').length === 1);
  assert.deepEqual(await people(), ['Maria']);
  assert.equal(await focused(), 'q-member-0--age');
  assert.equal(await page.inputValue(input('member[0].age')), '40');
  assert.equal(await page.inputValue('#person-label-member-0'), 'Maria');
  await page.keyboard.press('Enter');
  // Maria is asked whether she is pregnant, in her group.
  await page.waitForSelector('#question-form.household[data-field="member[0].pregnant"]');
  assert.equal(await focused(), 'q-member-0--pregnant-0');
  await page.check('#q-member-0--pregnant-1');
  await page.click('#continue');
  assert.equal(await outcome(page), 'Not eligible');
  assert.deepEqual(sent.at(-1), { member: [{ age: 40, pregnant: false }] }, 'the household is sent as a list of people');
  // The reasons and the answers name Maria, never a field id.
  const reasons = await page.locator('.reasons').innerText();
  assert.match(reasons, /Maria's age: 40 years/);
  assert.match(reasons, /Maria's pregnancy: No/);
  assert.doesNotMatch(reasons, /Person 2/, 'nobody the household does not have is named');
  // A value of each member (value member.qualifies) has its person's name beside it.
  assert.match(reasons, /Under five or pregnant \(Maria\): no/);
  assert.match(await page.locator('.explanation').innerText(), /Under five or pregnant \(Maria\): no/);
  assert.match(await page.locator('#answers').innerText(), /Maria's age\s+40 years/);
  assert.doesNotMatch(await page.locator('main').innerText(), /member\[/);
  assert.ok(bodies.every((b) => !b.includes('Maria')), 'a name typed is never sent');
  await shot(page, 'household-decision');
  await axe(page, 'household-decision');
  // Back reopens the last answer in Maria's group, filled in.
  await page.click('#back');
  await page.waitForSelector('#question-form.household[data-field="member[0].pregnant"]');
  assert.equal(await page.isChecked('#q-member-0--pregnant-1'), true);
  await page.click('#continue');
  assert.equal(await outcome(page), 'Not eligible');
  // Change: back to Maria's group, under her name.
  await page.getByRole('button', { name: "Change the answer to: Maria's age" }).click();
  await page.waitForSelector('#question-form.household[data-field="member[0].age"]');
  assert.deepEqual(await people(), ['Maria']);
  clean();
});

test('a household at the rules\' bound: Add a person is disabled, and says why', async (t) => {
  const { page, clean } = await open(t, '/#/ruleset/' + encodeURIComponent('demo/household-help'));
  await answer(page, 'member', '5');
  await page.waitForSelector('#question-form.household');
  assert.equal(await page.locator('#add-person').isDisabled(), false);
  await page.click('#add-person');
  await page.waitForFunction(() => document.querySelectorAll('#question-form li.person').length === 6);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'q-member-5--age');
  assert.equal(await page.locator('#add-person').isDisabled(), true);
  assert.equal(await page.locator('#add-person').getAttribute('aria-describedby'), 'add-person-why');
  assert.match(await page.locator('#add-person-why').textContent(), /at most 6/);
  await axe(page, 'household-full');
  clean();
});

test('what-if: change one answer and see the outcome change', async (t) => {
  const { page, clean } = await open(t, fmla);
  await answer(page, 'employment.employer_type', publicAgency);
  await answer(page, 'employment.months_employed', '14');
  await answer(page, 'employment.hours_12_months', '1300');
  await answer(page, 'worksite.employees_within_75_miles', '60');
  assert.equal(await outcome(page), 'Eligible');
  await page.selectOption('#whatif-field', 'worksite.employees_within_75_miles');
  await page.locator('#whatif input[type=text]').fill('40');
  await page.click('#whatif-try');
  await page.waitForSelector('#whatif-result strong.outcome');
  assert.match(await page.locator('#whatif-result').textContent(), /Employees within 75 miles: 40 employees.*would be Not eligible instead of Eligible/s);
  assert.equal(await outcome(page), 'Eligible', 'a what-if changes no answer');
  await shot(page, 'fmla-what-if');
  await page.click('#whatif-keep');
  await page.waitForFunction(() => document.querySelector('#outcome')?.textContent === 'Not eligible');
  assert.match(await page.locator('.reasons').textContent(), /50 or more employees within 75 miles/);
  clean();
});

test('the audit envelope replays to the same decision', async (t) => {
  const { page, clean } = await open(t, voter);
  await answer(page, 'person.us_citizen', 'No');
  assert.equal(await outcome(page), 'Not eligible');
  const env = JSON.parse(await page.locator('#envelope').textContent());
  assert.match(env.decision_id, /^dec_/);
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  await page.getByRole('button', { name: 'Copy the audit envelope' }).click();
  await page.waitForFunction(() => document.getElementById('status')?.textContent === 'Audit envelope copied.');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), await page.locator('#envelope').textContent());
  const res = await fetch(api + '/decide', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(env.request) });
  const replay = await res.json();
  for (const k of ['decision', 'inputs_hash', 'content_digest', 'engine_version', 'ruleset_id']) {
    assert.equal(replay[k], env[k], k);
  }
  assert.notEqual(replay.decision_id, env.decision_id);
  clean();
});

test('a phone-sized screen: the interview fits without sideways scrolling', async (t) => {
  const { page, clean } = await open(t, fmla, { width: 375, height: 740 });
  await answer(page, 'employment.employer_type', 'A private business');
  await questionFor(page, 'employment.months_employed');
  await shot(page, 'phone-question');
  const fits = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  assert.equal(await fits(), true, 'the question fits the width');
  await answer(page, 'employment.months_employed', '6');
  assert.equal(await outcome(page), 'Not eligible');
  await page.locator('#graph summary').click();
  await page.waitForSelector('#graph-view svg g.node');
  assert.equal(await fits(), true, 'the decision and the graph fit the width (the graph scrolls in its box)');
  await shot(page, 'phone-decision');
  await axe(page, 'phone-decision');
  clean();
});

test('a ruleset whose newest period has ended says so, by design', async (t) => {
  // SNAP's FY2026 cut holds until 2026-09-30 and the e2e server publishes
  // no later one: on any later day (the server's clock, ELIGO_TODAY) the
  // service decides undetermined and says why, and the console shows
  // that note rather than an unexplained "Undetermined".
  const res = await fetch(api + '/decide', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ruleset_id: 'demo/snap-income', field_values: {} }),
  });
  const decided = await res.json();
  const ended = decided.decision_date > '2026-09-30';
  const warning = (decided.warnings ?? []).find((w) => w.code === 'outside_effective_period');
  assert.equal(Boolean(warning), ended, `decided as of ${decided.decision_date}: the period warning is there exactly when the period has ended`);
  const { page, clean } = await open(t, '/');
  await page.waitForSelector('#catalogue li');
  await page.click('a[href*="snap-income"]');
  await page.waitForSelector('#progress-text');
  const note = page.locator('#warnings li[data-code="outside_effective_period"]');
  if (ended) {
    await note.waitFor();
    assert.equal((await note.textContent()).trim(), warning.message);
    assert.match(warning.message, /2025-10-01 until 2026-09-30/);
    await shot(page, 'period-ended');
    await axe(page, 'period-ended');
  } else {
    assert.equal(await note.count(), 0);
  }
  clean();
});
