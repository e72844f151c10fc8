// reference-check.mjs URL — opens the API reference page in headless
// Debian chromium (playwright-core) and fails unless Redoc renders the
// operation list from the served document with no request leaving the
// server's origin and no error in the page (a content security policy
// violation included). Prints what it found as JSON. Run by the Go test
// TestReferencePageRendersOffline.

import { chromium } from "playwright-core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const url = process.argv[2];
if (!url) {
  throw new Error("usage: node reference-check.mjs URL");
}
const origin = new URL(url).origin;
const profile = mkdtempSync(join(tmpdir(), "eligo-reference-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const offsite = [];
const problems = [];
try {
  const page = await context.newPage();
  page.on("request", (r) => {
    const u = r.url();
    if (!u.startsWith(origin + "/") && !u.startsWith("data:") && !u.startsWith("blob:")) {
      offsite.push(u);
    }
  });
  page.on("console", (m) => {
    if (m.type() === "error") {
      problems.push(m.text());
    }
  });
  page.on("pageerror", (e) => problems.push(String(e)));
  const response = await page.goto(url, { waitUntil: "load", timeout: 60000 });
  if (response?.status() !== 200) {
    throw new Error(`${url}: status ${response?.status()}`);
  }
  // Redoc's menu: one item per operation, its id tag/<tag>/operation/<id>.
  const items = page.locator('li[role="menuitem"][data-item-id*="/operation/"]');
  await items.first().waitFor({ state: "attached", timeout: 60000 });
  const operations = await items.evaluateAll((els) => els.map((e) => e.getAttribute("data-item-id").replace(/.*\/operation\//, "")));
  const title = (await page.locator("h1").first().innerText()).trim();
  console.log(JSON.stringify({ title, operations, offsite, problems }));
  if (offsite.length > 0 || problems.length > 0) {
    process.exitCode = 1;
  }
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
