// End-to-end test of the studio's source view in a real browser against a
// real `eligo serve` (run.sh passes a key in ELIGO_KEY): a project with an
// HTML statute, a two-page PDF and a draft citing both, made over the API;
// then, signed in, the statute's text with a cited clause marked by its
// criterion and an uncited one marked so in words, a jump from the clause
// to the criterion in the rules and from the rules' quote back to its
// passage, all from the keyboard, and the PDF page by page; each screen
// checked with axe-core. Screenshots and accessibility
// reports go to e2e/artifacts/srcview/.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { apiCall, axe as axeIn, launchBrowser, open as openIn, origin, press, shot as shotIn, signIn } from './browser.mjs';

const key = process.env.ELIGO_KEY;
if (!key) {
  throw new Error('ELIGO_KEY is not set: run web/e2e/run.sh');
}
const here = path.dirname(fileURLToPath(import.meta.url));
const statute = fs.readFileSync(path.join(here, 'testdata', 'usc29-2611.html'), 'utf8');
const statuteURL = 'https://www.law.cornell.edu/uscode/text/29/2611';
// A two-page PDF: the act's section 1 on page 1, section 2 on page 2.
const grantPDF = fs.readFileSync(path.join(here, 'testdata', 'grant-act.pdf'));
const grantURL = 'https://laws.example.org/grant';
const tenureQuote = 'for at least 12 months by the employer with respect to whom leave is requested';
// A statute-like text with headings and one paragraph split at its
// enumerators, all of it quoted by one criterion.
const licensingURL = 'https://laws.example.org/licensing';
const licensingText =
  'Licensing Act\n\nPART 2 — LICENSING OF APPLICANTS\n\nSection 3. Conditions for a licence\nAn applicant qualifies if the applicant: (a) is resident; (b) is over 18; (c) holds a permit; (d) is employed; (e) applied in writing.\n';
const licensingQuote = 'An applicant qualifies if the applicant: (a) is resident; (b) is over 18; (c) holds a permit; (d) is employed; (e) applied in writing.';

const rules = `section srcview_service
name "FMLA length of service"

source usc29_2611 "29 U.S.C. 2611(2)" url "${statuteURL}" licence "public-domain"
source grant_act "Grant Act" url "${grantURL}" licence "public-domain"
source licensing "Licensing Act" url "${licensingURL}" licence "public-domain"

field employment.months_employed int weight 1
  question "For how many months have you worked for this employer?"
field grant.officer_approved bool weight 1
  question "Did the officer approve the grant?"
field licence.qualifies bool weight 1
  question "Do you meet the licensing conditions?"

group service all "Length of service" {
  criterion tenure "Employed for at least 12 months" {
    employment.months_employed >= 12
    cite usc29_2611 "${tenureQuote}"
  }
  criterion officer "The officer approved" {
    grant.officer_approved == true
    cite grant_act "may, at their discretion, approve the grant"
  }
  criterion licensed "Meets the licensing conditions" {
    licence.qualifies == true
    cite licensing "${licensingQuote}"
  }
}
`;

let browser;

before(async () => {
  browser = await launchBrowser('srcview');
});

after(async () => {
  await browser?.close();
});

/** call makes one API call with the key. */
const call = (method, p, body) => apiCall(key, method, p, body);

