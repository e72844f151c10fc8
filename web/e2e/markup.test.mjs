// End-to-end test that every word a ruleset, a project or a source brings
// is text in every view that shows it, never markup: a public ruleset
// (testdata/markup, published by run.sh) whose names, questions, options,
// notes, units, criteria, groups, source and quotes are HTML (a link, an
// image with onerror, <b>, <svg>), entities, quote tricks and Mermaid
// syntax (`"]`, `-->`, a `%%{init}%%` directive, backticks, markdown),
// walked through the catalogue, the interview, the decision, the graph,
// and, signed in with the run's markup key (ELIGO_MARKUP_KEY), the
// studio's project screens, a source's text, the rulebook screens and a
// rulebook's interview and graph. In each view no element or attribute
// from those words exists and the words are shown as written.
// Screenshots go to e2e/artifacts/markup/.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { apiCall, answerAll, launchBrowser, open as openIn, origin, outcome, questionFor, shot as shotIn, tabTo } from './browser.mjs';

const key = process.env.ELIGO_MARKUP_KEY;
const tenant = process.env.ELIGO_MARKUP_TENANT;
if (!key || !tenant) {
  throw new Error('ELIGO_MARKUP_KEY and ELIGO_MARKUP_TENANT are not set: run web/e2e/run.sh');
}
const here = path.dirname(fileURLToPath(import.meta.url));
const dir = path.join(here, 'testdata', 'markup');
const rulesText = fs.readFileSync(path.join(dir, 'markup.rules'), 'utf8');
// The cited text, without source.txt's `== src_markup ==` heading.
const actText = fs.readFileSync(path.join(dir, 'source.txt'), 'utf8').replace(/^== src_markup ==\n/, '');
const api = origin + '/api/v1/public';
// run.sh publishes testdata/markup publicly under this slug.
const hostile = '/#/ruleset/' + encodeURIComponent('e2e-markup/hostile');

// The words testdata/markup/markup.rules puts where people read them.
const link = "<a href='https://evil.example/login'> SESSION EXPIRED - click to sign in again</a>";
const words = {
  name: link,
  description: '<img src=x onerror=alert(1) id=pwn-img> <b id=pwn-b>bold</b> &lt;i id=pwn-i&gt;entity&lt;/i&gt; &amp; #60;u id=pwn-u#62; &#60;s&#62;',
  source: '<svg id=pwn-svg onload=alert(1)><circle r=9></circle></svg> Markup Act',
  kindQuestion: '" onmouseover="alert(1)" x=" <b id=pwn-q>Which kind?</b>',
  kindDescription: '&lt;i id=pwn-i2&gt;entity&lt;/i&gt; &amp; #60;u id=pwn-u2#62; &#60;s&#62;',
  kindLabel: link,
  optionA: '"] --> pwn["injected <b id=pwn-opt>A</b>',
  optionB: '%%{init: {"htmlLabels": true, "securityLevel": "loose"}}%% B',
  note: '`**markdown**` _em_ [link](https://evil.example/md) <img src=x onerror=alert(2) id=pwn-note>',
  countQuestion: 'How many? <svg id=pwn-svg2 onload=alert(1)></svg>',
  countLabel: `' onfocus='alert(1)' <b id=pwn-b2>count</b> %%{init: {"theme": "dark"}}%%`,
  unit: '<b id=pwn-unit>items</b>',
  group: '<b id=pwn-group>group</b> "] --> x[" end',
  kindCriterion: link + ' criterion',
  countCriterion: '`**markdown**` <img src=x onerror=alert(3) id=pwn-crit> #60;b#62; &amp;',
  countQuote: '<b id=pwn-b3>two or more</b>',
};
// A project's and a rulebook's own words, and a test case's name.
const projectName = `${link} <img src=x onerror=alert(5) id=pwn-project> "] -->`;
const caseName = '<b id=pwn-case>kind a, two</b> "] --> `md` %%{init: {}}%%';
const rulebookName = `${link} <svg id=pwn-book onload=alert(6)></svg>`;
const rulebookDescription = '<img src=x onerror=alert(7) id=pwn-bookdesc> **markdown** #60;b#62; &amp;';

let browser;

before(async () => {
  browser = await launchBrowser('markup');
});

after(async () => {
  await browser?.close();
});

const shot = (page, name) => shotIn(browser, page, name);

/** call makes one API call with the key. */
const call = (method, p, body) => apiCall(key, method, p, body);

/** flat is text without white space: Mermaid and the page break lines where they like. */
const flat = (s) => s.replace(/\s+/g, '');

