// End-to-end tests of the studio's Generate screen in a real browser
// against a real `eligo serve` whose generation calls the scripted model of
// model.mjs (run.sh starts both; ELIGO_MODEL_URL is the model's address,
// which the test scripts). The flow: upload a source, try a model whose
// budget the prompt exceeds (explained, nothing sent to the model), a
// model whose draft keeps failing a test (the failures listed), then type a
// provider key and generate and test while the progress shows, read the
// outcome; the key field is empty after, no page storage holds the key,
// and the model received it in the Authorization header only. Then settle
// the draft's source question as guidance, start a generation that hangs,
// reload the page (it is picked up from the status) and cancel it. Every
// state of the screen is checked with axe-core; screenshots and reports go
// to e2e/artifacts/generate/.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { axe as axeIn, launchBrowser, open as openIn, origin, shot as shotIn, tabTo } from './browser.mjs';

const key = process.env.ELIGO_KEY;
const modelURL = process.env.ELIGO_MODEL_URL;
if (!key || !modelURL) {
  throw new Error('ELIGO_KEY and ELIGO_MODEL_URL are not set: run web/e2e/run.sh');
}
const here = path.dirname(fileURLToPath(import.meta.url));
const statute = path.join(here, 'testdata', 'usc29-2611.html');
const statuteURL = 'https://www.law.cornell.edu/uscode/text/29/2611';
// A provider key no other part of the page or server has any reason to hold.
const providerKey = `sk-e2e-${Date.now().toString(36)}-never-keep-me`;

/** rules is what the scripted model writes: it compiles, its quotes are in the statute, and both tests pass. */
const rules = `section fmla_gen
name "FMLA length of service"

source usc29_2611 "29 U.S.C. 2611(2)" url "${statuteURL}" licence "public-domain"

field employment.months_employed int weight 1
  question "For how many months have you worked for this employer?"
field employment.hours_12_months decimal weight 2
  question "How many hours did you work for this employer in the last 12 months?"

group service all "Length and amount of service" {
  criterion tenure "Employed for at least 12 months" {
    employment.months_employed >= 12
    cite usc29_2611 "for at least 12 months by the employer with respect to whom leave is requested"
  }
  criterion hours "At least 1,250 hours in the previous 12 months" {
    employment.hours_12_months >= 1250
    cite usc29_2611 "for at least 1,250 hours of service with such employer during the previous 12-month period"
  }
}
outcome service
`;

const question = {
  id: 'q1',
  quote: 'for at least 12 months by the employer',
  question: 'Must the 12 months be consecutive?',
  candidate_readings: ['The months need not be consecutive.', 'The months must be consecutive.'],
  provisional_reading: 'The months need not be consecutive.',
};

const reply = '```rules\n' + rules + '```\n\n```questions\n' + JSON.stringify([question]) + '\n```\n';

let browser;

before(async () => {
  browser = await launchBrowser('generate');
});

after(async () => {
  await browser?.close();
});

const open = (t, p) => openIn(browser, t, p, undefined, { refusals: true });
const shot = (page, name) => shotIn(browser, page, name);
const axe = (page, name) => axeIn(browser, page, name);

