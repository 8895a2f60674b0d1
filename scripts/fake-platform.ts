// Runs the local fake of the platform's REST API, to try accounts and backfill by hand:
//   node --import tsx scripts/fake-platform.ts [--port 4010] [--chats 20] [--messages 50] [--transactions 5] [--rate-limit 60]
// then start convops with PLATFORMAPI_BASE_URL=http://127.0.0.1:4010 and the key it prints.
import { parseArgs } from 'node:util';
import { FakePlatform } from '../test/support/fake-platform.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '4010' },
    chats: { type: 'string', default: '20' },
    messages: { type: 'string', default: '50' },
    transactions: { type: 'string', default: '5' },
    'rate-limit': { type: 'string', default: '60' },
  },
});
const fake = new FakePlatform({
  chatsPerAccount: Number(values.chats), messagesPerChat: Number(values.messages), transactionsPerChat: Number(values.transactions),
  rateLimit: Number(values['rate-limit']), rateWindowMs: 60_000,
});
const url = await fake.start(Number(values.port));
console.log(`fake platform on ${url}`);
console.log(`PLATFORMAPI_BASE_URL=${url} PLATFORMAPI_KEY=${fake.apiKey}`);
console.log(`accounts: ${fake.data.map((a) => a.id).join(', ')}; an email containing "2fa" asks for code 123456`);
