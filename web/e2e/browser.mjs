// What the console's browser tests share (not a test file itself: node
// --test runs *.test.mjs): Debian's chromium driven by playwright-core in
// a throwaway profile, pages that fail a test when they request another
// host, break the content security policy or throw, screenshots, keyboard
// steps and the axe-core accessibility check. Each test file keeps its
// screenshots and reports in its own folder under e2e/artifacts/.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

export const origin = process.env.ELIGO_URL;
if (!origin) {
  throw new Error('ELIGO_URL is not set: run web/e2e/run.sh');
}
const here = path.dirname(fileURLToPath(import.meta.url));
const axeSource = fs.readFileSync(path.join(here, '..', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/**
 * apiCall makes one call to the API (under /api/v1/public) with key and
 * answers its JSON, failing the test on a refusal.
 */
export async function apiCall(key, method, p, body) {
  const res = await fetch(origin + '/api/v1/public' + p, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  const out = await res.json();
  assert.ok(res.ok, `${method} ${p}: ${res.status} ${JSON.stringify(out)}`);
  return out;
}

/**
 * launch starts chromium on a fresh profile (CHROMIUM names another
 * binary) and returns its context and a close that also removes the
 * profile.
 */
export async function launch() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'eligo-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * launchBrowser is launch for a test file that keeps screenshots and
 * reports: artifacts (a folder name under e2e/artifacts) is emptied for
 * them, and the answer's dir names it.
 */
export async function launchBrowser(artifacts) {
  const dir = path.join(here, 'artifacts', artifacts);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return { ...(await launch()), dir };
}

/**
 * open starts a page at the console path p and records what it must never
 * do: request another host, break the content security policy, or throw.
 * With refusals, an HTTP 4xx the page asked for and handled (the studio's
 * "who is signed in" answers 401 when nobody is) is not held against it;
 * policy violations and script errors always are.
 */
export async function open(browser, t, p, viewport, { refusals = false } = {}) {
  const page = await browser.context.newPage();
  // Generous waits: CI shares two cores, and loading and running Mermaid
  // in a headless browser without a GPU takes seconds.
  page.setDefaultTimeout(120_000);
  if (viewport) await page.setViewportSize(viewport);
  const problems = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(origin + '/') && !r.url().startsWith('data:')) problems.push(`request to another host: ${r.url()}`);
  });
  page.on('console', (m) => {
    if (m.type() === 'error' && !(refusals && httpRefusal(m.text()))) problems.push(`console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // Chromium's console line for a refused request names no address, so
  // every refusal is kept with its method and path to say which it was.
  const refused = [];
  page.on('response', (r) => {
    if (r.status() >= 400) refused.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
  });
  t.after(async () => {
    await page.close();
  });
  await page.goto(origin + p);
  return {
    page,
    clean() {
      assert.deepEqual(problems, [], `the page made no foreign request, no policy violation and no error (refused requests: ${refused.join(', ') || 'none'})`);
    },
  };
}

/** httpRefusal recognises chromium's console line for a 4xx answer. */
function httpRefusal(text) {
  return /^Failed to load resource: the server responded with a status of (401|404|409|422)\b/.test(text);
}

/** shot saves a full-page screenshot in the file's artifacts. */
export async function shot(browser, page, name) {
  await page.screenshot({ path: path.join(browser.dir, name + '.png'), fullPage: true });
}

/** tabTo presses Tab until the focused element matches selector. */
export async function tabTo(page, selector, limit = 60) {
  for (let i = 0; i < limit; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** signIn signs in to the studio's sign-in form with key from the keyboard, as a person would. */
export async function signIn(page, key) {
  await page.waitForSelector('#api-key');
  await tabTo(page, '#api-key');
  await page.keyboard.type(key);
  await page.keyboard.press('Enter');
}

/** press tabs to a control and presses Enter on it, as a keyboard user would. */
export async function press(page, selector, limit = 200) {
  await tabTo(page, selector, limit);
  await page.keyboard.press('Enter');
}

/** questionFor waits until the interview's question is about fieldId. */
export async function questionFor(page, fieldId) {
  await page.waitForSelector(`#question-form[data-field="${fieldId}"]`);
}

/**
 * answer fills the interview's current question (text, a date as
 * YYYY-MM-DD, or the label of a choice) and continues.
 */
export async function answer(page, fieldId, value) {
  await questionFor(page, fieldId);
  const form = page.locator('#question-form');
  if ((await form.locator('input[type=radio]').count()) > 0) {
    await form.getByLabel(value, { exact: true }).check();
  } else {
    await form.locator('input:not([type=radio])').fill(value);
  }
  await page.click('#continue');
}

/**
 * answerAll answers whatever the planner asks from values (by field id: a
 * choice's value, yes or no, a number or a date) until a decision shows;
 * the questions on the fields skip names are skipped instead.
 */
export async function answerAll(page, values, skip = []) {
  for (let i = 0; i < 20; i++) {
    await page.waitForSelector('#question-form, #outcome');
    if ((await page.locator('#outcome').count()) > 0) return;
    const form = page.locator('#question-form');
    const field = await form.getAttribute('data-field');
    const value = values[field];
    if (skip.includes(field)) {
      await page.click('#skip');
    } else {
      assert.ok(value !== undefined, `no answer prepared for ${field}`);
      if ((await form.locator('input[type=radio]').count()) > 0) {
        await form.locator(`input[type=radio][value="${value}"]`).check();
      } else {
        await form.locator('input:not([type=radio])').fill(value);
      }
      await page.click('#continue');
    }
    await page.waitForFunction((f) => document.querySelector('#question-form')?.getAttribute('data-field') !== f || document.querySelector('#outcome'), field);
  }
  throw new Error('no decision after 20 answers');
}

/**
 * decideAsOf applies a decision date (YYYY-MM-DD) in the interview's
 * "Decide as of" form and waits until the page shows what the service
 * answered for it: the next question, or the decision dated that day.
 */
export async function decideAsOf(page, date) {
  // Opened once; a second date is typed into the open form.
  if (!(await page.locator('#asof').evaluate((d) => d.open))) await page.locator('#asof summary').click();
  await page.fill('#decision-date', date);
  const answered = page.waitForResponse((r) => r.url().endsWith('/decide') && (r.request().postData() ?? '').includes(`"decision_date":"${date}"`));
  await page.click('#decision-date-apply');
  await answered;
  const words = new Date(date + 'T00:00:00Z').toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
  await page.waitForFunction(
    (w) => document.querySelector('#question-form') !== null || (document.querySelector('#decided-as-of')?.textContent ?? '').includes(w),
    words,
  );
}

/** outcome waits for the interview's decision and says it ("Eligible"). */
export async function outcome(page) {
  // Read in the page as it appears, so a redraw between finding the
  // element and reading it cannot lose it.
  const text = await page.waitForFunction(() => document.querySelector('#outcome')?.textContent?.trim() || null);
  return text.jsonValue();
}

/**
 * checkAxe runs axe-core on the page and fails on any serious or critical
 * violation; the report is written to report when given.
 */
export async function checkAxe(page, name, report) {
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  if (report) fs.writeFileSync(report, JSON.stringify(result, null, 2));
  const grave = result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(grave, [], `axe-core: serious or critical violations on ${name}`);
}

/** axe is checkAxe with the report kept in the file's artifacts (launchBrowser). */
export async function axe(browser, page, name) {
  await checkAxe(page, name, path.join(browser.dir, `axe-${name}.json`));
}
