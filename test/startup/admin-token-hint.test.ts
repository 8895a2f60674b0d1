// A newcomer's first admin step (seeding the demo) needs ADMIN_TOKEN: a process serving the API
// without one says so in its start-up log, and one with it does not.
import { afterAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { capturedLogger, type Line } from '../support/captured-log.js';
import { deploymentEnv, removeDataDirs } from '../support/deployments.js';

const HINT = /^ADMIN_TOKEN is not set/;

async function startLogged(extra: Record<string, string>): Promise<{ app: RunningApp; lines: Line[] }> {
  const { logger, lines } = capturedLogger();
  const app = await startApp(loadConfig(await deploymentEnv('embedded', { ROLES: 'api', ...extra })), logger);
  return { app, lines };
}

describe('the start-up log', () => {
  const apps: RunningApp[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop()));
    removeDataDirs();
  });

  it('warns that admin routes refuse everyone while ADMIN_TOKEN is unset', async () => {
    const { app, lines } = await startLogged({});
    apps.push(app);
    expect(lines.filter((l) => HINT.test(l.msg))).toEqual([expect.objectContaining({ level: 40 })]);
  });

  it('says nothing of it once ADMIN_TOKEN is set', async () => {
    const { app, lines } = await startLogged({ ADMIN_TOKEN: 'admin-token-for-hint-test-00000' });
    apps.push(app);
    expect(lines.some((l) => /^convops starting/.test(l.msg))).toBe(true);
    expect(lines.filter((l) => HINT.test(l.msg))).toEqual([]);
  });
});
