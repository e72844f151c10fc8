// What the browser tests share: Debian's chromium launched headless through
// playwright-core on a throwaway profile, and the axe-core check every view
// passes. Not a test file itself (node --test runs *.test.mjs).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const axeSource = fs.readFileSync(path.join(here, '..', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

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