/**
 * inert fails when the page holds anything the words could have made: an
 * element with a pwn id, a link or source to evil.example (a link to the
 * cited source with the quote in its text fragment is the console's own), an inline
 * handler attribute (the console sets none of its own) or a foreignObject
 * (HTML inside the graph's SVG).
 */
async function inert(page, where) {
  const found = await page.evaluate(() => {
    const bad = [];
    for (const el of document.querySelectorAll('*')) {
      if (/^pwn/i.test(el.id)) bad.push(`element ${el.localName}#${el.id}`);
      if (el.localName.toLowerCase() === 'foreignobject') bad.push('a foreignObject');
      for (const a of Array.from(el.attributes)) {
        if (/^on/i.test(a.name)) bad.push(`${el.localName} with ${a.name}`);
        if (/href|src|action/i.test(a.name) && new URL(a.value, location.href).hostname.endsWith('evil.example')) bad.push(`${el.localName} ${a.name}=${a.value}`);
      }
    }
    return bad;
  });
  assert.deepEqual(found, [], `${where}: nothing from the words became an element or an attribute`);
}

/**
 * shows waits until the text of selector (with the values of its inputs
 * and text areas) holds every one of texts as written (white space
 * aside), then checks the page is inert and the texts are there.
 */
async function shows(page, selector, texts, where) {
  const want = texts.map(flat);
  const read = (selector) => {
    const el = document.querySelector(selector);
    const values = Array.from(el?.querySelectorAll('input, textarea') ?? []).map((c) => c.value);
    return [el?.textContent ?? '', ...values].join(' ').replace(/\s+/g, '');
  };
  // Read until every text is there (the views load their data), for at most a minute.
  let text = '';
  for (let i = 0; i < 240; i++) {
    text = await page.evaluate(read, selector);
    if (want.every((w) => text.includes(w))) break;
    await page.waitForTimeout(250);
  }
  await inert(page, where);
  const missing = texts.filter((t) => !text.includes(flat(t)));
  assert.deepEqual(missing, [], `${where}: shown as written (the view reads ${JSON.stringify(text.slice(0, 2000))})`);
}

/** heading waits for the view whose main h2 says text (so the page is not still showing the last view). */
async function heading(page, text) {
  await page.waitForFunction((t) => Array.from(document.querySelectorAll('main h2')).some((h) => h.textContent === t), text);
}

