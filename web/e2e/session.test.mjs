// End-to-end test of signing in to the console in a real browser: the key
// is exchanged for a server-side session, nothing the page can read or
// store holds the key or the session id, the session authenticates the
// console's own calls that carry its CSRF token, survives a reload, and
// ends at sign-out; a page of another origin, in the same browser, cannot
// use it. run.sh passes the server in ELIGO_URL and a key of
// tenant e2e-studio in ELIGO_KEY.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';

import { checkAxe, launch } from './browser.mjs';

const origin = process.env.ELIGO_URL;
const key = process.env.ELIGO_KEY;
if (!origin || !key) {
  throw new Error('ELIGO_URL and ELIGO_KEY are not set: run web/e2e/run.sh');
}

let browser;

before(async () => {
  browser = await launch();
});

after(async () => {
  await browser?.close();
});

/** inPage calls path on the console's origin from the page, as the console's own script would. */
async function inPage(page, method, path, withToken) {
  return page.evaluate(
    async ({ method, path, withToken }) => {
      let token = '';
      if (withToken) {
        const who = await fetch('/console/session', { credentials: 'same-origin' });
        token = who.headers.get('X-CSRF-Token') ?? '';
      }
      const res = await fetch(path, { method, credentials: 'same-origin', headers: token ? { 'X-CSRF-Token': token } : {} });
      let body = null;
      try {
        body = await res.json();
      } catch {
        body = null;
      }
      return { status: res.status, reason: body?.detail?.reason_code ?? '' };
    },
    { method, path, withToken },
  );
}