test('the source view: clauses marked by what cites them, to the rules and back', async (t) => {
  const project = await call('POST', '/projects/', { name: 'Source view', section_id: 'srcview_service', source_text: '', test_cases: [] });
  const base = `/projects/${project.project_id}`;
  const uploaded = await call('POST', base + '/sources', { filename: 'usc29-2611.html', text: statute, url: statuteURL, licence: 'public-domain', title: '29 U.S.C. 2611' });
  const sourceId = uploaded.sources[0].source_id;
  const pdf = await call('POST', base + '/sources', { filename: 'grant-act.pdf', content_base64: grantPDF.toString('base64'), url: grantURL, licence: 'public-domain' });
  const pdfId = pdf.sources[0].source_id;
  const licensing = await call('POST', base + '/sources', { filename: 'licensing.txt', text: licensingText, url: licensingURL, licence: 'public-domain' });
  const licensingId = licensing.sources[0].source_id;
  const draft = await call('PUT', base + '/draft', { rules });
  assert.equal(draft.compiles, true, JSON.stringify(draft.compile_errors));

  const { page, clean } = await openIn(browser, t, `/#/studio/projects/${project.project_id}/sources`, undefined, { refusals: true });
  const shot = (name) => shotIn(browser, page, name);
  const axe = (name) => axeIn(browser, page, name);

  // Sign in, then from the sources list to the source's text.
  await signIn(page, key);
  await page.waitForSelector('#sources > li');
  await press(page, '#sources > li a.source-text-link');
  await page.waitForSelector('#source-pages');
  assert.ok(page.url().endsWith(`/sources/${sourceId}`), page.url());
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'source-heading', 'focus moves to the source’s heading');
  assert.equal(await page.locator('#source-heading').textContent(), 'Text of 29 U.S.C. 2611');
  assert.match(await page.locator('#source-summary').textContent(), /^1 of \d+ clauses cited by the rules \(\d+%\); \d+ clauses are not cited\.$/);
  assert.equal(await page.locator('#source-cited-as').textContent(), 'The rules cite it as usc29_2611.', 'named as the rules name it');
  assert.ok(!(await page.locator('#main').textContent()).includes(sourceId), 'the project’s own source id is not on the page');

  // The cited clause: marked in words with its criterion and quote.
  const cited = page.locator('.clause-wrap', { has: page.locator('.clause-cited') });
  assert.equal(await cited.count(), 1);
  assert.match(await cited.locator('.clause').textContent(), /for at least 12 months by the employer/);
  assert.equal(await cited.locator('.mark-state').textContent(), 'Cited');
  assert.equal(await cited.locator('a.cite-criterion').textContent(), 'tenure');
  assert.match(await cited.locator('.clause-mark').textContent(), new RegExp(`by tenure “${tenureQuote}”`));
  // An uncited clause: marked "Not cited" in words, and listed.
  const uncited = page.locator('.clause-wrap', { has: page.locator('.clause-uncited') }).filter({ hasText: '1,250 hours' });
  assert.equal(await uncited.locator('.mark-state').textContent(), 'Not cited');
  assert.equal(await uncited.locator('a').count(), 0);
  assert.match(await page.locator('#uncited-clauses').textContent(), /1,250 hours/);
  // A heading is neither.
  assert.equal(await page.locator('.clause-heading', { hasText: '(2) Eligible employee' }).count(), 1);
  await axe('source-text');
  await shot('source-text');

  // From the cited clause to its criterion in the rules: the cursor is on
  // the cite of that quote.
  await press(page, '.clause-wrap a.cite-criterion');
  await page.waitForSelector('.cm-content');
  assert.match(page.url(), /\/draft\?criterion=tenure&quote=/);
  await page.waitForFunction(() => document.activeElement?.classList.contains('cm-content'));
  await shot('rules-at-criterion');
  assert.match(await page.locator('.cm-activeLine').textContent(), new RegExp(`cite usc29_2611 "${tenureQuote}"`));
  assert.match(await page.locator('#quotes').textContent(), /Criterion tenure: “for at least 12 months.*” \(found in its source\)/);
  await axe('rules-at-criterion');

  // And back: the rules' quote shows its passage, which takes focus and is highlighted.
  await press(page, '#quotes a.show-in-source');
  await page.waitForSelector('#source-pages');
  await page.waitForFunction(() => document.activeElement?.classList.contains('target'));
  const focused = await page.evaluate(() => ({ text: document.activeElement?.textContent, classes: document.activeElement?.className }));
  assert.match(focused.text, /for at least 12 months by the employer/);
  assert.match(focused.classes, /clause-cited/);
  assert.equal(await page.locator('.clause.target').count(), 1);
  await axe('source-at-passage');
  await shot('source-at-passage');

  // The browser's Back returns to the rules.
  await page.goBack();
  await page.waitForSelector('.cm-content');

  // A PDF is shown page by page, its clauses marked on their pages.
  await page.goto(`${origin}/#/studio/projects/${project.project_id}/sources/${pdfId}`);
  await page.waitForSelector('#source-pages');
  assert.deepEqual(await page.locator('.source-page h3').allTextContents(), ['Page 1', 'Page 2']);
  const page1 = page.locator('.source-page', { has: page.locator('#page-1') });
  const page2 = page.locator('.source-page', { has: page.locator('#page-2') });
  assert.match(await page2.locator('.clause-wrap', { has: page.locator('.clause-cited') }).textContent(), /The officer may, at their discretion,\s+approve the grant\.\s*Cited by officer/);
  assert.match(await page1.locator('.clause-wrap', { has: page.locator('.clause-uncited') }).textContent(), /A person qualifies for the grant\s+if the person is at least 18 years old\.\s*Not cited/);
  assert.equal(await page1.locator('.clause-cited').count(), 0);
  assert.equal(await page.locator('#source-summary').textContent(), '1 of 2 clauses cited by the rules (50%); 1 clause is not cited.');
  await axe('pdf-pages');
  await shot('pdf-pages');

  // Headings do not count, and are shown as headings: every provision of
  // the licensing text is quoted, so it is fully covered; its paragraph,
  // cut at its enumerators, says who cites it once.
  await page.goto(`${origin}/#/studio/projects/${project.project_id}/sources/${licensingId}`);
  // The PDF's text is on the page until the hash change redraws it: wait
  // for this source's heading and its summary before reading them.
  await page.waitForFunction(() => document.getElementById('source-heading')?.textContent === 'Text of licensing.txt');
  await page.waitForFunction(() => !/^Loading/.test(document.getElementById('source-summary')?.textContent ?? 'Loading'));
  await page.waitForSelector('#source-pages');
  assert.match(await page.locator('#source-summary').textContent(), /^(\d+) of \1 clauses cited by the rules \(100%\)\.$/);
  assert.equal(await page.locator('#uncited-clauses').count(), 0);
  for (const title of ['PART 2 — LICENSING OF APPLICANTS', 'Section 3. Conditions for a licence']) {
    assert.equal(await page.locator('.clause-heading.clause-title', { hasText: title }).count(), 1, title);
  }
  assert.ok((await page.locator('.clause-cited').count()) > 3, 'the paragraph is cut into several clauses');
  assert.equal(await page.locator('.clause-mark', { hasText: 'licensed' }).count(), 1, 'Cited by licensed, once');
  assert.match(await page.locator('.clause-wrap').textContent(), /\(e\) applied in writing\.\s*Cited by licensed/);
  await axe('headings-and-one-mark');
  await shot('headings-and-one-mark');
  clean();
});
