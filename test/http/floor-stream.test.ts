// The floor's shared stream on a fake clock, with fake screens: one computation a tick serves
// every screen, a snapshot is pushed only when the figures change, a screen that joins gets the
// newest one at once, nobody watching means nothing runs, a slow computation is not stacked,
// heartbeats come and end streams past their lifetime, a reader that falls behind is cut off,
// and a failed computation leaves the screens with what they had.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FloorBroadcaster, type Client } from '../../src/http/routes/floor-stream.js';
import type { FloorAnswers } from '../../src/http/floor-answer.js';
import { createLogger } from '../../src/support/logger.js';

interface Screen extends Client {
  readonly got: string[];
  readonly raw: { destroyed: boolean; writableEnded: boolean; writableLength: number };
}

function screen(address = '10.0.0.1'): Screen {
  const got: string[] = [];
  const raw = {
    destroyed: false, writableEnded: false, writableLength: 0,
    write(text: string) { got.push(text); return true; },
    end() { raw.writableEnded = true; },
    destroy() { raw.destroyed = true; },
  };
  return { reply: { raw } as never, address, openedAt: Date.now(), got, raw };
}

/** The figures of each snapshot a screen got (without the time it was computed). */
const snapshots = (s: Screen) => s.got.filter((t) => t.startsWith('event: snapshot')).map((t) => {
  const { at: _at, ...rest } = JSON.parse(t.slice('event: snapshot\ndata: '.length)) as { at: string; open: number };
  return rest;
});
const heartbeats = (s: Screen) => s.got.filter((t) => t.startsWith('event: heartbeat')).length;

let figures: { open: number };
let computed: number;
let gate: Promise<void> | null;
let failing: boolean;
const floor = {
  async snapshot(_viewer: unknown, now: number) {
    computed++;
    if (gate) await gate;
    if (failing) throw new Error('store down');
    return { at: new Date(now).toISOString(), ...figures };
  },
} as unknown as FloorAnswers;

let hub: FloorBroadcaster;
beforeEach(() => {
  vi.useFakeTimers();
  figures = { open: 1 };
  computed = 0;
  gate = null;
  failing = false;
  hub = new FloorBroadcaster({
    floor, logger: createLogger('silent'), readAuth: 'open', now: () => Date.now(), intervalMs: 1000, heartbeatMs: 15_000,
    maxClients: 500, maxPerAddress: 50, maxStreamMs: 60_000,
  });
});
afterEach(() => {
  hub.closeAll();
  vi.useRealTimers();
});

describe('the floor stream', () => {
  it('computes once a tick for every screen and pushes only what changed', async () => {
    const screens = [screen(), screen(), screen()];
    for (const s of screens) hub.add(s);
    await vi.advanceTimersByTimeAsync(5_500);
    // Ticks at 0, 1, … 5 s: six computations, whatever the number of screens.
    expect(computed).toBe(6);
    for (const s of screens) {
      expect(s.got[0]).toMatch(/^retry: \d+\n\n$/);
      expect(snapshots(s)).toEqual([{ open: 1 }]);
    }
    figures = { open: 2 };
    await vi.advanceTimersByTimeAsync(1_000);
    for (const s of screens) expect(snapshots(s)).toEqual([{ open: 1 }, { open: 2 }]);
  });

  it('a screen that joins gets the newest snapshot at once, without a computation of its own', async () => {
    hub.add(screen());
    await vi.advanceTimersByTimeAsync(1_500);
    const before = computed;
    const late = screen();
    hub.add(late);
    expect(snapshots(late)).toEqual([{ open: 1 }]);
    expect(computed).toBe(before);
  });

  it('nobody watching: nothing runs, and the next screen gets figures computed afresh', async () => {
    const first = screen();
    hub.add(first);
    await vi.advanceTimersByTimeAsync(1_500);
    hub.remove(first);
    const before = computed;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(computed).toBe(before);
    figures = { open: 7 };
    const next = screen();
    hub.add(next);
    expect(snapshots(next)).toEqual([]);
    await vi.advanceTimersByTimeAsync(10);
    expect(snapshots(next)).toEqual([{ open: 7 }]);
    expect(hub.size).toBe(1);
  });

  it('a computation slower than the interval is not stacked: ticks it overlaps are dropped', async () => {
    let release = () => undefined as void;
    gate = new Promise((r) => { release = r; });
    const s = screen();
    hub.add(s);
    await vi.advanceTimersByTimeAsync(4_500);
    expect(computed).toBe(1);
    gate = null;
    release();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(snapshots(s)).toEqual([{ open: 1 }]);
    expect(computed).toBe(2);
  });

  it('heartbeats every 15 s, and a stream past its lifetime ends at one', async () => {
    const s = screen();
    hub.add(s);
    await vi.advanceTimersByTimeAsync(45_500);
    expect(heartbeats(s)).toBe(3);
    expect(s.raw.writableEnded).toBe(false);
    await vi.advanceTimersByTimeAsync(15_000);
    expect(s.raw.writableEnded).toBe(true);
    expect(hub.size).toBe(0);
  });

  it('a reader that leaves too much unread is cut off; the others go on', async () => {
    const slow = screen();
    const fine = screen();
    hub.add(slow);
    hub.add(fine);
    await vi.advanceTimersByTimeAsync(500);
    slow.raw.writableLength = 300 * 1024;
    figures = { open: 3 };
    await vi.advanceTimersByTimeAsync(1_000);
    expect(slow.raw.destroyed).toBe(true);
    expect(hub.size).toBe(1);
    expect(hub.countFrom('10.0.0.1')).toBe(1);
    figures = { open: 4 };
    await vi.advanceTimersByTimeAsync(1_000);
    expect(snapshots(fine).map((x) => x.open)).toEqual([1, 3, 4]);
  });

  it('a failed computation leaves the screens with what they had, and the next one is pushed', async () => {
    const s = screen();
    hub.add(s);
    await vi.advanceTimersByTimeAsync(500);
    failing = true;
    await vi.advanceTimersByTimeAsync(3_000);
    expect(snapshots(s)).toEqual([{ open: 1 }]);
    failing = false;
    figures = { open: 5 };
    await vi.advanceTimersByTimeAsync(1_000);
    expect(snapshots(s)).toEqual([{ open: 1 }, { open: 5 }]);
  });

  it('closing ends every stream and refuses none silently', () => {
    const s = screen();
    hub.add(s);
    hub.closeAll();
    expect(s.raw.writableEnded).toBe(true);
    expect(hub.isClosed).toBe(true);
    expect(hub.size).toBe(0);
  });
});
