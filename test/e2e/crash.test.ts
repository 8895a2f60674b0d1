// SIGKILL of the embedded service right after it acknowledged webhooks loses none of them.
import { afterEach, describe, expect, it } from 'vitest';
import { getJson, messageBody, postWebhook } from '../support/platform.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { eventually } from '../support/wait.js';
import { tempDir } from '../support/temp-dirs.js';

const SECRET = 'whsec_crash';
const ACCOUNT = 'acct_0c000000000000000000000000000000';

describe('embedded service killed with SIGKILL', () => {
  let svc: ServiceProcess | undefined;
  afterEach(async () => {
    await svc?.stop();
    svc = undefined;
  });

  it('keeps every message acknowledged with a 2xx before the kill', async () => {
    const env = { DATA_DIR: tempDir('convops-kill-'), PLATFORMAPI_WEBHOOK_SECRET: SECRET, LOG_LEVEL: 'warn' };
    svc = await startServiceProcess(env);
    const acked: string[] = [];
    const inFlight: Promise<void>[] = [];
    let n = 0;
    // Keep deliveries in flight and kill the process while they are.
    const send = async (): Promise<void> => {
      const id = 5_000_000 + n++;
      const raw = messageBody({ accountId: ACCOUNT, fanId: 880000 + (id % 7), messageId: id, createdAt: new Date(Date.UTC(2026, 5, 10, 12, 0, id % 3600)).toISOString(), direction: 'received' });
      const res = await postWebhook(svc?.url ?? '', raw, { secret: SECRET, key: `evt_kill_${id}` }).catch(() => undefined);
      if (res?.status === 200) acked.push(String(id));
    };
    for (let i = 0; i < 8; i++) {
      inFlight.push((async () => { while (acked.length < 150) await send(); })());
    }
    await eventually(() => (acked.length >= 150 ? true : undefined), 30_000, '150 acknowledged');
    await svc.kill9();
    await Promise.allSettled(inFlight);
    const ackedAtKill = [...acked];

    svc = await startServiceProcess(env);
    const url = svc.url;
    const stored = await eventually(async () => {
      const ids = new Set<string>();
      for (let f = 0; f < 7; f++) {
        const r = await getJson<{ items: { id: string }[] }>(url, `/api/messages?chatId=${880000 + f}&limit=500`);
        for (const m of r.body.items) ids.add(m.id);
      }
      return ackedAtKill.every((id) => ids.has(id)) ? ids : undefined;
    }, 30_000, 'all acknowledged messages after restart');
    expect(ackedAtKill.length).toBeGreaterThanOrEqual(150);
    for (const id of ackedAtKill) expect(stored.has(id)).toBe(true);
    // Nothing counted twice: each message id appears once across the chats.
    const total = (await getJson<{ items: unknown[] }>(url, '/api/messages?limit=500')).body.items.length;
    expect(total).toBe(stored.size);
  });
});
