// A fake server's endless or trickling answer: for tests of how much a client reads and how
// long it waits.
import type { ServerResponse } from 'node:http';

export interface Streamed {
  /** Bytes written so far. */
  readonly written: () => number;
  /** Resolves with the bytes written once the response is closed (by the client or at the end). */
  readonly closed: Promise<number>;
}

/** Writes `chunk` until `total` bytes are out or the client goes away, one chunk every `everyMs` (0: as fast as the socket drains). */
export function streamBody(res: ServerResponse, chunk: Buffer, total: number, everyMs = 0): Streamed {
  let written = 0;
  let closed = false;
  const done = new Promise<number>((r) => res.on('close', () => { closed = true; r(written); }));
  const pump = () => {
    while (!closed && written < total) {
      written += chunk.length;
      const more = res.write(chunk);
      if (everyMs > 0) return void setTimeout(pump, everyMs);
      if (!more) return void res.once('drain', pump);
    }
    if (!closed) res.end();
  };
  pump();
  return { written: () => written, closed: done };
}
