// A newcomer's first admin step (seeding the demo) needs ADMIN_TOKEN: a process serving the API
// without one says so in its start-up log, and one with it does not.
import { afterAll, describe, expect, it } from 'vitest';
import { PortInUseError, startApp, type RunningApp } from '../../src/app.js';
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

  it('leaves the listening line to main.ts (Fastify says it once per address and again at the hand-over)', async () => {
    const { app, lines } = await startLogged({ ADMIN_TOKEN: 'admin-token-for-hint-test-00000' });
    apps.push(app);
    expect(lines.filter((l) => /listening/i.test(l.msg))).toEqual([]);
  });

  it('logs a request as one short line on a terminal (LOG_FORMAT=pretty), as Fastify\'s two entries otherwise', async () => {
    for (const [format, expected] of [['pretty', ['GET /api/health/live 200']], ['json', ['incoming request', 'request completed']]] as const) {
      const { logger, lines } = capturedLogger();
      const app = await startApp(loadConfig(await deploymentEnv('embedded', { ROLES: 'api', LOG_FORMAT: format })), logger);
      apps.push(app);
      expect((await fetch(`${app.url!}/api/health/live`)).status).toBe(200);
      const said = lines.filter((l) => /api\/health\/live|request/.test(l.msg) || (l.req as { url?: string } | undefined)?.url === '/api/health/live').map((l) => l.msg.replace(/ \d+ ms$/, ''));
      expect(said, format).toEqual(expected);
    }
  });

  it('refuses a port another process holds with what to do, not a stack', async () => {
    const { app } = await startLogged({ ADMIN_TOKEN: 'admin-token-for-hint-test-00000' });
    apps.push(app);
    const port = new URL(app.url!).port;
    const { logger } = capturedLogger();
    const second = startApp(loadConfig(await deploymentEnv('embedded', { ROLES: 'api', PORT: port })), logger);
    await expect(second).rejects.toThrow(PortInUseError);
    await expect(second).rejects.toThrow(new RegExp(`^port ${port} on 127\\.0\\.0\\.1 is in use by another process\\. .*export PORT=${Number(port) + 1}`));
  });
});
