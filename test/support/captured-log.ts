// A logger that keeps its lines for the test to read.
import { Writable } from 'node:stream';
import { pino, type LevelWithSilent } from 'pino';
import type { Logger } from '../../src/support/logger.js';

export interface Line { readonly level: number; readonly msg: string; readonly [k: string]: unknown }

export function capturedLogger(level: LevelWithSilent = 'info'): { logger: Logger; lines: Line[]; warnings: () => Line[] } {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Line);
      done();
    },
  });
  const logger: Logger = pino({ level }, sink);
  return { logger, lines, warnings: () => lines.filter((l) => l.level === 40) };
}
