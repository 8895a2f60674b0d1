// Loads the demo dataset shipped in fixtures/demo, wherever the code runs from (src or dist).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Type } from '@fastify/type-provider-typebox';
import type { DemoRecord } from './demo-records.js';

export interface DemoAccount {
  readonly id: string;
  readonly displayName: string;
}

/** A shipped demo account (fixtures/demo/accounts.json). */
export const DemoAccountSchema = Type.Object({ id: Type.String(), displayName: Type.String() });

function demoDir(): string {
  let dir = import.meta.dirname;
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'fixtures', 'demo');
    if (existsSync(join(candidate, 'records.jsonl'))) return candidate;
    dir = dirname(dir);
  }
  throw new Error('fixtures/demo/records.jsonl not found; run: node --import tsx scripts/generate-demo.ts');
}

export function loadDemoRecords(): DemoRecord[] {
  return readFileSync(join(demoDir(), 'records.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as DemoRecord);
}

export function loadDemoAccounts(): DemoAccount[] {
  return JSON.parse(readFileSync(join(demoDir(), 'accounts.json'), 'utf8')) as DemoAccount[];
}
