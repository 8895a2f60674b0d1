// Answers that must come in time: health, readiness and scrapes wait a bounded while for the
// log or the store, then answer with what they know instead of hanging with them.

/** What `p` resolves to, or `fallback` once `ms` have passed (a rejection of `p` still rejects). */
export async function withTimeout<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((res) => { timer = setTimeout(() => res(fallback), ms); });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A ping that answers false when it fails or takes longer than `ms`. */
export const pingWithin = (p: Promise<boolean>, ms: number): Promise<boolean> => withTimeout(p.catch(() => false), ms, false);