/** api calls the authoring API with the test's key. */
async function api(method, p, body) {
  const res = await fetch(`${origin}/api/v1/public${p}`, {
    method,
    headers: { 'x-api-key': key, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${p}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** script appends a turn to the scripted model's answers. */
async function script(turn) {
  const res = await fetch(`${modelURL}/script`, { method: 'POST', body: JSON.stringify(turn) });
  assert.ok(res.ok);
}

/** modelRequests is what the scripted model has received so far. */
async function modelRequests() {
  return (await fetch(`${modelURL}/requests`)).json();
}

/** noKeyKept says the provider key is in no field, no page storage, no cookie and not in the address. */
async function noKeyKept(page) {
  assert.equal(await page.inputValue('#provider-key'), '', 'the key field is emptied');
  const kept = await page.evaluate(() => ({
    local: JSON.stringify(Object.entries(localStorage)),
    session: JSON.stringify(Object.entries(sessionStorage)),
    cookie: document.cookie,
    url: location.href,
    page: document.documentElement.outerHTML,
  }));
  for (const [where, text] of Object.entries(kept)) assert.ok(!text.includes(providerKey), `the provider key is not in ${where}`);
}

/** typeKey types the provider key into its field from the keyboard. */
async function typeKey(page) {
  await page.focus('#provider-key');
  await page.keyboard.type(providerKey);
}

test('generate: over budget, generate and test with progress, the key forgotten, a question settled, a reload picked up and cancelled', async (t) => {
  const project = await api('POST', '/projects/', {
    name: 'FMLA generated',
    section_id: 'fmla_gen',
    source_text: '',
    test_cases: [
      { name: 'long service', field_values: { 'employment.months_employed': 14, 'employment.hours_12_months': 1300 }, expected_outcome: 'eligible' },
      { name: 'short service', field_values: { 'employment.months_employed': 3, 'employment.hours_12_months': 1300 }, expected_outcome: 'not_eligible' },
    ],
  });
  const projectId = project.project_id;
  const { page, clean } = await open(t, '/#/studio');

  // Sign in, then upload the statute on the Sources screen.
  await page.waitForSelector('#api-key');
  await page.fill('#api-key', key);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#signed-in-as');
  await page.goto(`${origin}/#/studio/projects/${projectId}/sources`);
  await page.waitForSelector('#upload-form');
  await page.setInputFiles('#source-file', statute);
  await page.fill('#source-url', statuteURL);
  await page.fill('#source-licence', 'public-domain');
  await page.click('#upload');
  await page.waitForFunction(() => document.querySelectorAll('#sources > li').length === 1);

  // The Generate tab: the server's models, the default chosen.
  await tabTo(page, '#tab-generate', 80);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#generate-form');
  await page.waitForFunction(() => document.querySelectorAll('#gen-model option').length === 2);
  assert.equal(await page.inputValue('#gen-model'), 'scripted', 'the default model is chosen');
  assert.match(await page.locator('#gen-model-hint').textContent(), /up to 115,072 tokens/);
  assert.equal(await page.getAttribute('#provider-key', 'type'), 'password');
  assert.equal(await page.getAttribute('#provider-key', 'autocomplete'), 'off');
  await page.waitForFunction(() => /no question/.test(document.querySelector('#questions-summary')?.textContent ?? ''));
  await axe(page, 'generate');

  // Without a key: said at the field, nothing sent.
  await page.click('#generate-and-test');
  await page.waitForSelector('#provider-key[aria-invalid=true]');
  assert.match(await page.locator('#provider-key-error').textContent(), /provider key/);

  // A model whose budget the prompt exceeds: explained, with what to do.
  await page.selectOption('#gen-model', 'scripted-tiny');
  assert.match(await page.locator('#gen-model-hint').textContent(), /up to 768 tokens/);
  await typeKey(page);
  await page.click('#generate');
  await page.waitForSelector('#generate-budget:not([hidden])');
  const budget = await page.locator('#generate-budget').textContent();
  assert.match(budget, /too large for this model/);
  assert.match(budget, /at most 768/);
  assert.match(budget, /usc29-2611\.html: [\d,]+ tokens/, 'the largest source is named');
  assert.match(budget, /Reference only/);
  assert.doesNotMatch(budget, /token_budget_exceeded|\{/, 'no reason code, no JSON');
  assert.equal(await page.locator('#generate-budget a[href$="/sources"]').count(), 1);
  await noKeyKept(page);
  assert.equal((await modelRequests()).length, 0, 'nothing was sent to the model');
  await axe(page, 'generate-over-budget');

  // A model that never gets the tenure right: four rounds (the first and
  // three repairs), the draft kept but failing, each failure with its hint.
  const wrong = '```rules\n' + rules.replace('>= 12', '>= 24') + '```\n';
  for (let i = 0; i < 4; i++) await script({ reply: wrong });
  await page.selectOption('#gen-model', 'scripted');
  await typeKey(page);
  await page.click('#generate-and-test');
  await page.waitForSelector('#gen-outcome:not([hidden])');
  assert.match(await page.locator('#gen-headline').textContent(), /saved but not yet right\. 1 of 2 tests pass\./);
  const failures = await page.locator('#gen-failures li').allTextContents();
  assert.equal(failures.length, 1);
  assert.match(failures[0], /^long service: expected eligible, decided not eligible\./);
  assert.match(await page.locator('#gen-outcome').textContent(), /4 rounds/);
  assert.equal((await modelRequests()).length, 4);
  await axe(page, 'generate-failing');

  // Generate and test with the default model: the model takes its time,
  // so the progress shows; then the outcome.
  await script({ reply, delay_ms: 2500 });
  await typeKey(page);
  await tabTo(page, '#generate-and-test', 20);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#gen-progress:not([hidden])');
  assert.equal(await page.inputValue('#provider-key'), '', 'the key field is emptied as the request leaves');
  await page.waitForFunction(() => /Waiting for the model/.test(document.querySelector('#gen-stage')?.textContent ?? ''));
  assert.equal(await page.getAttribute('#gen-stage', 'aria-live'), 'polite');
  assert.match(await page.locator('#gen-round').textContent(), /^1$/);
  assert.match(await page.locator('#gen-elapsed').textContent(), /\d+ s/);
  assert.equal(await page.locator('#cancel-generation').isVisible(), true);
  await axe(page, 'generate-running');
  await shot(page, 'generate-running');
  await page.waitForSelector('#gen-outcome:not([hidden])');
  assert.equal(await page.locator('#gen-progress').isHidden(), true);
  assert.match(await page.locator('#gen-headline').textContent(), /The new draft is ready\. All 2 tests pass\./);
  const outcome = await page.locator('#gen-outcome').textContent();
  assert.match(outcome, /Quotes: 2 found in the sources, 0 not found/);
  assert.match(outcome, /1 round, [\d,]+ tokens used/);
  assert.equal(await page.locator('#gen-open-draft').getAttribute('href'), `#/studio/projects/${projectId}/draft`);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'gen-outcome-heading', 'focus moves to the outcome');
  await noKeyKept(page);

  // The model got the key in the Authorization header, and nowhere else.
  const seen = await modelRequests();
  assert.equal(seen.length, 5);
  for (const r of seen) {
    assert.equal(r.headers.authorization, `Bearer ${providerKey}`);
    const elsewhere = JSON.stringify({ ...r.headers, authorization: '' }) + r.body;
    assert.ok(!elsewhere.includes(providerKey), 'the key is in no other header and not in the prompt');
  }
  const draft = await api('GET', `/projects/${projectId}/draft`);
  assert.equal(draft.origin, 'generation');

  // The source question: its quote, the readings, the provisional one
  // marked; settle it with the other reading.
  const item = page.locator('#question-q1');
  await item.waitFor();
  const text = await item.textContent();
  assert.match(text, /Must the 12 months be consecutive\?/);
  assert.match(text, /for at least 12 months by the employer/);
  assert.equal(await item.locator('input[type=radio]').count(), 2);
  assert.equal(await item.locator('input[type=radio]:checked').getAttribute('value'), question.provisional_reading, 'the provisional reading is chosen at first');
  assert.match(await item.locator('label', { hasText: 'need not' }).textContent(), /Used in the draft for now/);
  await axe(page, 'generate-outcome');
  await shot(page, 'generate-outcome');
  await item.getByLabel('The months must be consecutive.').check();
  await item.getByRole('button', { name: 'Settle with this reading' }).click();
  await page.waitForSelector('#question-q1 .settled');
  assert.match(await page.locator('#question-q1 .settled').textContent(), /Read as: The months must be consecutive\./);
  const notes = await api('GET', `/projects/${projectId}/guidance`);
  assert.equal(notes.guidance.length, 1);
  assert.equal(notes.guidance[0].process_type, 'rule_generation');
  assert.match(notes.guidance[0].guidance_text, /Must the 12 months be consecutive\?.*The months must be consecutive\.$/);
  const settledDraft = await api('GET', `/projects/${projectId}/draft`);
  assert.equal(settledDraft.source_questions.find((q) => q.id === 'q1')?.resolved, true, 'the draft marks the settled question resolved');

  // A generation that hangs at the model: reloading the page picks it up
  // from the status; Cancel asks first, then stops it.
  await script({ hang: true });
  await typeKey(page);
  await page.click('#generate');
  await page.waitForSelector('#gen-progress:not([hidden])');
  await page.reload();
  await page.waitForSelector('#gen-progress:not([hidden])');
  await page.waitForFunction(() => /Waiting for the model/.test(document.querySelector('#gen-stage')?.textContent ?? ''));
  assert.match(await page.locator('#question-q1 .settled').textContent(), /must be consecutive/, 'a settled question stays settled');
  await tabTo(page, '#cancel-generation', 80);
  await page.keyboard.press('Enter');
  await page.waitForSelector('dialog[open]');
  await axe(page, 'generate-cancel-dialog');
  await page.click('#dialog-cancel');
  await page.waitForSelector('dialog', { state: 'detached' });
  assert.equal(await page.locator('#gen-progress').isVisible(), true, 'keeping it running changes nothing');
  await page.click('#cancel-generation');
  await page.click('#dialog-confirm');
  await page.waitForSelector('#gen-outcome:not([hidden])');
  assert.match(await page.locator('#gen-headline').textContent(), /cancelled/);
  const st = await api('GET', `/projects/${projectId}/status`);
  assert.equal(st.outcome, 'cancelled');
  assert.equal((await modelRequests()).length, 6);
  await noKeyKept(page);
  await axe(page, 'generate-cancelled');
  clean();
});
