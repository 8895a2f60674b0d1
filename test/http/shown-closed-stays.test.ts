// Issue 53: a session readers show closed stays closed. A fan who wrote two hours ago with a one-
// hour unanswered limit is shown closed `unanswered` as soon as the message is in; a reply
// stamped ten minutes after the fan's message that arrives later than the allowed lateness does
// not go into that session (the processor settles the chat first, as a clock tick at the reply's
// receipt would have), whether or not a tick came in between. The same reply arriving with the
// fan's message, within the lateness (a backlog redelivered at once), answers it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageWebhook } from '../../src/demo/platform-bodies.js';
import { startHarness, type Harness } from '../support/app-harness.js';

const A = 'acct_5h0wnc105ed0000000000000000000001';
const MIN = 60_000;
const LATE_SEC = 5;

interface Session { status: string; closeReason: string | null; closedAt: string | null; firstResponseSec: number | null }
interface Chat { sessions: Session[]; messages: { id: string; sessionId: string | null }[] }

describe('a session shown closed is not reopened by a reply that arrives after the lateness', () => {
  let h: Harness;
  const t0 = Date.now() - 120 * MIN;
  const post = (fanId: string, n: number, at: number, direction: 'received' | 'sent') =>
    h.deliver([{ key: `evt_shown_${fanId}_${n}`, body: messageWebhook({ accountId: A, fanId, messageId: String(7_700_000 + n), createdAt: new Date(at).toISOString(), text: 'hi', direction }) }]);
  const chat = async (chatId: string): Promise<Chat> => {
    const r = await h.call<Chat>('GET', `/api/chats?chatId=${chatId}&accountId=${A}`);
    expect(r.status, r.text).toBe(200);
    return r.body;
  };

  beforeAll(async () => {
    h = await startHarness({ SESSION_IDLE_SEC: '1800', UNANSWERED_CLOSE_SEC: '3600', ALLOWED_LATENESS_SEC: String(LATE_SEC), ALERT_SWEEP_SEC: '0' }, { driven: true });
  }, 120_000);
  afterAll(async () => { await h?.stop(); });

  it('the late reply lands outside the session readers already showed closed', async () => {
    await post('7701', 1, t0, 'received');
    await h.settled();
    const shown = (await chat('7701')).sessions[0];
    expect(shown).toMatchObject({ status: 'closed', closeReason: 'unanswered', closedAt: new Date(t0 + 60 * MIN).toISOString() });
    // Past the lateness since the fan's message arrived, with no tick in between.
    await new Promise((r) => setTimeout(r, LATE_SEC * 1000 + 300));
    await post('7701', 2, t0 + 10 * MIN, 'sent');
    await h.settled();
    const after = await chat('7701');
    expect(after.sessions).toHaveLength(1);
    expect(after.sessions[0]).toEqual(expect.objectContaining({ ...shown }));
    expect(after.messages.find((m) => m.id === '7700002')?.sessionId).toBeNull();
  });

  it('the same reply arriving with the fan\'s message, within the lateness, answers it', async () => {
    await post('7702', 3, t0, 'received');
    await post('7702', 4, t0 + 10 * MIN, 'sent');
    await h.settled();
    const { sessions, messages } = await chat('7702');
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ closeReason: 'idle', firstResponseSec: 600 });
    expect(messages.find((m) => m.id === '7700004')?.sessionId).not.toBeNull();
  });
});
