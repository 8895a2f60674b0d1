// The README's screenshots, made the way a newcomer first sees the pages: a fresh embedded
// service, the README's "Try it" webhook, then the demo seeded; the floor on a TV, a laptop and
// a phone, the console's views on a laptop and a phone. Run after a change to the pages:
//   npm run screenshots            (writes docs/screenshots/*.png)
//   npm run screenshots -- --out /tmp/shots
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/support/logger.js';
import { launchBrowser } from '../test/support/browser.js';

const root = resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { out: { type: 'string', default: join(root, 'docs', 'screenshots') } } });
const out = resolve(values.out);
const ADMIN = 'screenshots-admin-token-0123456789';
const dataDir = mkdtempSync(join(tmpdir(), 'convops-screenshots-'));
const app = await startApp(loadConfig({ DATA_DIR: dataDir, PORT: '0', ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', LOG_FORMAT: 'json' }), createLogger('warn'));
const url = app.url ?? '';

try {
  // The README's "Try it", as written, then its demo.
  const sample = readFileSync(join(root, 'fixtures', 'samples', 'messages_received.json'));
  const tried = await fetch(`${url}/webhooks/platform`, { method: 'POST', body: sample, headers: { 'content-type': 'application/json', 'x-ofapi-idempotency-key': 'evt_0000000000000000000000000000000000000001' } });
  if (!tried.ok) throw new Error(`the Try-it webhook answered ${tried.status}`);
  const seeded = await fetch(`${url}/api/admin/seed-demo`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}` } });
  if (!seeded.ok) throw new Error(`seed-demo answered ${seeded.status}: ${await seeded.text()}`);
  await settled();

  mkdirSync(out, { recursive: true });
  const browser = await launchBrowser();
  const shoot = async (name: string, viewport: { width: number; height: number }, path: string, prepare: (page: Page) => Promise<void>): Promise<void> => {
    const page = await browser.newPage({ viewport, isMobile: viewport.width < 500, deviceScaleFactor: 1 });
    await page.goto(`${url}${path}`);
    await prepare(page);
    await page.screenshot({ path: join(out, `${name}.png`), fullPage: viewport.width < 500 });
    await page.close();
    process.stdout.write(`${join(out, `${name}.png`)}\n`);
  };
  const floorReady = async (page: Page): Promise<void> => { await page.waitForSelector('tr[data-account]'); };
  await shoot('floor', { width: 1920, height: 1080 }, '/floor', floorReady);
  await shoot('floor-laptop', { width: 1400, height: 900 }, '/floor', floorReady);
  await shoot('floor-phone', { width: 390, height: 844 }, '/floor', floorReady);
  const consoleView = (tab: string, ready: string) => async (page: Page): Promise<void> => {
    await page.fill('#key', ADMIN);
    await page.press('#key', 'Enter');
    await page.waitForSelector('tr[data-session]');
    if (tab !== '#tab-inbox') {
      await page.click(tab);
      await page.waitForSelector(ready);
    }
  };
  await shoot('console', { width: 1400, height: 900 }, '/console', consoleView('#tab-inbox', 'tr[data-session]'));
  await shoot('console-phone', { width: 390, height: 844 }, '/console', consoleView('#tab-inbox', 'tr[data-session]'));
  await shoot('console-sla', { width: 1400, height: 900 }, '/console', consoleView('#tab-sla', 'h3'));
  await shoot('console-alerts', { width: 1400, height: 900 }, '/console', consoleView('#tab-alerts', 'button[data-ack]'));
  await shoot('console-money', { width: 1400, height: 900 }, '/console', consoleView('#tab-money', 'figure.chart'));
  await shoot('console-shifts', { width: 1400, height: 900 }, '/console', consoleView('#tab-shifts', 'h3'));
  await browser.close();
} finally {
  await app.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

/** Until the pipeline has folded everything: the overview holds still for two seconds. */
async function settled(): Promise<void> {
  let last = '';
  let still = 0;
  for (let i = 0; i < 300 && still < 4; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const now = await (await fetch(`${url}/api/overview`)).text();
    still = now === last ? still + 1 : 0;
    last = now;
  }
}
