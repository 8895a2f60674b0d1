// The `shift` attribution model: a payment's credit goes to the chatters clocked in on its account
// when it was paid, shared equally. The cents an equal split cannot divide go one each to the first
// chatters by id, so the shares always add up to the payment. A manager's reassignment overrides
// it, as it overrides every model. Pure: clock spans and payments come read.

export interface CreditSpan {
  readonly accountId: string;
  readonly chatterId: string;
  readonly inAt: number;
  /** When it ended; null: still on. */
  readonly end: number | null;
}

export interface CreditablePayment {
  readonly accountId: string;
  readonly paidAt: number;
  readonly grossCents: number;
  /** A manager's reassignment, if any: the whole payment is theirs. */
  readonly overrideChatterId: string | null;
  /** Credited to nobody whoever was on (a payment that arrived too late to place), unless reassigned. */
  readonly uncredited?: boolean;
}

/** Who gets how many cents of one payment. Empty: nobody was on (the payment is unattributed). */
export type Shares = readonly (readonly [chatterId: string, cents: number])[];

/** `cents` split equally among `chatters` (sorted by id), the indivisible cents to the first. */
export function splitEqually(cents: number, chatters: readonly string[]): Shares {
  const ids = [...new Set(chatters)].sort();
  if (ids.length === 0) return [];
  const base = Math.floor(cents / ids.length);
  const extra = cents - base * ids.length;
  return ids.map((id, i) => [id, base + (i < extra ? 1 : 0)] as const);
}

/**
 * Each payment's shares, in the order given. One sweep per account over its payments and spans in
 * time order, keeping who is on: O((payments + spans) log) rather than every span per payment.
 * A span covers [inAt, end): a payment at the instant a chatter clocked out is not theirs.
 */
export function shiftShares(payments: readonly CreditablePayment[], spans: readonly CreditSpan[]): Shares[] {
  const out: Shares[] = Array.from({ length: payments.length }, () => []);
  const spansOf = new Map<string, CreditSpan[]>();
  for (const s of spans) {
    const list = spansOf.get(s.accountId);
    if (list) list.push(s);
    else spansOf.set(s.accountId, [s]);
  }
  const paymentsOf = new Map<string, number[]>();
  payments.forEach((p, i) => {
    if (p.overrideChatterId !== null) {
      out[i] = [[p.overrideChatterId, p.grossCents]];
      return;
    }
    if (p.uncredited === true) return;
    const list = paymentsOf.get(p.accountId);
    if (list) list.push(i);
    else paymentsOf.set(p.accountId, [i]);
  });
  for (const [accountId, indexes] of paymentsOf) {
    const byStart = [...(spansOf.get(accountId) ?? [])].sort((a, b) => a.inAt - b.inAt);
    const byEnd = [...byStart].sort((a, b) => (a.end ?? Infinity) - (b.end ?? Infinity));
    const at = (i: number): CreditablePayment => payments[i] as CreditablePayment;
    indexes.sort((a, b) => at(a).paidAt - at(b).paidAt);
    const on = new Map<string, number>();
    const add = (id: string, n: number) => {
      const c = (on.get(id) ?? 0) + n;
      if (c === 0) on.delete(id);
      else on.set(id, c);
    };
    let started = 0;
    let ended = 0;
    for (const i of indexes) {
      const t = at(i).paidAt;
      for (; started < byStart.length && (byStart[started] as CreditSpan).inAt <= t; started++) add((byStart[started] as CreditSpan).chatterId, 1);
      // Only spans already started can end here; a span that ends before it starts (none should)
      // is counted out as it is counted in.
      for (; ended < byEnd.length && ((byEnd[ended] as CreditSpan).end ?? Infinity) <= t; ended++) {
        const s = byEnd[ended] as CreditSpan;
        if (s.inAt <= t) add(s.chatterId, -1);
      }
      out[i] = splitEqually(at(i).grossCents, [...on.keys()]);
    }
  }
  return out;
}
