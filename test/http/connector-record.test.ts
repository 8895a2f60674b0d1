// What POST /api/connector/ingest writes to the inbound log, read back as the processor reads
// it: the route on a bare Fastify with an appender that keeps the records (no log, no store).
// A message marked `automated` must reach the session machine as an automated send, never as
// the chatter's reply (what such an input does to a session: test/domain/webhook.test.ts,
// "automated sends never answer the fan").
import Fastify from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { describe, expect, it } from 'vitest';
import type { AppendRecord, AppendResult } from '../../src/adapters/log/log.js';
import { readInboundMeta } from '../../src/domain/inbound-record.js';
import { normalise } from '../../src/domain/normalise.js';
import { connectorRoutes } from '../../src/http/routes/connector.js';
import type { BatchingAppender } from '../../src/ingest/batching-appender.js';

describe('the connector route\'s records', () => {
  it('carry `automated`: a scheduled or mass send normalises to an automated send with no chatter; an unmarked one to her reply', async () => {
    const records: AppendRecord[] = [];
    const inbound = { append: (r: AppendRecord): Promise<AppendResult> => { records.push(r); return Promise.resolve({ partition: 0, offset: records.length - 1 }); } };
    const app = Fastify().withTypeProvider<TypeBoxTypeProvider>();
    await app.register(connectorRoutes, { inbound: inbound as unknown as BatchingAppender, connectorGuard: async () => {} });
    try {
      const sentAt = new Date(Date.now() - 60_000).toISOString();
      const message = (messageId: string, automated?: boolean) => ({ chatId: '1000005', messageId, text: 'new set out now', sentAt, chatterId: 'ann', ...(automated === undefined ? {} : { automated }) });
      const res = await app.inject({
        method: 'POST', url: '/api/connector/ingest',
        payload: { accountId: 'acct_0c0000000000000000000000000000c9', messages: [message('1000040', true), message('1000041', false), message('1000042')] },
      });
      expect(res.statusCode).toBe(200);
      const inputs = new Map(records.map((r) => {
        const meta = readInboundMeta(r.headers ?? {});
        if (!meta) throw new Error('a connector record without routing headers');
        const input = normalise(meta, Buffer.from(r.value));
        return [input.type === 'chat.message' ? input.messageId : input.type, input];
      }));
      expect(inputs.get('1000040')).toMatchObject({ type: 'chat.message', sender: 'automated', chatterId: null });
      expect(inputs.get('1000041')).toMatchObject({ type: 'chat.message', sender: 'human', chatterId: 'ann' });
      // Absent means a person sent it.
      expect(inputs.get('1000042')).toMatchObject({ type: 'chat.message', sender: 'human', chatterId: 'ann' });
    } finally {
      await app.close();
    }
  });
});
