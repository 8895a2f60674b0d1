// The machine's fixture sequences (fixtures/sequences/*.json), read once for every test that
// drives the machine with them. Fixture inputs are terse: messages by default, times in
// seconds after `start`; `at` given outright (a tick's wall-clock time) wins over `atSec`.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatInput } from '../../machines/chat-input.js';
import type { SessionSummary } from '../../machines/session-events.js';

export type FixtureInput = Record<string, unknown> & { type?: string; atSec: number };

export interface Sequence {
  description: string;
  start: string;
  idleSec: number;
  /** Allowed lateness; 300 s when absent. */
  lateSec?: number;
  inputs: FixtureInput[];
  expectedEvents: string[];
  expectedSessions: (Partial<SessionSummary> & { closedAtSec?: number })[];
  expectedPayments?: { paymentId: string; chatterId: string | null; sessionIndex: number | null }[];
}

const dir = join(import.meta.dirname, '../../fixtures/sequences');
export const fixtureFiles: readonly string[] = readdirSync(dir).filter((f) => f.endsWith('.json'));

export function loadSequence(file: string): Sequence {
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as Sequence;
}

export function fixtureInput(i: number, f: FixtureInput, t0: number): ChatInput {
  const { type = 'chat.message', atSec, ...rest } = f;
  const base = { dedupeKey: `evt_${i}`, at: t0 + atSec * 1000 };
  if (type === 'chat.message') return { ...base, type, text: '', priceCents: 0, chatterId: null, ...rest } as ChatInput;
  return { ...base, type, ...rest } as ChatInput;
}
