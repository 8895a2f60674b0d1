// A backup taken while webhooks keep coming, restored into a fresh DATA_DIR: the restored
// service starts, its figures verify, it holds at least what was settled before the backup and
// nothing that was never sent, and the platform's redelivery of every webhook brings it to the
// same figures as the service that never stopped (each record counted once).
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kafkaMongoEnv, startHarness, type Harness } from '../support/app-harness.js';
import { messageBody } from '../support/platform.js';
import { tempDir } from '../support/temp-dirs.js';

const ADMIN = 'admin-token-for-backup-test-0001';
const started: Harness[] = [];
afterAll(async () => { await Promise.all(started.map((h) => h.stop())); });

/** Fans write, the account answers some: 6 chats, `n` deliveries from `from`. */
function deliveries(from: number, n: number): Array<{ key: string; body: string }> {
  return Array.from({ length: n }, (_, j) => {
    const i = from + j;
    const fan = 700 + (i % 6);
    const sent = i % 3 === 2;
    return {
      key: `evt_backup_${i}`,
      body: messageBody({
        accountId: 'acct_backup', fanId: fan, messageId: 9_300_000 + i, direction: sent ? 'sent' : 'received',
        createdAt: new Date(Date.now() - 3_600_000 + i * 1000).toISOString(), text: `m${i}`,
      }),
    };
  });
}

interface Overview { sessions: { total: number }; messages: { total: number; fromFans: number; outbound: number }; chats: number }

describe('backing up the embedded DATA_DIR and restoring it', () => {
  it('restores to a state that verifies and converges with the original on redelivery', async () => {
    const backups = tempDir('convops-backups-');
    const h = await startHarness({ ADMIN_TOKEN: ADMIN, BACKUP_DIR: backups });
    started.push(h);
    const all = deliveries(0, 90);
    await h.deliver(all.slice(0, 30));
    await h.settled();
    const before = (await h.call<Overview>('GET', '/api/overview')).body;
    expect(before.messages.total).toBe(30);

    // The backup runs while deliveries keep landing; a second one at the same time is refused.
    const landing = h.deliver(all.slice(30, 90));
    const [first, second] = await Promise.all([
      h.call<{ path: string; files: Array<{ path: string; bytes: number }> }>('POST', '/api/admin/backup', { token: ADMIN }),
      h.call<{ code: string; message: string }>('POST', '/api/admin/backup', { token: ADMIN }),
    ]);
    await landing;
    await h.settled();
    expect(first.status, first.text).toBe(201);
    expect(second.status).toBe(409);
    expect(second.body.message).toMatch(/^backup: another backup is under way/);
    expect(first.body.files.map((f) => f.path).sort()).toEqual(['log/data.mdb', 'log/topics/inbound/data.mdb', 'log/topics/session-events/data.mdb', 'store/data.mdb']);
    expect(first.body.path.startsWith(backups)).toBe(true);
    const after = (await h.call<Overview>('GET', '/api/overview')).body;
    expect(after.messages.total).toBe(90);

    // Restore: a copy of the backup folder as the DATA_DIR of a new service.
    const restoredDir = join(tempDir('convops-restored-'), 'data');
    cpSync(first.body.path, restoredDir, { recursive: true });
    const r = await startHarness({ ADMIN_TOKEN: ADMIN, DATA_DIR: restoredDir, BACKUP_DIR: tempDir('convops-backups2-') });
    started.push(r);
    await r.settled();
    const verify = await r.call<{ ok: boolean }>('GET', '/api/admin/verify', { token: ADMIN });
    expect(verify.body, verify.text).toMatchObject({ ok: true });
    const restored = (await r.call<Overview>('GET', '/api/overview')).body;
    expect(restored.messages.total).toBeGreaterThanOrEqual(before.messages.total);
    expect(restored.messages.total).toBeLessThanOrEqual(after.messages.total);

    // The platform redelivers everything: the restored service ends where the original is.
    await r.deliver(all);
    await r.settled();
    const converged = (await r.call<Overview>('GET', '/api/overview')).body;
    const figures = (o: Overview) => ({ chats: o.chats, sessions: o.sessions, messages: o.messages });
    expect(figures(converged)).toEqual(figures(after));
    expect((await r.call<{ ok: boolean }>('GET', '/api/admin/verify', { token: ADMIN })).body.ok).toBe(true);
  });

  it('refuses on a Kafka and MongoDB deployment, naming their own tools', async () => {
    const h = await startHarness({ ADMIN_TOKEN: ADMIN, ...await kafkaMongoEnv() });
    started.push(h);
    const res = await h.call<{ message: string }>('POST', '/api/admin/backup', { token: ADMIN });
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(/Kafka and MongoDB.*mongodump/);
  });
});
