// A fixed, seeded delivery sequence for fault tests: webhooks for many chats, with 10% of
// deliveries repeated later (platform redelivery), some delivered up to 90 s of record time
// late, and 10% swapped with their neighbour (out-of-order delivery).
import { messageWebhook, transactionWebhook } from '../../src/demo/platform-bodies.js';
import { mulberry32 } from '../../src/demo/random.js';

export interface Delivery {
  readonly key: string;
  readonly body: string;
}

export function faultDeliveries(baseCount = 4600, seed = 7): { deliveries: Delivery[]; duplicated: number; reordered: number } {
  const rand = mulberry32(seed);
  const t0 = Date.parse('2026-06-10T00:00:00Z');
  const base: { at: number; d: Delivery }[] = [];
  const chats = 300;
  for (let i = 0; i < baseCount; i++) {
    const chat = i % chats;
    const account = `acct_00000000000000000000000000000fa${chat % 3}`;
    const fanId = String(700_000_000 + chat);
    const round = Math.floor(i / chats);
    // Rounds 25 minutes apart with jitter: some gaps pass the 30-minute idle timeout, most do not.
    const at = t0 + round * 25 * 60_000 + Math.floor(rand() * 20 * 60_000);
    const iso = new Date(at).toISOString();
    const kind = rand();
    let body: string;
    if (kind < 0.5) body = messageWebhook({ accountId: account, fanId, messageId: String(1_900_000_000_000 + i), createdAt: iso, text: `fan ${i}`, direction: 'received' });
    else if (kind < 0.9) body = messageWebhook({ accountId: account, fanId, messageId: String(1_900_000_000_000 + i), createdAt: iso, text: `reply ${i}`, direction: 'sent', fromQueue: kind > 0.85 });
    // Unique per delivery: padding hex with 'f' made 0xa and 0xfa the same id, one transaction
    // under two fans, which the platform never sends (its ids are unique per account).
    else body = transactionWebhook({ accountId: account, fanId, transactionId: `e${(i + 1).toString(16).padStart(31, '0')}`, createdAt: iso, type: 'tip', amountDollars: 1 + (i % 40) });
    base.push({ at, d: { key: `evt_fault_${i.toString(16).padStart(36, '0')}`, body } });
  }
  base.sort((a, b) => a.at - b.at);
  let reordered = 0;
  // Late deliveries (a platform retry): some records arrive after later ones, up to 90 s of
  // record time behind, inside the allowed lateness; a reply stamped before a fan's next
  // message can arrive after it.
  for (let i = 0; i + 1 < base.length; i++) {
    if (rand() >= 0.05) continue;
    const item = base[i] as { at: number; d: Delivery };
    let j = i;
    while (j + 1 < base.length && (base[j + 1] as { at: number }).at - item.at < 90_000 && j - i < 40) j++;
    if (j === i) continue;
    base.splice(i, 1);
    base.splice(j, 0, item);
    reordered++;
  }
  const deliveries = base.map((b) => b.d);
  for (let i = 0; i + 1 < deliveries.length; i++) {
    if (rand() < 0.13) {
      const a = deliveries[i] as Delivery;
      deliveries[i] = deliveries[i + 1] as Delivery;
      deliveries[i + 1] = a;
      reordered++;
      i++;
    }
  }
  const withDuplicates: Delivery[] = [];
  const pending: { at: number; d: Delivery }[] = [];
  let duplicated = 0;
  deliveries.forEach((d, i) => {
    withDuplicates.push(d);
    if (rand() < 0.125) {
      pending.push({ at: i + 1 + Math.floor(rand() * 50), d });
      duplicated++;
    }
    for (const p of pending.filter((x) => x.at === i)) withDuplicates.push(p.d);
  });
  for (const p of pending.filter((x) => x.at >= deliveries.length)) withDuplicates.push(p.d);
  return { deliveries: withDuplicates, duplicated, reordered };
}