test('sign in with a key, use the session, reload, sign out', async (t) => {
  const page = await browser.context.newPage();
  page.setDefaultTimeout(60_000);
  t.after(() => page.close());
  const problems = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(origin + '/')) problems.push(`request to another host: ${r.url()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    // The refusals this test provokes (401 before sign-in and after
    // sign-out, 401 for a wrong key, 403 without the token) are logged by
    // the browser as failed loads; anything else is a fault.
    if (m.type() === 'error' && !/status of 40[13]/.test(m.text())) problems.push(`console error: ${m.text()}`);
  });

  await page.goto(origin + '/#/sign-in');
  await page.waitForSelector('#api-key');
  await checkAxe(page, 'sign-in');

  await page.fill('#api-key', 'elg_wrongkey_' + 'A'.repeat(43));
  await page.click('#sign-in');
  await page.waitForFunction(() => (document.getElementById('sign-in-error')?.textContent ?? '') !== '');
  assert.match(await page.locator('#sign-in-error').textContent(), /not valid/);

  await page.fill('#api-key', key);
  await page.click('#sign-in');
  await page.waitForSelector('#signed-in');
  const facts = await page.locator('dl.session').textContent();
  assert.match(facts, /e2e-studio/);
  assert.match(facts, /projects:read/);
  assert.ok(!facts.includes(key), 'the page does not show the key');
  await checkAxe(page, 'signed-in');

  // Nothing the page can read holds the key or the session id.
  const kept = await page.evaluate(() => ({
    cookie: document.cookie,
    local: localStorage.length,
    session: sessionStorage.length,
    html: document.documentElement.outerHTML,
  }));
  assert.equal(kept.cookie, '', 'the session cookie is HttpOnly');
  assert.equal(kept.local + kept.session, 0, 'nothing in the page storage');
  assert.ok(!kept.html.includes(key), 'the key is not left in the page');
  const cookies = await browser.context.cookies(origin);
  const cookie = cookies.find((c) => c.name.endsWith('eligo_session'));
  assert.ok(cookie && cookie.httpOnly && cookie.sameSite === 'Strict' && cookie.path === '/', `cookie ${JSON.stringify(cookie && { ...cookie, value: '…' })}`);
  assert.ok(!key.includes(cookie.value) && cookie.value.length >= 40, 'the cookie holds a session id, not the key');

  // The session calls authoring operations as the key, with the token.
  assert.deepEqual(await inPage(page, 'GET', '/api/v1/public/projects', true), { status: 200, reason: '' });
  assert.deepEqual(await inPage(page, 'GET', '/api/v1/public/projects', false), { status: 403, reason: 'csrf_token_invalid' });

  // A reloaded page recovers the session (and its token) from the server.
  await page.reload();
  await page.waitForSelector('#signed-in');
  assert.deepEqual(await inPage(page, 'GET', '/api/v1/public/projects', true), { status: 200, reason: '' });

  await page.click('#sign-out');
  await page.waitForSelector('#api-key');
  assert.deepEqual(await inPage(page, 'GET', '/api/v1/public/projects', false), { status: 401, reason: 'missing_api_key' });
  assert.equal((await browser.context.cookies(origin)).filter((c) => c.name.endsWith('eligo_session')).length, 0, 'the cookie is cleared');
  assert.deepEqual(problems, []);
});

/**
 * foreignSite serves one page on another loopback port: another origin,
 * though the same site (cookies do not separate ports, so SameSite lets
 * the browser send the session cookie along), as a hostile page opened in
 * the signed-in browser would be.
 */
async function foreignSite() {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html lang="en"><title>Elsewhere</title><h1>Elsewhere</h1></html>');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((resolve) => server.close(resolve)) };
}

test('a page of another origin holding the cookie cannot call the API', async (t) => {
  const site = await foreignSite();
  t.after(() => site.close());
  const page = await browser.context.newPage();
  page.setDefaultTimeout(60_000);
  t.after(() => page.close());

  await page.goto(origin + '/#/sign-in');
  await page.fill('#api-key', key);
  await page.click('#sign-in');
  await page.waitForSelector('#signed-in');
  const projects = async () =>
    page.evaluate(async () => {
      const token = (await fetch('/console/session', { credentials: 'same-origin' })).headers.get('X-CSRF-Token') ?? '';
      const res = await fetch('/api/v1/public/projects?limit=100', { credentials: 'same-origin', headers: { 'X-CSRF-Token': token } });
      return (await res.json()).map((p) => p.name);
    });
  const before = await projects();

  // The foreign page sends the cookie with what it asks for: a read (the
  // browser sends it, as a simple request, but withholds the answer), a
  // write sent blind (no-cors, the way a hostile form posts), and a write
  // with a guessed token header (which needs a preflight, and CORS grants
  // no foreign origin). The blind write reaches the server with the cookie
  // and is refused there: 403, not the 401 a request with no cookie gets.
  const foreign = await browser.context.newPage();
  t.after(() => foreign.close());
  const seen = [];
  foreign.on('response', (r) => {
    if (r.url().startsWith(origin + '/api/') && r.request().method() === 'POST') seen.push(r.status());
  });
  await foreign.goto(site.url);
  const outcome = await foreign.evaluate(async (api) => {
    const out = {};
    try {
      const res = await fetch(api + '/api/v1/public/projects', { credentials: 'include' });
      out.read = `read ${res.status}`;
    } catch {
      out.read = 'blocked';
    }
    const create = JSON.stringify({ name: 'made cross-site', section_id: 'cross_site' });
    const blind = await fetch(api + '/api/v1/public/projects/', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'Content-Type': 'text/plain' }, body: create });
    out.blind = blind.type;
    try {
      await fetch(api + '/api/v1/public/projects/', { method: 'POST', credentials: 'include', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': 'guess' }, body: create });
      out.preflighted = 'sent';
    } catch {
      out.preflighted = 'blocked';
    }
    return out;
  }, origin);
  assert.deepEqual(outcome, { read: 'blocked', blind: 'opaque', preflighted: 'blocked' }, 'the foreign page reads nothing, and the browser withholds the preflighted write');
  assert.deepEqual(seen, [403], 'the blind write reached the server with the cookie and was refused as cross-site');
  assert.deepEqual(await projects(), before, 'no project was made from the foreign page');
});