/** inRules is text as the rules language writes it in a string (a quote escaped). */
const inRules = (text) => text.replace(/"/g, '\\"');

test('the markup ruleset holds the words this test looks for', () => {
  for (const [part, text] of Object.entries(words)) {
    assert.ok(rulesText.includes(`"${inRules(text)}"`), `${part} is in markup.rules as written here`);
  }
});

test('the console shows a ruleset’s words as text: catalogue, interview, decision, graph', async (t) => {
  const { page, clean } = await openIn(browser, t, '/');
  await page.waitForSelector('#catalogue li');
  const card = page.locator('#catalogue li', { hasText: 'SESSION EXPIRED' });
  await card.waitFor();
  await shows(page, '#catalogue', [words.name, words.description], 'catalogue');
  await shot(page, 'catalogue');

  await page.goto(origin + hostile);
  await questionFor(page, 'markup.kind');
  await shows(page, 'main', [words.name, words.kindQuestion, words.kindDescription, words.optionA, words.optionB, words.note], 'the first question');
  await shot(page, 'question-kind');
  await page.locator('#question-form input[type=radio][value="a"]').check();
  await page.click('#continue');
  await questionFor(page, 'markup.count');
  await shows(page, 'main', [words.countQuestion, words.unit], 'the second question');
  await shows(page, '#answers', [words.optionA], 'the answers so far');

  await answerAll(page, { 'markup.count': '1' });
  assert.equal(await outcome(page), 'Not eligible');
  await shows(page, '.reasons', [words.countCriterion, words.countQuote, words.source], 'the reasons');
  await shows(page, '.explanation', [words.kindCriterion, words.countCriterion, words.group, link, words.countQuote], 'the explanation');
  await shows(page, '#answers', [words.optionA, words.unit], 'the answers');
  await shows(page, '.whatif-box', [words.countLabel], 'what if');
  await shot(page, 'decision');

  // The graph: every label is SVG text, shown as written, and the Mermaid
  // syntax in the words made no node or edge.
  await page.locator('#graph summary').click();
  await page.waitForSelector('#graph-view svg g.node');
  const graph = await (await fetch(api + '/rulesets/' + encodeURIComponent('e2e-markup/hostile') + '/graph')).json();
  assert.equal(await page.locator('#graph-view svg g.node').count(), graph.graph.nodes.length, 'one drawn node per node');
  assert.equal(await page.locator('#graph-view svg g.edgePaths path').count(), graph.graph.edges.length, 'one drawn edge per edge');
  assert.equal(await page.locator('#graph-view svg text').count() > 0, true, 'labels are SVG text');
  await shows(page, '#graph-view', [words.kindLabel, words.countLabel, words.kindCriterion, words.countCriterion, words.group + ' (all of)', words.name], 'the graph');
  await shot(page, 'graph');
  clean();
});

test('the studio and the rulebooks show a project’s, a source’s and a rulebook’s words as text', async (t) => {
  // The project, its source, its draft (the markup rules) and a test case, over the API.
  const sectionRules = rulesText.replace('ruleset "e2e/markup"', `ruleset "${tenant}/markup-studio"`).replace('section markup_check', 'section markup_studio');
  const project = await call('POST', '/projects/', {
    name: projectName,
    section_id: 'markup_studio',
    source_text: '',
    test_cases: [{ name: caseName, field_values: { 'markup.kind': 'a', 'markup.count': 2 }, expected_outcome: 'eligible' }],
  });
  const base = `/projects/${project.project_id}`;
  const uploaded = await call('POST', base + '/sources', {
    filename: 'src_markup.txt',
    text: actText,
    url: 'https://example.org/markup-act',
    licence: 'public-domain',
    title: words.source,
  });
  const sourceId = uploaded.sources[0].source_id;
  await call('PUT', base + '/draft', { rules: sectionRules });
  // A rulebook over the public markup section, with words of its own.
  const rulebook = await call('POST', '/rulebooks/', {
    name: rulebookName,
    slug: `${tenant}/markup-book`,
    description: rulebookDescription,
    ruleset_refs: [{ section_id: 'markup_check' }],
    outcome_logic: null,
  });
  await call('POST', `/rulebooks/${encodeURIComponent(rulebook.rulebook_id)}/activate`);

  const { page, clean } = await openIn(browser, t, '/#/studio', undefined, { refusals: true });
  await page.waitForSelector('#api-key');
  await tabTo(page, '#api-key');
  await page.keyboard.type(key);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#signed-in-as');
  await shows(page, 'main', [projectName], 'the projects');

  const screen = async (hash, title, texts, where) => {
    await page.goto(origin + '/#/studio/projects/' + encodeURIComponent(project.project_id) + hash);
    await heading(page, title);
    await shows(page, 'main', texts, where);
    await shot(page, where.replace(/\W+/g, '-'));
  };
  await screen('/sources', 'Sources', [projectName, words.source], 'the sources');
  await screen('/sources/' + encodeURIComponent(sourceId), 'Text of ' + words.source, [words.source, link, words.countQuote], 'a source’s text');
  await screen('/generate', 'Generate the draft', [projectName], 'generate');
  await screen('/draft', 'Rules', [projectName, link, inRules(words.countCriterion), inRules(words.optionB)], 'the rules');
  await screen('/tests', 'Tests', [caseName], 'the tests');
  await screen('/review', 'Review', [projectName], 'review');
  await screen('/changes', 'Changes', [projectName], 'changes');
  await screen('/publish', 'Publish', [projectName], 'publish');

  await page.goto(origin + '/#/studio/rulebooks');
  await heading(page, 'Your rulebooks');
  await shows(page, 'main', [rulebookName], 'the rulebooks');
  await page.goto(origin + '/#/studio/rulebooks/' + encodeURIComponent(rulebook.rulebook_id));
  await heading(page, 'Field wording');
  await shows(page, 'main', [rulebookName, rulebookDescription, words.name, words.kindQuestion, words.countQuestion], 'a rulebook');
  await shot(page, 'rulebook');

  // The rulebook's interview and graph in the console, signed in.
  await page.goto(origin + '/#/rulebook/' + encodeURIComponent(rulebook.rulebook_id));
  await questionFor(page, 'markup.kind');
  await shows(page, 'main', [rulebookName, words.kindQuestion, words.optionA, words.optionB], 'the rulebook’s interview');
  await answerAll(page, { 'markup.kind': 'a', 'markup.count': '2' });
  await page.locator('#graph summary').click();
  await page.waitForSelector('#graph-view svg g.node');
  await shows(page, '#graph-view', [words.kindLabel, words.countLabel, words.kindCriterion, words.countCriterion], 'the rulebook’s graph');
  await shot(page, 'rulebook-graph');
  clean();
});
