// The wallboard page with READ_AUTH=required and no key, in headless Chromium: it shows the
// floor's totals (the API's figures) and says the rows need a key; no account id, display
// name or chatter id reaches the page. The page's other views are in test/e2e/pages.test.ts.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app.js';
import { loadDemoAccounts } from '../../src/demo/fixtures.js';
import { launchBrowser } from '../support/browser.js';
import { deploymentEnv, removeDataDirs, startWithEnv } from '../support/deployments.js';
import { settledHash } from '../support/read-models.js';

const ADMIN = 'admin-token-for-keyless-floor-0001';

interface Floor {
  view: string;
  totals: { open: number; awaiting: number; breached: number };
  chatters: { id: string }[];
}

let app: RunningApp;
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
  app = await startWithEnv(await deploymentEnv('embedded', { ADMIN_TOKEN: ADMIN, READ_AUTH: 'required', FLOOR_RATE_LIMIT_MAX: '100000', ALERT_SWEEP_SEC: '0' }));
  const seeded = await app.server?.inject({ method: 'POST', url: '/api/admin/seed-demo', headers: { authorization: `Bearer ${ADMIN}` }, payload: {} });
  expect(seeded?.statusCode).toBe(200);
  await settledHash(app.url ?? '', app.store);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  removeDataDirs();
});

describe('the floor page without a key, when reads need one', () => {
  it('shows the totals and no account, display name or chatter', async () => {
    const floor = async (token?: string): Promise<Floor> => JSON.parse((await app.server?.inject({
      method: 'GET', url: '/api/floor', headers: token ? { authorization: `Bearer ${token}` } : {},
    }))?.body ?? '{}') as Floor;
    const keyless = await floor();
    expect(keyless.view).toBe('aggregate');
    const chatters = (await floor(ADMIN)).chatters.map((c) => c.id);
    expect(chatters.length).toBeGreaterThan(0);

    const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
    await page.goto(`${app.url ?? ''}/floor`);
    await page.waitForFunction(() => document.body.dataset.snapshotAt !== undefined, undefined, { timeout: 15_000 });
    expect(Number(await page.locator('[data-figure="open"]').innerText())).toBe(keyless.totals.open);
    expect(Number(await page.locator('[data-figure="awaiting"]').innerText())).toBe(keyless.totals.awaiting);
    expect(keyless.totals.open).toBeGreaterThan(0);
    expect(await page.locator('[data-figure="awaiting-note"]').innerText()).toBe('totals only');
    expect(await page.locator('#accounts tr').allInnerTexts()).toEqual(['Not shown without an access key']);
    expect(await page.locator('#chatters tr').allInnerTexts()).toEqual(['Not shown without an access key']);
    const text = await page.locator('body').innerText();
    for (const a of loadDemoAccounts()) {
      expect(text).not.toContain(a.id);
      expect(text).not.toContain(a.displayName);
    }
    for (const c of chatters) expect(text).not.toContain(c);
    await page.close();
  });
});
